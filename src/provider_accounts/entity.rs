//! The `provider_account` table: one per organisation, its secrets sealed (`crypto`).
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "provider_account")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique)]
    pub organization_id: Uuid,
    pub provider: String,
    pub account_sid: String,
    /// Sealed Auth Token (signs webhooks; REST too unless an API key is given).
    #[sea_orm(column_type = "Text")]
    pub auth_token_sealed: String,
    pub api_key_sid: Option<String>,
    #[sea_orm(column_type = "Text", nullable)]
    pub api_key_secret_sealed: Option<String>,
    pub connected_by: Uuid,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
