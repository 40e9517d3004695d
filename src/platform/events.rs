//! Effects as events: a module low in the house says what happened (`DomainEvent`) and the
//! modules above it that care listen, instead of the low one calling up into them. The composition
//! root registers the listeners (`server::listeners`); `docs/architecture.md` lists who hears what.
//! Listeners run after the change has committed, in the order registered; rows that must commit
//! with the change (webhook deliveries, the outbox) are written in its transaction, not here.
use crate::error::AppResult;
use crate::platform::AppState;
use std::sync::{Arc, OnceLock};
use uuid::Uuid;

/// Something that happened, told to whoever listens.
#[derive(Clone, Debug, PartialEq)]
pub enum DomainEvent {
    /// A text's delivery status changed (a status callback), with the carrier's error code.
    MessageStatus {
        organization_id: Uuid,
        message_id: Uuid,
        contact_id: Uuid,
        phone_number_id: Uuid,
        status: String,
        error_code: Option<String>,
    },
    /// A text left for the carrier (the transport accepted it). `campaign` when a campaign sent
    /// it, whose texts were counted as their slots were reserved.
    TextLeft {
        organization_id: Uuid,
        message_id: Uuid,
        phone_number_id: Uuid,
        campaign: bool,
    },
    /// A text's picture was copied, or given up on: its conversation shows it, or why not.
    MediaSettled { message_id: Uuid },
    /// Every draft of a campaign is written: it waits for review.
    CampaignDrafted { operation_id: Uuid },
    /// A person approved a campaign's drafts for sending.
    CampaignApproved {
        operation_id: Uuid,
        by_user_id: Uuid,
    },
    /// A campaign ended: sent, stopped or cancelled.
    CampaignEnded { operation_id: Uuid },
    /// A person chose a new password with a reset link (every session ended); `issued_by` says
    /// who issued the link ("by Dana", "by the server's operator"). They belong to
    /// `organization_ids`.
    PasswordResetByLink {
        user_id: Uuid,
        organization_ids: Vec<Uuid>,
        issued_by: String,
    },
}

/// One module's after-effects of events.
#[async_trait::async_trait]
pub trait Listener: Send + Sync {
    /// Acts on `event` when it concerns this listener; other events pass by.
    async fn on(&self, state: &AppState, event: &DomainEvent) -> AppResult<()>;
}

/// The listeners, registered once as the server starts.
#[derive(Default)]
pub struct DomainEvents(OnceLock<Vec<Arc<dyn Listener>>>);

impl DomainEvents {
    /// Registers the listeners; a second call is refused (they are set once, at start-up).
    pub fn listen(&self, listeners: Vec<Arc<dyn Listener>>) -> Result<(), &'static str> {
        self.0
            .set(listeners)
            .map_err(|_| "the event listeners were already registered")
    }

    fn listeners(&self) -> &[Arc<dyn Listener>] {
        self.0.get().map(Vec::as_slice).unwrap_or_default()
    }
}

/// Tells every listener: each runs even when one before it failed (an after-effect must not
/// hide another), and the first error is returned.
pub async fn publish(state: &AppState, event: DomainEvent) -> AppResult<()> {
    let mut first = None;
    for l in state.events.listeners() {
        if let Err(e) = l.on(state, &event).await {
            tracing::warn!(?event, error = %e, "an event's listener failed");
            first.get_or_insert(e);
        }
    }
    first.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listeners_are_registered_once() {
        struct Quiet;
        #[async_trait::async_trait]
        impl Listener for Quiet {
            async fn on(&self, _: &AppState, _: &DomainEvent) -> AppResult<()> {
                Ok(())
            }
        }
        let events = DomainEvents::default();
        assert!(events.listeners().is_empty());
        events.listen(vec![Arc::new(Quiet)]).unwrap();
        assert_eq!(events.listeners().len(), 1);
        assert!(events.listen(vec![]).is_err());
        assert_eq!(events.listeners().len(), 1);
    }
}
