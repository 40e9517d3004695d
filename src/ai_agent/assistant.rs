//! The operator's Assistant: one chat thread per member, read tools over the CRM, and plans.
//! (Its page, the thread with its plans, is `plans::assistant_page`.)
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::service::my_assistant;
use crate::ai_agent::thread::find_or_create_thread;
use crate::ai_agent::worker::enqueue_and_maybe_spawn;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use uuid::Uuid;

pub fn key(member: &Member) -> String {
    format!("assistant:{}", member.user_id)
}

/// Sends the operator's message; `plan_mode` asks for a read-only planning turn.
#[tracing::instrument(skip(state, text))]
pub async fn ask(
    state: &AppState,
    member: &Member,
    text: &str,
    plan_mode: bool,
) -> AppResult<Uuid> {
    let text = text.trim();
    if text.is_empty() {
        return Err(AppError::validation("Write a message for your assistant."));
    }
    let agent = my_assistant(state, member).await?;
    let thread =
        find_or_create_thread(state, agent.id, member.organization_id, &key(member)).await?;
    enqueue_and_maybe_spawn(
        state,
        thread,
        AiThreadEventPayload::UserMessage {
            text: text.to_owned(),
            plan_mode,
        },
    )
    .await?;
    Ok(thread)
}
