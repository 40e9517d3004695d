//! Editing a write step before confirming it (issue 29 §2). A person changes some of a waiting
//! step's arguments (a text's body, a tag, a note) as they read them: the edit is taken as
//! written (no references), checked against the tool's schema, simulated again (a text to an
//! opted-out contact is refused here, not when it runs), re-hashed, and audited with the values
//! before and after. It is a decision like a confirmation: the runner reads it from the audit
//! and applies it to the step before anything else, so a confirmation bound to the old
//! arguments no longer matches. The plan's thread is told, and the edit is a learning signal.
use super::run::{arguments_hash, takes_decisions, tool_ctx, CONFIRMED};
use crate::ai_agent::learning::signals;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::plans::entity::plan;
use crate::plans::model::{texts_people, PlanAction, PlanView, SCHEDULE_TOOL, SEND_TOOL};
use crate::plans::service::{record, view};
use crate::platform::AppState;
use crate::steps::catalog::step_catalog;
use crate::steps::model::{PlanStep, StepStatus};
use crate::steps::schedule::resolved_arguments;
use crate::steps::validate::check_resolved;
use sea_orm::EntityTrait;
use serde_json::{json, Map, Value};
use uuid::Uuid;

/// The audit kind of an edit (the audit's `kind` holds 16 characters).
pub const EDITED: &str = "step_edited";
/// The longest value a person may type into one argument, in characters.
pub const MAX_VALUE: usize = 2000;

/// A person's edit of one step, from the audit: the fields they changed.
pub struct Edit {
    pub step: String,
    pub changes: Map<String, Value>,
}

/// Applies edits to the steps they name that have not started: the changed fields replace the
/// planned ones (references included). Answers whether anything changed.
pub fn apply_edits(steps: &mut [PlanStep], edits: &[Edit]) -> bool {
    let mut changed = false;
    for e in edits {
        let Some(s) = steps.iter_mut().find(|s| {
            s.id == e.step
                && s.started_at.is_none()
                && matches!(
                    s.status,
                    StepStatus::Ready | StepStatus::AwaitingConfirmation
                )
        }) else {
            continue;
        };
        let Some(args) = s.arguments.as_object_mut() else {
            continue;
        };
        for (k, v) in &e.changes {
            if args.get(k) != Some(v) {
                args.insert(k.clone(), v.clone());
                changed = true;
            }
        }
    }
    changed
}

/// Whether a value holds a reference to another step's result.
fn has_reference(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains("{{"),
        Value::Array(l) => l.iter().any(has_reference),
        Value::Object(o) => o.values().any(has_reference),
        _ => false,
    }
}

/// Checks what a person typed: fields the tool takes, plain values of a sensible length.
fn check_changes(
    step: &PlanStep,
    schema: &Value,
    changes: &Value,
) -> AppResult<Map<String, Value>> {
    let Some(changes) = changes.as_object().filter(|c| !c.is_empty()) else {
        return Err(AppError::Validation(
            "Say which of the step's arguments change, and to what.".into(),
        ));
    };
    for (k, v) in changes {
        if schema["properties"].get(k).is_none() {
            return Err(AppError::Validation(format!(
                "`{}` takes no argument `{k}`.",
                step.tool
            )));
        }
        if has_reference(v) {
            return Err(AppError::Validation(format!(
                "`{k}`: an edit is taken as written and cannot refer to another step ({{{{…}}}})."
            )));
        }
        if v.to_string().chars().count() > MAX_VALUE {
            return Err(AppError::Validation(format!(
                "`{k}` is longer than {MAX_VALUE} characters."
            )));
        }
    }
    Ok(changes.clone())
}

/// One line of what changed, for the audit and the thread: `body "…" (was "…")`.
fn describe(before: &Value, changes: &Map<String, Value>) -> String {
    let show = |v: &Value| match v {
        Value::String(s) => format!("\"{s}\""),
        Value::Null => "nothing".into(),
        other => other.to_string(),
    };
    changes
        .iter()
        .map(|(k, v)| format!("{k} {} (was {})", show(v), show(&before[k])))
        .collect::<Vec<_>>()
        .join(", ")
}

