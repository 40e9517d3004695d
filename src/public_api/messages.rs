//! `/v1/conversations` and `/v1/messages`: the inbox a page at a time, a conversation's
//! messages, and sending a text. A send takes the composer's path (every check at the point a
//! text leaves) and an `Idempotency-Key`: the same key with the same body answers the first
//! text, with another body 409.
use crate::api_keys::entity::api_idempotency;
use crate::api_keys::service::Caller;
use crate::error::AppError;
use crate::messaging::model::{InboxCursor, InboxFilter};
use crate::public_api::caller::need;
use crate::public_api::cursor;
use crate::public_api::problem::{rejected, ApiResult, Problem};
use crate::public_api::schema::{
    Conversation, ConversationList, Message, MessageList, SendMessage,
};
use crate::server::AppState;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, Set};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use utoipa::IntoParams;
use uuid::Uuid;

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ConversationQuery {
    /// all (the default), unread, unassigned, open, closed or snoozed.
    pub view: Option<String>,
    pub cursor: Option<String>,
}

fn view_of(s: Option<&str>) -> ApiResult<InboxFilter> {
    Ok(match s.unwrap_or("all") {
        "all" => InboxFilter::All,
        "unread" => InboxFilter::Unread,
        "unassigned" => InboxFilter::Unassigned,
        "open" => InboxFilter::Open,
        "closed" => InboxFilter::Closed,
        "snoozed" => InboxFilter::Snoozed,
        other => {
            return Err(Problem::bad_request(format!(
                "\"{other}\" is not a view: all, unread, unassigned, open, closed or snoozed."
            )))
        }
    })
}

#[utoipa::path(get, path = "/conversations", tag = "messages", params(ConversationQuery),
    security(("api_key" = ["messages:read"])),
    responses((status = 200, body = ConversationList), (status = "4XX", body = Problem)))]
pub async fn conversations(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    q: Result<Query<ConversationQuery>, QueryRejection>,
) -> ApiResult<Json<ConversationList>> {
    need(&caller, "messages:read")?;
    let Query(q) = q.map_err(rejected)?;
    let view = view_of(q.view.as_deref())?;
    let after: Option<InboxCursor> = cursor::decode(q.cursor.as_deref())?;
    let viewer = crate::inbox::service::viewer(&state, &caller.member);
    let page = crate::messaging::conversation::inbox(&state.db, &viewer, view, after).await?;
    Ok(Json(ConversationList {
        data: page
            .items
            .into_iter()
            .map(|c| Conversation {
                contact_id: c.contact_id,
                contact_name: c.contact_name,
                contact_phone: c.contact_phone,
                last_body: c.last_body,
                last_direction: c.last_direction.as_str().into(),
                last_at: c.last_at,
                unread: c.unread,
                state: c.triage.state.as_str().into(),
                assignee_id: c.triage.assignee.map(|a| a.user_id),
            })
            .collect(),
        total: page.total,
        next_cursor: page.next.as_ref().map(cursor::encode),
    }))
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MessageQuery {
    /// From a previous page's `next_cursor`: the page of older messages.
    pub cursor: Option<String>,
}

#[utoipa::path(get, path = "/conversations/{contact_id}/messages", tag = "messages",
    params(("contact_id" = Uuid, Path, description = "The contact's id"), MessageQuery),
    security(("api_key" = ["messages:read"])),
    responses((status = 200, body = MessageList), (status = "4XX", body = Problem)))]
pub async fn messages(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(contact_id): Path<Uuid>,
    q: Result<Query<MessageQuery>, QueryRejection>,
) -> ApiResult<Json<MessageList>> {
    need(&caller, "messages:read")?;
    let Query(q) = q.map_err(rejected)?;
    let org = caller.member.organization_id;
    crate::contacts::service::view(&state, org, contact_id).await?;
    let before: Option<i64> = cursor::decode(q.cursor.as_deref())?;
    let (rows, older) =
        crate::messaging::conversation::history(&state.db, org, contact_id, before).await?;
    Ok(Json(MessageList {
        data: rows
            .into_iter()
            .map(|m| crate::messaging::service::to_view(m).into())
            .collect(),
        next_cursor: older.as_ref().map(cursor::encode),
    }))
}

/// The longest `Idempotency-Key`.
const KEY_MAX: usize = 255;

#[utoipa::path(post, path = "/messages", tag = "messages", request_body = SendMessage,
    params(("Idempotency-Key" = Option<String>, Header,
        description = "Up to 255 characters. The same key with the same body answers the first text; with another body, 409.")),
    security(("api_key" = ["messages:send"])),
    responses((status = 201, body = Message), (status = 200, body = Message,
        description = "An idempotent replay: the text the key first sent"),
        (status = "4XX", body = Problem)))]
