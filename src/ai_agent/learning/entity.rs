//! The `ai_agent_learning` (signals) and `ai_agent_lesson` tables.
pub mod learning {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "ai_agent_learning")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub agent_id: Uuid,
        pub kind: String,
        /// "plan" or "item".
        pub subject_kind: String,
        pub subject_id: Uuid,
        pub detail: Json,
        pub actor_user_id: Option<Uuid>,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
    impl ActiveModelBehavior for ActiveModel {}
}

pub mod lesson {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "ai_agent_lesson")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub agent_id: Uuid,
        /// The rule that made it ("short_texts", "exclude_tag:vip"): one lesson per rule.
        pub rule_key: String,
        #[sea_orm(column_type = "Text")]
        pub text: String,
        pub enabled: bool,
        pub version: i32,
        /// The signal ids it came from.
        pub sources: Json,
        /// Every version: `[{version, text, by, at}]`.
        pub history: Json,
        /// Deleted by a person: kept so that distilling again never brings it back.
        pub deleted_at: Option<DateTimeUtc>,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
    impl ActiveModelBehavior for ActiveModel {}
}
