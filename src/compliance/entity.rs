//! The `opt_out_review` table: texts the detector found might be opt-outs, open until a person
//! confirms or dismisses them.
pub mod opt_out_review {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "opt_out_review")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub contact_id: Uuid,
        pub phone: String,
        pub message_id: Uuid,
        #[sea_orm(column_type = "Text")]
        pub body: String,
        pub matched: String,
        /// open, confirmed or dismissed.
        pub status: String,
        pub decided_by: Option<Uuid>,
        pub decided_at: Option<DateTimeUtc>,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod review_status {
    pub const OPEN: &str = "open";
    pub const CONFIRMED: &str = "confirmed";
    pub const DISMISSED: &str = "dismissed";
}
