//! The `sender_profile` table (migration 53).
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "sender_profile")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub organization_id: Uuid,
    pub name: String,
    /// `model::Kind` as stored.
    pub kind: String,
    /// Texts per `rate_unit`.
    pub rate: i64,
    /// "second" or "minute".
    pub rate_unit: String,
    /// The brand's T-Mobile daily cap (10DLC), texts a Pacific day.
    pub daily_cap: Option<i64>,
    /// The next send slot, shared by every instance (µs since the epoch).
    pub next_send_us: Option<i64>,
    /// The Pacific day `cap_used` counts.
    pub cap_day: Option<String>,
    pub cap_used: i64,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
