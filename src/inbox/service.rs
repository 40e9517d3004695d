//! Changing a conversation's state and assignee, and waking snoozes that are due. Any member may
//! triage their organisation's conversations; an assignee must be a member of it. Every change
//! reaches open pages through the live hub; an assignee hears of it as a notification.
use crate::auth::entity::{membership, user};
use crate::auth::session::Member;
use crate::contacts::entity::contact;
use crate::error::{AppError, AppResult};
use crate::inbox::model::{ConversationState, StateChange, Triage, SNOOZE_MAX_MINUTES};
use crate::inbox::views::Viewer;
use crate::messaging::conversation::triage_of;
use crate::messaging::entity::conversation;
use crate::messaging::model::LiveEvent;
use crate::notifications::service::{notify, Notice};
use crate::platform::AppState;
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

/// Snoozes one sweep wakes at most (the next sweep takes the rest).
const WAKE_BATCH: u64 = 500;

/// The member reading the inbox now.
pub fn viewer(state: &AppState, m: &Member) -> Viewer {
    Viewer {
        organization_id: m.organization_id,
        user_id: m.user_id,
        now: state.clock.now(),
        number: None,
    }
}

/// The member reading the inbox narrowed to one of their organisation's numbers (another
/// organisation's number is not found).
pub async fn viewer_on(state: &AppState, m: &Member, number: Option<Uuid>) -> AppResult<Viewer> {
    if let Some(id) = number {
        crate::phone_numbers::service::find_in_org(&state.db, m.organization_id, id).await?;
    }
    Ok(Viewer {
        number,
        ..viewer(state, m)
    })
}

async fn row(state: &AppState, m: &Member, contact_id: Uuid) -> AppResult<conversation::Model> {
    conversation::Entity::find_by_id(contact_id)
        .filter(conversation::Column::OrganizationId.eq(m.organization_id))
        .one(&state.db)
        .await?
        .ok_or_else(|| {
            AppError::NotFound(
                "No conversation yet: it starts with the first text to or from this contact."
                    .into(),
            )
        })
}

/// Opens, closes or snoozes a conversation.
pub async fn set_state(
    state: &AppState,
    m: &Member,
    contact_id: Uuid,
    change: StateChange,
) -> AppResult<Triage> {
    row(state, m, contact_id).await?;
    let now = state.clock.now();
    let (to, until) = match change {
        StateChange::Open => (ConversationState::Open, None),
        StateChange::Close => (ConversationState::Closed, None),
        StateChange::SnoozeFor { minutes } => {
            if minutes == 0 || minutes > SNOOZE_MAX_MINUTES {
                return Err(AppError::validation(
                    "A snooze lasts from 1 minute to 90 days.",
                ));
            }
            (
                ConversationState::Snoozed,
                Some(now + Duration::minutes(minutes as i64)),
            )
        }
    };
    conversation::Entity::update_many()
        .col_expr(conversation::Column::State, Expr::value(to))
        .col_expr(conversation::Column::SnoozedUntil, Expr::value(until))
        .filter(conversation::Column::OrganizationId.eq(m.organization_id))
        .filter(conversation::Column::ContactId.eq(contact_id))
        .exec(&state.db)
        .await?;
    tracing::info!(%contact_id, state = to.as_str(), user = %m.user_id, "conversation state set");
    state
        .live
        .publish(m.organization_id, LiveEvent::ContactChanged { contact_id });
    triage_of(state, m.organization_id, contact_id).await
}

/// Assigns a conversation to a member of the organisation, or to nobody; the assignee (when it
/// is not the member assigning) is notified.
pub async fn assign(
    state: &AppState,
    m: &Member,
    contact_id: Uuid,
    assignee: Option<Uuid>,
) -> AppResult<Triage> {
    let before = row(state, m, contact_id).await?;
    if let Some(to) = assignee {
        let member = membership::Entity::find()
            .filter(membership::Column::OrganizationId.eq(m.organization_id))
            .filter(membership::Column::UserId.eq(to))
            .one(&state.db)
            .await?;
        if member.is_none() {
            return Err(AppError::validation(
                "Conversations can be assigned only to members of this organisation.",
            ));
        }
    }
    // The assignment and its webhook event commit together.
    let txn = crate::platform::db::begin_write(&state.db).await?;
    conversation::Entity::update_many()
        .col_expr(conversation::Column::AssigneeId, Expr::value(assignee))
        .filter(conversation::Column::OrganizationId.eq(m.organization_id))
        .filter(conversation::Column::ContactId.eq(contact_id))
        .exec(&txn)
        .await?;
    let data = serde_json::json!({"contact_id": contact_id, "assignee_id": assignee,
        "assigned_by": m.user_id});
    crate::webhooks::emit::emit(
        &txn,
        m.organization_id,
        "conversation.assigned",
        data,
        state.clock.now(),
    )
    .await?;
    txn.commit().await?;
    tracing::info!(%contact_id, assignee = ?assignee, user = %m.user_id, "conversation assigned");
    if let Some(to) = assignee.filter(|to| *to != m.user_id && before.assignee_id != Some(*to)) {
        let by = user::Entity::find_by_id(m.user_id)
            .one(&state.db)
            .await?
            .map(|u| u.name)
            .unwrap_or_else(|| "A teammate".into());
        let who = contact_name(state, m.organization_id, contact_id).await?;
        notify(
            state,
            Notice {
                agent_id: None,
                organization_id: m.organization_id,
                user_id: to,
                kind: "conversation_assigned",
                title: format!("{by} assigned you the conversation with {who}"),
                body: before.last_body.clone(),
                link: Some(format!("/messaging/{contact_id}")),
                source_key: None,
            },
        )
        .await?;
    }
    state
        .live
        .publish(m.organization_id, LiveEvent::ContactChanged { contact_id });
    triage_of(state, m.organization_id, contact_id).await
}

