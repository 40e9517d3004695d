//! The `knowledge_source` and `knowledge_passage` tables (migration 61). The full-text index is
//! beside them: `knowledge_fts` (FTS5) on SQLite, the `terms_tsv` column on PostgreSQL.
pub mod knowledge_source {
    use crate::knowledge::model::{SourceKind, SourceStatus};
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "knowledge_source")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub kind: SourceKind,
        /// The FAQ's question, the fact's label.
        pub title: String,
        /// The FAQ's answer, the fact's value.
        #[sea_orm(column_type = "Text")]
        pub body: String,
        /// An FAQ's other ways of asking, one a line.
        #[sea_orm(column_type = "Text")]
        pub alternatives: String,
        pub status: SourceStatus,
        pub error: Option<String>,
        pub passage_count: i32,
        pub last_read_at: Option<DateTimeUtc>,
        pub added_by: Option<Uuid>,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod knowledge_passage {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "knowledge_passage")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub source_id: Uuid,
        /// Its place in the source, from 0.
        pub ordinal: i32,
        #[sea_orm(column_type = "Text")]
        pub text: String,
        /// Its search terms (`knowledge::terms::indexed`), which the full-text index reads.
        #[sea_orm(column_type = "Text")]
        pub terms: String,
        /// Its key in SQLite's full-text index (random: a backup's copy keeps it).
        pub fts_key: i64,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
