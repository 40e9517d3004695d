//! Telling people about a plan. A plan awaiting approval notifies its agent's owner with a deep
//! link to its card, and the notification is read once anyone decides; an auto-approved plan
//! leaves a note in its thread. What becomes of a plan (its approval, each step's result or
//! error, its outcome) goes to its authoring thread for the agent's next turn. Each is
//! idempotent: a presentation or a run repeated after a crash announces once.
use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::events::AiThreadEventPayload;
use crate::error::AppResult;
use crate::notifications::service::{notify, resolve, Notice};
use crate::plans::entity::plan;
use crate::plans::model::{PlanAction, PlanStatus};
use crate::platform::AppState;
use crate::steps::model::{PlanStep, StepCounts, StepStatus};
use uuid::Uuid;

fn awaiting_key(plan_id: Uuid) -> String {
    format!("plan-awaiting:{plan_id}")
}

/// Announces a plan just presented (or found again under its presentation's key).
pub async fn presented(
    state: &AppState,
    agent: &ai_agent::Model,
    p: &plan::Model,
) -> AppResult<()> {
    let status = Some(p.status);
    if status == Some(PlanStatus::AwaitingApproval) {
        if let Some(user_id) = agent.user_id {
            notify(
                state,
                Notice {
                    agent_id: None,
                    organization_id: p.organization_id,
                    user_id,
                    kind: "plan_awaiting",
                    title: format!("{} has a plan for you to approve", agent.name),
                    body: p.title.clone(),
                    link: Some(format!("/plans/{}", p.id)),
                    source_key: Some(awaiting_key(p.id)),
                },
            )
            .await?;
        }
    }
    let auto = p.decision.as_deref() == Some("proceed") && p.approved_by.is_none();
    if auto {
        let why = p.decision_reason.clone().unwrap_or_default();
        progress(
            state,
            p,
            format!("plan-approved:{}", p.id),
            format!(
                "Your plan \"{}\" was approved automatically ({why}); it runs now.",
                p.title
            ),
        )
        .await;
    }
    if let (true, Some(thread_id)) = (auto, p.thread_id) {
        let note = AiThreadEventPayload::PlanNote {
            plan_id: p.id,
            text: format!("Plan auto-approved, executing: {}", p.title),
            reason: p.decision_reason.clone().unwrap_or_default(),
        };
        crate::ai_agent::thread::append_event_once(
            &state.db,
            thread_id,
            &note,
            state.clock.now(),
            Some(format!("plan-note:auto:{}", p.id)),
        )
        .await?;
    }
    Ok(())
}

/// A person decided: the plan no longer waits, so its notification is read.
pub async fn decided(state: &AppState, p: &plan::Model) -> AppResult<()> {
    resolve(state, p.organization_id, &awaiting_key(p.id)).await
}

/// Tells the plan's authoring thread what became of it, once per `key`. A thread that cannot
/// take the note (gone since) does not stop the plan: the failure is logged.
pub async fn progress(state: &AppState, p: &plan::Model, key: String, text: String) {
    let Some(thread_id) = p.thread_id else { return };
    let note = AiThreadEventPayload::PlanProgress {
        plan_id: p.id,
        text,
    };
    let appended = crate::ai_agent::thread::append_event_once(
        &state.db,
        thread_id,
        &note,
        state.clock.now(),
        Some(key),
    )
    .await;
    if let Err(e) = appended {
        tracing::warn!(plan = %p.id, error = %e, "could not tell the plan's thread");
    }
}

/// Longest step result the thread is told, in characters.
const RESULT_BRIEF: usize = 600;

/// Each step that reached an end, told once: its result or its error.
pub async fn steps_ended(state: &AppState, p: &plan::Model, steps: &[PlanStep]) {
    for s in steps.iter().filter(|s| s.status.is_final()) {
        let text = match (&s.result, &s.error) {
            (Some(r), _) if s.status == StepStatus::Completed => {
                let r = r.to_string();
                let cut: String = r.chars().take(RESULT_BRIEF).collect();
                let more = if cut.len() < r.len() { "…" } else { "" };
                format!("Step `{}` ({}) completed: {cut}{more}", s.id, s.tool)
            }
            (_, Some(e)) => format!("Step `{}` ({}) {}: {e}", s.id, s.tool, s.status.as_str()),
            _ => format!("Step `{}` ({}) {}.", s.id, s.tool, s.status.as_str()),
        };
        progress(state, p, format!("plan-step:{}:{}", p.id, s.id), text).await;
    }
}

/// The plan's outcome, once it has one.
pub async fn finished(state: &AppState, p: &plan::Model) {
    let text = match (
        Some(p.status),
        crate::plans::steps::store::action(&state.db, p).await,
    ) {
        (Some(PlanStatus::Done), Ok(PlanAction::Steps { steps, .. })) => {
            let c = StepCounts::of(&steps);
            format!(
                "Your plan \"{}\" is done: {} of {} steps completed, {} skipped.",
                p.title, c.completed, c.total, c.skipped
            )
        }
        (Some(PlanStatus::Done), _) => format!("Your plan \"{}\" is done.", p.title),
        (Some(PlanStatus::Failed), _) => format!(
            "Your plan \"{}\" failed: {}",
            p.title,
            p.error.clone().unwrap_or_default()
        ),
        _ => return,
    };
    progress(state, p, format!("plan-outcome:{}", p.id), text).await;
}
