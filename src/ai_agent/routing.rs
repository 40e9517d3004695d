//! Where an inbound text goes after it is stored: the number's agent, else the legacy suggester.
//! Opted-out contacts and empty or media-only texts start nothing.
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::legacy;
use crate::ai_agent::thread::find_or_spawn_contact_thread;
use crate::contacts::opt_out;
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::phone_numbers::entity as phone_number;
use crate::server::AppState;
use sea_orm::EntityTrait;
use uuid::Uuid;

/// What routing decided, for logs and tests.
#[derive(Debug, PartialEq)]
pub enum Route {
    Agent { thread_id: Uuid },
    Legacy,
    SkippedOptedOut,
    SkippedEmpty,
    Nobody,
}

#[tracing::instrument(skip(state))]
pub async fn route_inbound_message(state: &AppState, message_id: Uuid) -> AppResult<Route> {
    let Some(msg) = message::Entity::find_by_id(message_id)
        .one(&state.db)
        .await?
    else {
        return Ok(Route::Nobody);
    };
    let Some(phone) = phone_number::Entity::find_by_id(msg.phone_number_id)
        .one(&state.db)
        .await?
    else {
        return Ok(Route::Nobody);
    };
    if opt_out::sms_opt_out(&state.db, msg.contact_id)
        .await?
        .is_some()
    {
        tracing::info!("routing skipped: the contact opted out");
        return Ok(Route::SkippedOptedOut);
    }
    if msg.body.trim().is_empty() {
        tracing::info!("routing skipped: empty or media-only text");
        return Ok(Route::SkippedEmpty);
    }
    match phone.ai_agent_id {
        // A number with an agent never runs the legacy suggester: one inbound, one responder.
        Some(agent_id) => {
            let payload = AiThreadEventPayload::inbound_sms(
                msg.id,
                msg.contact_id,
                phone.id,
                msg.body.clone(),
            );
            let thread_id = find_or_spawn_contact_thread(
                state,
                agent_id,
                msg.organization_id,
                msg.contact_id,
                payload,
            )
            .await?;
            Ok(Route::Agent { thread_id })
        }
        None => match legacy::resolve_text_agent(state, &phone, msg.contact_id).await? {
            Some(text_agent) => {
                legacy::suggest_replies(state, &text_agent, &msg).await?;
                Ok(Route::Legacy)
            }
            None => Ok(Route::Nobody),
        },
    }
}
