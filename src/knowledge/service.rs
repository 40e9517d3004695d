//! Knowledge sources: listing (newest first, a page at a time), saving an FAQ entry or a fact
//! (its passage re-written in the same transaction, so a search never sees half of it), and
//! deleting (its passages go with it, by the foreign key and the index's trigger). Every query
//! is scoped to the caller's organisation.
use crate::auth::entity::user;
use crate::auth::model::Role;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::knowledge::entity::{knowledge_passage as passage, knowledge_source as source};
use crate::knowledge::model::{
    FactInput, FaqInput, SourceKind, SourcePage, SourceStatus, SourceView, WebInput,
    ALTERNATIVES_MAX, ANSWER_MAX, SOURCE_PAGE, TITLE_MAX,
};
use crate::knowledge::read::split::Piece;
use crate::knowledge::terms;
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect, Set, TransactionTrait,
};
use std::collections::HashMap;
use uuid::Uuid;

/// A page cursor: the last source's creation time (microseconds) and id.
fn cursor(r: &source::Model) -> String {
    format!("{}:{}", r.created_at.timestamp_micros(), r.id)
}

fn parse_cursor(c: &str) -> AppResult<(DateTime<Utc>, Uuid)> {
    let bad = || AppError::validation("That page of knowledge is not one Herald gave.");
    let (micros, id) = c.split_once(':').ok_or_else(bad)?;
    let at = micros
        .parse::<i64>()
        .ok()
        .and_then(DateTime::from_timestamp_micros)
        .ok_or_else(bad)?;
    Ok((at, id.parse().map_err(|_| bad())?))
}

fn lines(s: &str) -> Vec<String> {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

pub(crate) fn to_view(r: source::Model, names: &HashMap<Uuid, String>) -> SourceView {
    let web = (r.kind == SourceKind::Web).then(|| WebInput {
        url: r.origin.clone().unwrap_or_default(),
        depth: r.crawl_depth.unwrap_or(0).max(0) as u32,
        pages: r.crawl_pages.unwrap_or(1).max(1) as u32,
        refresh_hours: r.refresh_hours.map(|h| h.max(0) as u32),
    });
    SourceView {
        web,
        origin: r.origin.clone(),
        size_bytes: r.byte_size.map(|b| b.max(0) as u64),
        next_read_at: r.next_read_at.map(|t| t.to_rfc3339()),
        id: r.id,
        kind: r.kind,
        alternatives: lines(&r.alternatives),
        title: r.title,
        body: r.body,
        status: r.status,
        error: r.error,
        passages: r.passage_count.max(0) as u32,
        last_read_at: r.last_read_at.map(|t| t.to_rfc3339()),
        added_by: r.added_by.and_then(|u| names.get(&u).cloned()),
    }
}

pub(crate) async fn names<C: ConnectionTrait>(
    db: &C,
    rows: &[source::Model],
) -> AppResult<HashMap<Uuid, String>> {
    let ids: Vec<Uuid> = rows.iter().filter_map(|r| r.added_by).collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(user::Entity::find()
        .filter(user::Column::Id.is_in(ids))
        .all(db)
        .await?
        .into_iter()
        .map(|u| (u.id, u.name))
        .collect())
}

/// One page of the organisation's sources of `kind` (every kind when None), newest first.
pub async fn list<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    kind: Option<SourceKind>,
    after: Option<String>,
) -> AppResult<SourcePage> {
    let mut q = source::Entity::find().filter(source::Column::OrganizationId.eq(org));
    if let Some(kind) = kind {
        q = q.filter(source::Column::Kind.eq(kind));
    }
    let total = q.clone().count(db).await?;
    if let Some(after) = after {
        let (at, id) = parse_cursor(&after)?;
        q = q.filter(
            Condition::any().add(source::Column::CreatedAt.lt(at)).add(
                Condition::all()
                    .add(source::Column::CreatedAt.eq(at))
                    .add(source::Column::Id.lt(id)),
            ),
        );
    }
    let mut rows = q
        .order_by_desc(source::Column::CreatedAt)
        .order_by_desc(source::Column::Id)
        .limit(SOURCE_PAGE + 1)
        .all(db)
        .await?;
    let more = rows.len() as u64 > SOURCE_PAGE;
    rows.truncate(SOURCE_PAGE as usize);
    let next = more.then(|| rows.last().map(cursor)).flatten();
    let names = names(db, &rows).await?;
    Ok(SourcePage {
        items: rows.into_iter().map(|r| to_view(r, &names)).collect(),
        total,
        next,
    })
}

