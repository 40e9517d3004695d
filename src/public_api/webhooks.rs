//! `/v1/webhooks` (`webhooks:manage`): list, subscribe and remove, as on the Developers page.
//! A new subscription's signing secret is in the answer to its creation, and only there.
use crate::api_keys::service::Caller;
use crate::platform::AppState;
use crate::public_api::caller::need;
use crate::public_api::extract::{Body, Id};
use crate::public_api::problem::{ApiResult, Problem};
use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Webhook {
    pub id: Uuid,
    pub url: String,
    pub events: Vec<String>,
    /// Deliveries still waiting, exactly.
    pub waiting: u64,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct WebhookList {
    pub data: Vec<Webhook>,
    pub total: u64,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewWebhook {
    /// A public http(s) URL.
    pub url: String,
    /// Any of message.received, message.status, contact.created, contact.opted_out,
    /// conversation.assigned, plan.awaiting_approval, plan.finished, campaign.finished.
    pub events: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct WebhookCreated {
    pub webhook: Webhook,
    /// `whsec_…`: verify deliveries with it (Standard Webhooks). Shown this once.
    pub secret: String,
}

fn view(row: crate::webhooks::entity::subscription::Model, waiting: u64) -> Webhook {
    Webhook {
        id: row.id,
        url: row.url,
        events: row.events.split_whitespace().map(str::to_owned).collect(),
        waiting,
        created_at: row.created_at,
    }
}

#[utoipa::path(get, path = "/webhooks", tag = "webhooks", operation_id = "listWebhooks",
    security(("api_key" = ["webhooks:manage"])),
    responses((status = 200, body = WebhookList, description = "The organisation's subscriptions"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> ApiResult<Json<WebhookList>> {
    need(&caller, "webhooks:manage")?;
    let subs = crate::webhooks::service::list(&state, &caller.member).await?;
    let data: Vec<Webhook> = subs.into_iter().map(|s| view(s.row, s.waiting)).collect();
    Ok(Json(WebhookList {
        total: data.len() as u64,
        data,
    }))
}

#[utoipa::path(post, path = "/webhooks", tag = "webhooks", operation_id = "createWebhook",
    request_body = NewWebhook,
    security(("api_key" = ["webhooks:manage"])),
    responses((status = 201, body = WebhookCreated, description = "The subscription, with its signing secret"),
        (status = 422, body = Problem,
        description = "The host does not resolve, or to a private address; or the organisation has as many webhooks as it may"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(w): Body<NewWebhook>,
) -> ApiResult<(StatusCode, Json<WebhookCreated>)> {
    need(&caller, "webhooks:manage")?;
    let (row, secret) =
        crate::webhooks::service::create(&state, &caller.member, &w.url, &w.events).await?;
    Ok((
        StatusCode::CREATED,
        Json(WebhookCreated {
            webhook: view(row, 0),
            secret,
        }),
    ))
}

#[utoipa::path(delete, path = "/webhooks/{id}", tag = "webhooks", operation_id = "deleteWebhook",
    params(("id" = Uuid, Path, description = "The webhook's id")),
    security(("api_key" = ["webhooks:manage"])),
    responses((status = 204, description = "Removed: nothing more is sent to it"),
        (status = "4XX", body = Problem, description = "Refused (see the problem); 404: no such webhook")))]
pub async fn remove(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Id(id): Id,
) -> ApiResult<StatusCode> {
    need(&caller, "webhooks:manage")?;
    crate::webhooks::service::remove(&state, &caller.member, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
