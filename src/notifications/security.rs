//! Security notices: a password changed with a reset link is told to the person in each
//! organisation they belong to, wherever they look first (`DomainEvent::PasswordResetByLink`).
use crate::error::AppResult;
use crate::notifications::service::{notify, Notice};
use crate::platform::events::{DomainEvent, Listener};
use crate::platform::AppState;

/// Hears a password reset by link and tells the person.
pub struct ResetTold;

#[async_trait::async_trait]
impl Listener for ResetTold {
    async fn on(&self, state: &AppState, event: &DomainEvent) -> AppResult<()> {
        let DomainEvent::PasswordResetByLink {
            user_id,
            organization_ids,
            issued_by,
        } = event
        else {
            return Ok(());
        };
        for org in organization_ids {
            notify(
                state,
                Notice {
                    organization_id: *org,
                    user_id: *user_id,
                    kind: "security",
                    title: "Your password was changed with a reset link".into(),
                    body: format!(
                        "Every session was signed out. The link was issued {issued_by}. If this \
                         was not you, tell an owner and change your password from Your account."
                    ),
                    link: Some("/account".into()),
                    source_key: None,
                    agent_id: None,
                },
            )
            .await?;
        }
        Ok(())
    }
}
