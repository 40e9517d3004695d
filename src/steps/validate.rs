//! Validation of a step plan against the tools it calls, before the card and after every edit:
//! an unknown tool, arguments that break the tool's schema, a reference to a missing step or to
//! a path the producing tool's output schema lacks, and a cycle. Every problem names its step.
use super::graph::{Graph, GraphError};
use super::model::PlanStep;
use super::reference::{path_text, references_in, Segment, Template};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// What a step may call: the tool's name, whether it changes anything (from the registry, never
/// from the model), and the JSON schemas of its arguments and of its result.
#[derive(Clone, Debug)]
pub struct ToolSpec {
    pub name: String,
    pub mutates: bool,
    pub arguments: Value,
    pub output: Value,
}

/// The tools a plan may use, by name.
pub type ToolCatalog = BTreeMap<String, ToolSpec>;

/// One problem, for the model (as its tool result) and for the card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepIssue {
    /// The step it concerns; empty for the plan as a whole.
    pub step: String,
    pub message: String,
}

impl std::fmt::Display for StepIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.step.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "step `{}`: {}", self.step, self.message)
        }
    }
}

fn issue(step: &str, message: impl Into<String>) -> StepIssue {
    StepIssue {
        step: step.into(),
        message: message.into(),
    }
}

fn graph_issue(e: GraphError) -> StepIssue {
    let step = match &e {
        GraphError::DuplicateId(s)
        | GraphError::SelfReference(s)
        | GraphError::BadReference { step: s, .. }
        | GraphError::MissingStep { step: s, .. } => s.clone(),
        GraphError::EmptyId | GraphError::Cycle(_) => String::new(),
    };
    let message = match e {
        GraphError::BadReference { error, .. } => error.to_string(),
        GraphError::MissingStep { missing, .. } => {
            format!("it refers to `{missing}`, which is not a step of this plan")
        }
        other => other.to_string(),
    };
    issue(&step, message)
}

/// Every problem with the plan; empty when it may be shown as approvable.
pub fn validate(steps: &[PlanStep], tools: &ToolCatalog) -> Vec<StepIssue> {
    if steps.is_empty() {
        return vec![issue("", "a plan needs at least one step")];
    }
    let mut issues: Vec<StepIssue> = match Graph::of(steps) {
        Ok(_) => Vec::new(),
        Err(errors) => errors.into_iter().map(graph_issue).collect(),
    };
    let by_id: BTreeMap<&str, &PlanStep> = steps.iter().map(|s| (s.id.as_str(), s)).collect();
    for step in steps {
        let Some(spec) = tools.get(&step.tool) else {
            let known: Vec<&str> = tools.keys().map(String::as_str).collect();
            issues.push(issue(
                &step.id,
                format!(
                    "`{}` is not a tool you can use here; the tools are: {}",
                    step.tool,
                    known.join(", ")
                ),
            ));
            continue;
        };
        issues.extend(check_step(step, spec, &by_id, tools));
    }
    issues
}

/// The step's arguments against its tool's schema, with each reference checked against the
/// producing tool's output schema and for a type the argument accepts.
fn check_step(
    step: &PlanStep,
    spec: &ToolSpec,
    by_id: &BTreeMap<&str, &PlanStep>,
    tools: &ToolCatalog,
) -> Vec<StepIssue> {
    let mut out = Vec::new();
    if step.id == super::reference::ITEM {
        out.push(issue(
            &step.id,
            "`item` names a for_each step's item; give the step another id",
        ));
    }
    let steps: Vec<PlanStep> = by_id.values().map(|s| (*s).clone()).collect();
    let zipped = match super::each::source_of(step, &steps) {
        Ok(Some(super::each::Source::Items { step })) => Some(step),
        Ok(_) => None,
        Err(e) => {
            out.push(issue(&step.id, e));
            None
        }
    };
    let summary = each_output();
    // Where references sit: a schema check there waits for the resolved value.
    let mut pending: Vec<String> = Vec::new();
    out.extend(check_outcome_and_condition(step, by_id, tools));
    for (at, r) in references_in(&step.arguments).unwrap_or_default() {
        pending.push(at.clone());
        if r.error {
            continue; // its place is checked with the step's `on`
        }
        if r.is_item() {
            if step.for_each.is_none() {
                out.push(issue(
                    &step.id,
                    format!("{r} names an item, but the step has no for_each"),
                ));
            }
            continue;
        }
        let Some(producer) = by_id.get(r.step.as_str()) else {
            continue; // the graph check names it
        };
        let Some(pspec) = tools.get(&producer.tool) else {
            continue;
        };
        // A for_each step answers its totals; over its items, each item's own result.
        let output = if producer.for_each.is_some() && zipped.as_deref() != Some(&r.step) {
            &summary
        } else {
            &pspec.output
        };
        let Some(produced) = schema_at(output, output, &r.path) else {
            out.push(issue(
                &step.id,
                format!(
                    "{r}: `{}` results have no `result{}`",
                    producer.tool,
                    path_text(&r.path)
                ),
            ));
            continue;
        };
        if is_whole(&step.arguments, &at) {
            let wanted = pointer_schema(&spec.arguments, &at);
            if let (Some(want), Some(got)) = (wanted.and_then(types), types(produced)) {
                if !compatible(&want, &got) {
                    out.push(issue(
                        &step.id,
                        format!(
                            "argument `{}` takes {} but {r} is {}",
                            at.trim_start_matches('/'),
                            want.join(" or "),
                            got.join(" or ")
                        ),
                    ));
                }
            }
        }
    }
    match jsonschema::validator_for(&spec.arguments) {
        Ok(validator) => {
            for e in validator.iter_errors(&step.arguments) {
                let at = e.instance_path().as_str().to_owned();
                if pending
                    .iter()
                    .any(|p| at == *p || at.starts_with(&format!("{p}/")))
                {
                    continue;
                }
                let place = if at.is_empty() {
                    "arguments".to_owned()
                } else {
                    format!("argument `{}`", at.trim_start_matches('/'))
                };
                out.push(issue(&step.id, format!("{place}: {e}")));
            }
        }
        Err(e) => out.push(issue(&step.id, format!("the tool's schema is broken: {e}"))),
    }
    out
}

