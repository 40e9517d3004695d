//! Delivery status callbacks. A status never moves backwards: each callback is one conditional
//! UPDATE, so two callbacks racing cannot lose the later status. A callback for a SID Herald has
//! not recorded yet (it raced the create's answer, or the answer was lost) is kept and applied
//! when the SID arrives. A callback speaks only of its own organisation's texts: the one whose
//! number is `From` (its token verified the request).
use crate::contacts::opt_out::{self, OptOutSource};
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::messaging::inbound::WebhookError;
use crate::messaging::model::LiveEvent;
use crate::messaging::webhook_form::WebhookForm;
use crate::platform::events::DomainEvent;
use crate::platform::AppState;
use crate::provider_accounts::entity as provider_account;
use sea_orm::sea_query::{Alias, CaseStatement, Expr, ExprTrait, Query, SimpleExpr};
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Set};
use uuid::Uuid;

/// The order delivery statuses come in; unknown to Twilio (Herald's own) is below all.
pub fn status_rank(status: &str) -> Option<i32> {
    Some(match status {
        "accepted" | "scheduled" | "queued" => 0,
        "sending" => 1,
        "sent" => 2,
        "received" | "receiving" | "read" => 3,
        "delivered" | "undelivered" | "failed" | "canceled" => 4,
        _ => return None,
    })
}

/// The stored status's rank, in SQL, for the conditional update.
fn rank_expr() -> CaseStatement {
    let mut case = CaseStatement::new();
    for s in [
        "accepted",
        "scheduled",
        "queued",
        "sending",
        "sent",
        "received",
        "receiving",
        "read",
        "delivered",
        "undelivered",
        "failed",
        "canceled",
    ] {
        case = case.case(
            Expr::col((Alias::new("message"), message::Column::Status)).eq(s),
            Expr::val(status_rank(s).unwrap_or(-1)),
        );
    }
    case.finally(Expr::val(-1))
}

/// Whose texts a verified callback may speak of.
#[derive(Clone, Copy, Debug)]
enum Scope {
    /// The organisation whose number is `From`: its own token (or, without an account of its
    /// own, the server's) verified the request.
    Org(Uuid),
    /// `From` is none of ours: the server's token verified it, which speaks only for the
    /// organisations without an account of their own.
    Unowned,
}

impl Scope {
    /// `from` is the callback's `From` as `WebhookForm::number` normalised it: the number whose
    /// token verified the request.
    async fn of(state: &AppState, from: Option<&str>) -> AppResult<Self> {
        let Some(from) = from else {
            return Ok(Scope::Unowned);
        };
        Ok(match state.numbers().find(&state.db, from).await? {
            Some(n) => Scope::Org(n.organization_id),
            None => Scope::Unowned,
        })
    }

    /// The messages in scope.
    fn messages(self) -> SimpleExpr {
        match self {
            Scope::Org(org) => message::Column::OrganizationId.eq(org),
            Scope::Unowned => message::Column::OrganizationId.not_in_subquery(
                Query::select()
                    .column(provider_account::Column::OrganizationId)
                    .from(provider_account::Entity)
                    .to_owned(),
            ),
        }
    }

    /// The key a callback for a SID not recorded yet is kept under: only a text of the same
    /// scope picks it up.
    fn pending_key(self, sid: &str) -> String {
        match self {
            Scope::Org(org) => format!("{org}/{sid}"),
            Scope::Unowned => sid.to_owned(),
        }
    }
}

/// Moves the organisation's message with `sid` to `status` if that is forward; answers whether
/// a row moved.
async fn advance(
    state: &AppState,
    org: Uuid,
    sid: &str,
    status: &str,
    error_code: Option<&str>,
) -> AppResult<bool> {
    let rank = status_rank(status).unwrap_or(-1);
    let mut update = message::Entity::update_many()
        .col_expr(message::Column::Status, Expr::value(status.to_owned()));
    if let Some(code) = error_code {
        update = update.col_expr(
            message::Column::Error,
            Expr::value(Some(crate::platform::carrier_errors::explain(code))),
        );
    }
    // The status and its webhook event commit together.
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let res = update
        .filter(message::Column::ProviderSid.eq(sid))
        .filter(message::Column::OrganizationId.eq(org))
        .filter(Expr::expr(rank_expr()).lt(rank))
        .exec(&txn)
        .await?;
    if res.rows_affected > 0 {
        if let Some(m) = message::Entity::find()
            .filter(message::Column::ProviderSid.eq(sid))
            .filter(message::Column::OrganizationId.eq(org))
            .one(&txn)
            .await?
        {
            // The text's timeline, with the carrier's code: what the callback said, and when.
            crate::messaging::entity::status_event::ActiveModel {
                id: Set(Uuid::new_v4()),
                organization_id: Set(org),
                message_id: Set(m.id),
                phone_number_id: Set(m.phone_number_id),
                status: Set(status.to_owned()),
                error_code: Set(error_code.map(|c| c.trim().chars().take(8).collect())),
                at: Set(state.clock.now()),
            }
            .insert(&txn)
            .await?;
            let data = serde_json::json!({"message_id": m.id, "contact_id": m.contact_id,
                "phone_number_id": m.phone_number_id, "status": status, "error_code": error_code,
                "error": m.error});
            crate::webhooks::emit::emit(&txn, org, "message.status", data, state.clock.now())
                .await?;
        }
    }
    txn.commit().await?;
    Ok(res.rows_affected > 0)
}

