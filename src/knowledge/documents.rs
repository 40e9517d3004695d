//! Documents and websites as knowledge sources: a member uploads a document (PDF, plain text,
//! Markdown or HTML, at most 10 MB, checked to be what it says) or adds a website (an address
//! the outbound guard accepts, a depth, a page count and a refresh); either is queued and read in
//! the background (`knowledge::read`). "Read again" queues it anew. Scoped to the organisation.
use crate::auth::model::Role;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::knowledge::entity::knowledge_source as source;
use crate::knowledge::model::{
    SourceKind, SourceStatus, SourceView, WebInput, DOCUMENT_MAX_BYTES, REFRESH_CHOICES, TITLE_MAX,
    WEB_DEPTH_MAX, WEB_PAGES_MAX,
};
use crate::knowledge::read::{self, document};
use crate::knowledge::service::{field, find, names, to_view, unread};
use crate::platform::AppState;
use crate::webhooks::guard::{self, Purpose};
use sea_orm::{ActiveModelTrait, Set};
use uuid::Uuid;

async fn view(state: &AppState, row: source::Model) -> AppResult<SourceView> {
    let names = names(&state.db, std::slice::from_ref(&row)).await?;
    Ok(to_view(row, &names))
}

/// Adds a document: its file kept in the media store, the source queued and read soon.
pub async fn add_document(
    state: &AppState,
    m: &Member,
    name: &str,
    declared: &str,
    bytes: Vec<u8>,
) -> AppResult<SourceView> {
    let row = store_document(state, m, name, declared, bytes).await?;
    read::read_soon(state, row.id);
    view(state, row).await
}

/// Checks and keeps a document, queued to be read (by whoever claims it first).
pub async fn store_document(
    state: &AppState,
    m: &Member,
    name: &str,
    declared: &str,
    bytes: Vec<u8>,
) -> AppResult<source::Model> {
    let name = field("document's name", name, TITLE_MAX)?;
    if bytes.is_empty() {
        return Err(AppError::validation(format!("{name} is empty.")));
    }
    if bytes.len() as u64 > DOCUMENT_MAX_BYTES {
        return Err(AppError::validation(format!(
            "{name} is larger than 10 MB, the most a document may be. Split it, or upload the \
             part your customers ask about."
        )));
    }
    let kind = document::kind_of(&name, declared, &bytes).map_err(AppError::Validation)?;
    let id = Uuid::new_v4();
    let key = format!("{}/knowledge/{id}", m.organization_id);
    let size = bytes.len() as i64;
    state
        .media()
        .put(&key, bytes)
        .await
        .map_err(|e| AppError::Internal(e.to_string()))?;
    let now = state.clock.now();
    let row = source::ActiveModel {
        id: Set(id),
        organization_id: Set(m.organization_id),
        kind: Set(SourceKind::Document),
        title: Set(name.clone()),
        body: Set(String::new()),
        alternatives: Set(String::new()),
        status: Set(SourceStatus::Queued),
        error: Set(None),
        passage_count: Set(0),
        last_read_at: Set(None),
        added_by: Set(Some(m.user_id)),
        created_at: Set(now),
        updated_at: Set(now),
        origin: Set(Some(name)),
        media_key: Set(Some(key)),
        content_type: Set(Some(kind.content_type().into())),
        byte_size: Set(Some(size)),
        next_read_at: Set(Some(now)),
        ..unread()
    }
    .insert(&state.db)
    .await?;
    tracing::info!(%id, bytes = size, kind = kind.content_type(), "knowledge document uploaded");
    Ok(row)
}

/// A website's settings, checked: an address the guard accepts (its host public unless private
/// addresses are allowed), a depth and page count within bounds, a refresh Herald offers.
async fn checked_web(state: &AppState, input: &WebInput) -> AppResult<WebInput> {
    let url =
        guard::check_address(input.url.trim(), Purpose::Website).map_err(AppError::Validation)?;
    guard::resolve_for(&url, state.config.webhooks.allow_private, Purpose::Website)
        .await
        .map_err(AppError::Validation)?;
    if input.depth > WEB_DEPTH_MAX {
        return Err(AppError::validation(format!(
            "Follow links at most {WEB_DEPTH_MAX} deep."
        )));
    }
    if !(1..=WEB_PAGES_MAX).contains(&input.pages) {
        return Err(AppError::validation(format!(
            "Read between 1 and {WEB_PAGES_MAX} pages of a website."
        )));
    }
    if input
        .refresh_hours
        .is_some_and(|h| !REFRESH_CHOICES.contains(&h))
    {
        return Err(AppError::validation(
            "Read a website again every day, every week, every 30 days, or by hand.",
        ));
    }
    Ok(WebInput {
        url: url.to_string(),
        ..input.clone()
    })
}