/// A step's `on: failure` and its `when`: a failure handler reads exactly one step and only its
/// error; an error is named only by a failure handler; a condition parses, names a result the
/// producing tool gives, and compares it as its type allows.
fn check_outcome_and_condition(
    step: &PlanStep,
    by_id: &BTreeMap<&str, &PlanStep>,
    tools: &ToolCatalog,
) -> Vec<StepIssue> {
    use super::condition::parse;
    let mut out = Vec::new();
    let refs = super::graph::step_references(step).unwrap_or_default();
    let read: std::collections::BTreeSet<&str> = refs
        .iter()
        .filter(|(_, r)| !r.is_item())
        .map(|(_, r)| r.step.as_str())
        .collect();
    if step.on == Some(super::model::StepOn::Failure) {
        if read.len() != 1 {
            out.push(issue(
                &step.id,
                format!(
                    "an `on: failure` step reads exactly one step, the one whose failure it handles (with {{{{step.error}}}}); it reads {}",
                    read.len()
                ),
            ));
        }
        for (_, r) in refs.iter().filter(|(_, r)| !r.error && !r.is_item()) {
            out.push(issue(
                &step.id,
                format!(
                    "{r}: it runs only if `{}` fails, when there is no result; name {{{{{}.error}}}}",
                    r.step, r.step
                ),
            ));
        }
    } else if let Some((_, r)) = refs.iter().find(|(_, r)| r.error) {
        out.push(issue(
            &step.id,
            format!("{r} names a failed step's error; only a step with `on: failure` runs after a failure"),
        ));
    }
    let Some(when) = step.when.as_deref() else {
        return out;
    };
    let c = match parse(when) {
        Ok(c) => c,
        Err(e) => {
            out.push(issue(&step.id, format!("when: {e}")));
            return out;
        }
    };
    if c.reference.is_item() || c.reference.error {
        out.push(issue(
            &step.id,
            format!("when: {} names no step's result", c.reference),
        ));
        return out;
    }
    let Some(pspec) = by_id
        .get(c.reference.step.as_str())
        .and_then(|p| tools.get(&p.tool).map(|t| (p, t)))
    else {
        return out; // the graph check names a missing step
    };
    let output = if pspec.0.for_each.is_some() {
        each_output()
    } else {
        pspec.1.output.clone()
    };
    let Some(produced) = schema_at(&output, &output, &c.reference.path) else {
        out.push(issue(
            &step.id,
            format!(
                "when: `{}` results have no `result{}`",
                pspec.0.tool,
                path_text(&c.reference.path)
            ),
        ));
        return out;
    };
    if let (Some((op, value)), Some(got)) = (&c.test, types(produced)) {
        let number = got.iter().any(|t| t == "number" || t == "integer");
        let want = match value {
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Bool(_) => "boolean",
            _ => "",
        };
        let fits = if op.orders() {
            number
        } else {
            want.is_empty() || got.iter().any(|t| t == want) || (want == "number" && number)
        };
        if !fits {
            out.push(issue(
                &step.id,
                format!(
                    "when: {} is {}, which cannot be compared with {value}",
                    c.reference,
                    got.join(" or ")
                ),
            ));
        }
    }
    out
}

