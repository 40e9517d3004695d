//! People's decisions about a running step plan: confirm a step (bound to the hash of the
//! arguments they were shown), confirm every remaining step (a standing confirmation of the plan
//! as it is), skip a step (its dependents are blocked) and, in lazy mode, continue by one step. Each decision is an audit entry the runner
//! reads; the plan then runs again. Confirming a text is an owner's call, as approving a
//! campaign's review sheet is.
use super::run::{arguments_hash, takes_decisions, CONFIRMED, CONFIRMED_ALL, CONTINUED, SKIPPED};
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::plans::model::{texts_people, PlanAction, PlanView};
use crate::plans::service::{record, view};
use crate::platform::AppState;
use crate::steps::model::{PlanStep, StepAction, StepStatus};
use crate::steps::schedule::resolved_arguments;
use serde_json::json;
use uuid::Uuid;

pub async fn decide(
    state: &AppState,
    m: &Member,
    plan_id: Uuid,
    decision: &StepAction,
) -> AppResult<PlanView> {
    let p = crate::plans::access::find_visible(state, m, plan_id).await?;
    let PlanAction::Steps { steps, .. } = super::store::action(&state.db, &p).await? else {
        return Err(AppError::Conflict("This plan has no steps.".into()));
    };
    if !takes_decisions(p.status) {
        return Err(AppError::Conflict(format!(
            "This plan is {}; its steps take no decisions.",
            p.status.as_str().replace('_', " ")
        )));
    }
    let find = |id: &str| {
        steps
            .iter()
            .position(|s| s.id == id)
            .ok_or_else(|| AppError::NotFound(format!("Step `{id}` in this plan")))
    };
    let mut entries: Vec<(&str, serde_json::Value)> = Vec::new();
    match decision {
        StepAction::Confirm {
            step,
            arguments_hash: hash,
        } => {
            let i = find(step)?;
            if steps[i].status != StepStatus::AwaitingConfirmation {
                return Err(AppError::Conflict(format!(
                    "Step `{step}` is not waiting for confirmation."
                )));
            }
            let now = resolved_arguments(&steps, i)
                .map(|a| arguments_hash(&a))
                .ok();
            if now.as_deref() != Some(hash.as_str()) {
                return Err(AppError::Conflict(format!(
                    "Step `{step}`'s arguments changed since you saw them; look again."
                )));
            }
            entries.push((CONFIRMED, json!({"step": step, "hash": hash})));
        }
        StepAction::ConfirmAll => {
            // Every step still to run, now and as its inputs arrive: a standing confirmation.
            let remaining: Vec<&str> = steps
                .iter()
                .filter(|s| {
                    matches!(
                        s.status,
                        StepStatus::Ready | StepStatus::AwaitingConfirmation
                    )
                })
                .map(|s| s.id.as_str())
                .collect();
            if remaining.is_empty() {
                return Err(AppError::Conflict("No step is left to confirm.".into()));
            }
            entries.push((CONFIRMED_ALL, json!({"steps": remaining})));
        }
        StepAction::Skip { step } => {
            let i = find(step)?;
            if !matches!(
                steps[i].status,
                StepStatus::Ready | StepStatus::AwaitingConfirmation
            ) {
                return Err(AppError::Conflict(format!(
                    "Step `{step}` has already {}.",
                    steps[i].status.label().to_lowercase()
                )));
            }
            entries.push((SKIPPED, json!({"step": step})));
        }
        StepAction::Continue => entries.push((CONTINUED, json!({}))),
        StepAction::Edit {
            step,
            arguments,
            confirm,
        } => return super::edit::edit(state, m, plan_id, step, arguments, *confirm).await,
    }
    let texts = entries.iter().any(|(kind, e)| {
        let names = |s: &PlanStep| match *kind {
            CONFIRMED => e["step"] == s.id.as_str(),
            CONFIRMED_ALL => e["steps"]
                .as_array()
                .is_some_and(|l| l.iter().any(|x| x == s.id.as_str())),
            _ => false,
        };
        steps.iter().any(|s| names(s) && texts_people(&s.tool))
    });
    if texts {
        m.require_owner()?;
    }
    let now = state.clock.now();
    // The decision and the plan's waking go together: a paused plan never holds an unread one.
    let txn = crate::platform::db::begin_write(&state.db).await?;
    for (kind, after) in entries {
        record(
            &txn,
            now,
            plan_id,
            kind,
            Some(m.user_id),
            None,
            None,
            None,
            None,
            Some(after),
        )
        .await?;
    }
    crate::plans::pause::wake(&txn, plan_id).await?;
    txn.commit().await?;
    crate::plans::executor::spawn_execution(state, plan_id);
    view(
        state,
        crate::plans::access::find_visible(state, m, plan_id).await?,
    )
    .await
}
