//! Tables behind sign-in: organisations, users, memberships and sessions.
pub mod organization {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "organization")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub name: String,
        pub time_zone: String,
        pub created_at: DateTimeUtc,
        /// The organisation's rules: the org-rules tier of every agent's prompt.
        #[sea_orm(column_type = "Text", nullable)]
        pub rules: Option<String>,
        /// The answer to HELP or INFO; None: the default, naming the organisation.
        #[sea_orm(column_type = "Text", nullable)]
        pub help_text: Option<String>,
        /// The one confirmation an opt-out gets; None: the default.
        #[sea_orm(column_type = "Text", nullable)]
        pub opt_out_reply: Option<String>,
        /// Whether an autonomous agent's first reply in a conversation says it is automated.
        pub ai_disclosure: bool,
        #[sea_orm(column_type = "Text", nullable)]
        pub ai_disclosure_text: Option<String>,
        /// The organisation's own extra opt-out words and phrases, one per line.
        #[sea_orm(column_type = "Text", nullable)]
        pub opt_out_phrases: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod user {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "user")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        #[sea_orm(unique)]
        pub email: String,
        pub name: String,
        pub password_hash: String,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod membership {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "membership")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub user_id: Uuid,
        pub organization_id: Uuid,
        pub role: String,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod session {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "session")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        #[sea_orm(unique)]
        pub token_hash: String,
        pub user_id: Uuid,
        pub organization_id: Uuid,
        pub created_at: DateTimeUtc,
        pub expires_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
