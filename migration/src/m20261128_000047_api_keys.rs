//! API keys and the public API's idempotent sends (issue 31 §1–2). A key is stored as a SHA-256
//! hash with the few characters shown to tell keys apart; its scopes are a space-separated list.
//! `tat_ms` is the key's rate limit, a generic cell rate (GCRA) "theoretical arrival time" in
//! epoch milliseconds that one conditional UPDATE advances, so every instance shares one limit.
//! `api_idempotency` binds an `Idempotency-Key` to the request it first came with. The audit log
//! names the key behind an entry (`api_key_id`).
use crate::{add_column, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("api_key")
                    .col(uuid("id").primary_key())
                    .col(uuid("organization_id"))
                    .col(string("name"))
                    .col(string("scopes"))
                    .col(string("token_hash"))
                    .col(string("prefix"))
                    .col(uuid("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("last_used_at"))
                    .col(timestamp_with_time_zone_null("revoked_at"))
                    .col(integer("rate_per_second"))
                    .col(integer("burst"))
                    .col(big_integer("tat_ms").default(0))
                    .foreign_key(&mut fk(
                        "api_key",
                        "organization_id",
                        "organization",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("api_key", &["token_hash"], true))
            .await?;
        manager
            .create_index(index("api_key", &["organization_id", "created_at"], false))
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("api_idempotency")
                    .col(uuid("api_key_id"))
                    .col(string("idempotency_key"))
                    .col(string("request_hash"))
                    .col(timestamp_with_time_zone("created_at"))
                    .primary_key(Index::create().col("api_key_id").col("idempotency_key"))
                    .foreign_key(&mut fk(
                        "api_idempotency",
                        "api_key_id",
                        "api_key",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        add_column(manager, "audit_log", uuid_null("api_key_id")).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_column(manager, "audit_log", "api_key_id").await?;
        manager
            .drop_table(Table::drop().table("api_idempotency").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("api_key").to_owned())
            .await
    }
}
