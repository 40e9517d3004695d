//! What the document says about the input it takes, beyond what the types derive: patterns,
//! bounds, enums from the server's own constants, and the one rule across fields (a new contact
//! has a name or a phone). `tighten` writes them into the generated document, and the request
//! extractors (`extract`) check every body against the same document, so that what the document
//! allows is what the server takes: a request the schema refuses is a 400 naming the field, and a
//! request it allows is refused only for what it means (404, 409, 422; see `problem`).
//!
//! Patterns are kept to what JSON Schema's regular expressions, Rust's and Python's read alike:
//! ASCII classes, `\uXXXX` escapes, `^…$` around the whole value.
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::LazyLock;

macro_rules! ws {
    // Every character that is white space to someone: Rust's `char::is_whitespace` (what the
    // services trim), ECMAScript's `\s` and Python's `str.isspace`.
    () => {
        r"\t\n\u000b\f\r \u001c-\u001f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
    };
}

/// Any text but U+0000, which neither database stores in text.
pub const TEXT: &str = r"^[^\u0000]*$";
/// Text with at least one character that is not white space.
pub const NOT_BLANK: &str = concat!(r"^[^\u0000]*[^\u0000", ws!(), r"][^\u0000]*$");
/// A phone number as people write them: an optional `+`, then 7 to 15 digits among spaces,
/// dashes, dots and parentheses. Whether the number exists is the server's to say (422).
pub const PHONE: &str = r"^ *\+?(?:[ ().-]*[0-9]){7,15}[ ().-]*$";
/// A phone number, or nothing (empty or spaces).
pub const PHONE_OR_BLANK: &str = r"^ *(?:\+?(?:[ ().-]*[0-9]){7,15}[ ().-]*)?$";
/// An e-mail address (something with an `@`), or nothing.
pub const EMAIL_OR_BLANK: &str = r"^(?: *|[^\u0000@]*@[^\u0000]*)$";
/// An IANA time zone's name, as the tz database writes them (`America/Argentina/Buenos_Aires`,
/// `Etc/GMT+5`, `UTC`), or nothing. Whether Herald's copy of the database has the zone is the
/// server's to say (422): the document does not list the ~600 names, which change with the
/// database (and would make every conformance run try each).
pub const TIME_ZONE: &str = r"^(?:[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+){0,2})?$";
/// Nothing: empty, or white space alone.
pub const BLANK: &str = concat!("^[", ws!(), "]*$");
/// A custom field's name in a filter: letters (Latin ones, accented or not), digits, spaces, `_`
/// and `-`, 1 to 64 of them after leading spaces. (`\p{L}` would say "any letter", but the
/// document's patterns must also be Python's, which has no `\p`.)
pub const FIELD_NAME: &str = concat!(
    r"^ *[A-Za-z0-9_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f-]",
    r"[A-Za-z0-9 _\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f-]{0,63}$"
);
/// An http(s) URL with an ASCII host (a name or an address, as Herald's host names must be; see
/// the README, "First load"), an optional port, and no user name or password in it. Whether the
/// host resolves, and to a public address, is the server's to say (422).
pub const WEBHOOK_URL: &str = concat!(
    r"^[Hh][Tt][Tt][Pp][Ss]?://(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?",
    r"(?:[/?#][^\u0000-\u0020\u007f]*)?$"
);
/// An `Idempotency-Key`: visible ASCII and spaces, not only spaces.
pub const IDEMPOTENCY_KEY: &str = r"^[ -~]*[!-~][ -~]*$";
/// The longest `Idempotency-Key`.
pub const IDEMPOTENCY_KEY_MAX: usize = 255;

/// The refusal of each pattern, in words.
fn pattern_words(pattern: &str) -> &'static str {
    use crate::public_api::cursor;
    match pattern {
        TEXT => "may not contain the character U+0000",
        NOT_BLANK => "needs more than white space (and no U+0000)",
        BLANK => "is not empty",
        PHONE | PHONE_OR_BLANK => {
            "is not written as a phone number (7 to 15 digits, with an optional +, spaces, dashes, dots and parentheses)"
        }
        EMAIL_OR_BLANK => "is not an e-mail address",
        FIELD_NAME => "is not a custom field name (letters, digits, spaces, _ and -, at most 64)",
        TIME_ZONE => "is not written as a time zone's name (such as America/Chicago)",
        WEBHOOK_URL => {
            "is not an http(s) URL with a host (and no user name or password in it)"
        }
        cursor::CONTACT_PATTERN | cursor::AT_PATTERN | cursor::SEQ_PATTERN => {
            "is not a cursor: pass a page's next_cursor as it came"
        }
        _ => "does not have the form the document gives",
    }
}

