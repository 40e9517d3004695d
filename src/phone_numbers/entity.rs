//! The `phone_number` table: an organisation's own sending numbers.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "phone_number")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub organization_id: Uuid,
    #[sea_orm(unique)]
    pub number: crate::phone::PhoneNumber,
    pub friendly_name: String,
    pub provider_sid: Option<String>,
    pub ai_agent_id: Option<Uuid>,
    pub text_agent_id: Option<Uuid>,
    pub created_at: DateTimeUtc,
    /// Inbound conversations here go to the members online in turn (migration 38).
    pub auto_assign: bool,
    /// The member the last such turn went to.
    pub assigned_last: Option<Uuid>,
    /// A carrier refused a text from it as unregistered 10DLC (30034, migration 50): owners see
    /// a banner until a text from it is delivered again.
    pub unregistered_at: Option<DateTimeUtc>,
    pub unregistered_code: Option<String>,
    /// The sender profile it sends under (migration 53); none: an unregistered long code paced
    /// on its own.
    pub sender_profile_id: Option<Uuid>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
