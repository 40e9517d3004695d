//! Recording, clearing and checking SMS opt-outs.
use crate::contacts::entity::opt_out;
use crate::error::AppResult;
use chrono::Utc;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use std::collections::HashMap;
use uuid::Uuid;

pub const SMS: &str = "sms";

/// Where an opt-out came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptOutSource {
    Keyword,
    Manual,
    Carrier,
}

impl OptOutSource {
    pub fn as_str(self) -> &'static str {
        match self {
            OptOutSource::Keyword => "keyword",
            OptOutSource::Manual => "manual",
            OptOutSource::Carrier => "carrier",
        }
    }
}

/// Records an SMS opt-out; a second one for the same contact keeps the first.
pub async fn record_opt_out<C: ConnectionTrait>(
    db: &C,
    contact_id: Uuid,
    source: OptOutSource,
    now: chrono::DateTime<Utc>,
) -> AppResult<()> {
    if sms_opt_out(db, contact_id).await?.is_some() {
        return Ok(());
    }
    let res = opt_out::ActiveModel {
        id: Set(Uuid::new_v4()),
        contact_id: Set(contact_id),
        channel: Set(SMS.into()),
        source: Set(source.as_str().into()),
        created_at: Set(now),
    }
    .insert(db)
    .await;
    match res {
        Ok(_) => Ok(()),
        Err(e) if crate::server::db::is_unique_violation(&e) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

pub async fn clear_opt_out<C: ConnectionTrait>(db: &C, contact_id: Uuid) -> AppResult<()> {
    opt_out::Entity::delete_many()
        .filter(opt_out::Column::ContactId.eq(contact_id))
        .filter(opt_out::Column::Channel.eq(SMS))
        .exec(db)
        .await?;
    Ok(())
}

/// An opt-in keyword (START, YES, UNSTOP) clears only an opt-out the contact made by keyword;
/// a manual or carrier opt-out stays until an owner clears it. Answers whether one was cleared.
pub async fn clear_keyword_opt_out<C: ConnectionTrait>(
    db: &C,
    contact_id: Uuid,
) -> AppResult<bool> {
    let res = opt_out::Entity::delete_many()
        .filter(opt_out::Column::ContactId.eq(contact_id))
        .filter(opt_out::Column::Channel.eq(SMS))
        .filter(opt_out::Column::Source.eq(OptOutSource::Keyword.as_str()))
        .exec(db)
        .await?;
    Ok(res.rows_affected > 0)
}

/// The contact's SMS opt-out, if any.
pub async fn sms_opt_out<C: ConnectionTrait>(
    db: &C,
    contact_id: Uuid,
) -> AppResult<Option<opt_out::Model>> {
    Ok(opt_out::Entity::find()
        .filter(opt_out::Column::ContactId.eq(contact_id))
        .filter(opt_out::Column::Channel.eq(SMS))
        .one(db)
        .await?)
}

/// Opt-out sources for many contacts in one query.
pub async fn sms_opt_outs<C: ConnectionTrait>(
    db: &C,
    contact_ids: &[Uuid],
) -> AppResult<HashMap<Uuid, String>> {
    if contact_ids.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(opt_out::Entity::find()
        .filter(opt_out::Column::ContactId.is_in(contact_ids.iter().copied()))
        .filter(opt_out::Column::Channel.eq(SMS))
        .all(db)
        .await?
        .into_iter()
        .map(|o| (o.contact_id, o.source))
        .collect())
}
