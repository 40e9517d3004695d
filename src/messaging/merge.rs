//! Merge fields in a text: `{{contact.first_name}}`, `{{contact.name}}`, `{{contact.<custom
//! field>}}`, `{{org.name}}` and `{{me.name}}`, each with an optional fallback for an empty value
//! (`{{contact.first_name|there}}`). A field nothing fills and no fallback covers is an error,
//! never braces in a text: `render` refuses it, and the send gate refuses any text that still
//! holds one (`leftover`), whoever wrote it (a person, a saved reply, an agent or a plan).
use std::collections::BTreeMap;

/// What fills the fields for one contact and one sender.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MergeValues {
    pub contact_name: String,
    /// The contact's custom fields, by name.
    pub custom: BTreeMap<String, String>,
    pub org_name: String,
    /// The member sending.
    pub me_name: String,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("Nothing fills {}: give a fallback, as in {{{{{}|there}}}}, or fill it in first.", .0.join(", "), .0[0].trim_matches(['{', '}']))]
    Unfilled(Vec<String>),
    #[error("A merge field is not closed: {0}")]
    Unclosed(String),
    #[error("{0} is not a merge field: use contact.first_name, contact.name, contact.<custom field>, org.name or me.name.")]
    Unknown(String),
}

/// The first word of a name, unless the name is only a phone number (a contact who texted first
/// and was never named).
fn first_name(name: &str) -> String {
    let first = name.split_whitespace().next().unwrap_or_default();
    if first.chars().any(|c| c.is_alphabetic()) {
        first.to_owned()
    } else {
        String::new()
    }
}

impl MergeValues {
    /// A contact's custom fields (a JSON object) as text, by name.
    pub fn custom_fields(fields: &serde_json::Value) -> BTreeMap<String, String> {
        let Some(map) = fields.as_object() else {
            return BTreeMap::new();
        };
        map.iter()
            .map(|(k, v)| {
                let text = match v {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => String::new(),
                    other => other.to_string(),
                };
                (k.clone(), text)
            })
            .collect()
    }

    /// The value of `field` (`contact.first_name` …), empty when there is none.
    fn value(&self, field: &str) -> String {
        match field.split_once('.') {
            Some(("contact", "first_name")) => first_name(&self.contact_name),
            Some(("contact", "name")) if first_name(&self.contact_name).is_empty() => String::new(),
            Some(("contact", "name")) => self.contact_name.clone(),
            Some(("contact", custom)) => self.custom.get(custom).cloned().unwrap_or_default(),
            Some(("org", "name")) => self.org_name.clone(),
            Some(("me", "name")) => self.me_name.clone(),
            _ => String::new(),
        }
    }
}

/// Whether the inside of `{{…}}` names a field or a reference (`word.word…`), not prose that
/// happens to sit in double braces.
fn is_field(inner: &str) -> bool {
    let name = inner.split('|').next().unwrap_or_default().trim();
    let mut parts = name.split('.');
    let head = parts.next().unwrap_or_default();
    let starts = head
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let word = |p: &str| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '[' | ']'))
    };
    starts && word(head) && name.contains('.') && parts.all(word)
}

/// Whether `name` (`contact.first_name` …) is a field `render` knows.
fn known(name: &str) -> bool {
    matches!(
        name.split_once('.'),
        Some(("contact", f)) if !f.is_empty() && !f.contains('.')
    ) || matches!(name, "org.name" | "me.name")
}

/// Checks a saved text: every field closed and one `render` knows.
pub fn check(template: &str) -> Result<(), MergeError> {
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            return Err(MergeError::Unclosed(
                rest[open..].chars().take(40).collect(),
            ));
        };
        let inner = &after[..close];
        let name = inner.split('|').next().unwrap_or_default().trim();
        if is_field(inner) && !known(name) {
            return Err(MergeError::Unknown(format!("{{{{{name}}}}}")));
        }
        rest = &after[close + 2..];
    }
    Ok(())
}

