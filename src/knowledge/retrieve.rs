//! Retrieval: the passages of the organisation's ready sources that answer a question best.
//! Full text finds the candidates (FTS5 on SQLite, a tsvector on PostgreSQL), scoped to the
//! organisation inside the query; each is then scored by how much of the question it covers
//! (`terms::coverage`), the same on both databases, and FAQ entries and facts come before longer
//! passages that cover as much.
use crate::error::AppResult;
use crate::knowledge::entity::knowledge_source as source;
use crate::knowledge::model::{Hit, SourceKind};
use crate::knowledge::terms;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, Statement, Value,
};
use std::collections::{BTreeSet, HashMap};
use uuid::Uuid;

/// Candidates full text brings back before they are scored.
const CANDIDATES: usize = 50;

/// The full-text condition's query: any of the terms.
fn any_of(backend: DbBackend, terms: &BTreeSet<String>) -> String {
    match backend {
        DbBackend::Postgres => terms.iter().cloned().collect::<Vec<_>>().join(" | "),
        _ => terms
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(" OR "),
    }
}

struct Candidate {
    id: Uuid,
    source_id: Uuid,
    text: String,
    terms: String,
    ordinal: i32,
    locator: Option<String>,
}

/// The candidates: passages of the organisation that share a term with the question.
async fn candidates<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    q: &BTreeSet<String>,
) -> AppResult<Vec<Candidate>> {
    let backend = db.get_database_backend();
    let expr = any_of(backend, q);
    let sql = match backend {
        DbBackend::Postgres => format!(
            "SELECT id, source_id, text, terms, ordinal, locator FROM knowledge_passage \
             WHERE organization_id = $1 AND terms_tsv @@ to_tsquery('simple', $2) \
             ORDER BY ts_rank(terms_tsv, to_tsquery('simple', $2)) DESC, id LIMIT {CANDIDATES}"
        ),
        // The organisation is a token of the index's `scope` column: the match itself is
        // scoped, and the outer condition checks it again.
        _ => format!(
            "SELECT id, source_id, text, terms, ordinal, locator FROM knowledge_passage \
             WHERE organization_id = ? AND fts_key IN (SELECT rowid FROM knowledge_fts \
               WHERE knowledge_fts MATCH ('scope:o' || hex(?) || ' AND (' || ? || ')') \
               ORDER BY rank LIMIT {CANDIDATES})"
        ),
    };
    let values: Vec<Value> = match backend {
        DbBackend::Postgres => vec![org.into(), expr.into()],
        _ => vec![org.into(), org.into(), expr.into()],
    };
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(backend, sql, values))
        .await?;
    rows.into_iter()
        .map(|r| {
            Ok(Candidate {
                id: r.try_get("", "id")?,
                source_id: r.try_get("", "source_id")?,
                text: r.try_get("", "text")?,
                terms: r.try_get("", "terms")?,
                ordinal: r.try_get("", "ordinal")?,
                locator: r.try_get("", "locator")?,
            })
        })
        .collect()
}

fn kind_rank(kind: SourceKind) -> u8 {
    match kind {
        SourceKind::Fact => 0,
        SourceKind::Faq => 1,
        SourceKind::Document | SourceKind::Web => 2,
    }
}

/// The organisation's passages that best answer `question`, best first, at most `limit`; only
/// from `sources` when given (an agent's choice). A source's passages are its last good reading's
/// (a website being read again, or whose refresh failed, keeps answering from them).
pub async fn search<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    question: &str,
    sources: Option<&[Uuid]>,
    limit: usize,
) -> AppResult<Vec<Hit>> {
    let q = terms::terms(question);
    if q.is_empty() || limit == 0 {
        return Ok(vec![]);
    }
    let found = candidates(db, org, &q).await?;
    let ids: BTreeSet<Uuid> = found.iter().map(|c| c.source_id).collect();
    if ids.is_empty() {
        return Ok(vec![]);
    }
    let sources_found: HashMap<Uuid, source::Model> = source::Entity::find()
        .filter(source::Column::OrganizationId.eq(org))
        .filter(source::Column::Id.is_in(ids))
        .all(db)
        .await?
        .into_iter()
        .filter(|s| sources.is_none_or(|only| only.contains(&s.id)))
        .map(|s| (s.id, s))
        .collect();
    let mut scored: Vec<(Hit, f32, u8, i32)> = found
        .into_iter()
        .filter_map(|c| {
            let s = sources_found.get(&c.source_id)?;
            let passage_terms: BTreeSet<String> =
                c.terms.split_whitespace().map(str::to_owned).collect();
            let score = terms::coverage(&q, &passage_terms);
            // How much of the question the source's own title (the FAQ's question, the fact's
            // label) says: between equal scores, the entry about it comes first.
            let titled = terms::coverage(&q, &terms::terms(&s.title));
            let answer =
                matches!(s.kind, SourceKind::Faq | SourceKind::Fact).then(|| s.body.clone());
            Some((
                Hit {
                    passage_id: c.id,
                    source_id: s.id,
                    source_kind: s.kind,
                    source_title: s.title.clone(),
                    locator: c.locator,
                    text: c.text,
                    answer,
                    score,
                },
                titled,
                kind_rank(s.kind),
                c.ordinal,
            ))
        })
        .collect();
    scored.sort_by(|a, b| {
        b.0.score
            .total_cmp(&a.0.score)
            .then(b.1.total_cmp(&a.1))
            .then(a.2.cmp(&b.2))
            .then(a.0.source_title.cmp(&b.0.source_title))
            .then(a.3.cmp(&b.3))
            .then(a.0.passage_id.cmp(&b.0.passage_id))
    });
    Ok(scored.into_iter().take(limit).map(|(h, ..)| h).collect())
}
