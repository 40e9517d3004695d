//! The `audit_log` table (append-only: triggers refuse UPDATE and DELETE).
pub mod audit_log {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "audit_log")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        /// None: the instance itself (a refused sign-up belongs to no organisation).
        pub organization_id: Option<Uuid>,
        pub actor_user_id: Option<Uuid>,
        /// The API key a call was made with (the actor is then the key, acting for its owner).
        pub api_key_id: Option<Uuid>,
        pub action: String,
        #[sea_orm(column_type = "Text")]
        pub target: String,
        #[sea_orm(column_type = "Text", nullable)]
        pub detail: Option<String>,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
