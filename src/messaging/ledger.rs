//! The send ledger: every outbound text is queued → sending (one attempt, under an attempt key,
//! with its start time) → sent (with the provider's SID) | failed | unknown. A text found in
//! `sending` without a SID is never resent blindly: it is reconciled with the provider's list
//! first. If the provider has it, its SID is recorded; if the provider surely does not, it is
//! sent again; if Herald cannot tell, it becomes `unknown` and waits for a person. Every attempt
//! first passes `compliance::gate`, the one point where the law is checked as a text leaves.
use crate::error::{AppError, AppResult};
use crate::messaging::entity as message;
use crate::messaging::model::LiveEvent;
use crate::platform::events::DomainEvent;
use crate::platform::sms::{Lookup, OutboundSms, PhoneNumber, TransportError};
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

pub use crate::messaging::model::SendState;

/// Lookups that fail before a text in doubt is marked `unknown`.
pub const RECONCILE_TRIES: i32 = 3;
/// Attempts that never reached the provider before a text is marked failed.
pub const SEND_ATTEMPTS: i32 = 5;

async fn reload(state: &AppState, id: Uuid) -> AppResult<message::Model> {
    message::Entity::find_by_id(id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Message"))
}

fn publish(state: &AppState, m: &message::Model) {
    state.live.publish(
        m.organization_id,
        LiveEvent::MessageUpdated {
            contact_id: m.contact_id,
            message_id: m.id,
            status: m.status.clone(),
        },
    );
}

/// Makes one attempt at a queued text and records the outcome. A text someone else is already
/// sending, or that is settled, is answered as it is.
#[tracing::instrument(skip(state))]
pub async fn deliver(state: &AppState, id: Uuid) -> AppResult<message::Model> {
    let attempt = Uuid::new_v4().to_string();
    let claimed = message::Entity::update_many()
        .col_expr(message::Column::SendState, Expr::value(SendState::Sending))
        .col_expr(
            message::Column::AttemptKey,
            Expr::value(Some(attempt.clone())),
        )
        .col_expr(
            message::Column::AttemptStartedAt,
            Expr::value(Some(state.clock.now())),
        )
        .col_expr(
            message::Column::SendAttempts,
            Expr::col(message::Column::SendAttempts).add(1),
        )
        .filter(message::Column::Id.eq(id))
        .filter(message::Column::SendState.eq(SendState::Queued))
        .exec(&state.db)
        .await?;
    let row = reload(state, id).await?;
    if claimed.rows_affected == 0 {
        return Ok(row);
    }
    // The law is checked as the text leaves, every time: an opt-out, a possible opt-out, consent,
    // quiet hours and the state rules may have changed since it was queued. A refused text is
    // failed with its reason, and no retry ever sends it.
    if let Some(why) = state.send_check().refusal(state, &row).await? {
        tracing::info!(%id, reason = %why, "a text was refused as it left");
        state.metrics.refused_messages.inc();
        settle_failed(state, id, &attempt, &format!("Not sent: {why}.")).await?;
        let row = reload(state, id).await?;
        publish(state, &row);
        return Ok(row);
    }
    let sms = outbound_of(state, &row, attempt.clone()).await?;
    let outcome = state.transport.send(&sms).await;
    match outcome {
        Ok(sent) => {
            record_sent(state, id, &attempt, &sent.provider_sid, &sent.status).await?;
            state.metrics.outbound_messages.inc();
            // Its listeners count it against the brand's day (`sender_profiles::pacing`).
            let event = DomainEvent::TextLeft {
                organization_id: row.organization_id,
                message_id: id,
                phone_number_id: row.phone_number_id,
                campaign: row.ai_origin.as_deref() == Some("campaign"),
            };
            if let Err(e) = crate::platform::events::publish(state, event).await {
                tracing::warn!(%id, error = %e, "a sent text's after-effects failed");
            }
        }
        Err(TransportError::Rejected(e)) => settle_failed(state, id, &attempt, &e).await?,
        Err(TransportError::NotSent(e)) => {
            // Surely not sent: back to the queue, or failed after too many tries.
            let next = if row.send_attempts >= SEND_ATTEMPTS {
                SendState::Failed
            } else {
                SendState::Queued
            };
            message::Entity::update_many()
                .col_expr(message::Column::SendState, Expr::value(next))
                .col_expr(
                    message::Column::AttemptKey,
                    Expr::value(Option::<String>::None),
                )
                .col_expr(message::Column::Error, Expr::value(Some(e.clone())))
                .col_expr(
                    message::Column::Status,
                    Expr::value(if next == SendState::Failed {
                        "failed"
                    } else {
                        "queued"
                    }),
                )
                .filter(message::Column::Id.eq(id))
                .filter(message::Column::AttemptKey.eq(attempt.as_str()))
                .exec(&state.db)
                .await?;
        }
        Err(TransportError::Ambiguous(e)) => {
            // Left in `sending`: the reconciler asks the provider before anything else happens.
            tracing::warn!(%id, error = %e, "the provider's answer was lost; will reconcile");
            message::Entity::update_many()
                .col_expr(message::Column::Error, Expr::value(Some(e)))
                .filter(message::Column::Id.eq(id))
                .exec(&state.db)
                .await?;
        }
    }
    let row = reload(state, id).await?;
    publish(state, &row);
    Ok(row)
}

async fn outbound_of(
    state: &AppState,
    row: &message::Model,
    key: String,
) -> AppResult<OutboundSms> {
    let to = crate::contacts::entity::contact::Entity::find_by_id(row.contact_id)
        .one(&state.db)
        .await?
        .and_then(|c| c.phone)
        .ok_or_else(|| AppError::validation("The contact has no phone number."))?;
    // The last guard before a provider: only a phone number is ever a recipient.
    let not_textable = || {
        AppError::Validation(format!(
            "{to} is a short code or sender name, not a phone number: it cannot be texted."
        ))
    };
    let to = match PhoneNumber::new(to.as_str()) {
        Ok(n) if !n.is_short_code() => n,
        _ => return Err(not_textable()),
    };
    let from = crate::phone_numbers::entity::Entity::find_by_id(row.phone_number_id)
        .one(&state.db)
        .await?
        .map(|n| n.number)
        .ok_or_else(|| AppError::not_found("Phone number"))?;
    // An MMS: the addresses its pictures are fetched from (fresh tokens are not needed: each
    // lasts PUBLIC_MEDIA_DAYS from the text, longer than any attempt).
    let media_urls = if row.media_count > 0 {
        crate::media::upload::public_urls(&state.db, &state.config.public_url, row.id).await?
    } else {
        vec![]
    };
    Ok(OutboundSms {
        from,
        to,
        body: row.body.clone(),
        idempotency_key: key,
        account: crate::provider_accounts::service::account_for(state, row.organization_id).await?,
        media_urls,
    })
}

async fn settle_failed(state: &AppState, id: Uuid, attempt: &str, error: &str) -> AppResult<()> {
    message::Entity::update_many()
        .col_expr(message::Column::SendState, Expr::value(SendState::Failed))
        .col_expr(message::Column::Status, Expr::value("failed"))
        .col_expr(message::Column::Error, Expr::value(Some(error.to_owned())))
        .filter(message::Column::Id.eq(id))
        .filter(message::Column::AttemptKey.eq(attempt))
        .exec(&state.db)
        .await?;
    Ok(())
}

/// The provider has the text: its SID is recorded (for this attempt only), and any status
/// callback that came before the SID is applied now.
pub async fn record_sent(
    state: &AppState,
    id: Uuid,
    attempt: &str,
    sid: &str,
    status: &str,
) -> AppResult<()> {
    let res = message::Entity::update_many()
        .col_expr(message::Column::SendState, Expr::value(SendState::Sent))
        .col_expr(
            message::Column::ProviderSid,
            Expr::value(Some(sid.to_owned())),
        )
        .col_expr(message::Column::Status, Expr::value(status.to_owned()))
        .col_expr(message::Column::Error, Expr::value(Option::<String>::None))
        .filter(message::Column::Id.eq(id))
        .filter(message::Column::AttemptKey.eq(attempt))
        .filter(message::Column::SendState.is_in([SendState::Sending, SendState::Unknown]))
        .exec(&state.db)
        .await?;
    if res.rows_affected == 1 {
        crate::messaging::status::apply_pending(state, sid).await?;
    }
    Ok(())
}

/// What reconciling one text found.
#[derive(Debug, PartialEq)]
pub enum Reconciled {
    /// The provider has it: its SID is recorded.
    Found(String),
    /// The provider surely does not: it was sent again.
    Resent,
    /// The provider could not be asked; asked again later, then `unknown`.
    Undecided,
    /// Given up: a person decides.
    Unknown,
    /// Someone else settled it first.
    Skipped,
}

/// Asks the provider about a text left in `sending`.
#[tracing::instrument(skip(state, row), fields(id = %row.id))]
pub async fn reconcile(state: &AppState, row: &message::Model) -> AppResult<Reconciled> {
    let (Some(attempt), Some(started)) = (row.attempt_key.clone(), row.attempt_started_at) else {
        return Ok(Reconciled::Skipped);
    };
    // One reconciler at a time: moving the start time on is the claim.
    let now = state.clock.now();
    let claimed = message::Entity::update_many()
        .col_expr(message::Column::AttemptStartedAt, Expr::value(Some(now)))
        .filter(message::Column::Id.eq(row.id))
        .filter(message::Column::AttemptKey.eq(attempt.as_str()))
        .filter(message::Column::AttemptStartedAt.eq(started))
        .filter(message::Column::SendState.eq(SendState::Sending))
        .exec(&state.db)
        .await?;
    if claimed.rows_affected == 0 {
        return Ok(Reconciled::Skipped);
    }
    let sms = outbound_of(state, row, attempt.clone()).await?;
    let lookup = Lookup {
        to: sms.to,
        from: sms.from,
        body: sms.body,
        since: first_attempt_start(row, started),
        account: sms.account,
    };
    match state.transport.find(&lookup).await {
        Ok(found) => {
            let known: Vec<String> = message::Entity::find()
                .select_only()
                .column(message::Column::ProviderSid)
                .filter(
                    message::Column::ProviderSid
                        .is_in(found.iter().map(|f| f.provider_sid.clone())),
                )
                .into_tuple::<Option<String>>()
                .all(&state.db)
                .await?
                .into_iter()
                .flatten()
                .collect();
            // The oldest match no other message has claimed is this one.
            match found
                .iter()
                .rev()
                .find(|f| !known.contains(&f.provider_sid))
            {
                Some(f) => {
                    record_sent(state, row.id, &attempt, &f.provider_sid, &f.status).await?;
                    publish(state, &reload(state, row.id).await?);
                    Ok(Reconciled::Found(f.provider_sid.clone()))
                }
                None => {
                    let requeued = message::Entity::update_many()
                        .col_expr(message::Column::SendState, Expr::value(SendState::Queued))
                        .col_expr(
                            message::Column::AttemptKey,
                            Expr::value(Option::<String>::None),
                        )
                        .filter(message::Column::Id.eq(row.id))
                        .filter(message::Column::AttemptKey.eq(attempt.as_str()))
                        .exec(&state.db)
                        .await?;
                    if requeued.rows_affected == 1 {
                        deliver(state, row.id).await?;
                    }
                    Ok(Reconciled::Resent)
                }
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "could not ask the provider");
            let tries = row.reconcile_failures + 1;
            let give_up = tries >= RECONCILE_TRIES;
            message::Entity::update_many()
                .col_expr(message::Column::ReconcileFailures, Expr::value(tries))
                .col_expr(
                    message::Column::SendState,
                    Expr::value(if give_up {
                        SendState::Unknown
                    } else {
                        SendState::Sending
                    }),
                )
                .col_expr(
                    message::Column::Status,
                    Expr::value(if give_up {
                        "unknown".to_owned()
                    } else {
                        row.status.clone()
                    }),
                )
                .filter(message::Column::Id.eq(row.id))
                .filter(message::Column::AttemptKey.eq(attempt.as_str()))
                .exec(&state.db)
                .await?;
            if give_up {
                publish(state, &reload(state, row.id).await?);
                return Ok(Reconciled::Unknown);
            }
            Ok(Reconciled::Undecided)
        }
    }
}

/// The lookup window starts at the text's first attempt (its row's creation), not this one.
fn first_attempt_start(row: &message::Model, started: DateTime<Utc>) -> DateTime<Utc> {
    std::cmp::min(row.created_at, started)
}

/// Reconciles texts whose attempt began over `grace` ago (an attempt in flight is left alone),
/// and delivers texts queued that long ago. The sweeper calls it; answers how many it touched.
pub async fn sweep(state: &AppState, grace: chrono::Duration) -> AppResult<usize> {
    let cutoff = state.clock.now() - grace;
    let in_doubt = message::Entity::find()
        .filter(message::Column::Direction.eq("outbound"))
        .filter(message::Column::SendState.eq(SendState::Sending))
        .filter(message::Column::AttemptStartedAt.lt(cutoff))
        .order_by_asc(message::Column::AttemptStartedAt)
        .limit(200)
        .all(&state.db)
        .await?;
    let queued = message::Entity::find()
        .filter(message::Column::Direction.eq("outbound"))
        .filter(message::Column::SendState.eq(SendState::Queued))
        .filter(message::Column::CreatedAt.lt(cutoff))
        .order_by_asc(message::Column::CreatedAt)
        .limit(200)
        .all(&state.db)
        .await?;
    let n = in_doubt.len() + queued.len();
    for row in in_doubt {
        reconcile(state, &row).await?;
    }
    for row in queued {
        deliver(state, row.id).await?;
    }
    Ok(n)
}

pub use crate::messaging::model::Resolution;

/// Resolves an `unknown` text of the caller's organisation.
pub async fn resolve_unknown(
    state: &AppState,
    org: Uuid,
    id: Uuid,
    how: Resolution,
) -> AppResult<message::Model> {
    let row = message::Entity::find_by_id(id)
        .filter(message::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Message"))?;
    if row.send_state != Some(SendState::Unknown) {
        return Err(AppError::Conflict(
            "That text is no longer in doubt.".into(),
        ));
    }
    let (next, status) = match how {
        Resolution::SendAnyway => (SendState::Queued, "queued"),
        Resolution::MarkSent => (SendState::Sent, "sent"),
    };
    let res = message::Entity::update_many()
        .col_expr(message::Column::SendState, Expr::value(next))
        .col_expr(message::Column::Status, Expr::value(status))
        .col_expr(
            message::Column::AttemptKey,
            Expr::value(Option::<String>::None),
        )
        .col_expr(message::Column::ReconcileFailures, Expr::value(0))
        .filter(message::Column::Id.eq(id))
        .filter(message::Column::SendState.eq(SendState::Unknown))
        .exec(&state.db)
        .await?;
    if res.rows_affected == 1 && how == Resolution::SendAnyway {
        return deliver(state, id).await;
    }
    let row = reload(state, id).await?;
    publish(state, &row);
    Ok(row)
}

/// The one send check (`../shared/compliance.md`), asked as each text leaves; the compliance
/// rules answer it (`compliance::gate::Gate`, wired in by the server), and the ledger never calls
/// up into them.
#[async_trait::async_trait]
pub trait SendCheck: Send + Sync {
    /// Why `row` may not leave now, or None when it may.
    async fn refusal(&self, state: &AppState, row: &message::Model) -> AppResult<Option<String>>;
}

impl AppState {
    /// The one send check every text meets as it leaves.
    pub fn send_check(&self) -> &std::sync::Arc<dyn SendCheck> {
        self.part::<std::sync::Arc<dyn SendCheck>>()
    }
}
