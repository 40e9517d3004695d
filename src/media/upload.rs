//! Sending pictures (issue 28 §3). `POST /api/media/upload`: a member's picture (the request's
//! body, its type in `Content-Type`), a JPEG, PNG or GIF of at most 5 MB, checked to be what its
//! type says, kept with a thumbnail until a text takes it. `GET /m/<token>`: the picture of a sent
//! text, for Twilio to fetch (`MediaUrl`): no session, an unguessable token, and only for
//! `PUBLIC_MEDIA_DAYS` after the text was written.
use crate::auth::session::member_from_cookie_header;
use crate::error::{AppError, AppResult};
use crate::media::copier::{kind_of, thumbnail};
use crate::media::entity::{self as media, upload};
use crate::media::model::{status, UploadView, MAX_PER_TEXT, MAX_SEND_BYTES, SENDABLE};
use crate::platform::AppState;
use axum::body::Bytes;
use axum::extract::Path;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use dioxus::fullstack::AsStatusCode;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use uuid::Uuid;

pub const UPLOAD_PATH: &str = "/api/media/upload";
pub const PUBLIC_PATH: &str = "/m/{token}";
/// How long Twilio (or a resend) may fetch a sent picture.
pub const PUBLIC_MEDIA_DAYS: i64 = 7;
/// An upload no text took within this long is removed (a composer left open, a picture dropped).
pub const UNSENT_UPLOAD_HOURS: i64 = 24;
/// Uploads one sweep looks at.
const SWEEP_BATCH: u64 = 200;

async fn accept(state: AppState, headers: &HeaderMap, body: Bytes) -> AppResult<UploadView> {
    let cookies = headers.get(header::COOKIE).and_then(|v| v.to_str().ok());
    let m = member_from_cookie_header(&state, cookies).await?;
    if body.is_empty() {
        return Err(AppError::validation("Choose a picture to attach."));
    }
    if body.len() as u64 > MAX_SEND_BYTES {
        return Err(AppError::validation(
            "A picture may be at most 5 MB (the carriers' limit for a text).",
        ));
    }
    within_quota(&state, m.organization_id, body.len() as u64).await?;
    let declared = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let kind = kind_of(&declared, &body).map_err(AppError::Validation)?;
    if !SENDABLE.contains(&kind.as_str()) {
        return Err(AppError::Validation(format!(
            "Texts carry JPEG, PNG or GIF pictures, not {kind}."
        )));
    }
    let id = Uuid::new_v4();
    let key = format!("{}/uploads/{id}", m.organization_id);
    let bytes = body.to_vec();
    let for_thumb = bytes.clone();
    let thumb = thumbnail(for_thumb).await;
    state
        .media()
        .put(&key, bytes)
        .await
        .map_err(|e| AppError::Internal(e.to_string()))?;
    let thumb_key = match thumb {
        Some(t) => {
            let k = format!("{key}.thumb.jpg");
            state
                .media()
                .put(&k, t)
                .await
                .map_err(|e| AppError::Internal(e.to_string()))?;
            Some(k)
        }
        None => None,
    };
    let row = upload::ActiveModel {
        id: Set(id),
        organization_id: Set(m.organization_id),
        uploaded_by: Set(Some(m.user_id)),
        content_type: Set(kind.clone()),
        size_bytes: Set(body.len() as i64),
        storage_key: Set(key),
        thumb_key: Set(thumb_key),
        created_at: Set(state.clock.now()),
        operation_id: Set(None),
    }
    .insert(&state.db)
    .await?;
    tracing::info!(id = %row.id, bytes = row.size_bytes, "picture uploaded");
    Ok(UploadView {
        id: row.id,
        content_type: row.content_type,
        size_bytes: row.size_bytes as u64,
    })
}

pub async fn upload_handler(
    Extension(state): Extension<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match accept(state, &headers, body).await {
        Ok(v) => Json(v).into_response(),
        Err(e) => error_response(e),
    }
}

/// An upload's refusal in the server functions' error shape, so the client reads it as one of
/// theirs (`rpc::upload`).
pub fn error_response(e: AppError) -> Response {
    let code = e.as_status_code();
    (
        code,
        Json(serde_json::json!({"message": e.to_string(), "code": code.as_u16(), "data": e})),
    )
        .into_response()
}

/// The organisation's uploads for a text, in the order given: NotFound for any other id.
pub async fn uploads_for<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    ids: &[Uuid],
) -> AppResult<Vec<upload::Model>> {
    if ids.len() > MAX_PER_TEXT {
        return Err(AppError::Validation(format!(
            "A text may carry at most {MAX_PER_TEXT} pictures."
        )));
    }
    // A text takes its uploads (their rows go when it is written): each is sent once. A
    // campaign's picture is its own.
    let found = upload::Entity::find()
        .filter(upload::Column::OrganizationId.eq(org))
        .filter(upload::Column::OperationId.is_null())
        .filter(upload::Column::Id.is_in(ids.iter().copied()))
        .all(db)
        .await?;
    let ordered: Vec<upload::Model> = ids
        .iter()
        .filter_map(|id| found.iter().find(|u| u.id == *id).cloned())
        .collect();
    if ordered.len() != ids.len() {
        return Err(AppError::not_found("Picture"));
    }
    let total: i64 = ordered.iter().map(|u| u.size_bytes).sum();
    if total as u64 > MAX_SEND_BYTES {
        return Err(AppError::validation(
            "The pictures come to more than 5 MB, the carriers' limit for one text.",
        ));
    }
    Ok(ordered)
}

