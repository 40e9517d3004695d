//! References between steps: an argument that is exactly `{{step.result.path}}` becomes the
//! typed JSON found there; one inside a longer string is interpolated as text. Paths index
//! arrays (`data[0].phone`). In a `for_each` step, `{{item.path}}` is the current item. A step
//! that runs `on: failure` may name the failed step's error, `{{step.error}}`.
use serde_json::Value;
use std::fmt;

/// One step of a path into a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// `{{step.result<path>}}`, or `{{step.error}}` (then `error` and no path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub step: String,
    pub path: Vec<Segment>,
    pub error: bool,
}

/// The key under which a lookup finds a failed step's error: `step.error`.
pub fn error_key(step: &str) -> String {
    format!("{step}.error")
}

/// The name a `for_each` step's arguments use for the item they run on: `{{item.id}}`.
pub const ITEM: &str = "item";

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.step == ITEM {
            return write!(f, "{{{{{ITEM}{}}}}}", path_text(&self.path));
        }
        if self.error {
            return write!(f, "{{{{{}.error}}}}", self.step);
        }
        write!(f, "{{{{{}.result{}}}}}", self.step, path_text(&self.path))
    }
}

impl Reference {
    /// Whether it names the current item of a `for_each` step rather than a step's result.
    pub fn is_item(&self) -> bool {
        self.step == ITEM
    }
}

/// The path as written after `result`: `.data[0].phone`.
pub fn path_text(path: &[Segment]) -> String {
    path.iter()
        .map(|s| match s {
            Segment::Key(k) => format!(".{k}"),
            Segment::Index(i) => format!("[{i}]"),
        })
        .collect()
}

#[derive(thiserror::Error, Debug, Clone, PartialEq)]
pub enum RefError {
    #[error("`{0}` is not a reference: write {{{{step_id.result.path}}}}")]
    Malformed(String),
    #[error("it refers to step `{0}`, which has not produced a result")]
    NoResult(String),
    #[error("step `{step}`'s result has nothing at `result{path}`")]
    MissingPath { step: String, path: String },
}

/// A string argument: one whole reference (typed), or text with references inside.
#[derive(Clone, Debug, PartialEq)]
pub enum Template {
    Plain,
    Whole(Reference),
    Parts(Vec<Part>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Text(String),
    Ref(Reference),
}

fn is_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Parses what sits between `{{` and `}}`.
pub fn parse_reference(inner: &str) -> Result<Reference, RefError> {
    let bad = || RefError::Malformed(format!("{{{{{inner}}}}}"));
    let inner = inner.trim();
    if let Some(step) = inner.strip_suffix(".error") {
        if step.is_empty() || step == ITEM || !step.chars().all(is_name) {
            return Err(bad());
        }
        return Ok(Reference {
            step: step.into(),
            path: Vec::new(),
            error: true,
        });
    }
    let item_rest = inner
        .strip_prefix(ITEM)
        .filter(|r| r.is_empty() || r.starts_with('.') || r.starts_with('['));
    let (step, rest) = match item_rest {
        Some(rest) => (ITEM, rest),
        None => inner.split_once(".result").ok_or_else(bad)?,
    };
    if step.is_empty() || !step.chars().all(is_name) {
        return Err(bad());
    }
    let mut path = Vec::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                let mut key = String::new();
                while let Some(&c) = chars.peek().filter(|c| is_name(**c)) {
                    key.push(c);
                    chars.next();
                }
                if key.is_empty() {
                    return Err(bad());
                }
                path.push(Segment::Key(key));
            }
            '[' => {
                let mut digits = String::new();
                while let Some(&c) = chars.peek().filter(|c| c.is_ascii_digit()) {
                    digits.push(c);
                    chars.next();
                }
                if chars.next() != Some(']') {
                    return Err(bad());
                }
                path.push(Segment::Index(digits.parse().map_err(|_| bad())?));
            }
            _ => return Err(bad()),
        }
    }
    Ok(Reference {
        step: step.into(),
        path,
        error: false,
    })
}

