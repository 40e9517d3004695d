//! The conversation's open pages hear of what other modules did to a text (`DomainEvent`s).
use crate::error::AppResult;
use crate::live_event::LiveEvent;
use crate::messaging::entity as message;
use crate::platform::events::{DomainEvent, Listener};
use crate::platform::AppState;
use sea_orm::EntityTrait;

/// A text's picture settled (`media::copier`): its conversation reads the text again.
pub struct MediaShown;

#[async_trait::async_trait]
impl Listener for MediaShown {
    async fn on(&self, state: &AppState, event: &DomainEvent) -> AppResult<()> {
        let DomainEvent::MediaSettled { message_id } = event else {
            return Ok(());
        };
        if let Some(m) = message::Entity::find_by_id(*message_id)
            .one(&state.db)
            .await?
        {
            state.live.publish(
                m.organization_id,
                LiveEvent::MessageUpdated {
                    contact_id: m.contact_id,
                    message_id: m.id,
                    status: m.status,
                },
            );
        }
        Ok(())
    }
}