/// What a `for_each` step answers once its items are done: its totals.
pub fn each_output() -> Value {
    serde_json::json!({"type": "object", "properties": {
        "total": {"type": "integer"}, "completed": {"type": "integer"},
        "failed": {"type": "integer"}, "blocked": {"type": "integer"},
        "reasons": {"type": "array", "items": {"type": "object", "properties": {
            "reason": {"type": "string"}, "count": {"type": "integer"}}}},
        "line": {"type": "string"}
    }})
}

/// The resolved arguments of a step about to run, against its tool's schema.
pub fn check_resolved(spec: &ToolSpec, resolved: &Value) -> Result<(), String> {
    let validator = jsonschema::validator_for(&spec.arguments).map_err(|e| e.to_string())?;
    let errors: Vec<String> = validator
        .iter_errors(resolved)
        .map(|e| {
            let at = e
                .instance_path()
                .as_str()
                .trim_start_matches('/')
                .to_owned();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("{at}: {e}")
            }
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

fn is_whole(args: &Value, at: &str) -> bool {
    args.pointer(at)
        .and_then(Value::as_str)
        .and_then(|s| super::reference::parse_template(s).ok())
        .is_some_and(|t| matches!(t, Template::Whole(_)))
}

/// Follows `$ref` (within the document) and picks the non-null branch of an optional.
fn deref<'a>(root: &'a Value, mut s: &'a Value) -> &'a Value {
    for _ in 0..16 {
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            match r.strip_prefix('#').and_then(|p| root.pointer(p)) {
                Some(t) => s = t,
                None => return s,
            }
        } else if let Some(branches) = s
            .get("anyOf")
            .or_else(|| s.get("oneOf"))
            .and_then(Value::as_array)
        {
            match branches
                .iter()
                .find(|b| b.get("type").and_then(Value::as_str) != Some("null"))
            {
                Some(b) => s = b,
                None => return s,
            }
        } else {
            return s;
        }
    }
    s
}

/// The schema of what sits at `path` in a value of `schema`, if the schema has it.
fn schema_at<'a>(root: &'a Value, schema: &'a Value, path: &[Segment]) -> Option<&'a Value> {
    let mut s = deref(root, schema);
    for seg in path {
        s = match seg {
            Segment::Key(k) => s
                .get("properties")
                .and_then(|p| p.get(k.as_str()))
                .or_else(|| s.get("additionalProperties").filter(|a| a.is_object()))?,
            Segment::Index(_) => s.get("items").filter(|i| i.is_object())?,
        };
        s = deref(root, s);
    }
    Some(s)
}

/// The schema of the argument at a JSON pointer into the arguments.
fn pointer_schema<'a>(schema: &'a Value, at: &str) -> Option<&'a Value> {
    let path: Vec<Segment> = at
        .split('/')
        .skip(1)
        .map(|p| match p.parse::<usize>() {
            Ok(i) => Segment::Index(i),
            Err(_) => Segment::Key(p.replace("~1", "/").replace("~0", "~")),
        })
        .collect();
    schema_at(schema, schema, &path)
}

fn types(schema: &Value) -> Option<Vec<String>> {
    let t = schema.get("type")?;
    let list: Vec<String> = match t {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => return None,
    };
    Some(list.into_iter().filter(|t| t != "null").collect())
}

