//! Reading documents and websites into passages, in the background. A source waits in the queue
//! (`next_read_at`), is claimed with a lease (so two instances never read the same one, and a
//! reader that died lets go), read (a document's text, a website's pages), split, and its passages
//! replaced in one transaction with its state: ready, or failed with its reason. A failure that
//! may pass (a site that did not answer) is tried again later, three times in all. A website is
//! read again when its refresh comes. One reading runs at a time in a process, so fifty large
//! documents uploaded together neither hold fifty in memory nor take the database's writer from
//! the rest of the work for long.
pub mod crawl;
pub mod document;
pub mod html;
pub mod split;

use crate::error::AppResult;
use crate::knowledge::entity::knowledge_source as source;
use crate::knowledge::model::{SourceKind, SourceStatus};
use crate::knowledge::read::split::{Piece, PASSAGES_MAX};
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, QuerySelect, TransactionTrait,
};
use std::sync::LazyLock;
use uuid::Uuid;

/// How long a claim lasts; a reading stops taking new pages a minute and a half before.
const LEASE_SECS: i64 = 600;
const READ_FOR: std::time::Duration = std::time::Duration::from_secs(510);
/// Tries before a reading that keeps failing is given up.
const MAX_ATTEMPTS: i32 = 3;
/// Sources one sweep takes up.
const BATCH: u64 = 10;
/// Readings at once in this process.
static SLOTS: LazyLock<tokio::sync::Semaphore> = LazyLock::new(|| tokio::sync::Semaphore::new(1));

/// What a reading came to.
pub enum Outcome {
    /// Its passages, and a note for the member ("3 pages passed over as robots.txt asks").
    Read {
        pieces: Vec<Piece>,
        note: Option<String>,
    },
    /// Worth another try later.
    Retry(String),
    /// Never going to work as it is: these words say why.
    Fail(String),
}

/// Reads the source soon (after an upload, an address added, "Read again"); the sweeper covers
/// a crash.
pub fn read_soon(state: &AppState, id: Uuid) {
    let bg = state.clone();
    state.tasks.spawn(async move { read_now(&bg, id).await });
}

/// Takes up the sources whose reading is due (queued, to try again, or to refresh); answers how
/// many it took up. Each is read in the background.
pub async fn read_due(state: &AppState) -> AppResult<usize> {
    let now = state.clock.now();
    let due: Vec<Uuid> = source::Entity::find()
        .select_only()
        .column(source::Column::Id)
        .filter(source::Column::NextReadAt.lte(now))
        .filter(free(now))
        .order_by_asc(source::Column::NextReadAt)
        .limit(BATCH)
        .into_tuple()
        .all(&state.db)
        .await?;
    for id in &due {
        read_soon(state, *id);
    }
    Ok(due.len())
}

fn free(now: DateTime<Utc>) -> Condition {
    Condition::any()
        .add(source::Column::LeaseUntil.is_null())
        .add(source::Column::LeaseUntil.lt(now))
}

/// Claims the source and reads it here and now (a source another reading holds is left).
pub async fn read_now(state: &AppState, id: Uuid) {
    let Ok(_slot) = SLOTS.acquire().await else {
        return;
    };
    let now = state.clock.now();
    // Each claim its own token: a reading superseded ("Read again" while it ran) cannot record.
    let token = Uuid::new_v4().to_string();
    let claimed = source::Entity::update_many()
        .col_expr(source::Column::Status, Expr::value(SourceStatus::Reading))
        .col_expr(source::Column::LeaseOwner, Expr::value(token.clone()))
        .col_expr(
            source::Column::LeaseUntil,
            Expr::value(now + chrono::Duration::seconds(LEASE_SECS)),
        )
        .filter(source::Column::Id.eq(id))
        .filter(source::Column::NextReadAt.lte(now))
        .filter(free(now))
        .exec(&state.db)
        .await;
    match claimed {
        Ok(r) if r.rows_affected == 1 => {}
        Ok(_) => return,
        Err(e) => return tracing::warn!(error = %e, %id, "could not claim a knowledge source"),
    }
    let row = match source::Entity::find_by_id(id)
        .filter(source::Column::LeaseOwner.eq(token))
        .one(&state.db)
        .await
    {
        Ok(Some(row)) => row,
        Ok(None) => return,
        Err(e) => return tracing::warn!(error = %e, %id, "could not load a knowledge source"),
    };
    let started = std::time::Instant::now();
    let outcome = read(state, &row).await;
    match finish(state, &row, outcome).await {
        Ok(status) => tracing::info!(
            %id, kind = %row.kind, %status, ms = started.elapsed().as_millis() as u64,
            "read a knowledge source"
        ),
        Err(e) => tracing::error!(error = %e, %id, "could not record a knowledge reading"),
    }
}

/// Reads the source's text into passages.
pub async fn read(state: &AppState, row: &source::Model) -> Outcome {
    match row.kind {
        SourceKind::Document => read_document(state, row).await,
        SourceKind::Web => read_website(state, row).await,
        SourceKind::Faq | SourceKind::Fact => {
            Outcome::Fail("An FAQ entry or a fact is written, not read.".into())
        }
    }
}

