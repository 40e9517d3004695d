//! Group commit for inbound texts: the webhook hands its row to one writer, which stores whatever
//! has gathered meanwhile in a single INSERT and answers each request once that has committed.
//! A redelivered MessageSid is skipped by the statement itself (`ON CONFLICT DO NOTHING`), so
//! one text's duplicate never fails the others; if the statement fails for another reason, each
//! row is tried alone and only its own request sees the error.
//!
//! Why: a commit per text made every acknowledgement queue for SQLite's single writer behind the
//! agents' commits, and rewrote the same index pages into the log once per text (about 9 KB of log
//! per text at 1,000 texts a second, issue 15). Under load the writer's batches grow by
//! themselves: one lock, one commit and one copy of those pages for all of them.
use crate::messaging::entity as message;
use sea_orm::{DatabaseConnection, DbErr, EntityTrait, TryInsertResult};
use std::collections::HashSet;
use std::sync::OnceLock;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

/// Rows stored by one statement, at most (22 values each, well under either database's limit).
const GROUP: usize = 64;

/// Whether the row was stored (false: its MessageSid already was).
type Reply = oneshot::Sender<Result<bool, DbErr>>;
/// A row waiting for its group commit: its id, the row, and who waits for it.
type Pending = (Uuid, message::ActiveModel, Reply);

#[derive(Default)]
pub struct InboundWriter {
    tx: OnceLock<mpsc::UnboundedSender<Pending>>,
}

impl InboundWriter {
    /// Stores the row (whose id is `id`) once its batch commits; false when its MessageSid was
    /// stored before.
    pub async fn store(
        &self,
        db: &DatabaseConnection,
        id: Uuid,
        row: message::ActiveModel,
    ) -> Result<bool, DbErr> {
        let tx = self.tx.get_or_init(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(write_loop(db.clone(), rx));
            tx
        });
        let (reply, answer) = oneshot::channel();
        tx.send((id, row, reply))
            .map_err(|_| DbErr::Custom("the inbound writer has stopped".into()))?;
        answer
            .await
            .map_err(|_| DbErr::Custom("the inbound writer dropped a text".into()))?
    }
}

async fn write_loop(db: DatabaseConnection, mut rx: mpsc::UnboundedReceiver<Pending>) {
    let mut batch: Vec<Pending> = Vec::with_capacity(GROUP);
    while rx.recv_many(&mut batch, GROUP).await > 0 {
        let rows: Vec<message::ActiveModel> = batch.iter().map(|(_, r, _)| r.clone()).collect();
        match insert_all(&db, rows).await {
            Ok(stored) => {
                for (id, _, reply) in batch.drain(..) {
                    let _ = reply.send(Ok(stored.contains(&id)));
                }
            }
            Err(e) if batch.len() == 1 => {
                for (_, _, reply) in batch.drain(..) {
                    let _ = reply.send(Err(e.clone()));
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, texts = batch.len(), "a batch of inbound texts failed; storing each alone");
                for (id, row, reply) in batch.drain(..) {
                    let alone = insert_all(&db, vec![row]).await;
                    let _ = reply.send(alone.map(|stored| stored.contains(&id)));
                }
            }
        }
    }
}

/// One INSERT for all the rows; answers the ids it stored (the others' MessageSids were taken).
async fn insert_all(
    db: &DatabaseConnection,
    rows: Vec<message::ActiveModel>,
) -> Result<HashSet<Uuid>, DbErr> {
    // The texts and their webhook events (`message.received`) commit together.
    let txn = crate::platform::db::begin_write(db).await?;
    let result = message::Entity::insert_many(rows.clone())
        .on_conflict_do_nothing_on([message::Column::ProviderSid])
        .exec_with_returning_keys(&txn)
        .await?;
    let stored: HashSet<Uuid> = match result {
        TryInsertResult::Inserted(ids) => ids.into_iter().collect(),
        TryInsertResult::Conflicted | TryInsertResult::Empty => HashSet::new(),
    };
    let mut by_org: std::collections::BTreeMap<Uuid, Vec<serde_json::Value>> = Default::default();
    let mut now = None;
    for r in rows
        .into_iter()
        .filter(|r| r.id.try_as_ref().is_some_and(|id| stored.contains(id)))
    {
        // Each field as the row sets it (an unset one is left out, never guessed).
        let (Some(org), Some(at)) = (r.organization_id.try_as_ref(), r.created_at.try_as_ref())
        else {
            continue;
        };
        now = Some(*at);
        by_org.entry(*org).or_default().push(serde_json::json!({
            "message_id": r.id.try_as_ref(), "contact_id": r.contact_id.try_as_ref(),
            "phone_number_id": r.phone_number_id.try_as_ref(), "body": r.body.try_as_ref(),
            "media_count": r.media_count.try_as_ref(), "created_at": at,
        }));
    }
    for (org, data) in by_org {
        crate::webhooks::emit::emit_each(
            &txn,
            org,
            "message.received",
            &data,
            now.unwrap_or_default(),
        )
        .await
        .map_err(|e| DbErr::Custom(e.to_string()))?;
    }
    txn.commit().await?;
    Ok(stored)
}

impl crate::platform::AppState {
    /// Group commit for the webhook's texts.
    pub fn inbound_writer(&self) -> &InboundWriter {
        self.part::<std::sync::Arc<InboundWriter>>()
    }
}
