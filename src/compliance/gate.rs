//! The gate every text passes at the moment it leaves (the send ledger's `deliver` asks it on a
//! first attempt, a retry, a reconciler's resend and "send anyway" alike). It re-reads the
//! suppression list, an open possible opt-out, and, for outreach, marketing consent, the
//! recipient's hours and the state rules: whatever changed since the text was queued decides.
//! A text that still holds an unfilled merge field never leaves.
use crate::compliance::entity::{opt_out_review, review_status};
use crate::compliance::model::{ConsentSource, Purpose};
use crate::contacts::entity::contact;
use crate::contacts::opt_out;
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::messaging::model::SendState;
use crate::messaging::quiet;
use crate::platform::AppState;
use chrono::Duration;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};

/// The one opt-out confirmation goes within this long of the opt-out, or not at all.
pub const CONFIRMATION_WITHIN: Duration = Duration::minutes(5);
/// `ai_origin` of the opt-out confirmation and of the HELP answer.
pub const CONFIRMATION_ORIGIN: &str = "opt-out confirmation";
pub const HELP_ORIGIN: &str = "help answer";

/// Why the text may not leave now, in words for the conversation and the campaign; None: it may.
pub async fn refusal(state: &AppState, row: &message::Model) -> AppResult<Option<String>> {
    let purpose = Purpose::parse(row.purpose.as_deref());
    let now = state.clock.now();
    let Some(c) = contact::Entity::find_by_id(row.contact_id)
        .one(&state.db)
        .await?
    else {
        return Ok(Some("the contact no longer exists".into()));
    };
    let Some(phone) = c.phone.clone() else {
        return Ok(Some(format!("{} has no phone number", c.name)));
    };
    // Whoever wrote it, a merge field or plan reference nothing filled never reaches a person.
    if let Some(field) = crate::messaging::merge::leftover(&row.body) {
        return Ok(Some(format!(
            "it still holds {field}, which nothing filled: it would reach {} as braces",
            c.name
        )));
    }
    if purpose == Purpose::Compliance {
        // The confirmation and the HELP answer reach a number that opted out: that is their point.
        let late = now - row.created_at > CONFIRMATION_WITHIN;
        if row.ai_origin.as_deref() == Some(CONFIRMATION_ORIGIN) && late {
            return Ok(Some(
                "an opt-out confirmation goes within 5 minutes of the opt-out or not at all".into(),
            ));
        }
        return Ok(None);
    }
    if let Some(s) = opt_out::suppression_of(&state.db, row.organization_id, &phone).await? {
        return Ok(Some(format!(
            "{} opted out ({}, {}); nothing more is sent to {phone}",
            c.name,
            s.source,
            s.created_at.format("%Y-%m-%d %H:%M UTC")
        )));
    }
    if row.ai_origin.is_some() && open_review(state, row.organization_id, &phone).await? {
        return Ok(Some(format!(
            "paused: {} may have asked to opt out, and a person has not decided yet",
            c.name
        )));
    }
    if purpose == Purpose::Outreach {
        let consent = ConsentSource::parse(&c.consent_source).unwrap_or_default();
        if !consent.allows_marketing() {
            return Ok(Some(format!(
                "no marketing consent on record for {} ({})",
                c.name,
                consent.label().to_lowercase()
            )));
        }
        let org_zone = quiet::org_zone(&state.db, row.organization_id).await?;
        if let Some(until) = quiet::quiet_until(now, &c, &org_zone) {
            return Ok(Some(quiet::held_reason(until, &c, &org_zone)));
        }
        let r = quiet::recipient(&c, &org_zone);
        if let Some(law) = r.state_law() {
            let sent = marketing_in_last_day(state, row).await?;
            if sent >= quiet::STRICT_DAILY_CAP {
                return Ok(Some(format!(
                    "{law} allows at most {} marketing texts to a person in 24 hours; {} has had {sent}",
                    quiet::STRICT_DAILY_CAP,
                    c.name
                )));
            }
        }
    }
    Ok(None)
}

/// Whether a possible opt-out from this number waits for a person.
pub async fn open_review(state: &AppState, org: uuid::Uuid, phone: &str) -> AppResult<bool> {
    Ok(opt_out_review::Entity::find()
        .filter(opt_out_review::Column::OrganizationId.eq(org))
        .filter(opt_out_review::Column::Phone.eq(phone))
        .filter(opt_out_review::Column::Status.eq(review_status::OPEN))
        .count(&state.db)
        .await?
        > 0)
}

/// Outreach texts to the contact that left (or may have) in the 24 hours before this one.
async fn marketing_in_last_day(state: &AppState, row: &message::Model) -> AppResult<u64> {
    Ok(message::Entity::find()
        .filter(message::Column::OrganizationId.eq(row.organization_id))
        .filter(message::Column::ContactId.eq(row.contact_id))
        .filter(message::Column::Direction.eq("outbound"))
        .filter(message::Column::Id.ne(row.id))
        .filter(message::Column::Purpose.eq(Purpose::Outreach.as_str()))
        .filter(message::Column::SendState.is_in([
            SendState::Sent,
            SendState::Sending,
            SendState::Unknown,
        ]))
        .filter(message::Column::CreatedAt.gt(state.clock.now() - Duration::hours(24)))
        .count(&state.db)
        .await?)
}

/// The send check as the ledger asks for it (`messaging::ledger::SendCheck`), registered by the
/// composition root.
pub struct Gate;

#[async_trait::async_trait]
impl crate::messaging::ledger::SendCheck for Gate {
    async fn refusal(&self, state: &AppState, row: &message::Model) -> AppResult<Option<String>> {
        refusal(state, row).await
    }
}