pub async fn edit(
    state: &AppState,
    m: &Member,
    plan_id: Uuid,
    step_id: &str,
    changes: &Value,
    confirm: bool,
) -> AppResult<PlanView> {
    let p = crate::plans::access::find_visible(state, m, plan_id).await?;
    let PlanAction::Steps { mut steps, .. } = super::store::action(&state.db, &p).await? else {
        return Err(AppError::Conflict("This plan has no steps.".into()));
    };
    if !takes_decisions(p.status) {
        return Err(AppError::Conflict(format!(
            "This plan is {}; its steps cannot be edited.",
            p.status.as_str().replace('_', " ")
        )));
    }
    let i = steps
        .iter()
        .position(|s| s.id == step_id)
        .ok_or_else(|| AppError::NotFound(format!("Step `{step_id}` in this plan")))?;
    let step = steps[i].clone();
    if step.status != StepStatus::AwaitingConfirmation {
        return Err(AppError::Conflict(format!(
            "Step `{step_id}` is not waiting for confirmation; only a waiting step is edited."
        )));
    }
    if step.for_each.is_some() {
        return Err(AppError::Conflict(format!(
            "Step `{step_id}` runs once per item; re-plan it to change what it does."
        )));
    }
    // Editing a text is part of confirming it: an owner's call.
    if texts_people(&step.tool) {
        m.require_owner()?;
    }
    let tools = state.tools().for_steps();
    let catalog = step_catalog(&tools);
    let spec = catalog
        .get(&step.tool)
        .ok_or_else(|| AppError::Internal(format!("`{}` is not a step tool", step.tool)))?;
    let changes = check_changes(&step, &spec.arguments, changes)?;
    let before = resolved_arguments(&steps, i).map_err(AppError::Conflict)?;
    let mut after = before.clone();
    for (k, v) in &changes {
        after[k] = v.clone();
    }
    if after == before {
        return Err(AppError::Validation(
            "Nothing changed: the step already has those arguments.".into(),
        ));
    }
    check_resolved(spec, &after)
        .map_err(|e| AppError::Validation(format!("Step `{step_id}` as edited: {e}")))?;
    let tool = tools
        .iter()
        .find(|t| t.def().name == step.tool)
        .ok_or_else(|| AppError::Internal(format!("`{}` is not a step tool", step.tool)))?;
    let preview = tool
        .simulate(&tool_ctx(state, &p).await?, after.clone())
        .await
        .map_err(|e| AppError::Validation(format!("Step `{step_id}` as edited would fail: {e}")))?;
    let hash = arguments_hash(&after);
    let what = describe(&before, &changes);
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let was: Map<String, Value> = changes
        .keys()
        .map(|k| (k.clone(), before[k].clone()))
        .collect();
    record(
        &txn,
        now,
        plan_id,
        EDITED,
        Some(m.user_id),
        None,
        None,
        Some(what.clone()),
        Some(Value::Object(was)),
        Some(json!({"step": step_id, "arguments": changes, "hash": hash})),
    )
    .await?;
    if confirm {
        record(
            &txn,
            now,
            plan_id,
            CONFIRMED,
            Some(m.user_id),
            None,
            None,
            None,
            None,
            Some(json!({"step": step_id, "hash": hash})),
        )
        .await?;
    }
    // No runner holds the plan (it waits on people): the card shows the edit at once. A runner
    // that holds it applies the edit from the audit before it saves again.
    apply_edits(
        &mut steps,
        &[Edit {
            step: step_id.to_owned(),
            changes: changes.clone(),
        }],
    );
    crate::plans::pause::write_steps_if_unheld(&txn, plan_id, &steps[i..=i], now).await?;
    crate::plans::pause::wake(&txn, plan_id).await?;
    txn.commit().await?;
    learn(state, m, &p, &step, &before, &changes).await?;
    let who = crate::auth::entity::user::Entity::find_by_id(m.user_id)
        .one(&state.db)
        .await?
        .map(|u| u.name)
        .unwrap_or_else(|| "a person".into());
    tracing::info!(plan = %plan_id, step = step_id, confirm, "step edited");
    crate::plans::announce::progress(
        state,
        &p,
        format!("step-edited:{plan_id}:{step_id}:{hash}"),
        format!(
            "{who} edited step `{step_id}` of your plan \"{}\" before {}: {what}. It runs as \
             edited; keep to this in later plans.",
            p.title,
            if confirm { "confirming it" } else { "it runs" }
        ),
    )
    .await;
    tracing::debug!(plan = %plan_id, preview = %preview, "edited step simulated");
    crate::plans::executor::spawn_execution(state, plan_id);
    view(
        state,
        crate::plans::access::find_visible(state, m, plan_id).await?,
    )
    .await
}

