//! People's decisions about a running step plan: confirm a step (bound to the hash of the
//! arguments they were shown), confirm every step waiting, skip a step (its dependents are
//! blocked) and, in lazy mode, continue by one step. Each decision is an audit entry the runner
//! reads; the plan then runs again. Confirming a text is an owner's call, as approving a
//! campaign's review sheet is.
use super::model::{StepAction, StepStatus};
use super::run::{arguments_hash, takes_decisions, CONFIRMED, CONTINUED, SKIPPED};
use super::schedule::resolved_arguments;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::plans::model::{PlanAction, PlanView, SEND_TOOL};
use crate::plans::service::{action_of, find_in_org, record, view};
use crate::server::AppState;
use serde_json::json;
use uuid::Uuid;

pub async fn decide(
    state: &AppState,
    m: &Member,
    plan_id: Uuid,
    decision: &StepAction,
) -> AppResult<PlanView> {
    let p = find_in_org(&state.db, m.organization_id, plan_id).await?;
    let PlanAction::Steps { steps, .. } = action_of(&p)? else {
        return Err(AppError::Conflict("This plan has no steps.".into()));
    };
    if !takes_decisions(&p.status) {
        return Err(AppError::Conflict(format!(
            "This plan is {}; its steps take no decisions.",
            p.status.replace('_', " ")
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
            for (i, s) in steps.iter().enumerate() {
                if s.status != StepStatus::AwaitingConfirmation {
                    continue;
                }
                if let Ok(args) = resolved_arguments(&steps, i) {
                    entries.push((
                        CONFIRMED,
                        json!({"step": s.id, "hash": arguments_hash(&args)}),
                    ));
                }
            }
            if entries.is_empty() {
                return Err(AppError::Conflict(
                    "No step is waiting for confirmation.".into(),
                ));
            }
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
    }
    let texts = entries.iter().any(|(kind, e)| {
        *kind == CONFIRMED
            && steps
                .iter()
                .any(|s| e["step"] == s.id.as_str() && s.tool == SEND_TOOL)
    });
    if texts {
        m.require_owner()?;
    }
    let now = state.clock.now();
    for (kind, after) in entries {
        record(
            &state.db,
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
    crate::plans::executor::spawn_execution(state, plan_id);
    view(
        state,
        find_in_org(&state.db, m.organization_id, plan_id).await?,
    )
    .await
}
