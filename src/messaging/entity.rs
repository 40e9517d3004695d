//! The `message` table (every SMS in and out, with the send ledger) and the status callbacks
//! kept until their SID is known.
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
    /// Each media item's content type, in order (None before migration 37, and for texts sent).
    pub media_types: Option<Json>,
    pub provider_sid: Option<String>,
    pub status: String,
    pub ai_origin: Option<String>,
    pub keyword: Option<String>,
    #[sea_orm(column_type = "Text", nullable)]
    pub error: Option<String>,
    pub idempotency_key: Option<String>,
    pub read_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    /// When an inbound text was handed to its agent or suggester; NULL until then.
    pub routed_at: Option<DateTimeUtc>,
    /// The send ledger (outbound): queued, sending, sent, failed or unknown.
    pub send_state: Option<crate::messaging::model::SendState>,
    /// The attempt in flight (or the last one), and when it began.
    pub attempt_key: Option<String>,
    pub attempt_started_at: Option<DateTimeUtc>,
    pub send_attempts: i32,
    /// Lookups with the provider that failed while the text was in doubt.
    pub reconcile_failures: i32,
    /// Outbound: why it is sent (`compliance::Purpose`): reply, outreach or compliance. It decides
    /// which rules the send ledger checks at the moment the text leaves.
    pub purpose: Option<String>,
    /// The database numbers messages in insertion order (migration 30): a conversation is
    /// ordered and paged by it. None only on a row just returned by an insert on SQLite.
    pub seq: Option<i64>,
    /// The reports' rollup has counted this text's arrival, and its final delivery outcome
    /// (migration 51).
    pub rolled_up: bool,
    pub outcome_rolled: bool,
    /// Outbound: the agent that wrote and sent it itself, an autonomous reply (migration 52).
    pub agent_id: Option<Uuid>,
    /// Outbound: the knowledge the reply used, `[MessageSource]` (migration 62).
    pub cites: Option<Json>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

/// A delivery status that arrived before Herald recorded its SID.
pub mod pending_status {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "pending_status_callback")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub provider_sid: String,
        pub status: String,
        pub error_code: Option<String>,
        pub received_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// Each status a text's callbacks brought (migration 49): its timeline, and the carrier-filtered
/// count per number.
pub mod status_event {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "message_status_event")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub message_id: Uuid,
        pub phone_number_id: Uuid,
        pub status: String,
        pub error_code: Option<String>,
        pub at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// One row per conversation (per contact), kept by a trigger on `message` as texts arrive
/// (migration 30); reading a conversation lowers its unread count.
pub mod conversation {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "conversation")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub contact_id: Uuid,
        pub organization_id: Uuid,
        pub last_message_id: Uuid,
        #[sea_orm(column_type = "Text")]
        pub last_body: String,
        pub last_direction: String,
        pub last_media_count: i32,
        pub last_phone_number_id: Uuid,
        pub last_at: DateTimeUtc,
        pub last_inbound_at: Option<DateTimeUtc>,
        pub last_outbound_at: Option<DateTimeUtc>,
        pub unread_count: i32,
        pub message_count: i64,
        /// open, closed or snoozed (migration 37); a new inbound text makes it open.
        pub state: crate::messaging::conversation_state::ConversationState,
        pub snoozed_until: Option<DateTimeUtc>,
        /// The member (user) it is assigned to.
        pub assignee_id: Option<Uuid>,
        /// Autonomous agents do not text here before this (a person took over).
        pub ai_paused_until: Option<DateTimeUtc>,
        /// The member whose text paused them.
        pub ai_paused_by: Option<Uuid>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
