//! Tables behind contacts: the contact, the suppression list of numbers that opted out, custom
//! fields with their types, and mapped imports under way.
pub mod contact {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "contact")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub name: String,
        pub phone: Option<String>,
        pub email: Option<String>,
        pub tags: Json,
        pub custom_fields: Json,
        #[sea_orm(column_type = "Text")]
        pub notes: String,
        pub time_zone: Option<String>,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
        /// Where consent came from (`compliance::model::ConsentSource`), when, and the evidence.
        pub consent_source: String,
        pub consent_at: Option<DateTimeUtc>,
        #[sea_orm(column_type = "Text", nullable)]
        pub consent_note: Option<String>,
        /// The carrier said this number cannot receive texts, in words (migration 49):
        /// campaigns leave the contact out until a person clears it or the number changes.
        #[sea_orm(column_type = "Text", nullable)]
        pub unreachable_reason: Option<String>,
        pub unreachable_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// An opt-out, keyed by the number (organisation, E.164 phone), not by the contact row.
pub mod suppression {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "suppression")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub phone: String,
        /// keyword, phrase, reviewed, manual or carrier.
        pub source: String,
        #[sea_orm(column_type = "Text", nullable)]
        pub reason: Option<String>,
        /// The inbound text that opted out, if one did.
        pub message_id: Option<Uuid>,
        pub created_at: DateTimeUtc,
        /// Counted in the campaign funnels (migration 54).
        pub funnel_rolled: bool,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// Every opt-out and every clearing, with who and why; rows are only ever added.
pub mod suppression_audit {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "suppression_audit")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub phone: String,
        /// opted_out or cleared.
        pub action: String,
        pub source: String,
        pub actor_user_id: Option<Uuid>,
        #[sea_orm(column_type = "Text", nullable)]
        pub reason: Option<String>,
        pub message_id: Option<Uuid>,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A contact's tag as a row (migration 31), kept from `contact.tags` by the database itself: for
/// tag filters and counts by index.
pub mod contact_tag {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "contact_tag")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub contact_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false, column_type = "Text")]
        pub tag: String,
        pub organization_id: Uuid,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A saved, named filter (migration 33); `name_key` is the name lower-cased, unique per
/// organisation.
pub mod segment {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "segment")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub name: String,
        pub name_key: String,
        pub filter: Json,
        pub created_by: Option<Uuid>,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// An organisation's custom field and its type (`import_map::FieldKind`), by name.
pub mod contact_field {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "contact_field")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub organization_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub name: String,
        pub kind: String,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A mapped import, a chunk at a time (`import_job`).
pub mod contact_import {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "contact_import")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub created_by: Option<Uuid>,
        pub fingerprint: String,
        pub file_name: String,
        pub mapping: Json,
        #[sea_orm(column_type = "Text")]
        pub header: String,
        pub total_rows: i32,
        pub rows_done: i32,
        pub imported: i32,
        pub refused: i32,
        pub problems: Json,
        #[sea_orm(column_type = "Text")]
        pub refused_csv: String,
        pub done: bool,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
