//! The organisation's holding reply: what an agent that answers only from knowledge says when
//! the knowledge does not answer ("Let me check with the team and get back to you"), while the
//! question goes to the agent's owner. An owner words it on the Knowledge page.
use crate::auth::entity::organization;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::knowledge::ground::HOLDING_REPLY;
use crate::platform::AppState;
use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, QuerySelect, Set};
use uuid::Uuid;

/// The longest holding reply: one text segment with room for a greeting.
pub const HOLDING_MAX: usize = 140;

/// The organisation's holding reply, or Herald's own words when it set none.
pub async fn of<C: ConnectionTrait>(db: &C, org: Uuid) -> AppResult<String> {
    let own: Option<Option<String>> = organization::Entity::find_by_id(org)
        .select_only()
        .column(organization::Column::HoldingReply)
        .into_tuple()
        .one(db)
        .await?;
    Ok(own
        .flatten()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| HOLDING_REPLY.to_owned()))
}

/// Sets it (empty: back to Herald's words). Owners only: every agent says it.
pub async fn set(state: &AppState, m: &Member, text: &str) -> AppResult<String> {
    m.require_owner()?;
    let text = text.trim();
    if text.chars().count() > HOLDING_MAX {
        return Err(AppError::validation(format!(
            "Keep the holding reply to {HOLDING_MAX} characters, so it fits one text."
        )));
    }
    if !crate::knowledge::figures::figures(text).is_empty() {
        return Err(AppError::validation(
            "A holding reply promises no time, price or number: say you will check and get back.",
        ));
    }
    organization::ActiveModel {
        id: sea_orm::ActiveValue::Unchanged(m.organization_id),
        holding_reply: Set((!text.is_empty()).then(|| text.to_owned())),
        ..Default::default()
    }
    .update(&state.db)
    .await?;
    of(&state.db, m.organization_id).await
}
