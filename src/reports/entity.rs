//! The `report_daily` table (migration 51): one counter per (organisation, day in its time
//! zone, number, metric).
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "report_daily")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub organization_id: Uuid,
    /// `YYYY-MM-DD` in the organisation's time zone.
    #[sea_orm(primary_key, auto_increment = false)]
    pub day: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub phone_number_id: Uuid,
    /// See `rollup::metric`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub metric: String,
    pub value: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
