//! The `webhook_subscription` and `webhook_delivery` tables (migration 48).
pub mod subscription {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "webhook_subscription")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        #[sea_orm(column_type = "Text")]
        pub url: String,
        /// Space-separated event types.
        pub events: String,
        /// `sealed:…` (with `HERALD_SECRET_KEY`) or `plain:whsec_…`.
        #[sea_orm(column_type = "Text")]
        pub secret: String,
        pub created_by: Uuid,
        pub created_at: DateTimeUtc,
        pub disabled_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod delivery {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "webhook_delivery")]
    pub struct Model {
        /// Also the `webhook-id` (as `msg_<hex>`): the same on every attempt.
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub subscription_id: Uuid,
        pub event_type: String,
        /// The body posted: `{"type", "timestamp", "data"}`.
        #[sea_orm(column_type = "Text")]
        pub payload: String,
        pub seq: i64,
        /// pending, delivered or dead.
        pub status: String,
        pub attempts: i32,
        pub next_attempt_at: DateTimeUtc,
        pub give_up_at: DateTimeUtc,
        pub claimed_until: Option<DateTimeUtc>,
        pub claimed_by: Option<String>,
        pub last_status: Option<i32>,
        #[sea_orm(column_type = "Text", nullable)]
        pub last_error: Option<String>,
        pub created_at: DateTimeUtc,
        pub ended_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub const PENDING: &str = "pending";
pub const DELIVERED: &str = "delivered";
pub const DEAD: &str = "dead";