/// The edit as a learning signal: a text's new words as a draft edit (the "keep texts short"
/// lesson reads those), anything else as a step edit.
async fn learn(
    state: &AppState,
    m: &Member,
    p: &plan::Model,
    step: &PlanStep,
    before: &Value,
    changes: &Map<String, Value>,
) -> AppResult<()> {
    let text = step.tool == SEND_TOOL || step.tool == SCHEDULE_TOOL;
    let (kind, detail) = match changes.get("body").and_then(Value::as_str) {
        Some(body) if text => (
            signals::DRAFT_EDIT,
            json!({"before": before["body"], "after": body, "plan_id": p.id, "step": step.id}),
        ),
        _ => (
            signals::STEP_EDIT,
            json!({"plan_id": p.id, "step": step.id, "tool": step.tool, "changes": changes,
                   "before": changes.keys().map(|k| (k.clone(), before[k].clone())).collect::<Map<_, _>>()}),
        ),
    };
    let signal = crate::plans::learning::signal(p, m, kind, detail);
    signals::record(&state.db, signal, state.clock.now()).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_replaces_only_the_fields_it_names_on_a_step_not_started() {
        let mut steps = vec![PlanStep::new(
            "s",
            "text",
            SEND_TOOL,
            json!({"contact_id": "{{find.result.contacts[0].id}}", "body": "Hi"}),
        )];
        steps[0].status = StepStatus::AwaitingConfirmation;
        let e = Edit {
            step: "s".into(),
            changes: json!({"body": "Hello there"}).as_object().cloned().unwrap(),
        };
        assert!(apply_edits(&mut steps, std::slice::from_ref(&e)));
        assert_eq!(steps[0].arguments["body"], "Hello there");
        assert_eq!(
            steps[0].arguments["contact_id"], "{{find.result.contacts[0].id}}",
            "the reference it did not name stays"
        );
        assert!(!apply_edits(&mut steps, &[e]), "applied twice, once");
        steps[0].status = StepStatus::Completed;
        let late = Edit {
            step: "s".into(),
            changes: json!({"body": "Too late"}).as_object().cloned().unwrap(),
        };
        assert!(!apply_edits(&mut steps, &[late]));
        assert_eq!(steps[0].arguments["body"], "Hello there");
    }

    #[test]
    fn edits_are_plain_values_of_fields_the_tool_takes() {
        let step = PlanStep::new("s", "text", SEND_TOOL, json!({}));
        let schema = json!({"properties": {"body": {"type": "string"}, "contact_id": {}}});
        assert!(check_changes(&step, &schema, &json!({"body": "ok"})).is_ok());
        assert!(check_changes(&step, &schema, &json!({})).is_err());
        assert!(check_changes(&step, &schema, &json!("body")).is_err());
        let e = check_changes(&step, &schema, &json!({"to": "x"})).unwrap_err();
        assert!(e.to_string().contains("takes no argument `to`"), "{e}");
        let e =
            check_changes(&step, &schema, &json!({"body": "Hi {{find.result.x}}"})).unwrap_err();
        assert!(e.to_string().contains("cannot refer"), "{e}");
        let long = "x".repeat(MAX_VALUE + 1);
        assert!(check_changes(&step, &schema, &json!({ "body": long })).is_err());
        assert_eq!(
            describe(
                &json!({"body": "Hi"}),
                json!({"body": "Hello"}).as_object().unwrap()
            ),
            "body \"Hello\" (was \"Hi\")"
        );
    }
}
