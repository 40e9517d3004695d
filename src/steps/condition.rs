//! A step's `when` (seed 004's conditions): one reference, alone or compared with a literal.
//! `"{{check.result.count}} > 0"`, `"{{get.result.status}} == 'open'"`, `"{{find.result.contacts}}"`.
//! Parsed when the plan is checked, evaluated once the step's inputs are ready.
use super::reference::{lookup, parse_reference, RefError, Reference};
use serde_json::Value;
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
        }
    }
    /// Whether it orders numbers (and so needs a number on both sides).
    pub fn orders(self) -> bool {
        matches!(self, Op::Gt | Op::Ge | Op::Lt | Op::Le)
    }
}

/// A parsed condition.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub reference: Reference,
    /// The comparison, or none for "there and not empty".
    pub test: Option<(Op, Value)>,
}

#[derive(thiserror::Error, Debug, Clone, PartialEq)]
pub enum ConditionError {
    #[error("`when` must be one reference, alone or compared with a value, e.g. \"{{{{check.result.count}}}} > 0\"; `{0}` is not")]
    Malformed(String),
    #[error("{0}")]
    Reference(#[from] RefError),
    #[error("`{op}` compares numbers, and {value} is not one")]
    NotANumber { op: &'static str, value: String },
}

/// Parses a `when`.
pub fn parse(text: &str) -> Result<Condition, ConditionError> {
    let bad = || ConditionError::Malformed(text.to_owned());
    let t = text.trim();
    let rest = t.strip_prefix("{{").ok_or_else(bad)?;
    let close = rest.find("}}").ok_or_else(bad)?;
    let reference = parse_reference(&rest[..close])?;
    let tail = rest[close + 2..].trim();
    if tail.is_empty() {
        return Ok(Condition {
            reference,
            test: None,
        });
    }
    // Two-character operators first.
    let ops = [
        ("==", Op::Eq),
        ("!=", Op::Ne),
        (">=", Op::Ge),
        ("<=", Op::Le),
        (">", Op::Gt),
        ("<", Op::Lt),
    ];
    let (op, literal) = ops
        .iter()
        .find_map(|(s, op)| tail.strip_prefix(s).map(|l| (*op, l.trim())))
        .ok_or_else(bad)?;
    let value = literal_of(literal).ok_or_else(bad)?;
    if op.orders() && !value.is_number() {
        return Err(ConditionError::NotANumber {
            op: op.text(),
            value: literal.to_owned(),
        });
    }
    Ok(Condition {
        reference,
        test: Some((op, value)),
    })
}

/// A literal: a number, a text in single or double quotes, true, false or null.
fn literal_of(s: &str) -> Option<Value> {
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return (!inner.contains(q)).then(|| Value::String(inner.to_owned()));
        }
    }
    match s {
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        "null" => Some(Value::Null),
        _ => serde_json::from_str::<serde_json::Number>(s)
            .ok()
            .map(Value::Number),
    }
}

/// "There and not empty": not null, false, 0, "" or an empty list or object.
fn present(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

impl Condition {
    /// Whether it holds, with the value it read (for the reason a skipped step gives).
    pub fn holds<'v>(
        &self,
        result_of: &dyn Fn(&str) -> Option<&'v Value>,
    ) -> Result<(bool, Value), ConditionError> {
        let v = lookup(&self.reference, result_of)?;
        let Some((op, want)) = &self.test else {
            return Ok((present(v), v.clone()));
        };
        let holds = match op {
            Op::Eq => same(v, want),
            Op::Ne => !same(v, want),
            _ => {
                let got = v.as_f64().ok_or_else(|| ConditionError::NotANumber {
                    op: op.text(),
                    value: short(v),
                })?;
                let ord = got
                    .partial_cmp(&want.as_f64().unwrap_or(f64::NAN))
                    .unwrap_or(Ordering::Equal);
                match op {
                    Op::Gt => ord == Ordering::Greater,
                    Op::Ge => ord != Ordering::Less,
                    Op::Lt => ord == Ordering::Less,
                    _ => ord != Ordering::Greater,
                }
            }
        };
        Ok((holds, v.clone()))
    }
}

/// Equal as a person means it: numbers by value (1 == 1.0), everything else exactly.
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// A value as a reason quotes it: at most 60 characters.
pub fn short(v: &Value) -> String {
    let text = match v {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    };
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(59).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(when: &str, result: Value) -> bool {
        let c = parse(when).unwrap();
        let of = |s: &str| (s == "x").then_some(&result);
        c.holds(&of).unwrap().0
    }

    #[test]
    fn comparisons_equalities_and_presence() {
        assert!(check("{{x.result.count}} > 0", json!({"count": 3})));
        assert!(!check("{{x.result.count}} > 0", json!({"count": 0})));
        assert!(check("{{x.result.count}}>=3", json!({"count": 3})));
        assert!(check(" {{ x.result.count }} < 3.5 ", json!({"count": 3})));
        assert!(check("{{x.result.count}} <= 3", json!({"count": 3.0})));
        assert!(check(
            "{{x.result.status}} == 'open'",
            json!({"status": "open"})
        ));
        assert!(check(
            "{{x.result.status}} != \"open\"",
            json!({"status": "closed"})
        ));
        assert!(check(
            "{{x.result.opted_out}} == false",
            json!({"opted_out": false})
        ));
        assert!(check("{{x.result.n}} == 1", json!({"n": 1.0})));
        assert!(check("{{x.result.list}}", json!({"list": [1]})));
        assert!(!check("{{x.result.list}}", json!({"list": []})));
        assert!(!check("{{x.result.name}}", json!({"name": ""})));
        assert!(!check("{{x.result.gone}}", json!({"gone": null})));
    }

    #[test]
    fn what_is_not_a_condition_is_refused() {
        for bad in [
            "count > 0",
            "{{x.result.count}} > ",
            "{{x.result.count}} ~ 1",
            "{{x.result.count}} > 0 and more",
            "{{x.result.a}} == {{x.result.b}}",
            "{{x.result.s}} == 'it's'",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(matches!(
            parse("{{x.result.name}} > 'b'"),
            Err(ConditionError::NotANumber { .. })
        ));
        // A value that is not a number, compared as one, is an error when it runs.
        let c = parse("{{x.result.name}} > 1").unwrap();
        let v = json!({"name": "Ada"});
        let of = |_: &str| Some(&v);
        assert!(c.holds(&of).is_err());
    }
}
