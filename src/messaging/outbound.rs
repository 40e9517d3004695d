//! `send`: the one path every outbound text takes (`Outgoing`), with the opt-out check before any
//! send.
use crate::contacts::{opt_out, service as contacts};
use crate::error::{AppError, AppResult};
use crate::messaging::entity as message;
use crate::messaging::model::Purpose;
use crate::messaging::model::SendState;
use crate::messaging::model::{Direction, LiveEvent, MessageView, MAX_SMS_CHARS};
use crate::messaging::service::to_view;
use crate::phone_numbers::service as numbers;
use crate::platform::AppState;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, NotSet, QueryFilter, Set};
use uuid::Uuid;

/// One outbound text as its caller describes it: to whom, from which number, the words, and what
/// else is known (who wrote it, a caller's idempotency key, why it is sent, its pictures).
/// Every text a person, an agent, a campaign, a schedule or the public API sends is one of these,
/// through `send`.
#[derive(Clone, Copy)]
pub struct Outgoing<'a> {
    pub organization_id: Uuid,
    pub contact_id: Uuid,
    pub phone_number_id: Uuid,
    pub body: &'a str,
    /// What wrote it, in words (`ai_origin`): "campaign", an agent's label, "scheduled …".
    pub origin: Option<&'a str>,
    /// The agent that wrote it.
    pub agent_id: Option<Uuid>,
    /// A second `send` with the same key is the same text.
    pub key: Option<Uuid>,
    /// Which rules the ledger checks as it leaves; None: a reply when the contact has texted the
    /// organisation, else outreach (`purpose_for`).
    pub purpose: Option<Purpose>,
    pub pictures: Pictures<'a>,
    /// The knowledge an agent's reply used (`MessageView::sources`).
    pub cites: &'a [crate::messaging::model::MessageSource],
}