/// Effects of a status beyond the status itself: a code that says the recipient opted out at the
/// carrier (21610, `carrier_errors`) puts their number on the suppression list, and the listeners
/// of `DomainEvent::MessageStatus` do the rest.
async fn after_status(
    state: &AppState,
    org: Uuid,
    sid: &str,
    error_code: Option<&str>,
) -> AppResult<()> {
    let Some(row) = message::Entity::find()
        .filter(message::Column::ProviderSid.eq(sid))
        .filter(message::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
    else {
        return Ok(());
    };
    use crate::platform::carrier_errors::{action, CarrierAction};
    if error_code.map(action) == Some(CarrierAction::Suppress) {
        // The carrier says the number opted out: it goes on the same suppression list.
        let why = opt_out::Because {
            actor_user_id: None,
            reason: Some("the carrier refused a text with 21610 (the recipient opted out)".into()),
            message_id: Some(row.id),
        };
        if opt_out::record_opt_out(
            &state.db,
            row.contact_id,
            OptOutSource::Carrier,
            &why,
            state.clock.now(),
        )
        .await?
        {
            state.metrics.opt_outs.inc();
        }
    }
    // The rest is other modules' business: the contact's reachability, the number's registration,
    // a campaign's delivery alarm (`docs/architecture.md`, events).
    let event = DomainEvent::MessageStatus {
        organization_id: org,
        message_id: row.id,
        contact_id: row.contact_id,
        phone_number_id: row.phone_number_id,
        status: row.status.clone(),
        error_code: error_code.map(str::to_owned),
    };
    crate::platform::events::publish(state, event).await?;
    state.live.publish(
        row.organization_id,
        LiveEvent::MessageUpdated {
            contact_id: row.contact_id,
            message_id: row.id,
            status: row.status,
        },
    );
    Ok(())
}

/// Applies a delivery status callback; `ours` is the normalised `From` whose token verified it.
#[tracing::instrument(skip_all)]
pub async fn apply_status_callback(
    state: &AppState,
    form: &WebhookForm,
    ours: Option<&str>,
) -> Result<(), WebhookError> {
    let sid = form
        .get("MessageSid")
        .or_else(|| form.get("SmsSid"))
        .ok_or_else(|| WebhookError::BadRequest("missing MessageSid".into()))?;
    let status = form
        .get("MessageStatus")
        .or_else(|| form.get("SmsStatus"))
        .ok_or_else(|| WebhookError::BadRequest("missing MessageStatus".into()))?
        .to_lowercase();
    if status_rank(&status).is_none() {
        return Err(WebhookError::BadRequest(format!(
            "unknown MessageStatus {status}"
        )));
    }
    let error_code = form.get("ErrorCode").map(|c| c.to_string());
    let scope = Scope::of(state, ours).await?;
    let ours = message::Entity::find()
        .filter(message::Column::ProviderSid.eq(sid))
        .filter(scope.messages())
        .one(&state.db)
        .await?;
    if let Some(m) = ours {
        let org = m.organization_id;
        if advance(state, org, sid, &status, error_code.as_deref()).await? || error_code.is_some() {
            after_status(state, org, sid, error_code.as_deref()).await?;
        }
        return Ok(());
    }
    let elsewhere = message::Entity::find()
        .filter(message::Column::ProviderSid.eq(sid))
        .one(&state.db)
        .await?;
    if elsewhere.is_some() {
        // Signed for one organisation, about another's text: it changes nothing.
        tracing::warn!(%sid, ?scope, "status callback about a text outside its scope; ignored");
        return Ok(());
    }
    // Not recorded yet: kept until the SID arrives with the create's answer or a lookup.
    tracing::info!(%sid, "status callback for a SID not recorded yet; kept");
    crate::messaging::entity::pending_status::ActiveModel {
        id: Set(Uuid::new_v4()),
        provider_sid: Set(scope.pending_key(sid)),
        status: Set(status.clone()),
        error_code: Set(error_code.clone()),
        received_at: Set(state.clock.now()),
    }
    .insert(&state.db)
    .await?;
    // The SID may have been recorded meanwhile: apply what was just kept.
    apply_pending(state, sid).await?;
    Ok(())
}

/// Applies (and forgets) the callbacks kept for `sid`, oldest first: those kept for its
/// message's organisation, and, if it has no account of its own, those the server's token
/// verified.
pub async fn apply_pending(state: &AppState, sid: &str) -> AppResult<()> {
    use crate::messaging::entity::pending_status as pending;
    let Some(m) = message::Entity::find()
        .filter(message::Column::ProviderSid.eq(sid))
        .one(&state.db)
        .await?
    else {
        return Ok(());
    };
    let org = m.organization_id;
    let mut keys = vec![Scope::Org(org).pending_key(sid)];
    let own_account = provider_account::Entity::find()
        .filter(provider_account::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?;
    if own_account.is_none() {
        keys.push(Scope::Unowned.pending_key(sid));
    }
    let kept = pending::Entity::find()
        .filter(pending::Column::ProviderSid.is_in(keys))
        .order_by_asc(pending::Column::ReceivedAt)
        .all(&state.db)
        .await?;
    for k in kept {
        let moved = advance(state, org, sid, &k.status, k.error_code.as_deref()).await?;
        if moved || k.error_code.is_some() {
            after_status(state, org, sid, k.error_code.as_deref()).await?;
        }
        pending::Entity::delete_by_id(k.id).exec(&state.db).await?;
    }
    Ok(())
}