pub async fn send(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    body: Result<Json<SendMessage>, JsonRejection>,
) -> ApiResult<Response> {
    need(&caller, "messages:send")?;
    let Json(req) = body.map_err(rejected)?;
    let org = caller.member.organization_id;
    let idem = match headers.get("idempotency-key") {
        None => None,
        Some(v) => {
            let k = v.to_str().unwrap_or("").trim();
            if k.is_empty() || k.len() > KEY_MAX {
                return Err(Problem::bad_request(format!(
                    "An Idempotency-Key is 1 to {KEY_MAX} visible characters."
                )));
            }
            Some(k.to_owned())
        }
    };
    let key = match &idem {
        Some(k) => Some(bind_key(&state, &caller, k, &req).await?),
        None => None,
    };
    if let Some(k) = key {
        if let Some(first) = sent_with(&state, org, k).await? {
            return Ok(answer(StatusCode::OK, first, true));
        }
    }
    // As the composer: the contact must be the organisation's, and autonomous agents step back
    // from a conversation a person (here, the key's owner) texts by hand.
    crate::contacts::service::view(&state, org, req.contact_id).await?;
    let number = match req.phone_number_id {
        Some(n) => n,
        None => crate::messaging::service::default_number_for(&state, org, req.contact_id)
            .await?
            .ok_or_else(|| {
                Problem::from(AppError::validation(
                    "The organisation has no phone number to send from.",
                ))
            })?,
    };
    crate::inbox::handoff::pause(&state, org, req.contact_id, caller.member.user_id).await?;
    let purpose = crate::messaging::outbound::purpose_for(&state, org, req.contact_id).await?;
    let sent = crate::messaging::outbound::send_sms_keyed(
        &state,
        org,
        req.contact_id,
        number,
        &req.body,
        None,
        key,
        purpose,
    )
    .await;
    match sent {
        Ok(m) => Ok(answer(StatusCode::CREATED, m.into(), false)),
        // The same key sent at the same moment: the other request's text is the answer.
        Err(AppError::Internal(e)) => match key {
            Some(k) => match sent_with(&state, org, k).await? {
                Some(first) => Ok(answer(StatusCode::OK, first, true)),
                None => Err(AppError::Internal(e).into()),
            },
            None => Err(AppError::Internal(e).into()),
        },
        Err(e) => Err(e.into()),
    }
}

fn answer(status: StatusCode, m: Message, replayed: bool) -> Response {
    let mut res = (status, Json(m)).into_response();
    if replayed {
        res.headers_mut()
            .insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    res
}

/// Records which request `idem` stands for (the first one wins), and refuses another request
/// under it; the message key every retry of it shares.
async fn bind_key(
    state: &AppState,
    caller: &Caller,
    idem: &str,
    req: &SendMessage,
) -> ApiResult<Uuid> {
    let hash = {
        let mut h = Sha256::new();
        h.update(serde_json::to_vec(req).unwrap_or_default());
        format!("{:x}", h.finalize())
    };
    api_idempotency::Entity::insert(api_idempotency::ActiveModel {
        api_key_id: Set(caller.key_id),
        idempotency_key: Set(idem.to_owned()),
        request_hash: Set(hash.clone()),
        created_at: Set(state.clock.now()),
    })
    .on_conflict(
        OnConflict::columns([
            api_idempotency::Column::ApiKeyId,
            api_idempotency::Column::IdempotencyKey,
        ])
        .do_nothing()
        .to_owned(),
    )
    .exec_without_returning(&state.db)
    .await?;
    let first = api_idempotency::Entity::find()
        .filter(api_idempotency::Column::ApiKeyId.eq(caller.key_id))
        .filter(api_idempotency::Column::IdempotencyKey.eq(idem))
        .one(&state.db)
        .await?
        .ok_or_else(|| Problem::from(AppError::Internal("idempotency".into())))?;
    if first.request_hash != hash {
        return Err(Problem::new(
            StatusCode::CONFLICT,
            "This Idempotency-Key was first used with a different request.",
        ));
    }
    let mut name = caller.key_id.as_bytes().to_vec();
    name.extend_from_slice(idem.as_bytes());
    Ok(Uuid::new_v5(&Uuid::NAMESPACE_OID, &name))
}

/// The text already sent under a message key, as it stands now.
async fn sent_with(state: &AppState, org: Uuid, key: Uuid) -> ApiResult<Option<Message>> {
    use crate::messaging::entity as message;
    let row = message::Entity::find()
        .filter(message::Column::IdempotencyKey.eq(key.to_string()))
        .filter(message::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?;
    Ok(row.map(|m| crate::messaging::service::to_view(m).into()))
}
