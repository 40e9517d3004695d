//! Deleting a contact (`DELETE /v1/contacts/{id}`): the person and what Herald holds of them go
//! in one transaction: their texts and pictures, notes, scheduled texts, agent threads, campaign
//! items, plan-audience rows, tags and conversation (most by the foreign keys' cascade, the rest
//! here). Their number's opt-out stays: the suppression list belongs to the number (`opt_out`),
//! so a contact made again with that number is still opted out, and its audit stays too.
//!
//! Owners only (a key acts as the owner who made it), refused while a text of theirs is in flight
//! (`in_flight`), and audited with what went, not with what the texts said.
use crate::ai_agent::entity::ai_thread;
use crate::ai_agent::thread::contact_key;
use crate::audit::model::AuditAction;
use crate::audit::service::{record, Entry};
use crate::auth::session::Member;
use crate::contacts::entity::contact;
use crate::contacts::service::find_in_org;
use crate::error::AppResult;
use crate::live_event::LiveEvent;
use crate::media::entity as media;
use crate::messaging::entity as message;
use crate::platform::AppState;
use sea_orm::sea_query::{Alias, Expr, ExprTrait, Query};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect,
};
use uuid::Uuid;

/// What a deletion took with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Erased {
    pub messages: u64,
    pub pictures: usize,
}

/// What deleting a contact would take, for the page that asks to confirm it.
#[derive(Clone, Debug)]
pub struct Preview {
    pub contact: contact::Model,
    pub messages: u64,
    pub notes: u64,
    pub scheduled: u64,
    /// Their number is on the suppression list: that stays.
    pub opted_out: bool,
}

/// Counts what `erase` would delete; changes nothing. Owners only, like the deletion.
pub async fn preview(state: &AppState, m: &Member, id: Uuid) -> AppResult<Preview> {
    use crate::inbox::notes::entity as note;
    use crate::messaging::scheduled::{entity as scheduled, status};
    m.require_owner()?;
    let org = m.organization_id;
    let db = &state.db;
    let contact = find_in_org(db, org, id).await?;
    let messages = message::Entity::find()
        .filter(message::Column::OrganizationId.eq(org))
        .filter(message::Column::ContactId.eq(id))
        .count(db)
        .await?;
    let notes = note::Entity::find()
        .filter(note::Column::OrganizationId.eq(org))
        .filter(note::Column::ContactId.eq(id))
        .count(db)
        .await?;
    let scheduled = scheduled::Entity::find()
        .filter(scheduled::Column::OrganizationId.eq(org))
        .filter(scheduled::Column::ContactId.eq(id))
        .filter(scheduled::Column::Status.eq(status::SCHEDULED))
        .count(db)
        .await?;
    let opted_out = match &contact.phone {
        Some(p) => crate::contacts::opt_out::suppression_of(db, org, p)
            .await?
            .is_some(),
        None => false,
    };
    Ok(Preview {
        contact,
        messages,
        notes,
        scheduled,
        opted_out,
    })
}

/// Deletes the contact `id` of the member's organisation, with everything of theirs but the
/// number's opt-out. Not found unless it is the organisation's own.
#[tracing::instrument(skip(state, m), fields(org = %m.organization_id))]
pub async fn erase(state: &AppState, m: &Member, id: Uuid) -> AppResult<Erased> {
    m.require_owner()?;
    let org = m.organization_id;
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    // Serialised with merges of the organisation on PostgreSQL; SQLite's write lock is held.
    if txn.get_database_backend() == sea_orm::DbBackend::Postgres {
        crate::platform::db::advisory_xact_lock(&txn, super::merge::lock_key(org)).await?;
    }
    let c = find_in_org(&txn, org, id).await?;
    super::in_flight::refuse(&txn, org, &c, now, "Delete the contact").await?;
    let theirs = Query::select()
        .column(message::Column::Id)
        .from(message::Entity)
        .and_where(message::Column::OrganizationId.eq(org))
        .and_where(message::Column::ContactId.eq(id))
        .to_owned();
    let stored: Vec<(Option<String>, Option<String>)> = media::Entity::find()
        .select_only()
        .column(media::Column::StorageKey)
        .column(media::Column::ThumbKey)
        .filter(media::Column::OrganizationId.eq(org))
        .filter(media::Column::MessageId.in_subquery(theirs))
        .into_tuple()
        .all(&txn)
        .await?;
    let messages = message::Entity::find()
        .filter(message::Column::OrganizationId.eq(org))
        .filter(message::Column::ContactId.eq(id))
        .count(&txn)
        .await?;
    // Rows that name the contact without a foreign key; the rest cascade from the contact.
    ai_thread::Entity::delete_many()
        .filter(ai_thread::Column::OrganizationId.eq(org))
        .filter(ai_thread::Column::CorrelationKey.eq(contact_key(id)))
        .exec(&txn)
        .await?;
    let backend = txn.get_database_backend();
    txn.execute_raw(
        backend.build(
            Query::delete()
                .from_table(Alias::new("plan_audience"))
                .and_where(Expr::col(Alias::new("contact_id")).eq(id)),
        ),
    )
    .await?;
    contact::Entity::delete_by_id(id)
        .filter(contact::Column::OrganizationId.eq(org))
        .exec(&txn)
        .await?;
    let pictures = stored.len();
    record(
        &txn,
        Entry {
            organization_id: Some(org),
            actor: Some(m.user_id),
            action: AuditAction::ContactDeleted,
            target: &super::in_flight::display_name(&c),
            detail: Some(format!(
                "{messages} text(s) and {pictures} picture(s) deleted; the number's opt-out, if \
                 any, is kept"
            )),
        },
        now,
    )
    .await?;
    txn.commit().await?;
    // The stored files go once the rows are gone; one left behind is only logged.
    for key in stored.into_iter().flat_map(|(a, b)| [a, b]).flatten() {
        if let Err(e) = state.media().delete(&key).await {
            tracing::warn!(error = %e, key, "could not delete a deleted contact's picture");
        }
    }
    state
        .live
        .publish(org, LiveEvent::ContactChanged { contact_id: id });
    tracing::info!(contact = %id, messages, pictures, "contact deleted");
    Ok(Erased { messages, pictures })
}