/// A rule across fields, in words, for a body that breaks it.
fn any_of_words(component: &str) -> Option<&'static str> {
    match component {
        "NewContact" | "ContactPatch" => Some("Give the contact a name or a phone number."),
        _ => None,
    }
}

/// A contact's fields as written (create and update alike).
fn contact_fields() -> Value {
    json!({
        "name": {"pattern": TEXT},
        "phone": {"pattern": PHONE_OR_BLANK},
        "email": {"pattern": EMAIL_OR_BLANK},
        "tags": {"items": {"pattern": TEXT}},
        "custom_fields": {
            "propertyNames": {"pattern": TEXT},
            "additionalProperties": {
                "type": ["string", "number", "boolean", "null"],
                "pattern": TEXT
            }
        },
        "notes": {"pattern": TEXT},
        "time_zone": {"pattern": TIME_ZONE},
    })
}

/// The constraints, by component: merged into the derived schema (objects key by key).
fn components() -> Vec<(&'static str, Value)> {
    use crate::public_api::cursor;
    let days = json!({"minimum": 1, "maximum": 3650});
    let tags = json!({"maxItems": 50, "items": {"pattern": TEXT}});
    vec![
        (
            "NewContact",
            json!({
                "properties": contact_fields(),
                "anyOf": [
                    {"required": ["name"], "properties": {"name": {"type": "string", "pattern": NOT_BLANK}}},
                    {"required": ["phone"], "properties": {"phone": {"type": "string", "pattern": PHONE}}}
                ]
            }),
        ),
        (
            "ContactPatch",
            json!({
                "properties": contact_fields(),
                // Both emptied: the contact would have neither.
                "not": {
                    "required": ["name", "phone"],
                    "properties": {
                        "name": {"type": "string", "pattern": BLANK},
                        "phone": {"type": "string", "pattern": "^ *$"}
                    }
                }
            }),
        ),
        (
            "ConsentWrite",
            json!({"properties": {"note": {"pattern": TEXT}}}),
        ),
        (
            "ContactSearch",
            json!({"properties": {
                "cursor": {"pattern": cursor::CONTACT_PATTERN},
                "limit": {"minimum": 1, "maximum": 200}
            }}),
        ),
        (
            "SearchFilter",
            json!({"properties": {
                "search": {"pattern": TEXT},
                "tags_any": tags, "tags_all": tags, "tags_none": tags,
                "replied_within_days": days, "no_reply_within_days": days,
                "texted_within_days": days, "not_texted_within_days": days,
                "ids": {"maxItems": crate::contacts::filter::IDS_MAX}
            }}),
        ),
        (
            "CustomFieldTest",
            json!({"properties": {"field": {"pattern": FIELD_NAME}, "value": {"pattern": TEXT}}}),
        ),
        (
            "SendMessage",
            json!({"properties": {"body": {
                "pattern": NOT_BLANK,
                "maxLength": crate::messaging::model::MAX_SMS_CHARS
            }}}),
        ),
        (
            "Rejection",
            json!({"properties": {"reason": {"pattern": NOT_BLANK}}}),
        ),
        (
            "StopReason",
            json!({"properties": {"reason": {
                "pattern": TEXT,
                "maxLength": crate::plans::stop::MAX_REASON
            }}}),
        ),
        (
            "NewWebhook",
            json!({"properties": {
                "url": {"pattern": WEBHOOK_URL},
                "events": {"minItems": 1, "items": {"enum": crate::webhooks::EVENTS}}
            }}),
        ),
        (
            "Problem",
            json!({"properties": {"type": {"format": "uri"}}}),
        ),
    ]
}