/// A source of the organisation, or NotFound.
pub async fn find<C: ConnectionTrait>(db: &C, org: Uuid, id: Uuid) -> AppResult<source::Model> {
    source::Entity::find_by_id(id)
        .filter(source::Column::OrganizationId.eq(org))
        .one(db)
        .await?
        .ok_or_else(|| AppError::NotFound("That knowledge source is not here.".into()))
}

/// Trimmed and within its length, or a clear refusal naming the field.
pub(crate) fn field(what: &str, value: &str, max: usize) -> AppResult<String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(AppError::validation(format!("Write the {what}.")));
    }
    if v.chars().count() > max {
        return Err(AppError::validation(format!(
            "The {what} is longer than {max} characters."
        )));
    }
    Ok(v.to_owned())
}

/// What one source of each kind becomes: its title, body, alternatives and passage.
struct Written {
    kind: SourceKind,
    title: String,
    body: String,
    alternatives: Vec<String>,
}

impl Written {
    fn faq(input: &FaqInput) -> AppResult<Written> {
        let alternatives: Vec<String> = input
            .alternatives
            .iter()
            .map(|a| a.trim().to_owned())
            .filter(|a| !a.is_empty())
            .collect();
        if alternatives.len() > ALTERNATIVES_MAX {
            return Err(AppError::validation(format!(
                "An FAQ entry takes at most {ALTERNATIVES_MAX} other ways of asking."
            )));
        }
        for a in &alternatives {
            field("other way of asking", a, TITLE_MAX)?;
        }
        Ok(Written {
            kind: SourceKind::Faq,
            title: field("question", &input.question, TITLE_MAX)?,
            body: field("answer", &input.answer, ANSWER_MAX)?,
            alternatives,
        })
    }

    fn fact(input: &FactInput) -> AppResult<Written> {
        Ok(Written {
            kind: SourceKind::Fact,
            title: field("fact's label", &input.label, TITLE_MAX)?,
            body: field("fact's value", &input.value, ANSWER_MAX)?,
            alternatives: vec![],
        })
    }

    /// The passage as an answer reads it, and the words it is found by (the question, its
    /// other phrasings and the answer).
    fn passage(&self) -> Piece {
        let text = match self.kind {
            SourceKind::Faq => format!("{}\n{}", self.title, self.body),
            _ => format!("{}: {}", self.title, self.body),
        };
        let found_by = format!(
            "{}\n{}\n{}",
            self.title,
            self.alternatives.join("\n"),
            self.body
        );
        Piece {
            locator: None,
            text,
            terms: terms::indexed(&found_by),
        }
    }
}

/// A passage's key in SQLite's full-text index: 63 random bits of a new id.
fn fts_key(id: Uuid) -> i64 {
    (id.as_u128() as u64 & i64::MAX as u64) as i64
}

/// Rows one insert writes (SQLite takes at most 32,766 values a statement).
const INSERT_BATCH: usize = 500;

/// Replaces a source's passages with `pieces`, in `db`'s transaction.
pub async fn write_passages<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    source_id: Uuid,
    pieces: Vec<Piece>,
    now: DateTime<Utc>,
) -> AppResult<()> {
    passage::Entity::delete_many()
        .filter(passage::Column::OrganizationId.eq(org))
        .filter(passage::Column::SourceId.eq(source_id))
        .exec(db)
        .await?;
    let rows: Vec<passage::ActiveModel> = pieces
        .into_iter()
        .enumerate()
        .map(
            |(
                i,
                Piece {
                    locator,
                    text,
                    terms,
                },
            )| {
                let id = Uuid::new_v4();
                passage::ActiveModel {
                    id: Set(id),
                    organization_id: Set(org),
                    source_id: Set(source_id),
                    ordinal: Set(i as i32),
                    text: Set(text),
                    terms: Set(terms),
                    fts_key: Set(fts_key(id)),
                    created_at: Set(now),
                    locator: Set(locator),
                }
            },
        )
        .collect();
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let batch: Vec<passage::ActiveModel> = rows.by_ref().take(INSERT_BATCH).collect();
        passage::Entity::insert_many(batch).exec(db).await?;
    }
    Ok(())
}

