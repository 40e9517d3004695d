//! `send_sms`: the one path every outbound text takes, with the opt-out check before any send.
use crate::contacts::{opt_out, service as contacts};
use crate::error::{AppError, AppResult};
use crate::messaging::entity as message;
use crate::messaging::model::{Direction, LiveEvent, MessageView, MAX_SMS_CHARS};
use crate::messaging::service::to_view;
use crate::messaging::transport::OutboundSms;
use crate::phone_numbers::service as numbers;
use crate::server::AppState;
use chrono::Utc;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
use uuid::Uuid;

/// Sends `body` to the contact from one of the organisation's numbers, recording the message.
#[tracing::instrument(skip(state, body), fields(org = %org_id))]
pub async fn send_sms(
    state: &AppState,
    org_id: Uuid,
    contact_id: Uuid,
    phone_number_id: Uuid,
    body: &str,
    ai_origin: Option<&str>,
) -> AppResult<MessageView> {
    send_sms_keyed(
        state,
        org_id,
        contact_id,
        phone_number_id,
        body,
        ai_origin,
        None,
    )
    .await
}

/// `send_sms` under a caller's idempotency key: a second call with the same key never sends a
/// second message; if a crash left the first one unrecorded, the retry reuses the key, so the
/// provider deduplicates it.
#[tracing::instrument(skip(state, body), fields(org = %org_id))]
pub async fn send_sms_keyed(
    state: &AppState,
    org_id: Uuid,
    contact_id: Uuid,
    phone_number_id: Uuid,
    body: &str,
    ai_origin: Option<&str>,
    key: Option<Uuid>,
) -> AppResult<MessageView> {
    if let Some(k) = key {
        let existing = message::Entity::find()
            .filter(message::Column::IdempotencyKey.eq(k.to_string()))
            .filter(message::Column::OrganizationId.eq(org_id))
            .one(&state.db)
            .await?;
        if let Some(row) = existing {
            if row.status != "queued" {
                return Ok(to_view(row));
            }
            return deliver(state, row).await;
        }
    }
    let body = body.trim();
    if body.is_empty() {
        return Err(AppError::validation("Write a message first."));
    }
    if body.chars().count() > MAX_SMS_CHARS {
        return Err(AppError::Validation(format!(
            "A text may have at most {MAX_SMS_CHARS} characters."
        )));
    }
    let contact = contacts::find_in_org(&state.db, org_id, contact_id).await?;
    let number = numbers::find_in_org(&state.db, org_id, phone_number_id).await?;
    if contact.phone.is_none() {
        return Err(AppError::Validation(format!(
            "{} has no phone number.",
            contact.name
        )));
    }
    if opt_out::sms_opt_out(&state.db, contact_id).await?.is_some() {
        return Err(AppError::OptedOut(format!(
            "{} has opted out of texts. Herald will not message them unless they text START.",
            contact.name
        )));
    }
    let id = Uuid::new_v4();
    let row = message::ActiveModel {
        id: Set(id),
        organization_id: Set(org_id),
        contact_id: Set(contact_id),
        phone_number_id: Set(number.id),
        direction: Set(Direction::Outbound.as_str().into()),
        body: Set(body.to_owned()),
        media_count: Set(0),
        media_urls: Set(serde_json::json!([])),
        provider_sid: Set(None),
        status: Set("queued".into()),
        ai_origin: Set(ai_origin.map(str::to_owned)),
        keyword: Set(None),
        error: Set(None),
        idempotency_key: Set(Some(key.unwrap_or(id).to_string())),
        read_at: Set(None),
        created_at: Set(Utc::now()),
    }
    .insert(&state.db)
    .await?;
    state.live.publish(
        org_id,
        LiveEvent::MessageCreated {
            contact_id,
            message_id: id,
            direction: Direction::Outbound,
        },
    );
    deliver(state, row).await
}

/// Hands a queued message to the transport under its idempotency key and records the outcome.
async fn deliver(state: &AppState, row: message::Model) -> AppResult<MessageView> {
    let (org_id, contact_id, id) = (row.organization_id, row.contact_id, row.id);
    let to = crate::contacts::entity::contact::Entity::find_by_id(contact_id)
        .one(&state.db)
        .await?
        .and_then(|c| c.phone)
        .ok_or_else(|| AppError::validation("The contact has no phone number."))?;
    let from = crate::phone_numbers::entity::Entity::find_by_id(row.phone_number_id)
        .one(&state.db)
        .await?
        .map(|n| n.number)
        .ok_or_else(|| AppError::not_found("Phone number"))?;
    let sms = OutboundSms {
        from,
        to,
        body: row.body.clone(),
        idempotency_key: row
            .idempotency_key
            .clone()
            .unwrap_or_else(|| id.to_string()),
    };
    let result = state.transport.send(&sms).await;
    let mut am: message::ActiveModel = row.into();
    let outcome = match &result {
        Ok(sent) => {
            am.status = Set(sent.status.clone());
            am.provider_sid = Set(Some(sent.provider_sid.clone()));
            state.metrics.outbound_messages.inc();
            Ok(())
        }
        Err(e) => {
            am.status = Set("failed".into());
            am.error = Set(Some(e.to_string()));
            Err(AppError::Transport(e.to_string()))
        }
    };
    let saved = am.update(&state.db).await?;
    state.live.publish(
        org_id,
        LiveEvent::MessageUpdated {
            contact_id,
            message_id: id,
            status: saved.status.clone(),
        },
    );
    outcome.map(|_| to_view(saved))
}