/// A sent text's rows for its pictures: the upload's copy, and a token for Twilio's fetch.
pub fn rows_for_sent(
    org: Uuid,
    message_id: Uuid,
    uploads: &[upload::Model],
    now: chrono::DateTime<chrono::Utc>,
) -> Vec<media::ActiveModel> {
    use rand::RngCore;
    uploads
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let mut token = [0u8; 24];
            rand::thread_rng().fill_bytes(&mut token);
            let token: String = token.iter().map(|b| format!("{b:02x}")).collect();
            media::ActiveModel {
                id: Set(Uuid::new_v4()),
                organization_id: Set(org),
                message_id: Set(message_id),
                idx: Set(i as i32),
                provider_url: Set(format!("upload:{}", u.id)),
                content_type: Set(u.content_type.clone()),
                size_bytes: Set(Some(u.size_bytes)),
                storage_key: Set(Some(u.storage_key.clone())),
                thumb_key: Set(u.thumb_key.clone()),
                status: Set(status::STORED.into()),
                error: Set(None),
                attempts: Set(0),
                next_try_at: Set(now),
                lease_owner: Set(None),
                lease_until: Set(None),
                created_at: Set(now),
                public_token: Set(Some(token)),
            }
        })
        .collect()
}

/// The addresses Twilio fetches a text's pictures from, in order.
pub async fn public_urls<C: ConnectionTrait>(
    db: &C,
    public_url: &str,
    message_id: Uuid,
) -> AppResult<Vec<String>> {
    let rows = crate::media::copier::for_message(db, message_id).await?;
    Ok(rows
        .into_iter()
        .filter_map(|r| r.public_token)
        .map(|t| format!("{}/m/{t}", public_url.trim_end_matches('/')))
        .collect())
}

async fn public(state: AppState, token: &str) -> AppResult<Response> {
    let row = media::Entity::find()
        .filter(media::Column::PublicToken.eq(token))
        .filter(media::Column::Status.eq(status::STORED))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Media"))?;
    if state.clock.now() > row.created_at + chrono::Duration::days(PUBLIC_MEDIA_DAYS) {
        return Err(AppError::not_found("Media"));
    }
    let key = row
        .storage_key
        .ok_or_else(|| AppError::not_found("Media"))?;
    let bytes = state
        .media()
        .get(&key)
        .await
        .map_err(|e| AppError::Internal(e.to_string()))?;
    Ok((
        [
            (header::CONTENT_TYPE, row.content_type),
            (header::CACHE_CONTROL, "private, max-age=3600".to_owned()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
            // A picture, never a page: sandboxed whatever a browser makes of it.
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; sandbox".to_owned(),
            ),
        ],
        bytes,
    )
        .into_response())
}

pub async fn public_handler(
    Extension(state): Extension<AppState>,
    Path(token): Path<String>,
) -> Response {
    match public(state, &token).await {
        Ok(r) => r,
        Err(e) => (e.as_status_code(), e.to_string()).into_response(),
    }
}

/// Refuses an upload past the organisation's quota of pictures kept for texts not sent yet (a
/// campaign's picture counts until the campaign is gone; sent texts' copies do not).
async fn within_quota(state: &AppState, org: Uuid, adding: u64) -> AppResult<()> {
    use sea_orm::sea_query::{Alias, Expr, Func};
    use sea_orm::QuerySelect;
    // PostgreSQL sums a bigint as a numeric: read back as one.
    let sum = Func::cast_as(
        Func::sum(Expr::col(upload::Column::SizeBytes)),
        Alias::new("BIGINT"),
    );
    let kept: Option<i64> = upload::Entity::find()
        .select_only()
        .column_as(Expr::expr(sum), "n")
        .filter(upload::Column::OrganizationId.eq(org))
        .into_tuple::<Option<i64>>()
        .one(&state.db)
        .await?
        .flatten();
    let limit = state.config.limits.upload_bytes;
    if kept.unwrap_or(0).max(0) as u64 + adding > limit {
        return Err(AppError::Validation(format!(
            "This organisation keeps {} MB of pictures for texts not sent yet, its limit: send \
             or remove some (unsent ones go after {UNSENT_UPLOAD_HOURS} hours), then try again.",
            limit >> 20
        )));
    }
    Ok(())
}

/// Removes uploads no text took within `UNSENT_UPLOAD_HOURS`, with their copies (a text takes
/// its uploads: `send_mms` deletes their rows, and its own media rows keep the files). A
/// campaign's picture stays: its texts' media rows share its files. Answers how many it removed.
pub async fn sweep_unsent(state: &AppState) -> AppResult<usize> {
    use sea_orm::{QueryOrder, QuerySelect};
    let cutoff = state.clock.now() - chrono::Duration::hours(UNSENT_UPLOAD_HOURS);
    let old = upload::Entity::find()
        .filter(upload::Column::CreatedAt.lt(cutoff))
        .filter(upload::Column::OperationId.is_null())
        .order_by_asc(upload::Column::CreatedAt)
        .limit(SWEEP_BATCH)
        .all(&state.db)
        .await?;
    for u in &old {
        // The row goes only once its files are gone, so a failure is tried again next time.
        for key in std::iter::once(&u.storage_key).chain(u.thumb_key.iter()) {
            state
                .media()
                .delete(key)
                .await
                .map_err(|e| AppError::Internal(e.to_string()))?;
        }
        upload::Entity::delete_by_id(u.id).exec(&state.db).await?;
    }
    Ok(old.len())
}
