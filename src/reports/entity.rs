//! The rollup tables: `report_daily` (migration 51), one counter per (organisation, day in its
//! time zone, number, metric); and, in their modules, `report_agent_daily` and
//! `report_response` (migration 52).
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "report_daily")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub organization_id: Uuid,
    /// `YYYY-MM-DD` in the organisation's time zone.
    #[sea_orm(primary_key, auto_increment = false)]
    pub day: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub phone_number_id: Uuid,
    /// See `rollup::metric`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub metric: String,
    pub value: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

/// The `report_agent_daily` table (migration 52): one counter per (organisation, day, number,
/// agent, metric) of the AI's share; the nil id for a number or an agent unknown.
pub mod report_agent_daily {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "report_agent_daily")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub organization_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub day: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub phone_number_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub agent_id: Uuid,
        /// See `ai_share::metric`.
        #[sea_orm(primary_key, auto_increment = false)]
        pub metric: String,
        pub value: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// The `report_response` table (migration 52): one row per answered wait, keyed by the inbound
/// text that began it.
pub mod report_response {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "report_response")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub inbound_message_id: Uuid,
        pub organization_id: Uuid,
        /// The day the wait began, in the organisation's zone.
        pub day: String,
        pub phone_number_id: Uuid,
        /// The agent that answered; None for a person.
        pub agent_id: Option<Uuid>,
        /// Business seconds from the first unanswered text to the answer.
        pub seconds: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