/// A text's pictures. With any, it goes as one MMS.
#[derive(Clone, Copy)]
pub enum Pictures<'a> {
    None,
    /// A person's uploads (the organisation's): the text takes them, their rows go.
    Uploads(&'a [Uuid]),
    /// A campaign's, which every one of its texts carries: the uploads stay the campaign's and
    /// each text's media rows point at the same copies.
    Shared(&'a [crate::media::entity::upload::Model]),
}

impl<'a> Outgoing<'a> {
    pub fn new(
        organization_id: Uuid,
        contact_id: Uuid,
        phone_number_id: Uuid,
        body: &'a str,
    ) -> Self {
        Self {
            organization_id,
            contact_id,
            phone_number_id,
            body,
            origin: None,
            agent_id: None,
            key: None,
            purpose: None,
            pictures: Pictures::None,
            cites: &[],
        }
    }
    pub fn origin(self, origin: Option<&'a str>) -> Self {
        Self { origin, ..self }
    }
    /// An agent's own text: it records the agent that wrote it.
    pub fn by_agent(self, origin: &'a str, agent_id: Uuid) -> Self {
        Self {
            origin: Some(origin),
            agent_id: Some(agent_id),
            ..self
        }
    }
    pub fn keyed(self, key: Option<Uuid>) -> Self {
        Self { key, ..self }
    }
    pub fn purpose(self, purpose: Purpose) -> Self {
        Self {
            purpose: Some(purpose),
            ..self
        }
    }
    pub fn pictures(self, pictures: Pictures<'a>) -> Self {
        Self { pictures, ..self }
    }
    /// Records the knowledge the text used.
    pub fn citing(self, cites: &'a [crate::messaging::model::MessageSource]) -> Self {
        Self { cites, ..self }
    }
}

/// Reply when the contact started a conversation with the organisation (has texted it), else
/// outreach.
pub async fn purpose_for(state: &AppState, org_id: Uuid, contact_id: Uuid) -> AppResult<Purpose> {
    let texted = message::Entity::find()
        .filter(message::Column::OrganizationId.eq(org_id))
        .filter(message::Column::ContactId.eq(contact_id))
        .filter(message::Column::Direction.eq(Direction::Inbound.as_str()))
        .one(&state.db)
        .await?
        .is_some();
    Ok(if texted {
        Purpose::Reply
    } else {
        Purpose::Outreach
    })
}

/// A queued outbound row, as every path records one before the ledger delivers it.
#[allow(clippy::too_many_arguments)]
pub fn queued_row(
    id: Uuid,
    org_id: Uuid,
    contact_id: Uuid,
    phone_number_id: Uuid,
    body: String,
    ai_origin: Option<&str>,
    key: String,
    purpose: Purpose,
    now: chrono::DateTime<chrono::Utc>,
) -> message::ActiveModel {
    message::ActiveModel {
        id: Set(id),
        organization_id: Set(org_id),
        contact_id: Set(contact_id),
        phone_number_id: Set(phone_number_id),
        direction: Set(Direction::Outbound.as_str().into()),
        body: Set(body),
        media_count: Set(0),
        media_urls: Set(serde_json::json!([])),
        media_types: Set(None),
        provider_sid: Set(None),
        status: Set("queued".into()),
        ai_origin: Set(ai_origin.map(str::to_owned)),
        keyword: Set(None),
        error: Set(None),
        idempotency_key: Set(Some(key)),
        read_at: Set(None),
        created_at: Set(now),
        routed_at: Set(None),
        send_state: Set(Some(SendState::Queued)),
        attempt_key: Set(None),
        attempt_started_at: Set(None),
        send_attempts: Set(0),
        reconcile_failures: Set(0),
        purpose: Set(Some(purpose.as_str().into())),
        // Numbered by the database.
        seq: NotSet,
        rolled_up: NotSet,
        outcome_rolled: NotSet,
        agent_id: NotSet,
        cites: NotSet,
    }
}

/// Sends `out`: a queued row first, then the ledger, which checks every rule as the text leaves.
/// A second call with the same key is the same message. It is attempted again only while it is
/// queued (surely not sent); a text in doubt is left to the ledger, which asks the provider
/// before anything is resent.
#[tracing::instrument(skip_all, fields(org = %out.organization_id))]
pub async fn send(state: &AppState, out: Outgoing<'_>) -> AppResult<MessageView> {
    let org_id = out.organization_id;
    if let Some(k) = out.key {
        let existing = message::Entity::find()
            .filter(message::Column::IdempotencyKey.eq(k.to_string()))
            .filter(message::Column::OrganizationId.eq(org_id))
            .one(&state.db)
            .await?;
        if let Some(row) = existing {
            // Queued: never attempted (or surely not sent), so an attempt is due. Anything else
            // is in the ledger's hands already.
            if row.send_state == Some(SendState::Queued) {
                return outcome(crate::messaging::ledger::deliver(state, row.id).await?);
            }
            return Ok(to_view(row));
        }
    }
    let (pictures, take) = match out.pictures {
        Pictures::None => (Vec::new(), false),
        Pictures::Uploads(ids) => (
            crate::media::upload::uploads_for(&state.db, org_id, ids).await?,
            true,
        ),
        Pictures::Shared(p) => (p.to_vec(), false),
    };
    let purpose = match out.purpose {
        Some(p) => p,
        None => purpose_for(state, org_id, out.contact_id).await?,
    };
    let Sendable { number, body, .. } = check_sendable_with(
        state,
        org_id,
        out.contact_id,
        out.phone_number_id,
        out.body,
        !pictures.is_empty(),
    )
    .await?;
    let id = Uuid::new_v4();
    let mut row = queued_row(
        id,
        org_id,
        out.contact_id,
        number.id,
        body,
        out.origin,
        out.key.unwrap_or(id).to_string(),
        purpose,
        state.clock.now(),
    );
    row.agent_id = Set(out.agent_id);
    if !out.cites.is_empty() {
        row.cites = Set(Some(serde_json::json!(out.cites)));
    }
    write_with_pictures(state, (org_id, id), row, &pictures, take).await?;
    announce_and_deliver(state, org_id, out.contact_id, id).await
}

/// Writes a queued text with its pictures' media rows, together. A person's text takes its
/// uploads (`take`: their rows go, the files now belong to its media rows); a campaign's stay.
async fn write_with_pictures(
    state: &AppState,
    (org_id, id): (Uuid, Uuid),
    mut row: message::ActiveModel,
    pictures: &[crate::media::entity::upload::Model],
    take: bool,
) -> AppResult<()> {
    if pictures.is_empty() {
        row.insert(&state.db).await?;
        return Ok(());
    }
    let now = state.clock.now();
    row.media_count = Set(pictures.len() as i32);
    row.media_types = Set(Some(serde_json::json!(pictures
        .iter()
        .map(|u| u.content_type.clone())
        .collect::<Vec<_>>())));
    let txn = crate::platform::db::begin_write(&state.db).await?;
    row.insert(&txn).await?;
    <crate::media::entity::Entity as EntityTrait>::insert_many(
        crate::media::upload::rows_for_sent(org_id, id, pictures, now),
    )
    .exec(&txn)
    .await?;
    if take {
        crate::media::entity::upload::Entity::delete_many()
            .filter(crate::media::entity::upload::Column::Id.is_in(pictures.iter().map(|u| u.id)))
            .exec(&txn)
            .await?;
    }
    txn.commit().await?;
    Ok(())
}

/// Tells the conversation's open pages a text was written, then hands it to the ledger.
async fn announce_and_deliver(
    state: &AppState,
    org_id: Uuid,
    contact_id: Uuid,
    id: Uuid,
) -> AppResult<MessageView> {
    state.live.publish(
        org_id,
        LiveEvent::MessageCreated {
            contact_id,
            message_id: id,
            direction: Direction::Outbound,
        },
    );
    outcome(crate::messaging::ledger::deliver(state, id).await?)
}

/// What a text would be sent as, once every rule that stops a text has passed.
pub struct Sendable {
    pub contact: crate::contacts::entity::contact::Model,
    pub number: crate::phone_numbers::entity::Model,
    /// The body as it would be sent (trimmed).
    pub body: String,
}

/// Every rule that stops a text before it is recorded: an empty or too long body, a merge field
/// nothing filled, a contact or number outside the organisation, no textable phone, an opt-out. The send path and the plan
/// simulator both ask this, so a simulation refuses exactly what a send would.
pub async fn check_sendable(
    state: &AppState,
    org_id: Uuid,
    contact_id: Uuid,
    phone_number_id: Uuid,
    body: &str,
) -> AppResult<Sendable> {
    check_sendable_with(state, org_id, contact_id, phone_number_id, body, false).await
}

/// `check_sendable`, where a text with pictures may have no words.
async fn check_sendable_with(
    state: &AppState,
    org_id: Uuid,
    contact_id: Uuid,
    phone_number_id: Uuid,
    body: &str,
    has_media: bool,
) -> AppResult<Sendable> {
    let body = body.trim();
    if body.is_empty() && !has_media {
        return Err(AppError::validation("Write a message first."));
    }
    if body.chars().count() > MAX_SMS_CHARS {
        return Err(AppError::Validation(format!(
            "A text may have at most {MAX_SMS_CHARS} characters."
        )));
    }
    if let Some(field) = crate::messaging::merge::leftover(body) {
        return Err(AppError::Validation(format!(
            "This text still holds {field}: nothing filled it, and it would reach the contact as \
             braces. Fill it in or take it out."
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
    if row.send_state == Some(SendState::Failed) {
        return Err(AppError::Transport(
            row.error
                .unwrap_or_else(|| "the provider refused it".into()),
        ));
    }
    Ok(to_view(row))
}