/// A new source's reading columns, as nothing read yet and nothing waiting (an FAQ entry or a
/// fact is ready when written).
pub(crate) fn unread() -> source::ActiveModel {
    source::ActiveModel {
        origin: Set(None),
        media_key: Set(None),
        content_type: Set(None),
        byte_size: Set(None),
        crawl_depth: Set(None),
        crawl_pages: Set(None),
        refresh_hours: Set(None),
        next_read_at: Set(None),
        attempts: Set(0),
        lease_owner: Set(None),
        lease_until: Set(None),
        ..Default::default()
    }
}

/// Saves a written source (new, or the one with `id`) and its passage, ready at once.
async fn save(state: &AppState, m: &Member, id: Option<Uuid>, w: Written) -> AppResult<SourceView> {
    let now = state.clock.now();
    let org = m.organization_id;
    let txn = state.db.begin().await?;
    let row = match id {
        Some(id) => {
            let old = find(&txn, org, id).await?;
            if old.kind != w.kind {
                return Err(AppError::validation(format!(
                    "That source is a {}, not a {}.",
                    old.kind.label(),
                    w.kind.label()
                )));
            }
            let mut a: source::ActiveModel = old.into();
            a.title = Set(w.title.clone());
            a.body = Set(w.body.clone());
            a.alternatives = Set(w.alternatives.join("\n"));
            a.status = Set(SourceStatus::Ready);
            a.error = Set(None);
            a.passage_count = Set(1);
            a.last_read_at = Set(Some(now));
            a.updated_at = Set(now);
            a.update(&txn).await?
        }
        None => {
            source::ActiveModel {
                id: Set(Uuid::new_v4()),
                organization_id: Set(org),
                kind: Set(w.kind),
                title: Set(w.title.clone()),
                body: Set(w.body.clone()),
                alternatives: Set(w.alternatives.join("\n")),
                status: Set(SourceStatus::Ready),
                error: Set(None),
                passage_count: Set(1),
                last_read_at: Set(Some(now)),
                added_by: Set(Some(m.user_id)),
                created_at: Set(now),
                updated_at: Set(now),
                ..unread()
            }
            .insert(&txn)
            .await?
        }
    };
    write_passages(&txn, org, row.id, vec![w.passage()], now).await?;
    txn.commit().await?;
    crate::knowledge::embed::sweep::kick(state);
    let names = names(&state.db, std::slice::from_ref(&row)).await?;
    Ok(to_view(row, &names))
}

/// Adds an FAQ entry, or changes the one with `id`.
pub async fn save_faq(
    state: &AppState,
    m: &Member,
    id: Option<Uuid>,
    input: &FaqInput,
) -> AppResult<SourceView> {
    save(state, m, id, Written::faq(input)?).await
}

/// Adds a fact, or changes the one with `id`.
pub async fn save_fact(
    state: &AppState,
    m: &Member,
    id: Option<Uuid>,
    input: &FactInput,
) -> AppResult<SourceView> {
    save(state, m, id, Written::fact(input)?).await
}

/// Deletes a source and its passages (its adder or an owner): no later answer finds them.
pub async fn delete(state: &AppState, m: &Member, id: Uuid) -> AppResult<()> {
    let row = find(&state.db, m.organization_id, id).await?;
    if m.role != Role::Owner && row.added_by != Some(m.user_id) {
        return Err(AppError::NotPermitted(
            "Only who added it or an owner can delete a knowledge source.".into(),
        ));
    }
    let txn = state.db.begin().await?;
    passage::Entity::delete_many()
        .filter(passage::Column::OrganizationId.eq(m.organization_id))
        .filter(passage::Column::SourceId.eq(id))
        .exec(&txn)
        .await?;
    source::Entity::delete_by_id(id)
        .filter(source::Column::OrganizationId.eq(m.organization_id))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    if let Some(key) = row.media_key {
        // The row is gone: a file left by a failed delete is only space, never an answer.
        if let Err(e) = state.media().delete(&key).await {
            tracing::warn!(error = %e, %id, "could not delete a document's file");
        }
    }
    Ok(())
}
