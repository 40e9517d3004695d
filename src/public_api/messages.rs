//! `/v1/conversations` and `/v1/messages`: the inbox a page at a time, a conversation's
//! messages, and sending a text. A send takes the composer's path (every check at the point a
//! text leaves) and an `Idempotency-Key`: the same key with the same body answers the first
//! text, with another body 409.
use crate::api_keys::entity::api_idempotency;
use crate::api_keys::service::Caller;
use crate::error::{AppError, DbFault};
use crate::messaging::model::{InboxCursor, InboxFilter};
use crate::platform::AppState;
use crate::public_api::caller::need;
use crate::public_api::cursor;
use crate::public_api::extract::{idempotency_key, Body, Id, Params};
use crate::public_api::problem::{self, ApiResult, Problem};
use crate::public_api::schema::{
    Conversation, ConversationList, Message, MessageList, SendMessage,
};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, Set};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Which conversations.
#[derive(Debug, Default, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum InboxView {
    #[default]
    All,
    Unread,
    Unassigned,
    Open,
    Closed,
    Snoozed,
}

impl From<InboxView> for InboxFilter {
    fn from(v: InboxView) -> Self {
        match v {
            InboxView::All => InboxFilter::All,
            InboxView::Unread => InboxFilter::Unread,
            InboxView::Unassigned => InboxFilter::Unassigned,
            InboxView::Open => InboxFilter::Open,
            InboxView::Closed => InboxFilter::Closed,
            InboxView::Snoozed => InboxFilter::Snoozed,
        }
    }
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ConversationQuery {
    /// all (the default), unread, unassigned, open, closed or snoozed.
    #[param(inline)]
    pub view: Option<InboxView>,
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
}

#[utoipa::path(get, path = "/conversations", tag = "messages", operation_id = "listConversations",
    params(ConversationQuery),
    security(("api_key" = ["messages:read"])),
    responses((status = 200, body = ConversationList, description = "A page of conversations, latest first"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn conversations(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Params(q): Params<ConversationQuery>,
) -> ApiResult<Json<ConversationList>> {
    need(&caller, "messages:read")?;
    let view = InboxFilter::from(q.view.unwrap_or_default());
    let after = cursor::read_at(q.cursor.as_deref())?.map(|(last_at, contact_id)| InboxCursor {
        last_at,
        contact_id,
    });
    let viewer = crate::inbox::service::viewer(&state, &caller.member);
    let page = crate::inbox::list::inbox(&state.db, &viewer, view, after).await?;
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
        next_cursor: page
            .next
            .as_ref()
            .map(|c| cursor::at(c.last_at, c.contact_id)),
    }))
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MessageQuery {
    /// From a previous page's `next_cursor`: the page of older messages.
    pub cursor: Option<String>,
}

#[utoipa::path(get, path = "/conversations/{contact_id}/messages", tag = "messages",
    operation_id = "listMessages",
    params(("contact_id" = Uuid, Path, description = "The contact's id"), MessageQuery),
    security(("api_key" = ["messages:read"])),
    responses((status = 200, body = MessageList, description = "A page of the conversation's messages, oldest first"),
        (status = "4XX", body = Problem, description = "Refused (see the problem); 404: no such contact")))]
pub async fn messages(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Id(contact_id): Id,
    Params(q): Params<MessageQuery>,
) -> ApiResult<Json<MessageList>> {
    need(&caller, "messages:read")?;
    let org = caller.member.organization_id;
    let before = cursor::read_seq(q.cursor.as_deref())?;
    crate::contacts::service::view(&state, org, contact_id).await?;
    let (rows, older) =
        crate::messaging::conversation::history(&state.db, org, contact_id, before).await?;
    Ok(Json(MessageList {
        data: rows
            .into_iter()
            .map(|m| crate::messaging::service::to_view(m).into())
            .collect(),
        next_cursor: older.map(cursor::seq),
    }))
}