fn compatible(want: &[String], got: &[String]) -> bool {
    got.iter().any(|g| {
        want.iter()
            .any(|w| w == g || (w == "number" && g == "integer"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn catalog() -> ToolCatalog {
        let mut c = ToolCatalog::new();
        c.insert(
            "find_contacts".into(),
            ToolSpec {
                name: "find_contacts".into(),
                mutates: false,
                arguments: json!({"type": "object", "properties": {"tag": {"type": "string"}}, "additionalProperties": false}),
                output: json!({"type": "object", "properties": {
                    "count": {"type": "integer"},
                    "contacts": {"type": "array", "items": {"$ref": "#/$defs/Contact"}}
                }, "$defs": {"Contact": {"type": "object", "properties": {
                    "id": {"type": "string"}, "phone": {"type": ["string", "null"]}
                }}}}),
            },
        );
        c.insert(
            "send_sms".into(),
            ToolSpec {
                name: "send_sms".into(),
                mutates: true,
                arguments: json!({"type": "object", "required": ["contact_id", "body"], "properties": {
                    "contact_id": {"type": "string", "format": "uuid"},
                    "body": {"type": "string", "minLength": 1}
                }}),
                output: json!({"type": "object", "properties": {"sid": {"type": "string"}}}),
            },
        );
        c
    }

    fn step(id: &str, tool: &str, args: Value) -> PlanStep {
        PlanStep::new(id, id, tool, args)
    }

    #[test]
    fn conditions_and_failure_handlers_are_checked() {
        use crate::steps::model::StepOn;
        let find = step("find", "find_contacts", json!({"tag": "vip"}));
        let mut text = step(
            "text",
            "send_sms",
            json!({"contact_id": "{{find.result.contacts[0].id}}", "body": "Hi"}),
        );
        text.when = Some("{{find.result.count}} > 0".into());
        let mut note = step(
            "note",
            "send_sms",
            json!({"contact_id": "00000000-0000-0000-0000-000000000000", "body": "Could not: {{text.error}}"}),
        );
        note.on = Some(StepOn::Failure);
        let good = vec![find.clone(), text.clone(), note.clone()];
        assert_eq!(validate(&good, &catalog()), vec![]);

        let messages = |plan: Vec<PlanStep>| -> Vec<String> {
            validate(&plan, &catalog())
                .into_iter()
                .map(|i| i.message)
                .collect()
        };
        // A condition on a result the tool does not give, or compared as the wrong type.
        let mut bad = text.clone();
        bad.when = Some("{{find.result.total}} > 0".into());
        let m = messages(vec![find.clone(), bad]);
        assert!(
            m[0].contains("when: `find_contacts` results have no `result.total`"),
            "{m:?}"
        );
        let mut bad = text.clone();
        bad.when = Some("{{find.result.count}} == 'many'".into());
        let m = messages(vec![find.clone(), bad]);
        assert!(m[0].contains("cannot be compared with \"many\""), "{m:?}");
        let mut bad = text.clone();
        bad.when = Some("count > 0".into());
        assert!(
            messages(vec![find.clone(), bad])[0].starts_with("when: `when` must be one reference")
        );
        // A failure handler reads one step's error, and only a failure handler reads an error.
        let mut reads_result = note.clone();
        reads_result.arguments["body"] = json!("{{text.result.sid}}");
        let m = messages(vec![find.clone(), text.clone(), reads_result]);
        assert!(m.iter().any(|m| m.contains("name {{text.error}}")), "{m:?}");
        let mut not_a_handler = note.clone();
        not_a_handler.on = None;
        let m = messages(vec![find.clone(), text.clone(), not_a_handler]);
        assert!(
            m.iter()
                .any(|m| m.contains("only a step with `on: failure`")),
            "{m:?}"
        );
        let mut two = note.clone();
        two.arguments["body"] = json!("{{text.error}} {{find.error}}");
        let m = messages(vec![find, text, two]);
        assert!(
            m.iter().any(|m| m.contains("reads exactly one step")),
            "{m:?}"
        );
    }

    #[test]
    fn a_good_plan_with_references_has_no_issues() {
        let plan = vec![
            step("find", "find_contacts", json!({"tag": "vip"})),
            step(
                "text",
                "send_sms",
                json!({
                    "contact_id": "{{find.result.contacts[0].id}}",
                    "body": "Hi {{find.result.contacts[0].phone}}, checking in"
                }),
            ),
        ];
        assert_eq!(validate(&plan, &catalog()), vec![]);
    }

    #[test]
    fn every_kind_of_problem_is_named_per_step() {
        let plan = vec![
            step("find", "find_contacts", json!({"tag": 5, "extra": true})),
            step("zap", "delete_everything", json!({})),
            step(
                "text",
                "send_sms",
                json!({"contact_id": "{{find.result.contacts[0].email}}"}),
            ),
            step(
                "count",
                "send_sms",
                json!({"contact_id": "{{find.result.count}}", "body": "x"}),
            ),
            step(
                "ghost",
                "send_sms",
                json!({"contact_id": "{{nobody.result.id}}", "body": "x"}),
            ),
            step(
                "a",
                "send_sms",
                json!({"contact_id": "{{b.result.sid}}", "body": "x"}),
            ),
            step(
                "b",
                "send_sms",
                json!({"contact_id": "{{a.result.sid}}", "body": "x"}),
            ),
        ];
        let issues = validate(&plan, &catalog());
        let text: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
        let has = |step: &str, needle: &str| {
            assert!(
                issues
                    .iter()
                    .any(|i| i.step == step && i.message.contains(needle)),
                "no `{needle}` for `{step}` in {text:#?}"
            )
        };
        has("find", "argument `tag`");
        has("find", "extra");
        has("zap", "`delete_everything` is not a tool");
        has("text", "have no `result.contacts[0].email`");
        has("text", "body");
        has("count", "takes string but {{find.result.count}} is integer");
        has("ghost", "`nobody`, which is not a step");
        has("", "cycle");
    }

    #[test]
    fn resolved_arguments_are_checked_before_a_step_runs() {
        let c = catalog();
        let spec = &c["send_sms"];
        assert!(check_resolved(spec, &json!({"contact_id": "x", "body": "hi"})).is_ok());
        let err = check_resolved(spec, &json!({"contact_id": "x", "body": ""})).unwrap_err();
        assert!(err.contains("body"), "{err}");
    }
}
