//! Segments: an organisation's saved, named contact filters. Saving checks the filter the way
//! every read would run it; a plan or a person names a segment and the server resolves it.
use crate::auth::model::Role;
use crate::auth::session::Member;
use crate::contacts::entity::segment;
use crate::contacts::model::{ContactFilter, SegmentList, SegmentView};
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};
use uuid::Uuid;

/// Segments one list shows; past this the list says how many there are.
pub const LIST_MAX: u64 = 100;
const NAME_MAX: usize = 80;

fn key(name: &str) -> String {
    name.trim().to_lowercase()
}

pub fn to_view(s: segment::Model) -> AppResult<SegmentView> {
    let filter: ContactFilter = serde_json::from_value(s.filter)
        .map_err(|e| AppError::Internal(format!("segment {}: {e}", s.id)))?;
    Ok(SegmentView {
        id: s.id,
        name: s.name,
        filter,
        created_at: s.created_at,
    })
}

/// Saves `filter` as a segment called `name`: a name the organisation already uses is refused.
pub async fn save(
    state: &AppState,
    m: &Member,
    name: &str,
    filter: &ContactFilter,
) -> AppResult<SegmentView> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > NAME_MAX {
        return Err(AppError::validation(format!(
            "A segment's name is 1 to {NAME_MAX} characters."
        )));
    }
    if *filter == ContactFilter::default() {
        return Err(AppError::validation(
            "Choose at least one filter: a segment of everyone is the contacts list itself.",
        ));
    }
    // The filter as every read will run it: a bad one is refused now, with its reason.
    let now = state.clock.now();
    crate::contacts::filter::condition(
        filter,
        m.organization_id,
        state.db.get_database_backend(),
        now,
    )?;
    if find_by_name(&state.db, m.organization_id, name)
        .await?
        .is_some()
    {
        return Err(AppError::Conflict(format!(
            "There is a segment called \"{name}\" already."
        )));
    }
    let row = segment::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(m.organization_id),
        name: Set(name.to_owned()),
        name_key: Set(key(name)),
        filter: Set(serde_json::to_value(filter).map_err(|e| AppError::Internal(e.to_string()))?),
        created_by: Set(Some(m.user_id)),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&state.db)
    .await
    .map_err(|e| {
        if crate::platform::db::is_unique_violation(&e) {
            AppError::Conflict(format!("There is a segment called \"{name}\" already."))
        } else {
            e.into()
        }
    })?;
    tracing::info!(segment = %row.id, "segment saved");
    to_view(row)
}

/// The organisation's segments in name order (the first `LIST_MAX`), and how many there are.
pub async fn list<C: ConnectionTrait>(db: &C, org_id: Uuid) -> AppResult<SegmentList> {
    let q = segment::Entity::find().filter(segment::Column::OrganizationId.eq(org_id));
    let total = q.clone().count(db).await?;
    let items = q
        .order_by_asc(segment::Column::NameKey)
        .limit(LIST_MAX)
        .all(db)
        .await?
        .into_iter()
        .map(to_view)
        .collect::<AppResult<_>>()?;
    Ok(SegmentList { items, total })
}

/// The organisation's segment called `name`, whatever its case.
pub async fn find_by_name<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    name: &str,
) -> AppResult<Option<segment::Model>> {
    Ok(segment::Entity::find()
        .filter(segment::Column::OrganizationId.eq(org_id))
        .filter(segment::Column::NameKey.eq(key(name)))
        .one(db)
        .await?)
}

/// Deletes a segment: its creator or an owner may. Plans that named it keep the filter they
/// were resolved from.
pub async fn delete(state: &AppState, m: &Member, id: Uuid) -> AppResult<()> {
    let row = segment::Entity::find_by_id(id)
        .filter(segment::Column::OrganizationId.eq(m.organization_id))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Segment"))?;
    if m.role != Role::Owner && row.created_by != Some(m.user_id) {
        return Err(AppError::NotPermitted(
            "Only its creator or an owner can delete a segment.".into(),
        ));
    }
    segment::Entity::delete_by_id(id).exec(&state.db).await?;
    Ok(())
}