async fn read_document(state: &AppState, row: &source::Model) -> Outcome {
    let kind = row
        .content_type
        .as_deref()
        .and_then(document::DocKind::from_content_type);
    let (Some(kind), Some(key)) = (kind, row.media_key.as_deref()) else {
        return Outcome::Fail("The document's file is not kept.".into());
    };
    let bytes = match state.media().get(key).await {
        Ok(b) => b,
        Err(e) => return Outcome::Retry(format!("The document's file could not be opened: {e}")),
    };
    let parts = match document::text_of(kind, bytes).await {
        Ok(p) => p,
        Err(why) => return Outcome::Fail(why),
    };
    let markdown = matches!(kind, document::DocKind::Markdown | document::DocKind::Html);
    let mut pieces = Vec::new();
    let mut cut = false;
    for (locator, text) in &parts {
        let room = PASSAGES_MAX - pieces.len();
        let found = split::pieces(locator.as_deref(), &row.title, text, markdown, room);
        cut |= found.len() == room;
        pieces.extend(found);
        if pieces.len() >= PASSAGES_MAX {
            break;
        }
    }
    let note = cut.then(|| format!("Only its first {PASSAGES_MAX} passages are kept."));
    Outcome::Read { pieces, note }
}

async fn read_website(state: &AppState, row: &source::Model) -> Outcome {
    let Some(url) = row.origin.as_deref() else {
        return Outcome::Fail("The website's address is missing.".into());
    };
    let limits = crawl::Limits {
        depth: row.crawl_depth.unwrap_or(0).max(0) as u32,
        pages: row.crawl_pages.unwrap_or(1).max(1) as u32,
        allow_private: state.config.webhooks.allow_private,
        deadline: std::time::Instant::now() + READ_FOR,
    };
    let read = match crawl::crawl(url, limits).await {
        Ok(r) => r,
        Err(e) if e.retry => return Outcome::Retry(e.why),
        Err(e) => return Outcome::Fail(e.why),
    };
    let mut pieces = Vec::new();
    for page in &read.pages {
        let room = PASSAGES_MAX.saturating_sub(pieces.len());
        pieces.extend(split::pieces(
            Some(&page.url),
            &page.title,
            &page.text,
            page.markdown,
            room,
        ));
    }
    let mut note = vec![crate::format::count(
        read.pages.len(),
        "page read",
        "pages read",
    )];
    if read.skipped_by_robots > 0 {
        note.push(format!(
            "{} passed over as the site's robots.txt asks",
            read.skipped_by_robots
        ));
    }
    if read.skipped_other > 0 {
        note.push(format!(
            "{} not read (missing, too large, or not a page)",
            read.skipped_other
        ));
    }
    Outcome::Read {
        pieces,
        note: Some(note.join("; ")),
    }
}

/// When a source is read again by itself: a website at its refresh, nothing else.
fn next_refresh(row: &source::Model, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    row.refresh_hours
        .filter(|h| *h > 0 && row.kind == SourceKind::Web)
        .map(|h| now + chrono::Duration::hours(h.into()))
}

/// Records what the reading came to, if this reading still holds the source (`row` as claimed: it
/// was not deleted, changed or taken over meanwhile). Answers the status written.
pub async fn finish(
    state: &AppState,
    row: &source::Model,
    outcome: Outcome,
) -> AppResult<SourceStatus> {
    let now = state.clock.now();
    let outcome = match outcome {
        Outcome::Retry(why) if row.attempts + 1 >= MAX_ATTEMPTS => {
            Outcome::Fail(format!("{why} (tried {MAX_ATTEMPTS} times)"))
        }
        o => o,
    };
    let mut update = source::Entity::update_many()
        .col_expr(source::Column::LeaseOwner, Expr::value(None::<String>))
        .col_expr(
            source::Column::LeaseUntil,
            Expr::value(None::<DateTime<Utc>>),
        )
        .col_expr(source::Column::UpdatedAt, Expr::value(now))
        .filter(source::Column::Id.eq(row.id))
        .filter(source::Column::OrganizationId.eq(row.organization_id))
        .filter(source::Column::LeaseOwner.eq(row.lease_owner.clone()));
    let (status, pieces) = match outcome {
        Outcome::Read { pieces, note } => {
            update = update
                .col_expr(source::Column::Error, Expr::value(note))
                .col_expr(
                    source::Column::PassageCount,
                    Expr::value(pieces.len() as i32),
                )
                .col_expr(source::Column::LastReadAt, Expr::value(Some(now)))
                .col_expr(source::Column::Attempts, Expr::value(0))
                .col_expr(
                    source::Column::NextReadAt,
                    Expr::value(next_refresh(row, now)),
                );
            (SourceStatus::Ready, Some(pieces))
        }
        Outcome::Retry(why) => {
            let wait = chrono::Duration::minutes(5_i64.pow(row.attempts.clamp(0, 3) as u32));
            update = update
                .col_expr(source::Column::Error, Expr::value(Some(why)))
                .col_expr(source::Column::Attempts, Expr::value(row.attempts + 1))
                .col_expr(source::Column::NextReadAt, Expr::value(Some(now + wait)));
            (SourceStatus::Queued, None)
        }
        Outcome::Fail(why) => {
            update = update
                .col_expr(source::Column::Error, Expr::value(Some(why)))
                .col_expr(source::Column::Attempts, Expr::value(0))
                .col_expr(
                    source::Column::NextReadAt,
                    Expr::value(next_refresh(row, now)),
                );
            (SourceStatus::Failed, None)
        }
    };
    let txn = state.db.begin().await?;
    let done = update
        .col_expr(source::Column::Status, Expr::value(status))
        .exec(&txn)
        .await?;
    if done.rows_affected != 1 {
        return Ok(status);
    }
    if let Some(pieces) = pieces {
        crate::knowledge::service::write_passages(&txn, row.organization_id, row.id, pieces, now)
            .await?;
    }
    txn.commit().await?;
    crate::knowledge::embed::sweep::kick(state);
    Ok(status)
}
