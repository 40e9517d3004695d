//! The inbox's views as SQL on the per-conversation rows: which conversations each holds, and
//! each view's exact count. Every condition is scoped to one organisation and reads the
//! `(organization_id, state | assignee_id | unread_count, last_at)` indexes (migrations 30, 37).
//! "Mine" and "Unassigned" hold open conversations only: they are the work still to do.
use crate::error::AppResult;
use crate::inbox::model::{ConversationState, InboxCounts};
use crate::messaging::entity::conversation::{Column, Entity};
use crate::messaging::model::InboxFilter;
use chrono::{DateTime, Utc};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect,
    QueryTrait,
};
use uuid::Uuid;

/// Who reads the inbox, and when: "Mine" is theirs, and a snooze is due by `now`; `number`
/// narrows every view to the conversations whose latest text was to or from that number.
#[derive(Clone, Copy, Debug)]
pub struct Viewer {
    pub organization_id: Uuid,
    pub user_id: Uuid,
    pub now: DateTime<Utc>,
    pub number: Option<Uuid>,
}

/// Open, or snoozed until a time that has come.
fn open(now: DateTime<Utc>) -> Condition {
    Condition::any()
        .add(Column::State.eq(ConversationState::Open))
        .add(
            Condition::all()
                .add(Column::State.eq(ConversationState::Snoozed))
                .add(Column::SnoozedUntil.lte(now)),
        )
}

/// The conversations `filter` holds for `v`.
pub fn condition(v: &Viewer, filter: InboxFilter) -> Condition {
    let mut c = Condition::all().add(Column::OrganizationId.eq(v.organization_id));
    if let Some(number) = v.number {
        c = c.add(Column::LastPhoneNumberId.eq(number));
    }
    match filter {
        InboxFilter::All => c,
        InboxFilter::Unread => c.add(Column::UnreadCount.gt(0)),
        InboxFilter::Mine => c.add(Column::AssigneeId.eq(v.user_id)).add(open(v.now)),
        InboxFilter::Unassigned => c.add(Column::AssigneeId.is_null()).add(open(v.now)),
        InboxFilter::Open => c.add(open(v.now)),
        InboxFilter::Closed => c.add(Column::State.eq(ConversationState::Closed)),
        InboxFilter::Snoozed => c
            .add(Column::State.eq(ConversationState::Snoozed))
            .add(Column::SnoozedUntil.gt(v.now)),
    }
}

/// How many conversations `filter` holds for `v`, exactly.
pub async fn count<C: ConnectionTrait>(db: &C, v: &Viewer, filter: InboxFilter) -> AppResult<u64> {
    Ok(Entity::find()
        .filter(condition(v, filter))
        .count(db)
        .await?)
}

/// How many conversations `filter` holds for `v`, counting no further than `cap`: the sidebar's
/// badges read this on every page, and a count that stops early costs the same at any size.
pub async fn count_up_to<C: ConnectionTrait>(
    db: &C,
    v: &Viewer,
    filter: InboxFilter,
    cap: u64,
) -> AppResult<u64> {
    let inner = Entity::find()
        .select_only()
        .column(Column::ContactId)
        .filter(condition(v, filter))
        .limit(cap)
        .into_query();
    crate::platform::db::count_rows(db, inner).await
}

/// Every view's count, for the inbox's tabs.
pub async fn counts<C: ConnectionTrait>(db: &C, v: &Viewer) -> AppResult<InboxCounts> {
    Ok(InboxCounts {
        all: count(db, v, InboxFilter::All).await?,
        mine: count(db, v, InboxFilter::Mine).await?,
        unassigned: count(db, v, InboxFilter::Unassigned).await?,
        unread: count(db, v, InboxFilter::Unread).await?,
        open: count(db, v, InboxFilter::Open).await?,
        closed: count(db, v, InboxFilter::Closed).await?,
        snoozed: count(db, v, InboxFilter::Snoozed).await?,
    })
}