#[utoipa::path(post, path = "/messages", tag = "messages", operation_id = "sendMessage",
    request_body = SendMessage,
    params(("Idempotency-Key" = Option<String>, Header,
        description = "Up to 255 visible ASCII characters. The same key with the same body answers the first text; with another body, 409.")),
    security(("api_key" = ["messages:send"])),
    responses((status = 201, body = Message, description = "The text, sent or on its way"),
        (status = 200, body = Message,
        description = "An idempotent replay: the text the key first sent (`Idempotent-Replayed: true`)"),
        (status = 404, body = Problem, description = "No such contact or phone number"),
        (status = 409, body = Problem,
        description = "The Idempotency-Key was first used with another body"),
        (status = 422, body = Problem,
        description = "The rules refuse the text. `type` says why: `tag:herald.example,2026:problems/quiet-hours` (the recipient is in quiet hours; `send_after` says when it may go), `…/opted-out` (they opted out), `…/compliance` (another rule, such as no marketing consent on record, in `detail`); `about:blank` for a text that cannot go as written (a merge field nothing fills, a contact without a phone number, no number to send from)."),
        (status = 502, body = Problem, description = "The SMS provider refused the text"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn send(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    Body(req): Body<SendMessage>,
) -> ApiResult<Response> {
    need(&caller, "messages:send")?;
    let org = caller.member.organization_id;
    let idem = idempotency_key(&headers)?;
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
    // Every text is keyed, so that a refused one can be found and its reason read.
    let text_key = key.unwrap_or_else(Uuid::new_v4);
    let out = crate::messaging::outbound::Outgoing::new(org, req.contact_id, number, &req.body)
        .keyed(Some(text_key))
        .purpose(purpose);
    let sent = crate::messaging::outbound::send(&state, out).await;
    match sent {
        Ok(m) => Ok(answer(StatusCode::CREATED, m.into(), false)),
        Err(AppError::Transport(e)) => match refusal(&state, org, text_key).await? {
            Some(p) => Err(p),
            None => Err(AppError::Transport(e).into()),
        },
        // The same key sent at the same moment: the other request's text is the answer.
        Err(AppError::Database(DbFault::Unique)) => match key {
            Some(k) => match sent_with(&state, org, k).await? {
                Some(first) => Ok(answer(StatusCode::OK, first, true)),
                None => Err(AppError::Database(DbFault::Unique).into()),
            },
            None => Err(AppError::Database(DbFault::Unique).into()),
        },
        Err(e) => Err(e.into()),
    }
}

/// A text the compliance gate held back as it left, as the problem that says why (422); None for
/// a text the provider refused. The gate records its reason on the failed text as
/// `Not sent: <why>.`, and a quiet-hours reason is the one `quiet::held_reason` writes.
async fn refusal(state: &AppState, org: Uuid, key: Uuid) -> ApiResult<Option<Problem>> {
    use crate::messaging::entity as message;
    use crate::messaging::quiet;
    let Some(row) = message::Entity::find()
        .filter(message::Column::IdempotencyKey.eq(key.to_string()))
        .filter(message::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
    else {
        return Ok(None);
    };
    let Some(why) = row
        .error
        .as_deref()
        .and_then(|e| e.strip_prefix("Not sent: "))
        .map(|w| w.trim_end_matches('.').to_owned())
    else {
        return Ok(None);
    };
    let contact = crate::contacts::entity::contact::Entity::find_by_id(row.contact_id)
        .one(&state.db)
        .await?;
    if let Some(c) = contact {
        let zone = quiet::org_zone(&state.db, org).await?;
        if let Some(until) = quiet::quiet_until(state.clock.now(), &c, &zone) {
            let held = quiet::held_reason(until, &c, &zone);
            if held.trim_end_matches('.') == why {
                let mut p = Problem::typed(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    problem::QUIET_HOURS,
                    "Quiet hours",
                    format!("Not sent: {held}"),
                );
                p.send_after = Some(until);
                return Ok(Some(p));
            }
        }
    }
    Ok(Some(Problem::typed(
        StatusCode::UNPROCESSABLE_ENTITY,
        problem::COMPLIANCE,
        "Refused by the compliance rules",
        format!("Not sent: {why}."),
    )))
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
