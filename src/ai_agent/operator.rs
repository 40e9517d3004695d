//! The operator's composer on any agent's thread: a person instructs the agent directly, with
//! the Plan switch asking for a read-only planning turn. Only the agent's owner or the
//! organisation's owner may: the agent acts with its owner's powers, so anyone else instructing
//! it would borrow them.
use crate::ai_agent::entity::{ai_agent, ai_thread};
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::model::{OperatorView, MAX_INSTRUCTION_CHARS};
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

async fn thread_and_agent(
    state: &AppState,
    m: &Member,
    thread_id: Uuid,
) -> AppResult<(ai_thread::Model, ai_agent::Model)> {
    let thread = ai_thread::Entity::find_by_id(thread_id)
        .filter(ai_thread::Column::OrganizationId.eq(m.organization_id))
        .one(&state.db)
        .await?
        .filter(|t| crate::ai_agent::suggestions::visible_to(m, t.correlation_key.as_deref()))
        .ok_or_else(|| AppError::not_found("Thread"))?;
    let agent =
        crate::ai_agent::service::find_in_org(&state.db, m.organization_id, thread.agent_id)
            .await?;
    Ok((thread, agent))
}

pub async fn view(state: &AppState, m: &Member, thread_id: Uuid) -> AppResult<OperatorView> {
    let (_, agent) = thread_and_agent(state, m, thread_id).await?;
    Ok(OperatorView {
        agent_id: agent.id,
        agent_name: agent.name.clone(),
        planning_enabled: crate::ai_agent::settings::AgentSettings::of(&agent).planning_enabled,
        can_instruct: crate::ai_agent::service::directs(m, &agent),
    })
}

#[tracing::instrument(skip(state, m, text), fields(thread = %thread_id))]
pub async fn post(
    state: &AppState,
    m: &Member,
    thread_id: Uuid,
    text: &str,
    plan_mode: bool,
) -> AppResult<()> {
    let (thread, agent) = thread_and_agent(state, m, thread_id).await?;
    if !crate::ai_agent::service::directs(m, &agent) {
        return Err(AppError::Forbidden);
    }
    let text = text.trim();
    if text.is_empty() {
        return Err(AppError::validation("Write an instruction for the agent."));
    }
    if text.chars().count() > MAX_INSTRUCTION_CHARS {
        return Err(AppError::validation(format!(
            "The instruction is too long: at most {MAX_INSTRUCTION_CHARS} characters."
        )));
    }
    // An archived thread's instruction starts its fresh thread, which reads the summary.
    let target = match (thread.state.as_str(), thread.correlation_key.as_deref()) {
        ("archived", Some(key)) => {
            crate::ai_agent::thread::find_or_create_thread(state, agent.id, m.organization_id, key)
                .await?
        }
        _ => thread.id,
    };
    crate::ai_agent::worker::enqueue_and_maybe_spawn(
        state,
        target,
        AiThreadEventPayload::UserMessage {
            text: text.to_owned(),
            plan_mode,
        },
    )
    .await
}
