//! The AI↔human handoff. A person's text by hand pauses every autonomous agent in that
//! conversation for the organisation's pause (a day by default), and escalation does the same;
//! while it lasts, the runtime refuses an agent's reply (`ai_agent::tools::send`) and routing
//! does not start one. Suggestions go on: they never send. Resume ends the pause.
use crate::auth::entity::organization;
use crate::auth::session::Member;
use crate::error::AppResult;
use crate::inbox::model::Triage;
use crate::messaging::entity::conversation;
use crate::messaging::model::LiveEvent;
use crate::platform::AppState;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use uuid::Uuid;

/// Pauses the agents in the contact's conversation: `by` took over (a member, or the agent's
/// owner on escalation). No conversation yet means no agent is replying there.
pub async fn pause(state: &AppState, org: Uuid, contact_id: Uuid, by: Uuid) -> AppResult<()> {
    let minutes: Option<i32> = organization::Entity::find_by_id(org)
        .select_only()
        .column(organization::Column::AiPauseMinutes)
        .into_tuple()
        .one(&state.db)
        .await?;
    let until = state.clock.now() + Duration::minutes(minutes.unwrap_or(1440).max(1) as i64);
    let res = conversation::Entity::update_many()
        .col_expr(conversation::Column::AiPausedUntil, Expr::value(until))
        .col_expr(conversation::Column::AiPausedBy, Expr::value(by))
        .filter(conversation::Column::OrganizationId.eq(org))
        .filter(conversation::Column::ContactId.eq(contact_id))
        .exec(&state.db)
        .await?;
    if res.rows_affected > 0 {
        tracing::info!(%contact_id, %by, %until, "agents paused: a person took over");
        state
            .live
            .publish(org, LiveEvent::ContactChanged { contact_id });
    }
    Ok(())
}

/// Ends the pause: the agents answer the contact's next text again.
pub async fn resume(state: &AppState, m: &Member, contact_id: Uuid) -> AppResult<Triage> {
    conversation::Entity::update_many()
        .col_expr(
            conversation::Column::AiPausedUntil,
            Expr::value(None::<DateTime<Utc>>),
        )
        .col_expr(conversation::Column::AiPausedBy, Expr::value(None::<Uuid>))
        .filter(conversation::Column::OrganizationId.eq(m.organization_id))
        .filter(conversation::Column::ContactId.eq(contact_id))
        .exec(&state.db)
        .await?;
    tracing::info!(%contact_id, user = %m.user_id, "agents resumed");
    state
        .live
        .publish(m.organization_id, LiveEvent::ContactChanged { contact_id });
    crate::messaging::conversation::triage_of(state, m.organization_id, contact_id).await
}

/// Until when agents are paused in the contact's conversation at `now`, if they are.
pub async fn paused_until<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    contact_id: Uuid,
    now: DateTime<Utc>,
) -> AppResult<Option<DateTime<Utc>>> {
    let until: Option<Option<DateTime<Utc>>> = conversation::Entity::find_by_id(contact_id)
        .filter(conversation::Column::OrganizationId.eq(org))
        .select_only()
        .column(conversation::Column::AiPausedUntil)
        .into_tuple()
        .one(db)
        .await?;
    Ok(until.flatten().filter(|u| *u > now))
}