/// Query, path and header parameters, by operation.
fn parameters() -> Vec<(&'static str, &'static str, Value)> {
    use crate::public_api::cursor;
    let limit = json!({"minimum": 1, "maximum": 200});
    vec![
        ("listContacts", "search", json!({"pattern": TEXT})),
        ("listContacts", "tags", json!({"pattern": TEXT})),
        (
            "listContacts",
            "cursor",
            json!({"pattern": cursor::CONTACT_PATTERN}),
        ),
        ("listContacts", "limit", limit),
        (
            "listConversations",
            "cursor",
            json!({"pattern": cursor::AT_PATTERN}),
        ),
        (
            "listMessages",
            "cursor",
            json!({"pattern": cursor::SEQ_PATTERN}),
        ),
        (
            "listPlans",
            "cursor",
            json!({"pattern": cursor::AT_PATTERN}),
        ),
        (
            "sendMessage",
            "Idempotency-Key",
            json!({"pattern": IDEMPOTENCY_KEY, "minLength": 1, "maxLength": IDEMPOTENCY_KEY_MAX}),
        ),
    ]
}

/// The CSV an import takes.
pub fn csv_schema() -> Value {
    json!({"type": "string", "minLength": 1, "pattern": TEXT})
}

/// Merges `extra` into `into`: objects key by key, anything else replaced.
fn merge(into: &mut Value, extra: Value) {
    match (into, extra) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v,
    }
}

/// Writes the constraints into the generated document, and answers what it could not find (a
/// component, property or parameter renamed without its constraint: a test keeps this empty).
pub fn tighten(doc: &mut Value) -> Vec<String> {
    let mut missing = Vec::new();
    for (name, extra) in components() {
        let Some(schema) = doc.pointer_mut(&format!("/components/schemas/{name}")) else {
            missing.push(name.to_owned());
            continue;
        };
        if let Some(props) = extra.get("properties").and_then(Value::as_object) {
            for p in props.keys() {
                if schema.pointer(&format!("/properties/{p}")).is_none() {
                    missing.push(format!("{name}.{p}"));
                }
            }
        }
        merge(schema, extra);
    }
    let mut params: HashMap<(String, String), Value> = parameters()
        .into_iter()
        .map(|(op, name, extra)| ((op.to_owned(), name.to_owned()), extra))
        .collect();
    let mut import = false;
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut() {
            let Some(item) = item.as_object_mut() else {
                continue;
            };
            for op in item.values_mut() {
                let id = op["operationId"].as_str().unwrap_or_default().to_owned();
                if let Some(list) = op.get_mut("parameters").and_then(Value::as_array_mut) {
                    for p in list {
                        let name = p["name"].as_str().unwrap_or_default().to_owned();
                        if let Some(extra) = params.remove(&(id.clone(), name)) {
                            merge(&mut p["schema"], extra);
                        }
                    }
                }
                if id == "importContacts" {
                    if let Some(s) = op.pointer_mut("/requestBody/content/text~1csv/schema") {
                        *s = csv_schema();
                        import = true;
                    }
                }
                problem_content(op);
            }
        }
    }
    missing.extend(params.keys().map(|(op, name)| format!("{op} {name}")));
    if !import {
        missing.push("importContacts text/csv".into());
    }
    missing
}

/// Errors are problem JSON: every 4XX and 5XX answer's content is `application/problem+json`.
fn problem_content(op: &mut Value) {
    let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
        return;
    };
    for (status, response) in responses.iter_mut() {
        if !(status.starts_with('4') || status.starts_with('5')) {
            continue;
        }
        if let Some(content) = response.get_mut("content").and_then(Value::as_object_mut) {
            if let Some(json) = content.remove("application/json") {
                content.insert(crate::public_api::problem::PROBLEM_JSON.into(), json);
            }
        }
    }
}

/// A validator for each component of the document, with its formats asserted.
static VALIDATORS: LazyLock<HashMap<String, jsonschema::Validator>> = LazyLock::new(|| {
    let doc = crate::public_api::document();
    let components = doc["components"].clone();
    doc["components"]["schemas"]
        .as_object()
        .map(Map::keys)
        .into_iter()
        .flatten()
        .filter_map(|name| {
            let root = json!({
                "$ref": format!("#/components/schemas/{name}"),
                "components": components.clone(),
            });
            let v = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .should_validate_formats(true)
                .build(&root)
                .map_err(
                    |e| tracing::error!(component = %name, error = %e, "a schema does not compile"),
                )
                .ok()?;
            Some((name.clone(), v))
        })
        .collect()
});

/// Where a body breaks its schema, and how, in words: `(JSON Pointer, detail)`.
pub fn check(component: &str, body: &Value) -> Result<(), (String, String)> {
    let Some(v) = VALIDATORS.get(component) else {
        tracing::error!(%component, "no schema to check a body against");
        return Ok(());
    };
    let Some(e) = v.iter_errors(body).next() else {
        return Ok(());
    };
    Err(describe(component, &e))
}

