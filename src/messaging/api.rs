//! Server functions behind the inbox, the conversation page, live updates and the phone simulator.
use crate::error::AppError;
use crate::messaging::model::{LiveEvent, MessagePage, MessageView, SimulatedText};
use dioxus::fullstack::{WebSocketOptions, Websocket};
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/conversations/older")]
    /// The page of a conversation's messages before `before` (a message's `seq`).
    pub async fn older_messages(contact_id: Uuid, before: i64) -> Result<MessagePage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::messaging::service::older_messages(&state, m.organization_id, contact_id, before)
            .await
    }
}

server_fn! {
    #[post("/api/messages/search")]
    /// The organisation's texts containing every word of `query` (a word's start is enough),
    /// newest first, below `before` (a text's `seq`), with the exact number found.
    pub async fn search_messages(
        query: String,
        before: Option<i64>,
    ) -> Result<crate::messaging::model::MessageSearchPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::messaging::search::search(&state.db, m.organization_id, &query, before).await
    }
}

server_fn! {
    #[post("/api/messages/resolve")]
    /// A person's decision on a text in doubt ("send anyway" or "mark as sent").
    pub async fn resolve_message(
        id: Uuid,
        resolution: crate::messaging::model::Resolution,
    ) -> Result<MessageView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::messaging::ledger::resolve_unknown(&state, m.organization_id, id, resolution)
            .await
            .map(crate::messaging::service::to_view)
    }
}

/// One page's live events over a WebSocket (any number of tabs can hold one; the browser's six
/// HTTP/1.1 connections per host stay free). Only the topic's events are sent; the socket
/// closes when the page goes away or the session ends.
#[get("/api/live/ws?topic")]
pub async fn live_socket(
    topic: String,
    options: WebSocketOptions,
) -> Result<Websocket<String, LiveEvent>, AppError> {
    let (state, m) = crate::auth::session::require_member().await?;
    let topic = crate::messaging::model::LiveTopic::parse(&topic)
        .ok_or_else(|| AppError::validation("That is not a live topic."))?;
    let cookie = crate::auth::session::request_cookies()?;
    Ok(options.on_upgrade(move |socket| async move {
        use futures::{SinkExt, StreamExt};
        use tokio::sync::broadcast::error::RecvError;
        let (mut out, mut inbound) = socket.split();
        let mut events = state.live.subscribe();
        let mut check = tokio::time::interval(std::time::Duration::from_secs(30));
        check.tick().await;
        loop {
            tokio::select! {
                ev = events.recv() => {
                    let send = match ev {
                        // The person's access ended: the socket closes if their session did.
                        Ok((_, LiveEvent::AccessEnded { user_id })) if user_id == m.user_id => {
                            let live = crate::auth::session::member_from_cookie_header(&state, cookie.as_deref()).await;
                            if live.is_err() {
                                break;
                            }
                            None
                        }
                        Ok((org, e)) if org == m.organization_id && topic.wants(&e, m.user_id) => Some(e),
                        Ok(_) => None,
                        Err(RecvError::Lagged(_)) => Some(LiveEvent::Resync),
                        Err(RecvError::Closed) => break,
                    };
                    if let Some(e) = send {
                        if out.send(e).await.is_err() {
                            break;
                        }
                    }
                }
                msg = inbound.next() => if msg.is_none_or(|m| m.is_err()) {
                    break;
                },
                _ = check.tick() => {
                    let live = crate::auth::session::member_from_cookie_header(&state, cookie.as_deref()).await;
                    if live.is_err() {
                        break;
                    }
                }
            }
        }
    }))
}

server_fn! {
    #[post("/api/simulator/send")]
    /// The phone simulator: a text "from" a contact's phone, delivered through the webhook path.
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
            ("From", from.into_string()),
            ("To", number.number.to_string()),
            ("Body", text.body),
            ("NumMedia", "0".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let form = crate::messaging::webhook_form::WebhookForm::from_pairs(params)
            .map_err(|e| AppError::Internal(e.to_string()))?;
        let url = signed_url(&state, SMS_PATH, None);
        let token = crate::messaging::webhook::webhook_token_for(&state, Some(&number.number))
            .await
            .map_err(|e| AppError::Internal(e.to_string()))?;
        let signature = token
            .as_ref()
            .map(|token| crate::messaging::signature::compute_signature(token, &url, form.pairs()));
        match accept_inbound(&state, &url, &form, signature.as_deref()).await {
            Ok(InboundOutcome::Stored { message_id, .. }) => Ok(message_id),
            Ok(other) => Err(AppError::Internal(format!(
                "simulated text not stored: {other:?}"
            ))),
            Err(WebhookError::BadRequest(m)) => Err(AppError::Validation(m)),
            Err(e) => Err(AppError::Internal(e.to_string())),
        }
    }
}

server_fn! {
    #[post("/api/scheduled/add")]
    /// "Send later": a member's text, set for a time on the contact's clock.
    pub async fn send_later(
        request: crate::messaging::model::SendLaterRequest,
    ) -> Result<crate::messaging::model::ScheduledTextView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::messaging::send_later::add(&state, &m, &request).await
    }
}

server_fn! {
    #[post("/api/scheduled/edit")]
    /// Changes a waiting text's words and time (on the contact's clock).
    pub async fn edit_scheduled_text(
        id: Uuid,
        body: String,
        at: chrono::NaiveDateTime,
    ) -> Result<crate::messaging::model::ScheduledTextView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::messaging::send_later::edit(&state, &m, id, &body, at).await
    }
}

server_fn! {
    #[post("/api/scheduled/when")]
    /// The contact's zone and time now, and when a text set for `at` on their clock would go.
    pub async fn send_later_when(
        contact_id: Uuid,
        at: Option<chrono::NaiveDateTime>,
    ) -> Result<crate::messaging::model::SendLaterWhen, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::messaging::send_later::when(&state, &m, contact_id, at).await
    }
}

server_fn! {
    #[post("/api/scheduled/list")]
    /// The texts scheduled for this contact (by agents, plans and members), newest first.
    pub async fn list_scheduled_texts(
        contact_id: Uuid,
    ) -> Result<Vec<crate::messaging::model::ScheduledTextView>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::messaging::scheduled::for_contact(&state, &m, contact_id).await
    }
}

server_fn! {
    #[post("/api/scheduled/cancel")]
    /// Cancels a scheduled text that has not gone yet.
    pub async fn cancel_scheduled_text(
        id: Uuid,
    ) -> Result<crate::messaging::model::ScheduledTextView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::messaging::scheduled::cancel(&state, &m, id).await
    }
}
