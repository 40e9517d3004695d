//! `send_sms`: the one path every outbound text takes, with the opt-out check before any send.
use crate::contacts::{opt_out, service as contacts};
use crate::error::{AppError, AppResult};
use crate::messaging::entity as message;
use crate::messaging::ledger::send_state;
use crate::messaging::model::{Direction, LiveEvent, MessageView, MAX_SMS_CHARS};
use crate::messaging::service::to_view;
use crate::phone_numbers::service as numbers;
use crate::server::AppState;
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

/// `send_sms` under a caller's idempotency key: a second call with the same key is the same
/// message. It is attempted again only while it is queued (surely not sent); a text in doubt is
/// left to the ledger, which asks the provider before anything is resent.
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
            // Queued: never attempted (or surely not sent), so an attempt is due. Anything else
            // is in the ledger's hands already.
            if row.send_state.as_deref() == Some(send_state::QUEUED) {
                return outcome(crate::messaging::ledger::deliver(state, row.id).await?);
            }
            return Ok(to_view(row));
        }
    }
    let Sendable { number, body, .. } =
        check_sendable(state, org_id, contact_id, phone_number_id, body).await?;
    let id = Uuid::new_v4();
    let row = message::ActiveModel {
        id: Set(id),
        organization_id: Set(org_id),
        contact_id: Set(contact_id),
        phone_number_id: Set(number.id),
        direction: Set(Direction::Outbound.as_str().into()),
        body: Set(body),
        media_count: Set(0),
        media_urls: Set(serde_json::json!([])),
        provider_sid: Set(None),
        status: Set("queued".into()),
        ai_origin: Set(ai_origin.map(str::to_owned)),
        keyword: Set(None),
        error: Set(None),
        idempotency_key: Set(Some(key.unwrap_or(id).to_string())),
        read_at: Set(None),
        created_at: Set(state.clock.now()),
        routed_at: Set(None),
        send_state: Set(Some(send_state::QUEUED.into())),
        attempt_key: Set(None),
        attempt_started_at: Set(None),
        send_attempts: Set(0),
        reconcile_failures: Set(0),
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
    outcome(crate::messaging::ledger::deliver(state, row.id).await?)
}

/// What a text would be sent as, once every rule that stops a text has passed.
pub struct Sendable {
    pub contact: crate::contacts::entity::contact::Model,
    pub number: crate::phone_numbers::entity::Model,
    /// The body as it would be sent (trimmed).
    pub body: String,
}

/// Every rule that stops a text before it is recorded: an empty or too long body, a contact or
/// number outside the organisation, no textable phone, an opt-out. The send path and the plan
/// simulator both ask this, so a simulation refuses exactly what a send would.
pub async fn check_sendable(
    state: &AppState,
    org_id: Uuid,
    contact_id: Uuid,
    phone_number_id: Uuid,
    body: &str,
) -> AppResult<Sendable> {
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
    match contact.phone.as_deref() {
        None => {
            return Err(AppError::Validation(format!(
                "{} has no phone number.",
                contact.name
            )))
        }
        Some(p) if !crate::contacts::phone::can_text(p) => {
            return Err(AppError::Validation(format!(
                "{} texted from {p}, a short code or sender name: it cannot be texted back.",
                contact.name
            )))
        }
        Some(_) => {}
    }
    if opt_out::sms_opt_out(&state.db, contact_id).await?.is_some() {
        return Err(AppError::OptedOut(format!(
            "{} has opted out of texts. Herald will not message them unless they text START.",
            contact.name
        )));
    }
    Ok(Sendable {
        contact,
        number,
        body: body.to_owned(),
    })
}

/// A settled failure is an error; anything else (sent, in doubt, queued for another try) is
/// the message as it stands.
fn outcome(row: message::Model) -> AppResult<MessageView> {
    if row.send_state.as_deref() == Some(send_state::FAILED) {
        return Err(AppError::Transport(
            row.error
                .unwrap_or_else(|| "the provider refused it".into()),
        ));
    }
    Ok(to_view(row))
}
