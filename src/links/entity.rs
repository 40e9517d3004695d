//! The `tracked_link` table (migration 50).
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "tracked_link")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub organization_id: Uuid,
    #[sea_orm(unique)]
    pub code: String,
    /// What made it: "campaign:<operation id>" or "reply:<saved reply id>".
    pub scope: String,
    pub operation_id: Option<Uuid>,
    pub contact_id: Uuid,
    /// The first 128 bits of the link's SHA-256, in hex: the reuse lookup's key.
    pub url_hash: String,
    #[sea_orm(column_type = "Text")]
    pub url: String,
    pub clicks: i32,
    pub first_click_at: Option<DateTimeUtc>,
    pub last_click_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    /// Its first click is counted in the campaign funnels (migration 54).
    pub funnel_rolled: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
