//! The live hub: one broadcast channel; each subscriber sees only its organisation's events.
use crate::messaging::model::LiveEvent;
use tokio::sync::broadcast;
use uuid::Uuid;

pub struct LiveHub {
    tx: broadcast::Sender<(Uuid, LiveEvent)>,
}

impl Default for LiveHub {
    fn default() -> Self {
        Self::new()
    }
}

impl LiveHub {
    pub fn new() -> Self {
        Self {
            tx: broadcast::channel(1024).0,
        }
    }

    pub fn publish(&self, organization_id: Uuid, event: LiveEvent) {
        // No subscribers is fine: nobody has a page open.
        let _ = self.tx.send((organization_id, event));
    }

    pub fn subscribe(&self) -> broadcast::Receiver<(Uuid, LiveEvent)> {
        self.tx.subscribe()
    }
}
