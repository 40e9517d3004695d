//! The live hub: events for open pages. In one process a broadcast channel carries them; with
//! PostgreSQL every instance also sends its events through `NOTIFY` and relays the others', so a
//! text that reached one instance shows on a page connected to another. The tables stay the
//! truth: an event only tells a page to read again.
use crate::live_event::LiveEvent;
use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

/// The PostgreSQL channel the instances share.
pub const CHANNEL: &str = "herald_live";

#[derive(Serialize, Deserialize)]
struct Relayed {
    /// The instance that published it (it has already delivered it locally).
    i: String,
    o: Uuid,
    e: LiveEvent,
}

pub struct LiveHub {
    tx: broadcast::Sender<(Uuid, LiveEvent)>,
    out: mpsc::UnboundedSender<String>,
    pending: Mutex<Option<mpsc::UnboundedReceiver<String>>>,
    instance: String,
}

impl LiveHub {
    pub fn new(instance: String) -> Self {
        let (out, rx) = mpsc::unbounded_channel();
        Self {
            tx: broadcast::channel(1024).0,
            out,
            pending: Mutex::new(Some(rx)),
            instance,
        }
    }

    pub fn publish(&self, organization_id: Uuid, event: LiveEvent) {
        // No subscribers is fine: nobody has a page open.
        let _ = self.tx.send((organization_id, event.clone()));
        if let Ok(json) = serde_json::to_string(&Relayed {
            i: self.instance.clone(),
            o: organization_id,
            e: event,
        }) {
            let _ = self.out.send(json);
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<(Uuid, LiveEvent)> {
        self.tx.subscribe()
    }

    /// Relays events between instances through PostgreSQL's LISTEN/NOTIFY, for as long as the
    /// process runs. Without PostgreSQL (a single SQLite instance) the outgoing queue is dropped.
    pub fn bridge(
        &self,
        db: &sea_orm::DatabaseConnection,
        shutdown: tokio_util::sync::CancellationToken,
    ) {
        let Some(mut outgoing) = self.pending.lock().expect("live hub").take() else {
            return;
        };
        if db.get_database_backend() != sea_orm::DbBackend::Postgres {
            // Nothing to relay to: drain and forget.
            tokio::spawn(async move { while outgoing.recv().await.is_some() {} });
            return;
        }
        let pool = db.get_postgres_connection_pool().clone();
        let sender = pool.clone();
        // Whatever gathered while the last batch was sent goes in one statement: a burst of
        // texts costs a few round trips, not one per event, and PostgreSQL delivers identical
        // payloads of one transaction once.
        tokio::spawn(async move {
            let mut batch = Vec::with_capacity(RELAY_BATCH);
            while outgoing.recv_many(&mut batch, RELAY_BATCH).await > 0 {
                if let Err(e) =
                    sea_orm::sqlx::query("SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p")
                        .bind(CHANNEL)
                        .bind(&batch)
                        .execute(&sender)
                        .await
                {
                    tracing::warn!(error = %e, events = batch.len(), "could not relay live events");
                }
                batch.clear();
            }
        });
        let (tx, me) = (self.tx.clone(), self.instance.clone());
        tokio::spawn(async move {
            let mut backoff = std::time::Duration::from_millis(100);
            while !shutdown.is_cancelled() {
                match listen(&pool, &tx, &me, &shutdown).await {
                    Ok(()) => return,
                    Err(e) => {
                        tracing::warn!(error = %e, "live relay lost; listening again");
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(std::time::Duration::from_secs(5));
                    }
                }
            }
        });
    }
}

/// Live events relayed in one statement, at most.
const RELAY_BATCH: usize = 256;

async fn listen(
    pool: &sea_orm::sqlx::PgPool,
    tx: &broadcast::Sender<(Uuid, LiveEvent)>,
    me: &str,
    shutdown: &tokio_util::sync::CancellationToken,
) -> Result<(), sea_orm::sqlx::Error> {
    let mut listener = sea_orm::sqlx::postgres::PgListener::connect_with(pool).await?;
    listener.listen(CHANNEL).await?;
    loop {
        let note = tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            n = listener.recv() => n?,
        };
        match serde_json::from_str::<Relayed>(note.payload()) {
            Ok(r) if r.i != me => {
                let _ = tx.send((r.o, r.e));
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "unreadable live event"),
        }
    }
}