/// The text with every field filled (or its fallback); the fields nothing fills, if any.
pub fn render(template: &str, values: &MergeValues) -> Result<String, MergeError> {
    let mut out = String::with_capacity(template.len());
    let mut unfilled = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            return Err(MergeError::Unclosed(
                rest[open..].chars().take(40).collect(),
            ));
        };
        let inner = &after[..close];
        if is_field(inner) {
            let (name, fallback) = match inner.split_once('|') {
                Some((n, f)) => (n.trim(), Some(f.trim())),
                None => (inner.trim(), None),
            };
            let value = values.value(name);
            match (value.trim().is_empty(), fallback) {
                (false, _) => out.push_str(value.trim()),
                (true, Some(f)) if !f.is_empty() => out.push_str(f),
                _ => unfilled.push(format!("{{{{{name}}}}}")),
            }
        } else {
            out.push_str(&rest[open..open + 2 + close + 2]);
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    if unfilled.is_empty() {
        Ok(out)
    } else {
        unfilled.dedup();
        Err(MergeError::Unfilled(unfilled))
    }
}

/// The first merge field (or plan reference) a text still holds, as written: such a text would
/// reach its contact as braces.
pub fn leftover(body: &str) -> Option<String> {
    let mut rest = body;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        let close = after.find("}}")?;
        if is_field(&after[..close]) {
            return Some(rest[open..open + 2 + close + 2].to_owned());
        }
        rest = &after[close + 2..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ada() -> MergeValues {
        MergeValues {
            contact_name: "Ada Lovelace".into(),
            custom: [("plan".to_owned(), "Gold".to_owned())].into(),
            org_name: "Bright Smiles".into(),
            me_name: "Dana".into(),
        }
    }

    #[test]
    fn fields_fill_and_fallbacks_cover_empty_ones() {
        let t =
            "Hi {{contact.first_name}}, {{ me.name }} at {{org.name}}: your {{contact.plan}} plan.";
        assert_eq!(
            render(t, &ada()).unwrap(),
            "Hi Ada, Dana at Bright Smiles: your Gold plan."
        );
        let unnamed = MergeValues {
            contact_name: "+14155552671".into(),
            ..ada()
        };
        assert_eq!(
            render("Hi {{contact.first_name|there}}!", &unnamed).unwrap(),
            "Hi there!",
            "a phone number is not a name"
        );
        assert_eq!(
            render("{{ contact.name | friend }}", &unnamed).unwrap(),
            "friend"
        );
    }

    #[test]
    fn a_field_nothing_fills_is_refused_by_name() {
        let err = render(
            "Hi {{contact.first_name}}, {{contact.birthday}}",
            &MergeValues::default(),
        )
        .unwrap_err();
        assert_eq!(
            err,
            MergeError::Unfilled(vec![
                "{{contact.first_name}}".into(),
                "{{contact.birthday}}".into()
            ])
        );
        assert!(
            err.to_string().contains("{{contact.first_name|there}}"),
            "{err}"
        );
        assert!(matches!(
            render("Hi {{contact.name", &ada()),
            Err(MergeError::Unclosed(_))
        ));
    }

    #[test]
    fn a_saved_text_names_known_fields_only() {
        assert_eq!(
            check("Hi {{contact.first_name|there}}, {{me.name}} at {{org.name}}: {{contact.plan}}"),
            Ok(())
        );
        assert_eq!(check("Hi {{ this }}"), Ok(()), "prose");
        assert_eq!(
            check("Hi {{org.address}}"),
            Err(MergeError::Unknown("{{org.address}}".into()))
        );
        assert_eq!(
            check("Hi {{find.result.count}}"),
            Err(MergeError::Unknown("{{find.result.count}}".into()))
        );
        assert!(matches!(
            check("Hi {{contact.name"),
            Err(MergeError::Unclosed(_))
        ));
    }

    #[test]
    fn prose_in_braces_is_left_alone_and_leftovers_are_found() {
        assert_eq!(
            render("Use {{ this }} or {{}}", &ada()).unwrap(),
            "Use {{ this }} or {{}}"
        );
        assert_eq!(leftover("Use {{ this }} please"), None);
        assert_eq!(
            leftover("Hi {{contact.first_name|there}}").as_deref(),
            Some("{{contact.first_name|there}}")
        );
        assert_eq!(
            leftover("Ref {{find.result.data[0].phone}}").as_deref(),
            Some("{{find.result.data[0].phone}}")
        );
        assert_eq!(leftover("Hi Ada, all set."), None);
        assert_eq!(leftover("An open {{contact.name"), None);
    }
}
