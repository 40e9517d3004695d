//! A finished step's result in words for the plan card (issue 51 §3): what it found, as a count
//! and the first names ("Found 2 contacts: Ada Lovelace, Alan Turing"), or its plain fields; ids
//! and the raw data stay behind Details.
use serde_json::Value;

/// Names listed before "and N more".
const NAMES: usize = 5;

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        Value::Null => "none".into(),
        other => other.to_string(),
    }
}

/// `key` as a noun for `n` of them: "contacts" → "contact" for one.
fn noun(key: &str, n: u64) -> String {
    let words = key.replace('_', " ");
    match words.strip_suffix('s') {
        Some(one) if n == 1 => one.to_owned(),
        _ => words,
    }
}

pub fn result_in_words(v: &Value) -> String {
    let Value::Object(m) = v else {
        return match v {
            Value::Array(items) => format!("{} results", items.len()),
            Value::Null => "Done".into(),
            other => scalar(other),
        };
    };
    // A text that waits for the recipient's window says when it will go.
    if let Some(w) = m.get("waits").and_then(Value::as_str) {
        return w.to_owned();
    }
    let listed = m
        .iter()
        .find(|(_, v)| v.as_array().is_some_and(|a| a.iter().all(Value::is_object)));
    if let Some((key, Value::Array(items))) = listed {
        let n = ["count", "total", "matched"]
            .iter()
            .find_map(|k| m.get(*k).and_then(Value::as_u64))
            .unwrap_or(items.len() as u64);
        let names: Vec<&str> = items
            .iter()
            .filter_map(|i| {
                i.get("name")
                    .or_else(|| i.get("title"))
                    .and_then(Value::as_str)
            })
            .take(NAMES)
            .collect();
        let more = (n as usize).saturating_sub(names.len());
        return match (names.is_empty(), more) {
            (true, _) => format!("Found {n} {}", noun(key, n)),
            (false, 0) => format!("Found {n} {}: {}", noun(key, n), names.join(", ")),
            (false, more) => format!(
                "Found {n} {}: {} and {more} more",
                noun(key, n),
                names.join(", ")
            ),
        };
    }
    let parts: Vec<String> = m
        .iter()
        .filter(|(k, v)| {
            !(k.ends_with("id") || k.ends_with("ids") || v.is_object() || v.is_array())
        })
        .take(6)
        .map(|(k, v)| format!("{}: {}", k.replace('_', " "), scalar(v)))
        .collect();
    if parts.is_empty() {
        "Done".into()
    } else {
        parts.join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_read_as_words() {
        let found = json!({"count": 2, "contacts": [
            {"id": "a", "name": "Ada Lovelace", "tags": []},
            {"id": "b", "name": "Alan Turing", "tags": []}]});
        assert_eq!(
            result_in_words(&found),
            "Found 2 contacts: Ada Lovelace, Alan Turing"
        );
        let one = json!({"count": 1, "contacts": [{"name": "Ada"}]});
        assert_eq!(result_in_words(&one), "Found 1 contact: Ada");
        let many = json!({"count": 40, "contacts": (0..5).map(|i| json!({"name": format!("P{i}")})).collect::<Vec<_>>()});
        assert_eq!(
            result_in_words(&many),
            "Found 40 contacts: P0, P1, P2, P3, P4 and 35 more"
        );
        let sent = json!({"contact_id": "x", "phone_number_id": "y", "body": "Hi"});
        assert_eq!(result_in_words(&sent), "body: Hi");
        assert_eq!(
            result_in_words(&json!({"tagged": 3, "done": true})),
            "tagged: 3 · done: yes"
        );
        assert_eq!(result_in_words(&json!({"id": "x"})), "Done");
    }
}
