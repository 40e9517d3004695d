//! Passages' vectors in `knowledge_embedding`: which passages still need one for the current
//! model, saving a batch, and reading an organisation's vectors (scoped to the organisation and
//! the model in the query itself).
use crate::error::AppResult;
use crate::knowledge::entity::{knowledge_embedding as embedding, knowledge_passage as passage};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, Set, Statement,
};
use uuid::Uuid;

/// A vector as stored: little-endian `f32`s.
pub fn to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A stored vector (a trailing partial number is ignored).
pub fn from_bytes(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A passage waiting for its vector.
pub struct Waiting {
    pub passage_id: Uuid,
    pub organization_id: Uuid,
    pub text: String,
}

/// Up to `limit` passages, oldest first, without a vector from the model `label` (none yet, or
/// one from another model).
pub async fn waiting<C: ConnectionTrait>(
    db: &C,
    label: &str,
    limit: usize,
) -> AppResult<Vec<Waiting>> {
    let backend = db.get_database_backend();
    let p = if backend == sea_orm::DbBackend::Postgres {
        ["$1", "$2"]
    } else {
        ["?", "?"]
    };
    let sql = format!(
        "SELECT p.id, p.organization_id, p.text FROM knowledge_passage p \
         LEFT JOIN knowledge_embedding e ON e.passage_id = p.id AND e.model = {} \
         WHERE e.passage_id IS NULL ORDER BY p.created_at, p.id LIMIT {}",
        p[0], p[1]
    );
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [label.into(), (limit as i64).into()],
        ))
        .await?;
    rows.into_iter()
        .map(|r| {
            Ok(Waiting {
                passage_id: r.try_get("", "id")?,
                organization_id: r.try_get("", "organization_id")?,
                text: r.try_get("", "text")?,
            })
        })
        .collect()
}

/// Saves the vectors of a batch (replacing another model's). Passages deleted meanwhile (their
/// source read again or removed) are left out.
pub async fn save<C: ConnectionTrait>(
    db: &C,
    label: &str,
    batch: &[Waiting],
    vectors: Vec<Vec<f32>>,
    now: DateTime<Utc>,
) -> AppResult<usize> {
    let ids: Vec<Uuid> = batch.iter().map(|w| w.passage_id).collect();
    let alive: std::collections::HashSet<Uuid> = passage::Entity::find()
        .select_only()
        .column(passage::Column::Id)
        .filter(passage::Column::Id.is_in(ids))
        .into_tuple()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let rows: Vec<embedding::ActiveModel> = batch
        .iter()
        .zip(vectors)
        .filter(|(w, _)| alive.contains(&w.passage_id))
        .map(|(w, v)| embedding::ActiveModel {
            passage_id: Set(w.passage_id),
            organization_id: Set(w.organization_id),
            model: Set(label.to_owned()),
            vector: Set(to_bytes(&v)),
            created_at: Set(now),
        })
        .collect();
    let n = rows.len();
    if n == 0 {
        return Ok(0);
    }
    embedding::Entity::insert_many(rows)
        .on_conflict(
            OnConflict::column(embedding::Column::PassageId)
                .update_columns([
                    embedding::Column::Model,
                    embedding::Column::Vector,
                    embedding::Column::CreatedAt,
                ])
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(n)
}

/// Every vector the organisation has from the model `label`, as stored.
pub async fn all<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    label: &str,
) -> AppResult<Vec<(Uuid, Vec<u8>)>> {
    Ok(embedding::Entity::find()
        .select_only()
        .column(embedding::Column::PassageId)
        .column(embedding::Column::Vector)
        .filter(embedding::Column::OrganizationId.eq(org))
        .filter(embedding::Column::Model.eq(label))
        .into_tuple()
        .all(db)
        .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_keep_every_bit_through_bytes() {
        let v = vec![0.5f32, -1.25, f32::MIN_POSITIVE, 3.0e-7];
        let b = to_bytes(&v);
        assert_eq!(b.len(), 16);
        assert_eq!(from_bytes(&b), v);
        assert_eq!(from_bytes(&b[..5]), vec![0.5]);
    }
}
