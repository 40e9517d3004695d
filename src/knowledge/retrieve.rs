//! Retrieval: the passages of the organisation's ready sources that answer a question best.
//! Full text finds the candidates (FTS5 on SQLite, a tsvector on PostgreSQL), scoped to the
//! organisation inside the query; each is then scored by how much of the question it covers
//! (`terms::coverage`), the same on both databases, and FAQ entries and facts come before longer
//! passages that cover as much. With an embedding model (`embed`), the passages nearest the
//! question's vector join the candidates, and the two rankings are fused by reciprocal rank
//! (k = 60): words and meaning each vote by rank. Whether a hit *answers* stays a question of
//! its words (`Hit::answers`), the same with a model or without.
use crate::error::AppResult;
use crate::knowledge::embed::{self, QuestionVector};
use crate::knowledge::entity::knowledge_source as source;
use crate::knowledge::model::{Hit, SourceKind};
use crate::knowledge::terms;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, Statement, Value,
};
use std::collections::{BTreeSet, HashMap};
use uuid::Uuid;

/// Candidates full text brings back before they are scored, and vectors as many.
const CANDIDATES: usize = 50;
/// Reciprocal rank fusion's constant (Cormack, Clarke and Büttcher's 60).
const RRF_K: f32 = 60.0;

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

/// The organisation's passages with these ids (those only the vectors found).
async fn by_ids<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    ids: Vec<Uuid>,
) -> AppResult<Vec<Candidate>> {
    if ids.is_empty() {
        return Ok(vec![]);
    }
    use crate::knowledge::entity::knowledge_passage as passage;
    Ok(passage::Entity::find()
        .filter(passage::Column::OrganizationId.eq(org))
        .filter(passage::Column::Id.is_in(ids))
        .all(db)
        .await?
        .into_iter()
        .map(|p| Candidate {
            id: p.id,
            source_id: p.source_id,
            text: p.text,
            terms: p.terms,
            ordinal: p.ordinal,
            locator: p.locator,
        })
        .collect())
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
/// (a website being read again, or whose refresh failed, keeps answering from them). With an
/// embedding model the question's vector joins in (`find` does that); here words alone.
pub async fn search<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    question: &str,
    sources: Option<&[Uuid]>,
    limit: usize,
) -> AppResult<Vec<Hit>> {
    search_with(db, org, question, sources, limit, None).await
}

/// `search`, with the question's vector when the embedding model gave one in time.
pub async fn find(
    state: &crate::platform::state::AppState,
    org: Uuid,
    question: &str,
    sources: Option<&[Uuid]>,
    limit: usize,
) -> AppResult<Vec<Hit>> {
    if terms::terms(question).is_empty() || limit == 0 {
        return Ok(vec![]);
    }
    let vector = embed::question(state, question).await;
    search_with(&state.db, org, question, sources, limit, vector.as_ref()).await
}

/// One candidate as ranked: its hit and the tie-breakers after the score.
struct Ranked {
    hit: Hit,
    titled: f32,
    kind: u8,
    ordinal: i32,
}

fn by_words(a: &Ranked, b: &Ranked) -> std::cmp::Ordering {
    b.hit
        .score
        .total_cmp(&a.hit.score)
        .then(b.titled.total_cmp(&a.titled))
        .then(a.kind.cmp(&b.kind))
        .then(a.hit.source_title.cmp(&b.hit.source_title))
        .then(a.ordinal.cmp(&b.ordinal))
        .then(a.hit.passage_id.cmp(&b.hit.passage_id))
}

/// Words and, when given, the question's vector: the passages ranked by each, fused.
pub async fn search_with<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    question: &str,
    sources: Option<&[Uuid]>,
    limit: usize,
    vector: Option<&QuestionVector>,
) -> AppResult<Vec<Hit>> {
    let q = terms::terms(question);
    if q.is_empty() || limit == 0 {
        return Ok(vec![]);
    }
    let mut found = candidates(db, org, &q).await?;
    let near: Vec<(Uuid, f32)> = match vector {
        Some(v) => v
            .vectors
            .block(db, org, &v.label)
            .await?
            .nearest(&v.vector, CANDIDATES),
        None => vec![],
    };
    let only_near: Vec<Uuid> = near
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !found.iter().any(|c| c.id == *id))
        .collect();
    found.extend(by_ids(db, org, only_near).await?);
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
    let similarity: HashMap<Uuid, f32> = near.iter().copied().collect();
    let mut ranked: Vec<Ranked> = found
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
            Some(Ranked {
                hit: Hit {
                    passage_id: c.id,
                    source_id: s.id,
                    source_kind: s.kind,
                    source_title: s.title.clone(),
                    locator: c.locator,
                    text: c.text,
                    answer,
                    score,
                    similarity: similarity.get(&c.id).copied(),
                },
                titled,
                kind: kind_rank(s.kind),
                ordinal: c.ordinal,
            })
        })
        .collect();
    ranked.sort_by(by_words);
    if vector.is_some() {
        fuse(&mut ranked);
    }
    Ok(ranked.into_iter().take(limit).map(|r| r.hit).collect())
}

/// Reciprocal rank fusion of the words' order (as `ranked` stands) and the vectors' order: each
/// passage scores 1/(k + rank) in each list it is in; ties keep the words' order.
fn fuse(ranked: &mut Vec<Ranked>) {
    let mut by_vector: Vec<(usize, f32)> = ranked
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.hit.similarity.map(|s| (i, s)))
        .collect();
    by_vector.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut fused: Vec<f32> = ranked
        .iter()
        .enumerate()
        // A passage only the vectors found has no place in the words' list.
        .map(|(i, r)| {
            if r.hit.score > 0.0 {
                1.0 / (RRF_K + 1.0 + i as f32)
            } else {
                0.0
            }
        })
        .collect();
    for (rank, (i, _)) in by_vector.iter().enumerate() {
        fused[*i] += 1.0 / (RRF_K + 1.0 + rank as f32);
    }
    let mut order: Vec<usize> = (0..ranked.len()).collect();
    order.sort_by(|a, b| fused[*b].total_cmp(&fused[*a]).then(a.cmp(b)));
    let mut taken: Vec<Option<Ranked>> = std::mem::take(ranked).into_iter().map(Some).collect();
    ranked.extend(order.into_iter().filter_map(|i| taken[i].take()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(title: &str, score: f32, similarity: Option<f32>) -> Ranked {
        Ranked {
            hit: Hit {
                passage_id: Uuid::new_v4(),
                source_id: Uuid::nil(),
                source_kind: SourceKind::Faq,
                source_title: title.into(),
                locator: None,
                text: String::new(),
                answer: None,
                score,
                similarity,
            },
            titled: 0.0,
            kind: 1,
            ordinal: 0,
        }
    }

    #[test]
    fn words_and_meaning_each_vote_by_rank() {
        // Words: a, b, c (c shares no word). Meaning: c, b (a not near at all).
        let mut r = vec![
            ranked("a", 0.9, None),
            ranked("b", 0.5, Some(0.6)),
            ranked("c", 0.0, Some(0.9)),
        ];
        fuse(&mut r);
        let order: Vec<&str> = r.iter().map(|x| x.hit.source_title.as_str()).collect();
        // b is in both lists (2nd and 2nd); a and c are each first in one.
        assert_eq!(order, ["b", "a", "c"]);
        // Ties keep the words' order: a before c.
        let mut r = vec![ranked("a", 0.9, None), ranked("c", 0.0, Some(0.9))];
        fuse(&mut r);
        assert_eq!(r[0].hit.source_title, "a");
    }
}
