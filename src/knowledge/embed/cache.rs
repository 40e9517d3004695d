//! The organisations' vectors in memory, so that a question is not a read of every vector: one
//! block per (organisation, model), used while the table says nothing changed (the count of its
//! rows and the newest one's time, one indexed read). A block a little behind is harmless: a
//! passage deleted since is dropped when the passages are read, and one added since is still
//! found by its words.
use crate::error::AppResult;
use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use uuid::Uuid;

/// Organisations kept at once; past that the least recently used goes.
const ORGS_KEPT: usize = 64;

type Stamp = (i64, Option<DateTime<Utc>>);

/// One organisation's vectors for one model, side by side.
pub struct Block {
    stamp: Stamp,
    ids: Vec<Uuid>,
    width: usize,
    data: Vec<f32>,
    used: std::sync::atomic::AtomicU64,
}

impl Block {
    /// The `n` nearest `question`, nearest first, with their cosine similarity.
    pub fn nearest(&self, question: &[f32], n: usize) -> Vec<(Uuid, f32)> {
        if question.len() != self.width || self.width == 0 {
            return vec![];
        }
        let mut scored: Vec<(Uuid, f32)> = self
            .data
            .chunks_exact(self.width)
            .zip(&self.ids)
            .map(|(v, id)| (*id, super::cosine(question, v)))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(n);
        scored
    }
}

#[derive(Default)]
pub struct VectorCache {
    blocks: Mutex<HashMap<(Uuid, String), Arc<Block>>>,
    clock: std::sync::atomic::AtomicU64,
}

impl VectorCache {
    /// The organisation's vectors from the model `label`, read again when they changed.
    pub async fn block<C: ConnectionTrait>(
        &self,
        db: &C,
        org: Uuid,
        label: &str,
    ) -> AppResult<Arc<Block>> {
        let stamp = stamp(db, org, label).await?;
        let key = (org, label.to_owned());
        let tick = self
            .clock
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some(b) = self.lock().get(&key).filter(|b| b.stamp == stamp) {
            b.used.store(tick, std::sync::atomic::Ordering::Relaxed);
            return Ok(b.clone());
        }
        let rows = super::store::all(db, org, label).await?;
        let width = rows.first().map_or(0, |(_, v)| v.len() / 4);
        let mut ids = Vec::with_capacity(rows.len());
        let mut data = Vec::with_capacity(rows.len() * width);
        for (id, bytes) in rows.into_iter().filter(|(_, b)| b.len() == width * 4) {
            ids.push(id);
            data.extend(super::store::from_bytes(&bytes));
        }
        let block = Arc::new(Block {
            stamp,
            ids,
            width,
            data,
            used: tick.into(),
        });
        let mut blocks = self.lock();
        if blocks.len() >= ORGS_KEPT && !blocks.contains_key(&key) {
            let oldest = blocks
                .iter()
                .min_by_key(|(_, b)| b.used.load(std::sync::atomic::Ordering::Relaxed))
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                blocks.remove(&k);
            }
        }
        blocks.insert(key, block.clone());
        Ok(block)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(Uuid, String), Arc<Block>>> {
        self.blocks.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How many vectors the organisation has from the model, and when the newest was saved.
async fn stamp<C: ConnectionTrait>(db: &C, org: Uuid, label: &str) -> AppResult<Stamp> {
    let backend = db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => "SELECT COUNT(*) AS n, MAX(created_at) AS last FROM knowledge_embedding WHERE organization_id = $1 AND model = $2",
        _ => "SELECT COUNT(*) AS n, MAX(created_at) AS last FROM knowledge_embedding WHERE organization_id = ? AND model = ?",
    };
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [org.into(), label.into()],
        ))
        .await?;
    Ok(match row {
        Some(r) => (r.try_get("", "n")?, r.try_get("", "last")?),
        None => (0, None),
    })
}
