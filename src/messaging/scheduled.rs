//! Texts scheduled for later (a plan's "text them again in two days"). Scheduling checks what a
//! send checks (`check_sendable`) and keys the row by the scheduling call's effect, so a step
//! run again schedules once. The sweeper sends what is due through the send ledger under the
//! row's id (a crash mid-send never sends twice), re-checking opt-out, and holds a text that
//! falls in the recipient's quiet hours until they end. A person can cancel one until it goes.
//! A member's own "Send later" texts are scheduled here too (`send_later`).
use crate::auth::session::Member;
use crate::error::{AppError, AppResult, DbFault};
use crate::messaging::model::ScheduledTextView;
use crate::messaging::outbound::Outgoing;
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};
use uuid::Uuid;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "scheduled_text")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub contact_id: Uuid,
        pub phone_number_id: Uuid,
        #[sea_orm(column_type = "Text")]
        pub body: String,
        pub send_at: DateTimeUtc,
        pub status: String,
        pub plan_id: Option<Uuid>,
        pub message_id: Option<Uuid>,
        #[sea_orm(column_type = "Text", nullable)]
        pub error: Option<String>,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
        /// The member who wrote it ("Send later"); None for an agent's or a plan's.
        pub scheduled_by: Option<Uuid>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
    impl ActiveModelBehavior for ActiveModel {}
}
use entity as scheduled;

/// Statuses: waiting for its time, being sent, sent, cancelled by a person, refused when due.
pub mod status {
    pub const SCHEDULED: &str = "scheduled";
    pub const SENDING: &str = "sending";
    pub const SENT: &str = "sent";
    pub const CANCELED: &str = "canceled";
    pub const FAILED: &str = "failed";
}

/// The latest a text may be scheduled, in hours from now (30 days).
pub const MAX_HOURS: i64 = 720;
/// Texts the sweeper sends per pass.
const BATCH: u64 = 100;
/// A text left `sending` this long by a process that died is sent again (same key).
const STUCK: chrono::Duration = chrono::Duration::seconds(60);

pub fn view(r: scheduled::Model) -> ScheduledTextView {
    ScheduledTextView {
        id: r.id,
        contact_id: r.contact_id,
        body: r.body,
        send_at: r.send_at,
        status: r.status,
        error: r.error,
        by_person: r.scheduled_by.is_some(),
        their_time: None,
    }
}

/// Schedules `body` for `send_at`, once per `id` (the scheduling call's effect key): a plan's
/// (`plan_id`), an agent's, or a member's own (`scheduled_by`).
#[allow(clippy::too_many_arguments)]
pub async fn schedule(
    state: &AppState,
    id: Uuid,
    org_id: Uuid,
    contact_id: Uuid,
    phone_number_id: Uuid,
    body: &str,
    send_at: DateTime<Utc>,
    plan_id: Option<Uuid>,
    scheduled_by: Option<Uuid>,
) -> AppResult<scheduled::Model> {
    if let Some(existing) = scheduled::Entity::find_by_id(id)
        .filter(scheduled::Column::OrganizationId.eq(org_id))
        .one(&state.db)
        .await?
    {
        return Ok(existing);
    }
    let ok = crate::messaging::outbound::check_sendable(
        state,
        org_id,
        contact_id,
        phone_number_id,
        body,
    )
    .await?;
    let now = state.clock.now();
    let row = scheduled::ActiveModel {
        id: Set(id),
        organization_id: Set(org_id),
        contact_id: Set(contact_id),
        phone_number_id: Set(phone_number_id),
        body: Set(ok.body),
        send_at: Set(send_at),
        status: Set(status::SCHEDULED.into()),
        plan_id: Set(plan_id),
        message_id: Set(None),
        error: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        scheduled_by: Set(scheduled_by),
    }
    .insert(&state.db)
    .await;
    match row {
        Ok(r) => Ok(r),
        // Scheduled at the same moment by a second run of the same call.
        Err(e) if crate::platform::db::is_unique_violation(&e) => scheduled::Entity::find_by_id(id)
            .one(&state.db)
            .await?
            .ok_or_else(|| AppError::not_found("Scheduled text")),
        Err(e) => Err(e.into()),
    }
}

/// A contact's scheduled texts, newest first.
pub async fn for_contact(
    state: &AppState,
    m: &Member,
    contact_id: Uuid,
) -> AppResult<Vec<ScheduledTextView>> {
    let c = crate::contacts::service::find_in_org(&state.db, m.organization_id, contact_id).await?;
    let org_zone = crate::messaging::quiet::org_zone(&state.db, m.organization_id).await?;
    let tz = crate::messaging::quiet::zone_of(&c, &org_zone);
    Ok(scheduled::Entity::find()
        .filter(scheduled::Column::OrganizationId.eq(m.organization_id))
        .filter(scheduled::Column::ContactId.eq(contact_id))
        .order_by_desc(scheduled::Column::SendAt)
        .all(&state.db)
        .await?
        .into_iter()
        .map(|r| {
            let their = r.send_at.with_timezone(&tz).format("%Y-%m-%dT%H:%M");
            ScheduledTextView {
                their_time: Some(their.to_string()),
                ..view(r)
            }
        })
        .collect())
}

