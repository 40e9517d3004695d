//! Herald's schema, one migration per file; the server runs `Migrator::up` at start-up.
pub use sea_orm_migration::prelude::*;

mod m20261121_000001_create_organization;
mod m20261121_000002_create_user;
mod m20261121_000003_create_membership;
mod m20261121_000004_create_session;
mod m20261121_000005_create_contact;
mod m20261121_000006_create_contact_channel_opt_out;
mod m20261121_000007_create_phone_number;
mod m20261121_000008_create_message;
mod m20261121_000009_create_ai_agent;
mod m20261121_000010_create_text_agent;
mod m20261121_000011_phone_number_add_ai_agent_id;
mod m20261121_000012_create_ai_thread;
mod m20261121_000013_create_notification;
pub mod m20261121_000014_seed_text_reply_agent;
mod m20261121_000015_create_ai_agent_plan;
pub mod m20261121_000016_seed_assistant_agent;
mod m20261121_000017_create_assistant_operation;
mod m20261122_000018_agent_runtime_durability;
mod m20261122_000019_send_ledger;
mod m20261123_000020_organization_rules;
mod m20261123_000021_agent_learning;
mod m20261123_000022_thread_archive;
mod m20261124_000023_tool_effect;
mod m20261124_000024_plan_revisions;
mod m20261124_000025_scheduled_text;
mod m20261125_000026_suppression;
mod m20261125_000027_compliance;
mod m20261125_000028_access;
mod m20261125_000029_provider_account;
mod m20261126_000030_conversation;
mod m20261126_000031_contact_tag;
mod m20261126_000032_suggestion_window;
mod m20261126_000033_segment;
mod m20261126_000034_message_search;
mod m20261126_000035_plan_step_item;
mod m20261127_000036_conversation_recency;
mod m20261127_000037_conversation_state;
mod m20261127_000038_number_auto_assign;
mod m20261127_000039_saved_reply;
mod m20261127_000040_conversation_note;
mod m20261127_000041_contact_merge;
mod m20261127_000042_message_media;
mod m20261127_000043_media_upload;
mod m20261128_000044_campaign_pictures;
mod m20261128_000045_plan_pause_and_stop;
mod m20261128_000046_plan_step_policy;
mod m20261128_000047_api_keys;
mod m20261128_000048_webhooks;
mod m20261128_000049_delivery_alarm;
mod m20261128_000050_tracked_links;
pub mod m20261128_000051_report_rollups;
pub mod m20261128_000052_ai_and_response_reports;
mod m20261129_000053_sender_profiles;
pub mod m20261129_000054_campaign_funnels;
pub mod m20261129_000055_contact_by_id_in_org;
mod m20261129_000056_plan_step;
mod m20261206_000057_organisation_limits;
mod m20261207_000058_campaign_send_after;
mod m20261207_000059_email;
mod m20261207_000060_contact_import;
mod m20261207_000061_knowledge;
mod m20261207_000062_grounded_replies;
mod m20261207_000063_knowledge_reading;
mod m20261207_000064_knowledge_embeddings;
mod m20261207_000065_scheduled_by;
mod platform_agent;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261121_000001_create_organization::Migration),
            Box::new(m20261121_000002_create_user::Migration),
            Box::new(m20261121_000003_create_membership::Migration),
            Box::new(m20261121_000004_create_session::Migration),
            Box::new(m20261121_000005_create_contact::Migration),
            Box::new(m20261121_000006_create_contact_channel_opt_out::Migration),
            Box::new(m20261121_000007_create_phone_number::Migration),
            Box::new(m20261121_000008_create_message::Migration),
            Box::new(m20261121_000009_create_ai_agent::Migration),
            Box::new(m20261121_000010_create_text_agent::Migration),
            Box::new(m20261121_000011_phone_number_add_ai_agent_id::Migration),
            Box::new(m20261121_000012_create_ai_thread::Migration),
            Box::new(m20261121_000013_create_notification::Migration),
            Box::new(m20261121_000014_seed_text_reply_agent::Migration),
            Box::new(m20261121_000015_create_ai_agent_plan::Migration),
            Box::new(m20261121_000016_seed_assistant_agent::Migration),
            Box::new(m20261121_000017_create_assistant_operation::Migration),
            Box::new(m20261122_000018_agent_runtime_durability::Migration),
            Box::new(m20261122_000019_send_ledger::Migration),
            Box::new(m20261123_000020_organization_rules::Migration),
            Box::new(m20261123_000021_agent_learning::Migration),
            Box::new(m20261123_000022_thread_archive::Migration),
            Box::new(m20261124_000023_tool_effect::Migration),
            Box::new(m20261124_000024_plan_revisions::Migration),
            Box::new(m20261124_000025_scheduled_text::Migration),
            Box::new(m20261125_000026_suppression::Migration),
            Box::new(m20261125_000027_compliance::Migration),
            Box::new(m20261125_000028_access::Migration),
            Box::new(m20261125_000029_provider_account::Migration),
            Box::new(m20261126_000030_conversation::Migration),
            Box::new(m20261126_000031_contact_tag::Migration),
            Box::new(m20261126_000032_suggestion_window::Migration),
            Box::new(m20261126_000033_segment::Migration),
            Box::new(m20261126_000034_message_search::Migration),
            Box::new(m20261126_000035_plan_step_item::Migration),
            Box::new(m20261127_000036_conversation_recency::Migration),
            Box::new(m20261127_000037_conversation_state::Migration),
            Box::new(m20261127_000038_number_auto_assign::Migration),
            Box::new(m20261127_000039_saved_reply::Migration),
            Box::new(m20261127_000040_conversation_note::Migration),
            Box::new(m20261127_000041_contact_merge::Migration),
            Box::new(m20261127_000042_message_media::Migration),
            Box::new(m20261127_000043_media_upload::Migration),
            Box::new(m20261128_000044_campaign_pictures::Migration),
            Box::new(m20261128_000045_plan_pause_and_stop::Migration),
            Box::new(m20261128_000046_plan_step_policy::Migration),
            Box::new(m20261128_000047_api_keys::Migration),
            Box::new(m20261128_000048_webhooks::Migration),
            Box::new(m20261128_000049_delivery_alarm::Migration),
            Box::new(m20261128_000050_tracked_links::Migration),
            Box::new(m20261128_000051_report_rollups::Migration),
            Box::new(m20261128_000052_ai_and_response_reports::Migration),
            Box::new(m20261129_000053_sender_profiles::Migration),
            Box::new(m20261129_000054_campaign_funnels::Migration),
            Box::new(m20261129_000055_contact_by_id_in_org::Migration),
            Box::new(m20261129_000056_plan_step::Migration),
            Box::new(m20261206_000057_organisation_limits::Migration),
            Box::new(m20261207_000058_campaign_send_after::Migration),
            Box::new(m20261207_000059_email::Migration),
            Box::new(m20261207_000060_contact_import::Migration),
            Box::new(m20261207_000061_knowledge::Migration),
            Box::new(m20261207_000062_grounded_replies::Migration),
            Box::new(m20261207_000063_knowledge_reading::Migration),
            Box::new(m20261207_000064_knowledge_embeddings::Migration),
            Box::new(m20261207_000065_scheduled_by::Migration),
        ]
    }
}