/// Reads a string argument's references.
pub fn parse_template(s: &str) -> Result<Template, RefError> {
    if !s.contains("{{") {
        return Ok(Template::Plain);
    }
    let mut parts = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find("{{") {
        if open > 0 {
            parts.push(Part::Text(rest[..open].into()));
        }
        let after = &rest[open + 2..];
        let close = after
            .find("}}")
            .ok_or_else(|| RefError::Malformed(rest[open..].into()))?;
        parts.push(Part::Ref(parse_reference(&after[..close])?));
        rest = &after[close + 2..];
    }
    if !rest.is_empty() {
        parts.push(Part::Text(rest.into()));
    }
    Ok(match parts.as_slice() {
        [Part::Ref(r)] => Template::Whole(r.clone()),
        _ => Template::Parts(parts),
    })
}

/// Every reference in a step's arguments, with the JSON pointer of the string holding it.
pub fn references_in(args: &Value) -> Result<Vec<(String, Reference)>, RefError> {
    fn walk(v: &Value, at: String, out: &mut Vec<(String, Reference)>) -> Result<(), RefError> {
        match v {
            Value::String(s) => match parse_template(s)? {
                Template::Plain => {}
                Template::Whole(r) => out.push((at, r)),
                Template::Parts(parts) => out.extend(parts.into_iter().filter_map(|p| match p {
                    Part::Ref(r) => Some((at.clone(), r)),
                    Part::Text(_) => None,
                })),
            },
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, format!("{at}/{i}"), out)?;
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    let key = k.replace('~', "~0").replace('/', "~1");
                    walk(item, format!("{at}/{key}"), out)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(args, String::new(), &mut out)?;
    Ok(out)
}

/// The value a reference points at, in the results produced so far.
pub fn lookup<'a>(
    r: &Reference,
    result_of: &dyn Fn(&str) -> Option<&'a Value>,
) -> Result<&'a Value, RefError> {
    if r.error {
        return result_of(&error_key(&r.step)).ok_or_else(|| RefError::NoResult(r.step.clone()));
    }
    let mut v = result_of(&r.step).ok_or_else(|| RefError::NoResult(r.step.clone()))?;
    for seg in &r.path {
        let next = match seg {
            Segment::Key(k) => v.get(k.as_str()),
            Segment::Index(i) => v.get(*i),
        };
        v = next.ok_or_else(|| RefError::MissingPath {
            step: r.step.clone(),
            path: path_text(&r.path),
        })?;
    }
    Ok(v)
}

/// The arguments with every reference replaced: whole ones by the typed value, embedded ones
/// by its text (a string as it is, anything else as compact JSON). `{{item…}}` with no item
/// given stays as written: the step's template, resolved once per item when it runs.
pub fn resolve<'v>(
    args: &Value,
    result_of: &dyn Fn(&str) -> Option<&'v Value>,
) -> Result<Value, RefError> {
    let no_item = result_of(ITEM).is_none();
    resolve_deferring(args, result_of, &|step| no_item && step == ITEM)
}

