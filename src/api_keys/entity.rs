//! The `api_key` and `api_idempotency` tables (migration 47).
pub mod api_key {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "api_key")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub name: String,
        /// Space-separated scopes.
        pub scopes: String,
        /// SHA-256 of the key (`auth::tokens::hash_token`).
        pub token_hash: String,
        pub prefix: String,
        /// The owner who made it: calls act with this member's standing, and stop when they go.
        pub created_by: Uuid,
        pub created_at: DateTimeUtc,
        pub last_used_at: Option<DateTimeUtc>,
        pub revoked_at: Option<DateTimeUtc>,
        pub rate_per_second: i32,
        pub burst: i32,
        /// The rate limit's theoretical arrival time (GCRA), epoch milliseconds.
        pub tat_ms: i64,
        /// Reads made with it: counted, not audited one by one (its writes are audited).
        pub reads: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod api_idempotency {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "api_idempotency")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub api_key_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub idempotency_key: String,
        /// SHA-256 of the request's method, path and body.
        pub request_hash: String,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
