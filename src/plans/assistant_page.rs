//! The Assistant's page: its thread's events and the plans the thread made, a page of them with
//! the exact total.
use crate::auth::session::Member;
use crate::error::AppResult;
use crate::plans::model::AssistantView;
use crate::platform::AppState;

/// The caller's own Assistant, as its page shows it.
pub async fn view(state: &AppState, member: &Member) -> AppResult<AssistantView> {
    let agent = crate::ai_agent::service::my_assistant(state, member).await?;
    let planning_enabled = crate::ai_agent::settings::AgentSettings::of(&agent).planning_enabled;
    let thread_id = crate::ai_agent::thread::active_thread_for(
        &state.db,
        agent.id,
        &crate::ai_agent::assistant::key(member),
    )
    .await?;
    let (events, plans) = match thread_id {
        Some(t) => {
            let by = crate::plans::service::PlanQuery {
                agent: Some(agent.id),
                thread: Some(t),
                ..Default::default()
            };
            (
                crate::ai_agent::suggestions::thread_events(state, member, t).await?,
                crate::plans::service::list(state, member, by, None).await?,
            )
        }
        None => (vec![], Default::default()),
    };
    Ok(AssistantView {
        agent_id: agent.id,
        thread_id,
        planning_enabled,
        events,
        plans_total: plans.total,
        plans: plans.items,
    })
}
