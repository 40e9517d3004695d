//! The `assistant_operation` and `assistant_operation_item` tables, and each campaign's
//! `campaign_funnel` counters. The tables keep the name they were born with (a campaign was an
//! "operation" of the assistant); renaming them would buy nothing but a migration.
pub mod operation {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "assistant_operation")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub agent_id: Uuid,
        pub plan_id: Option<Uuid>,
        pub thread_id: Option<Uuid>,
        pub owner_user_id: Option<Uuid>,
        pub phone_number_id: Uuid,
        pub kind: String,
        #[sea_orm(column_type = "Text")]
        pub message_concept: String,
        #[sea_orm(column_type = "Text")]
        pub persona: String,
        pub status: crate::campaign::model::OperationStatus,
        pub total: i32,
        pub drafted: i32,
        pub sent: i32,
        pub failed: i32,
        pub skipped: i32,
        #[sea_orm(column_type = "Text", nullable)]
        pub error: Option<String>,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
        /// A paused campaign's status before its plan was stopped (migration 45): Resume goes
        /// back to it.
        pub paused_from: Option<crate::campaign::model::OperationStatus>,
        /// Why it is paused, in words (migration 49): its plan was stopped, or its texts were
        /// filtered or undelivered past the organisation's thresholds.
        #[sea_orm(column_type = "Text", nullable)]
        pub paused_reason: Option<String>,
        /// The delivery alarm counts texts sent from this time on (a resume sets it).
        pub alarm_from: Option<DateTimeUtc>,
        /// Its links go out as tracked short links (migration 50; on by default).
        pub track_links: bool,
        /// Sending waits until then (migration 58): a campaign scheduled for a date and time.
        pub send_after: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
    impl ActiveModelBehavior for ActiveModel {}
}

pub mod item {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "assistant_operation_item")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub operation_id: Uuid,
        pub organization_id: Uuid,
        pub contact_id: Uuid,
        pub position: i32,
        pub status: crate::campaign::model::ItemStatus,
        #[sea_orm(column_type = "Text", nullable)]
        pub skip_reason: Option<String>,
        #[sea_orm(column_type = "Text", nullable)]
        pub draft: Option<String>,
        pub edited: bool,
        pub claimed_by: Option<String>,
        pub heartbeat_at: Option<DateTimeUtc>,
        pub attempts: i32,
        pub idempotency_key: Uuid,
        pub message_id: Option<Uuid>,
        #[sea_orm(column_type = "Text", nullable)]
        pub error: Option<String>,
        pub drafted_at: Option<DateTimeUtc>,
        pub sent_at: Option<DateTimeUtc>,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
        /// The instance that sent it.
        pub sent_by: Option<String>,
        /// When its contact first answered, opted out or clicked within the funnel's window
        /// (migration 54): each item counts once in its campaign's funnel.
        pub replied_at: Option<DateTimeUtc>,
        pub opted_out_at: Option<DateTimeUtc>,
        pub clicked_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
    impl ActiveModelBehavior for ActiveModel {}
}

/// The `campaign_funnel` table (migration 54): a campaign's funnel counters, kept as approvals,
/// deliveries, replies, opt-outs and clicks arrive.
pub mod campaign_funnel {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "campaign_funnel")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub operation_id: Uuid,
        pub organization_id: Uuid,
        pub approved: i64,
        pub delivered: i64,
        pub replied: i64,
        pub opted_out: i64,
        pub clicked: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