/// An agent's escalation: the conversation is assigned to `to` (the agent's owner) and the
/// agents pause in it, as when a person takes over.
pub async fn hand_over(state: &AppState, org: Uuid, contact_id: Uuid, to: Uuid) -> AppResult<()> {
    conversation::Entity::update_many()
        .col_expr(conversation::Column::AssigneeId, Expr::value(Some(to)))
        .filter(conversation::Column::OrganizationId.eq(org))
        .filter(conversation::Column::ContactId.eq(contact_id))
        .exec(&state.db)
        .await?;
    crate::inbox::handoff::pause(state, org, contact_id, to).await?;
    tracing::info!(%contact_id, assignee = %to, "escalation handed the conversation over");
    state
        .live
        .publish(org, LiveEvent::ContactChanged { contact_id });
    Ok(())
}

async fn contact_name(state: &AppState, org: Uuid, contact_id: Uuid) -> AppResult<String> {
    Ok(contact::Entity::find_by_id(contact_id)
        .filter(contact::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
        .map(|c| c.name)
        .unwrap_or_else(|| "a contact".into()))
}

/// Unassigns every conversation of a member who leaves the organisation.
pub async fn unassign_member<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    user_id: Uuid,
) -> AppResult<u64> {
    Ok(conversation::Entity::update_many()
        .col_expr(conversation::Column::AssigneeId, Expr::value(None::<Uuid>))
        .filter(conversation::Column::OrganizationId.eq(org))
        .filter(conversation::Column::AssigneeId.eq(user_id))
        .exec(db)
        .await?
        .rows_affected)
}

/// Reopens the snoozes that are due (in every organisation: any instance may run this, and two
/// running it at once wake each conversation once). The assignee is told.
pub async fn wake_snoozed(state: &AppState) -> AppResult<u64> {
    let now = state.clock.now();
    let due = conversation::Entity::find()
        .filter(conversation::Column::State.eq(ConversationState::Snoozed))
        .filter(conversation::Column::SnoozedUntil.lte(now))
        .order_by_asc(conversation::Column::SnoozedUntil)
        .limit(WAKE_BATCH)
        .all(&state.db)
        .await?;
    let mut woken = 0;
    for r in due {
        let Some(until) = r.snoozed_until else {
            continue;
        };
        // Only the snooze that was read: one set again meanwhile stays asleep.
        let res = conversation::Entity::update_many()
            .col_expr(
                conversation::Column::State,
                Expr::value(ConversationState::Open),
            )
            .col_expr(
                conversation::Column::SnoozedUntil,
                Expr::value(None::<DateTime<Utc>>),
            )
            .filter(conversation::Column::ContactId.eq(r.contact_id))
            .filter(conversation::Column::State.eq(ConversationState::Snoozed))
            .filter(conversation::Column::SnoozedUntil.eq(until))
            .exec(&state.db)
            .await?;
        if res.rows_affected == 0 {
            continue;
        }
        woken += 1;
        state.live.publish(
            r.organization_id,
            LiveEvent::ContactChanged {
                contact_id: r.contact_id,
            },
        );
        if let Some(to) = r.assignee_id {
            let who = contact_name(state, r.organization_id, r.contact_id).await?;
            notify(
                state,
                Notice {
                    agent_id: None,
                    organization_id: r.organization_id,
                    user_id: to,
                    kind: "conversation_woke",
                    title: format!("The conversation with {who} is open again"),
                    body: "Its snooze ended.".into(),
                    link: Some(format!("/messaging/{}", r.contact_id)),
                    source_key: Some(format!("snooze:{}:{}", r.contact_id, until.timestamp())),
                },
            )
            .await?;
        }
    }
    Ok(woken)
}