/// Adds a website, or changes the one with `id`; either way it is read (again) soon.
pub async fn save_web(
    state: &AppState,
    m: &Member,
    id: Option<Uuid>,
    input: &WebInput,
) -> AppResult<SourceView> {
    // Someone else's source is not found, and a source one may not change is refused, before
    // its address is looked at.
    let old = match id {
        Some(id) => {
            let old = find(&state.db, m.organization_id, id).await?;
            if old.kind != SourceKind::Web {
                return Err(AppError::validation(format!(
                    "That source is a {}, not a website.",
                    old.kind.label()
                )));
            }
            may_change(m, &old)?;
            Some(old)
        }
        None => None,
    };
    let w = checked_web(state, input).await?;
    let now = state.clock.now();
    let title = reqwest::Url::parse(&w.url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| w.url.clone());
    let is_new = old.is_none();
    let mut a = match old {
        Some(old) => old.into(),
        None => source::ActiveModel {
            id: Set(Uuid::new_v4()),
            organization_id: Set(m.organization_id),
            kind: Set(SourceKind::Web),
            body: Set(String::new()),
            alternatives: Set(String::new()),
            error: Set(None),
            passage_count: Set(0),
            last_read_at: Set(None),
            added_by: Set(Some(m.user_id)),
            created_at: Set(now),
            ..unread()
        },
    };
    a.title = Set(title.chars().take(TITLE_MAX).collect());
    a.origin = Set(Some(w.url.clone()));
    a.crawl_depth = Set(Some(w.depth as i32));
    a.crawl_pages = Set(Some(w.pages as i32));
    a.refresh_hours = Set(w.refresh_hours.map(|h| h as i32));
    queue(&mut a, now);
    let row = if is_new {
        a.insert(&state.db).await?
    } else {
        a.update(&state.db).await?
    };
    read::read_soon(state, row.id);
    view(state, row).await
}

/// Queues the source to be read now, letting go of any reading under way (its result is not
/// recorded: the new reading's is).
fn queue(a: &mut source::ActiveModel, now: chrono::DateTime<chrono::Utc>) {
    a.status = Set(SourceStatus::Queued);
    a.next_read_at = Set(Some(now));
    a.attempts = Set(0);
    a.lease_owner = Set(None);
    a.lease_until = Set(None);
    a.updated_at = Set(now);
}

/// Only who added a source or an owner changes it.
fn may_change(m: &Member, row: &source::Model) -> AppResult<()> {
    if m.role != Role::Owner && row.added_by != Some(m.user_id) {
        return Err(AppError::NotPermitted(
            "Only who added it or an owner can change a knowledge source.".into(),
        ));
    }
    Ok(())
}

/// Reads a document or a website again now ("Read again").
pub async fn read_again(state: &AppState, m: &Member, id: Uuid) -> AppResult<SourceView> {
    let row = find(&state.db, m.organization_id, id).await?;
    if !matches!(row.kind, SourceKind::Document | SourceKind::Web) {
        return Err(AppError::validation(
            "An FAQ entry or a fact is ready as soon as it is saved: there is nothing to read \
             again.",
        ));
    }
    let mut a: source::ActiveModel = row.into();
    queue(&mut a, state.clock.now());
    let row = a.update(&state.db).await?;
    read::read_soon(state, id);
    view(state, row).await
}

/// Renames a document or a website (how "From: …" names it).
pub async fn rename(state: &AppState, m: &Member, id: Uuid, title: &str) -> AppResult<SourceView> {
    let title = field("name", title, TITLE_MAX)?;
    let row = find(&state.db, m.organization_id, id).await?;
    if !matches!(row.kind, SourceKind::Document | SourceKind::Web) {
        return Err(AppError::validation(
            "Change an FAQ entry or a fact by editing it.",
        ));
    }
    may_change(m, &row)?;
    let mut a: source::ActiveModel = row.into();
    a.title = Set(title);
    a.updated_at = Set(state.clock.now());
    let row = a.update(&state.db).await?;
    view(state, row).await
}
