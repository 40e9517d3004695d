//! Documents and web pages as knowledge (issue 52 §1): a source read in the background keeps
//! where it comes from (`origin`: the file's name or the site's address), the stored file
//! (`media_key`, its type and size), how far a site is followed (`crawl_depth`, `crawl_pages`),
//! how often it is read again (`refresh_hours`), and its place in the reading queue
//! (`next_read_at`, `attempts`, a lease). Each passage keeps where in the source it stands
//! (`locator`: a page's address, a PDF's page).
use crate::{add_column, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

const SOURCE: &str = "knowledge_source";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, SOURCE, text_null("origin")).await?;
        add_column(manager, SOURCE, text_null("media_key")).await?;
        add_column(manager, SOURCE, string_len_null("content_type", 100)).await?;
        add_column(manager, SOURCE, big_integer_null("byte_size")).await?;
        add_column(manager, SOURCE, integer_null("crawl_depth")).await?;
        add_column(manager, SOURCE, integer_null("crawl_pages")).await?;
        add_column(manager, SOURCE, integer_null("refresh_hours")).await?;
        add_column(
            manager,
            SOURCE,
            timestamp_with_time_zone_null("next_read_at"),
        )
        .await?;
        add_column(manager, SOURCE, integer("attempts").default(0).to_owned()).await?;
        add_column(manager, SOURCE, string_len_null("lease_owner", 64)).await?;
        add_column(
            manager,
            SOURCE,
            timestamp_with_time_zone_null("lease_until"),
        )
        .await?;
        add_column(manager, "knowledge_passage", text_null("locator")).await?;
        manager
            .create_index(index(SOURCE, &["next_read_at"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_indexes(manager, &[(SOURCE, &["next_read_at"])]).await?;
        crate::drop_column(manager, "knowledge_passage", "locator").await?;
        for c in [
            "lease_until",
            "lease_owner",
            "attempts",
            "next_read_at",
            "refresh_hours",
            "crawl_pages",
            "crawl_depth",
            "byte_size",
            "content_type",
            "media_key",
            "origin",
        ] {
            crate::drop_column(manager, SOURCE, c).await?;
        }
        Ok(())
    }
}