/// A foreign key from `from_table.from_col` to `to_table.id`.
pub(crate) fn fk(
    from_table: &'static str,
    from_col: &'static str,
    to_table: &'static str,
    on_delete: ForeignKeyAction,
) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .name(format!("fk_{from_table}_{from_col}"))
        .from(from_table, from_col)
        .to(to_table, "id")
        .on_delete(on_delete)
        .to_owned()
}

/// A plain index over `cols` of `table`.
pub(crate) fn index(
    table: &'static str,
    cols: &[&'static str],
    unique: bool,
) -> IndexCreateStatement {
    let mut idx = Index::create();
    idx.name(format!("idx_{table}_{}", cols.join("_")))
        .table(table);
    for c in cols {
        idx.col(*c);
    }
    if unique {
        idx.unique();
    }
    idx.to_owned()
}

/// Drops the indexes `index` made over each `(table, cols)`.
pub(crate) async fn drop_indexes(
    manager: &SchemaManager<'_>,
    indexes: &[(&'static str, &[&'static str])],
) -> Result<(), DbErr> {
    for (table, cols) in indexes {
        manager
            .drop_index(
                Index::drop()
                    .name(format!("idx_{table}_{}", cols.join("_")))
                    .table(*table)
                    .to_owned(),
            )
            .await?;
    }
    Ok(())
}

/// Adds one column (SQLite alters one column per statement).
pub(crate) async fn add_column(
    manager: &SchemaManager<'_>,
    table: &'static str,
    col: ColumnDef,
) -> Result<(), DbErr> {
    let mut col = col;
    manager
        .alter_table(Table::alter().table(table).add_column(&mut col).to_owned())
        .await
}

/// Drops one column.
pub(crate) async fn drop_column(
    manager: &SchemaManager<'_>,
    table: &'static str,
    col: &'static str,
) -> Result<(), DbErr> {
    manager
        .alter_table(Table::alter().table(table).drop_column(col).to_owned())
        .await
}
