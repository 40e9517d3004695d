//! The `knowledge_source`, `knowledge_passage` and `knowledge_embedding` tables (migrations 61, 63
//! and 64). The full-text index is beside them: `knowledge_fts` (FTS5) on SQLite, the `terms_tsv`
//! column on PostgreSQL.
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
        /// A document's file name, a website's address.
        #[sea_orm(column_type = "Text", nullable)]
        pub origin: Option<String>,
        /// Where an uploaded document's file is kept in the media store.
        #[sea_orm(column_type = "Text", nullable)]
        pub media_key: Option<String>,
        pub content_type: Option<String>,
        pub byte_size: Option<i64>,
        /// How many links deep a website is followed from its address (0: that page only).
        pub crawl_depth: Option<i32>,
        /// The most pages of a website read.
        pub crawl_pages: Option<i32>,
        /// A website is read again this often (None: by hand only).
        pub refresh_hours: Option<i32>,
        /// When the source is next to be read (None: it is not waiting).
        pub next_read_at: Option<DateTimeUtc>,
        /// Readings tried since the last that worked.
        pub attempts: i32,
        pub lease_owner: Option<String>,
        pub lease_until: Option<DateTimeUtc>,
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
        /// Where in the source it stands: a web page's address, a PDF's page.
        #[sea_orm(column_type = "Text", nullable)]
        pub locator: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod knowledge_embedding {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "knowledge_embedding")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub passage_id: Uuid,
        pub organization_id: Uuid,
        /// The embedding model's label (`EmbeddingSettings::label`).
        pub model: String,
        /// The vector, little-endian `f32`s, unit length.
        #[sea_orm(column_type = "Blob")]
        pub vector: Vec<u8>,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