fn describe(component: &str, e: &jsonschema::ValidationError) -> (String, String) {
    use jsonschema::error::ValidationErrorKind as K;
    let at = e.instance_path().as_str().to_owned();
    let field = if at.is_empty() {
        "The body".to_owned()
    } else {
        format!("`{}`", &at[1..])
    };
    match e.kind() {
        K::AnyOf { .. } | K::Not { .. } if at.is_empty() && any_of_words(component).is_some() => {
            (at, any_of_words(component).unwrap_or_default().to_owned())
        }
        K::AnyOf { context } | K::OneOfNotValid { context } => {
            // The deepest reason any branch gives: `{"consent": {"source": "x"}}` is refused
            // for its source, not for being neither null nor a consent.
            match context
                .iter()
                .flatten()
                .max_by_key(|c| c.instance_path().as_str().len())
            {
                Some(inner) if inner.instance_path().as_str().len() > at.len() => {
                    describe(component, inner)
                }
                _ => (at, format!("{field} is not valid: {e}")),
            }
        }
        K::Pattern { pattern } => (at, format!("{field} {}.", pattern_words(pattern))),
        K::PropertyNames { error } => {
            let key = error.instance().as_str().unwrap_or_default().to_owned();
            (
                at,
                format!("{field}: the name {key:?} {}.", pattern_words(TEXT)),
            )
        }
        _ => (at, format!("{field}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_constraint_finds_its_place() {
        let mut doc = crate::public_api::derived_document();
        assert_eq!(super::tighten(&mut doc), Vec::<String>::new());
    }

    #[test]
    fn a_body_is_refused_naming_the_field() {
        use serde_json::json;
        let check = |c: &str, v: serde_json::Value| super::check(c, &v);
        assert!(check("NewContact", json!({"name": "Ada"})).is_ok());
        assert!(check("NewContact", json!({"phone": "(415) 555-2671"})).is_ok());
        let (at, words) = check("NewContact", json!({})).unwrap_err();
        assert_eq!(
            (at.as_str(), words.as_str()),
            ("", "Give the contact a name or a phone number.")
        );
        assert!(check("NewContact", json!({"name": " \u{85}\u{feff}"})).is_err());
        assert!(check("NewContact", json!({"name": "X", "phone": "12"})).is_err());
        assert!(check(
            "NewContact",
            json!({"name": "X", "time_zone": "Mars Olympus"})
        )
        .is_err());
        for zone in chrono_tz::TZ_VARIANTS {
            let c = json!({"name": "X", "time_zone": zone.name()});
            assert!(check("NewContact", c).is_ok(), "{}", zone.name());
        }
        let (at, _) = check(
            "NewContact",
            json!({"name": "X", "consent": {"source": "texted_first"}}),
        )
        .unwrap_err();
        assert_eq!(at, "/consent/source");
        let (at, words) = check(
            "SearchFilter",
            json!({"ids": ["x"], "replied_within_days": 3.0}),
        )
        .unwrap_err();
        assert_eq!(at, "/ids/0", "{words}");
        assert!(check("SearchFilter", json!({"replied_within_days": 307.0})).is_ok());
        assert!(check(
            "SearchFilter",
            json!({"fields": [{"field": "Größe", "op": "present"}]})
        )
        .is_ok());
        assert!(check(
            "SearchFilter",
            json!({"fields": [{"field": "   ", "op": "present"}]})
        )
        .is_err());
        assert!(check(
            "SendMessage",
            json!({"contact_id": uuid::Uuid::nil(), "body": "a\u{0}"})
        )
        .is_err());
        assert!(check(
            "NewWebhook",
            json!({"url": "https://u:p@example.com", "events": ["plan.finished"]})
        )
        .is_err());
        assert!(check(
            "NewWebhook",
            json!({"url": "https://example.com/h?x=1", "events": ["plan.finished"]})
        )
        .is_ok());
        assert!(check(
            "NewWebhook",
            json!({"url": "HTTPS://BÀ.example", "events": ["plan.finished"]})
        )
        .is_err());
        assert!(check("ContactPatch", json!({"name": " ", "phone": ""})).is_err());
        assert!(check("ContactPatch", json!({"name": "", "phone": null})).is_ok());
    }
}
