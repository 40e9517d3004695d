//! The suppression list: an opt-out belongs to the number (organisation, E.164 phone), so no
//! edit, delete, re-import or new contact with that number clears it. Only the person's own
//! opt-in keyword from that number, or an owner with a recorded reason, clears it; every change
//! is written to `suppression_audit`. The per-contact helpers below resolve the contact's number.
use crate::contacts::entity::{contact, suppression, suppression_audit};
use crate::error::{AppError, AppResult};
use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, Set,
};
use std::collections::HashMap;
use uuid::Uuid;

/// Where an opt-out came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptOutSource {
    /// A carrier keyword (STOP, UNSUBSCRIBE, …), or Twilio's Advanced Opt-Out.
    Keyword,
    /// A revocation in the person's own words, found by the detector.
    Phrase,
    /// A possible opt-out a person confirmed.
    Reviewed,
    /// A member opted the contact out.
    Manual,
    /// The carrier refused a send with 21610.
    Carrier,
}

impl OptOutSource {
    pub fn as_str(self) -> &'static str {
        match self {
            OptOutSource::Keyword => "keyword",
            OptOutSource::Phrase => "phrase",
            OptOutSource::Reviewed => "reviewed",
            OptOutSource::Manual => "manual",
            OptOutSource::Carrier => "carrier",
        }
    }

    /// Opt-outs the person made themselves by text: their own opt-in keyword clears them.
    pub fn by_the_person(source: &str) -> bool {
        source == OptOutSource::Keyword.as_str() || source == OptOutSource::Phrase.as_str()
    }
}

/// Who changed the list and why, for the audit.
#[derive(Clone, Debug, Default)]
pub struct Because {
    pub actor_user_id: Option<Uuid>,
    pub reason: Option<String>,
    pub message_id: Option<Uuid>,
}

#[allow(clippy::too_many_arguments)]
async fn audit<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    phone: &str,
    action: &str,
    source: &str,
    why: &Because,
    now: DateTime<Utc>,
) -> AppResult<()> {
    suppression_audit::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(org),
        phone: Set(phone.to_owned()),
        action: Set(action.to_owned()),
        source: Set(source.to_owned()),
        actor_user_id: Set(why.actor_user_id),
        reason: Set(why.reason.clone()),
        message_id: Set(why.message_id),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}

/// Puts the number on the organisation's suppression list. Answers true when it was not on it
/// already (only then is it audited, and only then may a confirmation follow).
pub async fn suppress<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    phone: &str,
    source: OptOutSource,
    why: &Because,
    now: DateTime<Utc>,
) -> AppResult<bool> {
    if suppression_of(db, org, phone).await?.is_some() {
        return Ok(false);
    }
    let res = suppression::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(org),
        phone: Set(phone.to_owned()),
        source: Set(source.as_str().into()),
        reason: Set(why.reason.clone()),
        message_id: Set(why.message_id),
        created_at: Set(now),
        funnel_rolled: Set(false),
    }
    .insert(db)
    .await;
    match res {
        Ok(_) => {}
        Err(e) if crate::platform::db::is_unique_violation(&e) => return Ok(false),
        Err(e) => return Err(e.into()),
    }
    audit(db, org, phone, "opted_out", source.as_str(), why, now).await?;
    let contacts: Vec<Uuid> = contact::Entity::find()
        .select_only()
        .column(contact::Column::Id)
        .filter(contact::Column::OrganizationId.eq(org))
        .filter(contact::Column::Phone.eq(phone))
        .into_tuple()
        .all(db)
        .await?;
    let data = serde_json::json!({"phone": phone, "contact_ids": contacts,
        "source": source.as_str(), "reason": why.reason, "message_id": why.message_id});
    crate::webhooks::emit::emit(db, org, "contact.opted_out", data, now).await?;
    tracing::info!(%org, source = source.as_str(), "number suppressed");
    Ok(true)
}

