//! The `message` table: every SMS in and out.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "message")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub organization_id: Uuid,
    pub contact_id: Uuid,
    pub phone_number_id: Uuid,
    pub direction: String,
    #[sea_orm(column_type = "Text")]
    pub body: String,
    pub media_count: i32,
    pub media_urls: Json,
    pub provider_sid: Option<String>,
    pub status: String,
    pub ai_origin: Option<String>,
    pub keyword: Option<String>,
    #[sea_orm(column_type = "Text", nullable)]
    pub error: Option<String>,
    pub idempotency_key: Option<String>,
    pub read_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
