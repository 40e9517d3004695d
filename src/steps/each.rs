//! `for_each` steps (seed 004's loop): what a step runs over, and its arguments as a template.
//! A step with `for_each` runs its tool once per item. The scheduler sees it as one step whose
//! resolved arguments are `{"for_each": <the items>, "arguments": <the template>}`, so a
//! confirmation is bound to the template and the items together.
use super::model::PlanStep;
use super::reference::{parse_template, resolve_deferring, Reference, Segment, Template, ITEM};
use serde_json::{json, Value};

/// The most items a list from an earlier step may hold; a larger audience is a segment.
pub const LIST_MAX: usize = 20_000;

/// What a `for_each` step runs over.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A list in an earlier step's result.
    List(Reference),
    /// The items another `for_each` step completed, each with that step's result for it.
    Items { step: String },
    /// An audience the server resolves: `{"segment": …}` or `{"filter": …}`.
    Audience(Value),
}

/// The step's source, if it has `for_each`, or why it cannot run over it.
pub fn source_of(step: &PlanStep, steps: &[PlanStep]) -> Result<Option<Source>, String> {
    let Some(v) = &step.for_each else {
        return Ok(None);
    };
    match v {
        Value::String(s) => match parse_template(s).map_err(|e| e.to_string())? {
            Template::Whole(r) if r.is_item() => {
                Err("for_each cannot run over `{{item}}`: name an earlier step's list".into())
            }
            Template::Whole(r) => {
                let each = steps
                    .iter()
                    .find(|s| s.id == r.step)
                    .is_some_and(|s| s.for_each.is_some());
                if each && r.path == [Segment::Key("items".into())] {
                    Ok(Some(Source::Items { step: r.step }))
                } else if each {
                    Err(format!(
                        "for_each over a for_each step takes its items: write {{{{{}.result.items}}}}",
                        r.step
                    ))
                } else {
                    Ok(Some(Source::List(r)))
                }
            }
            _ => Err("for_each takes one whole reference to a list, e.g. {{find.result.contacts}}, or an audience {\"segment\": …}".into()),
        },
        Value::Object(o) if o.contains_key("segment") || o.contains_key("filter") => {
            Ok(Some(Source::Audience(v.clone())))
        }
        _ => Err("for_each takes a reference to a list, e.g. {{find.result.contacts}}, or an audience {\"segment\": \"name\"} / {\"filter\": {…}}".into()),
    }
}

/// A `for_each` step's arguments resolved as far as they go before its items: references to
/// earlier steps filled in, `{{item…}}` (and, over another step's items, that step's result)
/// left for each item; with the items, or what names them.
pub fn resolved_each<'v>(
    step: &PlanStep,
    steps: &[PlanStep],
    result_of: &dyn Fn(&str) -> Option<&'v Value>,
) -> Result<Value, String> {
    let source = source_of(step, steps)?.expect("a for_each step");
    let zipped = match &source {
        Source::Items { step } => Some(step.clone()),
        _ => None,
    };
    let deferred = |s: &str| s == ITEM || zipped.as_deref() == Some(s);
    let template =
        resolve_deferring(&step.arguments, result_of, &deferred).map_err(|e| e.to_string())?;
    let over = match source {
        Source::List(r) => {
            let list = super::reference::lookup(&r, result_of).map_err(|e| e.to_string())?;
            let n = list
                .as_array()
                .map(Vec::len)
                .ok_or_else(|| format!("for_each: {r} is not a list"))?;
            if n > LIST_MAX {
                return Err(format!(
                    "for_each: {r} holds {n} items; more than {LIST_MAX} must be a segment"
                ));
            }
            list.clone()
        }
        Source::Items { step } => {
            let done = result_of(&step)
                .ok_or_else(|| format!("it refers to step `{step}`, which has not run"))?;
            json!({"items_of": step, "completed": done["completed"]})
        }
        Source::Audience(a) => a,
    };
    Ok(json!({"for_each": over, "arguments": template}))
}

/// One item's arguments: the template with `{{item…}}` and (over another step's items) that
/// step's result for this item filled in.
pub fn item_arguments(
    template: &Value,
    item: &Value,
    zipped: Option<(&str, &Value)>,
) -> Result<Value, String> {
    let of = |s: &str| {
        if s == ITEM {
            Some(item)
        } else {
            zipped.filter(|(z, _)| *z == s).map(|(_, r)| r)
        }
    };
    super::reference::resolve(template, &of).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps() -> Vec<PlanStep> {
        vec![
            PlanStep::new("find", "Find", "find_contacts", json!({"tag": "vip"})),
            PlanStep::new(
                "text",
                "Text",
                "send_sms",
                json!({"contact_id": "{{item.id}}", "body": "Hi {{item.name}}"}),
            )
            .each(json!("{{find.result.contacts}}")),
            PlanStep::new(
                "note",
                "Note",
                "add_note",
                json!({"contact_id": "{{item.id}}", "note": "Sent {{text.result.message_id}}"}),
            )
            .each(json!("{{text.result.items}}")),
        ]
    }

    #[test]
    fn sources_are_read_and_bad_ones_refused() {
        let s = steps();
        assert_eq!(source_of(&s[0], &s), Ok(None));
        assert!(matches!(source_of(&s[1], &s), Ok(Some(Source::List(_)))));
        assert_eq!(
            source_of(&s[2], &s),
            Ok(Some(Source::Items {
                step: "text".into()
            }))
        );
        for bad in [
            json!("{{item}}"),
            json!("x {{find.result.contacts}}"),
            json!(5),
            json!({"tag": "x"}),
        ] {
            let step = s[1].clone().each(bad.clone());
            assert!(source_of(&step, &s).is_err(), "{bad}");
        }
        let wrong = s[2].clone().each(json!("{{text.result.count}}"));
        assert!(source_of(&wrong, &s)
            .unwrap_err()
            .contains("text.result.items"));
        let seg = s[1].clone().each(json!({"segment": "VIPs"}));
        assert!(matches!(source_of(&seg, &s), Ok(Some(Source::Audience(_)))));
    }

    #[test]
    fn the_template_waits_for_items_and_each_item_fills_it() {
        let s = steps();
        let found = json!({"contacts": [{"id": "a", "name": "Ana"}, {"id": "b", "name": "Bo"}]});
        let texted = json!({"completed": 2});
        let of = |id: &str| match id {
            "find" => Some(&found),
            "text" => Some(&texted),
            _ => None,
        };
        let r = resolved_each(&s[1], &s, &of).unwrap();
        assert_eq!(r["for_each"].as_array().unwrap().len(), 2);
        assert_eq!(r["arguments"]["body"], "Hi {{item.name}}");
        let one = item_arguments(&r["arguments"], &found["contacts"][1], None).unwrap();
        assert_eq!(
            (one["contact_id"].as_str(), one["body"].as_str()),
            (Some("b"), Some("Hi Bo"))
        );
        let z = resolved_each(&s[2], &s, &of).unwrap();
        assert_eq!(z["for_each"], json!({"items_of": "text", "completed": 2}));
        assert_eq!(z["arguments"]["note"], "Sent {{text.result.message_id}}");
        let sent = json!({"message_id": "m1"});
        let one = item_arguments(
            &z["arguments"],
            &found["contacts"][0],
            Some(("text", &sent)),
        )
        .unwrap();
        assert_eq!(one["note"], "Sent m1");
    }
}
