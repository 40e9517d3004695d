//! The `message_media` table (migration 42).
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "message_media")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub organization_id: Uuid,
    pub message_id: Uuid,
    pub idx: i32,
    #[sea_orm(column_type = "Text")]
    pub provider_url: String,
    pub content_type: String,
    pub size_bytes: Option<i64>,
    pub storage_key: Option<String>,
    pub thumb_key: Option<String>,
    pub status: String,
    #[sea_orm(column_type = "Text", nullable)]
    pub error: Option<String>,
    pub attempts: i32,
    pub next_try_at: DateTimeUtc,
    pub lease_owner: Option<String>,
    pub lease_until: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    /// An outbound item's: the unguessable part of the address Twilio fetches it from (`/m/`).
    pub public_token: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

/// The `media_upload` table (migration 43): a member's picture, kept until a text takes it.
pub mod upload {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "media_upload")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub uploaded_by: Option<Uuid>,
        pub content_type: String,
        pub size_bytes: i64,
        pub storage_key: String,
        pub thumb_key: Option<String>,
        pub created_at: DateTimeUtc,
        /// The campaign whose texts all carry this picture (migration 44); it then stays.
        pub operation_id: Option<Uuid>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
