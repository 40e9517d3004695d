//! Server functions behind the inbox, the conversation page, live updates and the phone simulator.
use crate::error::AppError;
use crate::messaging::model::{
    ConversationSummary, ConversationView, LiveEvent, MessageView, SendSmsRequest, SimulatedText,
};
use dioxus::fullstack::ServerEvents;
use dioxus::prelude::*;
use uuid::Uuid;

#[get("/api/conversations")]
pub async fn list_conversations() -> Result<Vec<ConversationSummary>, AppError> {
    let (state, m) = crate::auth::session::require_member().await?;
    crate::messaging::service::list_conversations(&state, m.organization_id).await
}

#[post("/api/conversations/get")]
pub async fn get_conversation(contact_id: Uuid) -> Result<ConversationView, AppError> {
    let (state, m) = crate::auth::session::require_member().await?;
    crate::messaging::service::conversation(&state, m.organization_id, contact_id).await
}

#[post("/api/messages/send")]
pub async fn send_message(request: SendSmsRequest) -> Result<MessageView, AppError> {
    let (state, m) = crate::auth::session::require_member().await?;
    let origin = match request.ai_origin.as_deref() {
        None => None,
        Some("suggestion") => Some("suggestion"),
        Some(other) => {
            return Err(AppError::Validation(format!(
                "Unknown ai_origin \"{other}\"."
            )))
        }
    };
    crate::messaging::outbound::send_sms(
        &state,
        m.organization_id,
        request.contact_id,
        request.phone_number_id,
        &request.body,
        origin,
    )
    .await
}

/// A stream of the organisation's live events, for the inbox and open conversations.
#[get("/api/live")]
pub async fn live_events() -> Result<ServerEvents<LiveEvent>, AppError> {
    let (state, m) = crate::auth::session::require_member().await?;
    let mut rx = state.live.subscribe();
    let org = m.organization_id;
    Ok(ServerEvents::new(move |mut tx| async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match rx.recv().await {
                Ok((event_org, event)) if event_org == org => {
                    if tx.send(event).await.is_err() {
                        break;
                    }
                }
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => break,
            }
        }
    }))
}

/// The phone simulator: a text "from" a contact's phone, delivered through the webhook path.
#[post("/api/simulator/send")]
pub async fn simulate_inbound(text: SimulatedText) -> Result<Uuid, AppError> {
    use crate::messaging::inbound::{InboundOutcome, WebhookError};
    use crate::messaging::webhook::{accept_inbound, signed_url, SMS_PATH};
    let (state, m) = crate::auth::session::require_member().await?;
    if !state.config.simulator_enabled {
        return Err(AppError::Forbidden);
    }
    let number =
        crate::phone_numbers::service::find_in_org(&state.db, m.organization_id, text.to_number_id)
            .await?;
    let from = crate::contacts::phone::normalize_phone(&text.from, &state.config.default_region)?;
    if text.body.trim().is_empty() {
        return Err(AppError::validation("Write a text to send."));
    }
    let params: Vec<(String, String)> = [
        ("MessageSid", format!("SM{}", Uuid::new_v4().simple())),
        ("AccountSid", "ACsimulator".to_owned()),
        ("From", from),
        ("To", number.number),
        ("Body", text.body),
        ("NumMedia", "0".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let url = signed_url(&state, SMS_PATH, None);
    let signature = state
        .config
        .webhook_auth_token
        .as_ref()
        .map(|token| crate::messaging::signature::compute_signature(token, &url, &params));
    match accept_inbound(&state, &url, &params, signature.as_deref()).await {
        Ok(InboundOutcome::Stored { message_id, .. }) => Ok(message_id),
        Ok(other) => Err(AppError::Internal(format!(
            "simulated text not stored: {other:?}"
        ))),
        Err(WebhookError::BadRequest(m)) => Err(AppError::Validation(m)),
        Err(e) => Err(AppError::Internal(e.to_string())),
    }
}
