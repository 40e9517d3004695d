//! A re-plan's steps against the plan it revises (seed 004): completed steps are frozen (same
//! id, tool and arguments, and their results kept), and a step that is unchanged, down to
//! everything it reads, keeps its person's confirmation; anything new or changed asks again.
use super::graph::Graph;
use super::model::{PlanStep, StepStatus};
use std::collections::HashSet;

/// How many times one plan may be re-planned (revisions 2, 3 and 4).
pub const MAX_REPLANS: i32 = 3;

/// The revision's steps: the planner's steps with the old plan's completed steps frozen in, and
/// confirmations carried where nothing changed. Errors name each step the planner changed that
/// had already completed.
pub fn revise(old: &[PlanStep], planned: &[PlanStep]) -> Result<Vec<PlanStep>, Vec<String>> {
    let same = |a: &PlanStep, b: &PlanStep| a.tool == b.tool && a.arguments == b.arguments;
    let find_old = |id: &str| old.iter().find(|s| s.id == id);
    let mut problems = Vec::new();
    // Frozen steps first, in the old plan's order, whether or not the planner repeated them.
    let mut out: Vec<PlanStep> = old
        .iter()
        .filter(|s| s.status == StepStatus::Completed)
        .cloned()
        .collect();
    for s in planned {
        match find_old(&s.id) {
            Some(o) if o.status == StepStatus::Completed => {
                if !same(o, s) {
                    problems.push(format!(
                        "step `{}` has completed and is frozen: keep its tool and arguments as they were, or give your new step another id",
                        s.id
                    ));
                }
            }
            _ => out.push(s.as_planned()),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    carry_confirmations(old, &mut out);
    Ok(out)
}

/// A step keeps its old confirmation when it and every step it reads (transitively) are as they
/// were: then the arguments it resolves to are the ones the person confirmed, or (a "confirm all
/// remaining") come from the same inputs they agreed to.
fn carry_confirmations(old: &[PlanStep], steps: &mut [PlanStep]) {
    let Ok(graph) = Graph::of(steps) else { return };
    let mut unchanged: HashSet<usize> = HashSet::new();
    for &i in graph.layers.iter().flatten() {
        let s = &steps[i];
        let was = old
            .iter()
            .find(|o| o.id == s.id && o.tool == s.tool && o.arguments == s.arguments);
        let inputs_same = graph.deps[i].iter().all(|d| unchanged.contains(d));
        if let (Some(was), true) = (was, inputs_same) {
            unchanged.insert(i);
            if s.status != StepStatus::Completed {
                steps[i].confirmation = was.confirmation.clone();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::model::StepConfirmation;
    use serde_json::json;

    fn done(id: &str, tool: &str, args: serde_json::Value) -> PlanStep {
        let mut s = PlanStep::new(id, id, tool, args);
        s.status = StepStatus::Completed;
        s.result = Some(json!({"count": 1, "contacts": [{"id": "c1"}]}));
        s.started_at = Some(chrono::Utc::now());
        s
    }

    fn confirmed(mut s: PlanStep, status: StepStatus) -> PlanStep {
        s.status = status;
        s.confirmation = Some(StepConfirmation {
            by: uuid::Uuid::nil(),
            at: chrono::Utc::now(),
            arguments_hash: "*".into(),
        });
        s
    }

    fn old_plan() -> Vec<PlanStep> {
        vec![
            done("find", "find_contacts", json!({"tag": "quote"})),
            confirmed(
                PlanStep::new(
                    "text",
                    "t",
                    "send_sms",
                    json!({"contact_id": "{{find.result.contacts[0].id}}", "body": "Hi"}),
                ),
                StepStatus::Failed,
            ),
            confirmed(
                PlanStep::new(
                    "note",
                    "n",
                    "add_note",
                    json!({"contact_id": "{{find.result.contacts[0].id}}", "note": "{{text.result.message_id}}"}),
                ),
                StepStatus::Blocked,
            ),
            confirmed(
                PlanStep::new(
                    "tag",
                    "g",
                    "tag_contacts",
                    json!({"contacts": "{{find.result.contacts}}", "add": ["x"]}),
                ),
                StepStatus::Blocked,
            ),
        ]
    }

    #[test]
    fn completed_steps_are_frozen_with_their_results() {
        let old = old_plan();
        // The planner leaves `find` out and rewrites the note not to need the text.
        let planned = vec![
            PlanStep::new(
                "note",
                "n",
                "add_note",
                json!({"contact_id": "{{find.result.contacts[0].id}}", "note": "Not texted"}),
            ),
            old[3].as_planned(),
        ];
        let steps = revise(&old, &planned).unwrap();
        assert_eq!(steps[0], old[0], "frozen, result and start kept");
        assert_eq!(steps.len(), 3);
        let note = steps.iter().find(|s| s.id == "note").unwrap();
        assert!(note.confirmation.is_none(), "changed: asks again");
        assert_eq!(note.status, StepStatus::Ready);
        let tag = steps.iter().find(|s| s.id == "tag").unwrap();
        assert!(
            tag.confirmation.is_some(),
            "unchanged, inputs frozen: keeps it"
        );
        assert_eq!(tag.status, StepStatus::Ready, "it runs in the revision");
    }

    #[test]
    fn a_changed_completed_step_is_refused_and_changed_inputs_ask_again() {
        let old = old_plan();
        let mut find = old[0].as_planned();
        find.arguments = json!({"tag": "vip"});
        let err = revise(&old, &[find]).unwrap_err();
        assert!(
            err[0].contains("`find` has completed and is frozen"),
            "{err:?}"
        );
        // The text changed; the note (same arguments) reads it, so it asks again too.
        let mut text = old[1].as_planned();
        text.arguments["body"] = json!("Hello");
        let steps = revise(&old, &[text, old[2].as_planned()]).unwrap();
        assert!(steps
            .iter()
            .all(|s| s.id == "find" || s.confirmation.is_none()));
        // Unchanged all the way down: both keep their confirmations.
        let steps = revise(&old, &[old[1].as_planned(), old[2].as_planned()]).unwrap();
        assert!(steps
            .iter()
            .all(|s| s.confirmation.is_some() || s.id == "find"));
    }
}