/// Cancels a text that has not gone yet.
pub async fn cancel(state: &AppState, m: &Member, id: Uuid) -> AppResult<ScheduledTextView> {
    let res = scheduled::Entity::update_many()
        .col_expr(scheduled::Column::Status, Expr::value(status::CANCELED))
        .col_expr(scheduled::Column::UpdatedAt, Expr::value(state.clock.now()))
        .filter(scheduled::Column::Id.eq(id))
        .filter(scheduled::Column::OrganizationId.eq(m.organization_id))
        .filter(scheduled::Column::Status.eq(status::SCHEDULED))
        .exec(&state.db)
        .await?;
    let row = scheduled::Entity::find_by_id(id)
        .filter(scheduled::Column::OrganizationId.eq(m.organization_id))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Scheduled text"))?;
    if res.rows_affected != 1 {
        return Err(AppError::Conflict(format!(
            "This text is {} and can no longer be cancelled.",
            row.status
        )));
    }
    Ok(view(row))
}

async fn set(
    state: &AppState,
    id: Uuid,
    to: &str,
    send_at: Option<DateTime<Utc>>,
    message_id: Option<Uuid>,
    error: Option<String>,
) -> AppResult<()> {
    let mut q = scheduled::Entity::update_many()
        .col_expr(scheduled::Column::Status, Expr::value(to))
        .col_expr(scheduled::Column::UpdatedAt, Expr::value(state.clock.now()))
        .col_expr(scheduled::Column::MessageId, Expr::value(message_id))
        .col_expr(scheduled::Column::Error, Expr::value(error));
    if let Some(at) = send_at {
        q = q.col_expr(scheduled::Column::SendAt, Expr::value(at));
    }
    q.filter(scheduled::Column::Id.eq(id))
        .exec(&state.db)
        .await?;
    Ok(())
}

/// Sends what is due (and what a dead process left mid-send); answers how many it handled.
pub async fn send_due(state: &AppState) -> AppResult<usize> {
    let now = state.clock.now();
    let due = scheduled::Entity::find()
        .filter(
            sea_orm::Condition::any()
                .add(
                    sea_orm::Condition::all()
                        .add(scheduled::Column::Status.eq(status::SCHEDULED))
                        .add(scheduled::Column::SendAt.lte(now)),
                )
                .add(
                    sea_orm::Condition::all()
                        .add(scheduled::Column::Status.eq(status::SENDING))
                        .add(scheduled::Column::UpdatedAt.lt(now - STUCK)),
                ),
        )
        .order_by_asc(scheduled::Column::SendAt)
        .limit(BATCH)
        .all(&state.db)
        .await?;
    let mut handled = 0;
    for r in due {
        // Claimed by one sweeper (another instance may be looking at the same row).
        let claimed = scheduled::Entity::update_many()
            .col_expr(scheduled::Column::Status, Expr::value(status::SENDING))
            .col_expr(scheduled::Column::UpdatedAt, Expr::value(now))
            .filter(scheduled::Column::Id.eq(r.id))
            .filter(scheduled::Column::Status.eq(r.status.as_str()))
            .filter(scheduled::Column::UpdatedAt.eq(r.updated_at))
            .exec(&state.db)
            .await?;
        if claimed.rows_affected != 1 {
            continue;
        }
        handled += 1;
        send_one(state, &r).await?;
    }
    Ok(handled)
}

async fn send_one(state: &AppState, r: &scheduled::Model) -> AppResult<()> {
    let person =
        crate::contacts::service::find_in_org(&state.db, r.organization_id, r.contact_id).await;
    let Ok(person) = person else {
        let why = Some("the contact no longer exists".to_owned());
        return set(state, r.id, status::FAILED, None, None, why).await;
    };
    let zone = crate::messaging::quiet::org_zone(&state.db, r.organization_id).await?;
    if let Some(until) = crate::messaging::quiet::quiet_until(state.clock.now(), &person, &zone) {
        return set(state, r.id, status::SCHEDULED, Some(until), None, None).await;
    }
    let out = Outgoing::new(r.organization_id, r.contact_id, r.phone_number_id, &r.body)
        .keyed(Some(r.id));
    // A member's text leaves as theirs (a reply when the contact has texted); an agent's or a
    // plan's is the business reaching out.
    let out = match r.scheduled_by {
        Some(_) => out,
        None => out
            .origin(Some("scheduled by an agent"))
            .purpose(crate::messaging::model::Purpose::Outreach),
    };
    let sent = crate::messaging::outbound::send(state, out).await;
    match sent {
        Ok(m) => set(state, r.id, status::SENT, None, Some(m.id), None).await,
        // A busy database, or its twin inserted at the same moment: left `sending`, it is picked
        // up again after a while. Any other failure is final.
        Err(e) if e.is_transient() || e == AppError::Database(DbFault::Unique) => {
            tracing::warn!(error = %e, "a scheduled text could not be sent yet");
            Ok(())
        }
        Err(e) => set(state, r.id, status::FAILED, None, None, Some(e.to_string())).await,
    }
}