/// Takes the number off the list, audited. `only_by_the_person`: an opt-in keyword clears only
/// an opt-out the person made by text. Answers whether one was cleared.
pub async fn lift<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    phone: &str,
    only_by_the_person: bool,
    why: &Because,
    now: DateTime<Utc>,
) -> AppResult<bool> {
    let Some(row) = suppression_of(db, org, phone).await? else {
        return Ok(false);
    };
    if only_by_the_person && !OptOutSource::by_the_person(&row.source) {
        return Ok(false);
    }
    let res = suppression::Entity::delete_many()
        .filter(suppression::Column::Id.eq(row.id))
        .exec(db)
        .await?;
    if res.rows_affected == 0 {
        return Ok(false);
    }
    audit(db, org, phone, "cleared", &row.source, why, now).await?;
    Ok(true)
}

/// The number's suppression, if it is on the list.
pub async fn suppression_of<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    phone: &str,
) -> AppResult<Option<suppression::Model>> {
    Ok(suppression::Entity::find()
        .filter(suppression::Column::OrganizationId.eq(org))
        .filter(suppression::Column::Phone.eq(phone))
        .one(db)
        .await?)
}

async fn contact_number<C: ConnectionTrait>(
    db: &C,
    contact_id: Uuid,
) -> AppResult<Option<(Uuid, String)>> {
    let row: Option<(Uuid, Option<String>)> = contact::Entity::find_by_id(contact_id)
        .select_only()
        .column(contact::Column::OrganizationId)
        .column(contact::Column::Phone)
        .into_tuple()
        .one(db)
        .await?;
    Ok(row.and_then(|(org, phone)| Some((org, phone?))))
}

/// Suppresses the contact's number (a member's opt-out, a carrier's 21610).
pub async fn record_opt_out<C: ConnectionTrait>(
    db: &C,
    contact_id: Uuid,
    source: OptOutSource,
    why: &Because,
    now: DateTime<Utc>,
) -> AppResult<bool> {
    let Some((org, phone)) = contact_number(db, contact_id).await? else {
        return Err(AppError::validation(
            "The contact has no phone number to opt out.",
        ));
    };
    suppress(db, org, &phone, source, why, now).await
}

/// The suppression of the contact's number, if any.
pub async fn sms_opt_out<C: ConnectionTrait>(
    db: &C,
    contact_id: Uuid,
) -> AppResult<Option<suppression::Model>> {
    match contact_number(db, contact_id).await? {
        Some((org, phone)) => suppression_of(db, org, &phone).await,
        None => Ok(None),
    }
}

/// Opt-out sources for many contacts (through their numbers), two queries per 500.
pub async fn sms_opt_outs<C: ConnectionTrait>(
    db: &C,
    contact_ids: &[Uuid],
) -> AppResult<HashMap<Uuid, String>> {
    let mut out = HashMap::new();
    for part in contact_ids.chunks(500) {
        let numbers: Vec<(Uuid, Uuid, Option<String>)> = contact::Entity::find()
            .select_only()
            .column(contact::Column::Id)
            .column(contact::Column::OrganizationId)
            .column(contact::Column::Phone)
            .filter(contact::Column::Id.is_in(part.iter().copied()))
            .into_tuple()
            .all(db)
            .await?;
        let phones: Vec<&str> = numbers.iter().filter_map(|n| n.2.as_deref()).collect();
        if phones.is_empty() {
            continue;
        }
        let orgs: std::collections::HashSet<Uuid> = numbers.iter().map(|n| n.1).collect();
        let listed: HashMap<(Uuid, String), String> = suppression::Entity::find()
            .filter(suppression::Column::OrganizationId.is_in(orgs))
            .filter(suppression::Column::Phone.is_in(phones))
            .all(db)
            .await?
            .into_iter()
            .map(|s| ((s.organization_id, s.phone), s.source))
            .collect();
        for (id, org, phone) in numbers {
            if let Some(src) = phone.and_then(|p| listed.get(&(org, p))) {
                out.insert(id, src.clone());
            }
        }
    }
    Ok(out)
}