/// As `resolve`, leaving every reference to a `deferred` step as written.
pub fn resolve_deferring<'v>(
    args: &Value,
    result_of: &dyn Fn(&str) -> Option<&'v Value>,
    deferred: &dyn Fn(&str) -> bool,
) -> Result<Value, RefError> {
    Ok(match args {
        Value::String(s) => match parse_template(s)? {
            Template::Plain => args.clone(),
            Template::Whole(r) if deferred(&r.step) => args.clone(),
            Template::Whole(r) => lookup(&r, result_of)?.clone(),
            Template::Parts(parts) => {
                let mut text = String::new();
                for p in parts {
                    match p {
                        Part::Text(t) => text.push_str(&t),
                        Part::Ref(r) if deferred(&r.step) => text.push_str(&r.to_string()),
                        Part::Ref(r) => match lookup(&r, result_of)? {
                            Value::String(s) => text.push_str(s),
                            other => text.push_str(&other.to_string()),
                        },
                    }
                }
                Value::String(text)
            }
        },
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| resolve_deferring(i, result_of, deferred))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), resolve_deferring(v, result_of, deferred)?)))
                .collect::<Result<_, RefError>>()?,
        ),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn results() -> serde_json::Map<String, Value> {
        json!({
            "find": {"data": [{"id": "c1", "phone": "+14155550101", "tags": ["vip"]}], "count": 1},
            "count": 7
        })
        .as_object()
        .unwrap()
        .clone()
    }

    #[test]
    fn a_whole_reference_keeps_its_type_and_indexes_arrays() {
        let r = results();
        let of = |s: &str| r.get(s);
        let args = json!({
            "contacts": "{{find.result.data}}",
            "to": "{{ find.result.data[0].phone }}",
            "n": "{{find.result.count}}",
            "first_tag": "{{find.result.data[0].tags[0]}}",
            "all": "{{count.result}}"
        });
        let out = resolve(&args, &of).unwrap();
        assert_eq!(out["contacts"][0]["id"], "c1");
        assert_eq!(out["to"], "+14155550101");
        assert_eq!(out["n"], 1, "a number stays a number");
        assert_eq!(out["first_tag"], "vip");
        assert_eq!(out["all"], 7);
    }

    #[test]
    fn an_embedded_reference_is_interpolated_as_text() {
        let r = results();
        let of = |s: &str| r.get(s);
        let args =
            json!({"body": "Hi, {{find.result.count}} of you: {{find.result.data[0].phone}}!"});
        let out = resolve(&args, &of).unwrap();
        assert_eq!(out["body"], "Hi, 1 of you: +14155550101!");
        let nested = json!({"list": [{"x": "{{find.result.data[0].id}}"}]});
        assert_eq!(resolve(&nested, &of).unwrap()["list"][0]["x"], "c1");
    }

    #[test]
    fn missing_steps_paths_and_malformed_references_are_errors() {
        let r = results();
        let of = |s: &str| r.get(s);
        assert_eq!(
            resolve(&json!("{{gone.result.x}}"), &of),
            Err(RefError::NoResult("gone".into()))
        );
        assert_eq!(
            resolve(&json!("{{find.result.data[3].phone}}"), &of),
            Err(RefError::MissingPath {
                step: "find".into(),
                path: ".data[3].phone".into()
            })
        );
        for bad in [
            "{{find.data}}",
            "{{find.result.}}",
            "{{find.result[x]}}",
            "{{.result}}",
            "{{find.result",
            "{{a b.result}}",
        ] {
            assert!(
                matches!(parse_template(bad), Err(RefError::Malformed(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn item_references_wait_for_their_item() {
        let r = results();
        let args = json!({"to": "{{item.id}}", "body": "Hi {{item.name}}, from {{count.result}}"});
        let template = resolve(&args, &|s| r.get(s)).unwrap();
        assert_eq!(template["to"], "{{item.id}}");
        assert_eq!(template["body"], "Hi {{item.name}}, from 7");
        let item = json!({"id": "c9", "name": "Ana"});
        let of = |s: &str| if s == ITEM { Some(&item) } else { r.get(s) };
        let one = resolve(&template, &of).unwrap();
        assert_eq!(
            (one["to"].as_str(), one["body"].as_str()),
            (Some("c9"), Some("Hi Ana, from 7"))
        );
        assert!(parse_reference("item").unwrap().is_item());
        assert!(!parse_reference("items.result").unwrap().is_item());
        assert_eq!(
            parse_reference("item[0].x").unwrap().to_string(),
            "{{item[0].x}}"
        );
    }

    #[test]
    fn references_are_found_with_where_they_sit() {
        let args =
            json!({"to": "{{a.result.phone}}", "msg": {"parts": ["x {{b.result}} y"]}, "n": 3});
        let refs = references_in(&args).unwrap();
        let mut found: Vec<(&str, String)> = refs
            .iter()
            .map(|(at, r)| (at.as_str(), r.to_string()))
            .collect();
        found.sort();
        assert_eq!(
            found,
            vec![
                ("/msg/parts/0", "{{b.result}}".to_string()),
                ("/to", "{{a.result.phone}}".to_string())
            ]
        );
    }
}
