//! The `notification` table.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "notification")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub organization_id: Uuid,
    pub user_id: Uuid,
    pub kind: String,
    pub title: String,
    #[sea_orm(column_type = "Text")]
    pub body: String,
    pub link: Option<String>,
    pub read_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    /// Unique when set: the effect that raised it (a turn's tool call), so a re-run never
    /// notifies twice.
    pub source_key: Option<String>,
    /// The agent that raised it (an escalation), and whether the reports counted it
    /// (migration 52).
    pub agent_id: Option<Uuid>,
    pub rolled_up: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
