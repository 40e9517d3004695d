//! Subscriptions, by an organisation's owner: create (the URL checked and its signing secret
//! shown once), list with their recent deliveries, remove, send a test event, and redeliver.
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use crate::webhooks::entity::{delivery, subscription, PENDING};
use crate::webhooks::{emit, guard, sign, EVENTS, TEST_EVENT};
use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use uuid::Uuid;

/// Subscriptions an organisation may have.
pub const MAX_SUBSCRIPTIONS: u64 = 20;
/// Recent deliveries shown per subscription.
pub const RECENT: u64 = 10;

pub struct Subscription {
    pub row: subscription::Model,
    pub recent: Vec<delivery::Model>,
    /// Deliveries waiting (pending), exactly.
    pub waiting: u64,
}

/// The stored secret as it is kept: sealed when the server has `HERALD_SECRET_KEY`.
fn keep_secret(state: &AppState, org: Uuid, secret: &str) -> AppResult<String> {
    match state.config.secret_key.as_ref() {
        Some(key) => crate::provider_accounts::crypto::seal(Some(key), org, secret)
            .map(|s| format!("sealed:{s}"))
            .map_err(|e| AppError::Internal(e.to_string())),
        None => Ok(format!("plain:{secret}")),
    }
}

/// The signing secret of a subscription.
pub fn open_secret(state: &AppState, s: &subscription::Model) -> Result<String, String> {
    if let Some(sealed) = s.secret.strip_prefix("sealed:") {
        crate::provider_accounts::crypto::open(
            state.config.secret_key.as_ref(),
            s.organization_id,
            sealed,
        )
        .map_err(|e| e.to_string())
    } else {
        Ok(s.secret
            .strip_prefix("plain:")
            .unwrap_or(&s.secret)
            .to_owned())
    }
}

/// A new subscription and its secret (shown this once).
pub async fn create(
    state: &AppState,
    owner: &Member,
    url: &str,
    events: &[String],
) -> AppResult<(subscription::Model, String)> {
    owner.require_owner()?;
    let checked = guard::check_url(url).map_err(AppError::Validation)?;
    guard::resolve(&checked, state.config.webhooks.allow_private)
        .await
        .map_err(AppError::Validation)?;
    if let Some(bad) = events.iter().find(|e| !EVENTS.contains(&e.as_str())) {
        return Err(AppError::Validation(format!(
            "\"{bad}\" is not an event. The events are: {}.",
            EVENTS.join(", ")
        )));
    }
    let chosen: Vec<&str> = EVENTS
        .into_iter()
        .filter(|e| events.iter().any(|c| c == e))
        .collect();
    if chosen.is_empty() {
        return Err(AppError::validation("Choose at least one event to send."));
    }
    let live = subscription::Entity::find()
        .filter(subscription::Column::OrganizationId.eq(owner.organization_id))
        .filter(subscription::Column::DisabledAt.is_null())
        .count(&state.db)
        .await?;
    if live >= MAX_SUBSCRIPTIONS {
        return Err(AppError::Validation(format!(
            "An organisation has at most {MAX_SUBSCRIPTIONS} webhooks: remove one first."
        )));
    }
    let secret = sign::new_secret();
    let row = subscription::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(owner.organization_id),
        url: Set(checked.to_string()),
        events: Set(chosen.join(" ")),
        secret: Set(keep_secret(state, owner.organization_id, &secret)?),
        created_by: Set(owner.user_id),
        created_at: Set(state.clock.now()),
        disabled_at: Set(None),
    }
    .insert(&state.db)
    .await?;
    tracing::info!(org = %owner.organization_id, subscription = %row.id, "webhook subscribed");
    Ok((row, secret))
}

/// The organisation's live subscriptions (at most `MAX_SUBSCRIPTIONS`), newest first, each with
/// its latest deliveries.
pub async fn list(state: &AppState, owner: &Member) -> AppResult<Vec<Subscription>> {
    owner.require_owner()?;
    let subs = subscription::Entity::find()
        .filter(subscription::Column::OrganizationId.eq(owner.organization_id))
        .filter(subscription::Column::DisabledAt.is_null())
        .order_by_desc(subscription::Column::CreatedAt)
        .limit(MAX_SUBSCRIPTIONS)
        .all(&state.db)
        .await?;
    let mut out = Vec::with_capacity(subs.len());
    for row in subs {
        let recent = delivery::Entity::find()
            .filter(delivery::Column::SubscriptionId.eq(row.id))
            .order_by_desc(delivery::Column::CreatedAt)
            .order_by_desc(delivery::Column::Seq)
            .limit(RECENT)
            .all(&state.db)
            .await?;
        let waiting = delivery::Entity::find()
            .filter(delivery::Column::SubscriptionId.eq(row.id))
            .filter(delivery::Column::Status.eq(PENDING))
            .count(&state.db)
            .await?;
        out.push(Subscription {
            row,
            recent,
            waiting,
        });
    }
    Ok(out)
}

async fn find(state: &AppState, owner: &Member, id: Uuid) -> AppResult<subscription::Model> {
    owner.require_owner()?;
    subscription::Entity::find_by_id(id)
        .filter(subscription::Column::OrganizationId.eq(owner.organization_id))
        .filter(subscription::Column::DisabledAt.is_null())
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("That webhook"))
}

/// Stops a subscription: nothing more is sent to it.
pub async fn remove(state: &AppState, owner: &Member, id: Uuid) -> AppResult<()> {
    let row = find(state, owner, id).await?;
    let mut a: subscription::ActiveModel = row.into();
    a.disabled_at = Set(Some(state.clock.now()));
    a.update(&state.db).await?;
    Ok(())
}

/// Queues a `webhook.test` event to this subscription alone.
pub async fn send_test(state: &AppState, owner: &Member, id: Uuid) -> AppResult<()> {
    let s = find(state, owner, id).await?;
    let now = state.clock.now();
    let body = emit::payload(
        TEST_EVENT,
        &serde_json::json!({"subscription_id": s.id, "message": "A test event from Herald."}),
        now,
    );
    emit::row(
        s.id,
        s.organization_id,
        TEST_EVENT,
        body,
        now.timestamp_micros() * 1000 + 999,
        now,
    )
    .insert(&state.db)
    .await?;
    Ok(())
}

/// Sends a delivered or dead-lettered event again, under its own `webhook-id`.
pub async fn redeliver(state: &AppState, owner: &Member, delivery_id: Uuid) -> AppResult<()> {
    owner.require_owner()?;
    let d = delivery::Entity::find_by_id(delivery_id)
        .filter(delivery::Column::OrganizationId.eq(owner.organization_id))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("That delivery"))?;
    find(state, owner, d.subscription_id).await?;
    if d.status == PENDING {
        return Err(AppError::Conflict(
            "That event is still being delivered.".into(),
        ));
    }
    let now = state.clock.now();
    let mut a: delivery::ActiveModel = d.into();
    a.status = Set(PENDING.into());
    a.attempts = Set(0);
    a.next_attempt_at = Set(now);
    a.created_at = Set(now);
    a.ended_at = Set(None);
    a.claimed_until = Set(None);
    a.claimed_by = Set(None);
    a.update(&state.db).await?;
    Ok(())
}

/// When a delivery was last tried, for the page.
pub fn when(d: &delivery::Model) -> DateTime<Utc> {
    d.ended_at.unwrap_or(d.created_at)
}
