//! `GET /media/<id>` and `/media/<id>/thumb`: a kept copy (or a member's upload not sent yet),
//! to a signed-in member of the organisation whose text it came with. Another organisation's id,
//! or one not kept, is a 404 that says nothing more. Only the kinds the copier keeps are ever served; anything but a
//! picture goes as a download, and never as something a browser would run.
use crate::auth::session::member_from_cookie_header;
use crate::error::{AppError, AppResult};
use crate::media::entity as media;
use crate::media::model::status;
use crate::platform::AppState;
use axum::extract::Path;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use dioxus::fullstack::AsStatusCode;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

pub const MEDIA_PATH: &str = "/media/{id}";
pub const THUMB_PATH: &str = "/media/{id}/thumb";

async fn answer(
    state: AppState,
    headers: &HeaderMap,
    id: &str,
    thumb: bool,
) -> AppResult<Response> {
    let cookies = headers.get(header::COOKIE).and_then(|v| v.to_str().ok());
    let m = member_from_cookie_header(&state, cookies).await?;
    let id: Uuid = id.parse().map_err(|_| AppError::not_found("Media"))?;
    let row = match media::Entity::find_by_id(id)
        .filter(media::Column::OrganizationId.eq(m.organization_id))
        .filter(media::Column::Status.eq(status::STORED))
        .one(&state.db)
        .await?
    {
        Some(row) => row,
        None => uploaded(&state, m.organization_id, id).await?,
    };
    let (key, content_type) = match (thumb, &row.thumb_key, &row.storage_key) {
        (true, Some(k), _) => (k.clone(), "image/jpeg".to_owned()),
        (false, _, Some(k)) => (k.clone(), row.content_type.clone()),
        _ => return Err(AppError::not_found("Media")),
    };
    let bytes = state.media().get(&key).await.map_err(|e| {
        tracing::error!(error = %e, %id, "a kept media copy could not be read");
        AppError::Internal(e.to_string())
    })?;
    let disposition = if content_type.starts_with("image/") {
        "inline".to_owned()
    } else {
        format!("attachment; filename=\"media-{}\"", row.idx + 1)
    };
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, "private, max-age=86400".to_owned()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; sandbox".to_owned(),
            ),
        ],
        bytes,
    )
        .into_response())
}

/// A member's upload not sent yet (a composer's attachment, a campaign's picture), read as a
/// kept item so the same rules serve it.
async fn uploaded(state: &AppState, org: Uuid, id: Uuid) -> AppResult<media::Model> {
    let u = media::upload::Entity::find_by_id(id)
        .filter(media::upload::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Media"))?;
    Ok(media::Model {
        id: u.id,
        organization_id: u.organization_id,
        message_id: Uuid::nil(),
        idx: 0,
        provider_url: String::new(),
        content_type: u.content_type,
        size_bytes: Some(u.size_bytes),
        storage_key: Some(u.storage_key),
        thumb_key: u.thumb_key,
        status: status::STORED.into(),
        error: None,
        attempts: 0,
        next_try_at: u.created_at,
        lease_owner: None,
        lease_until: None,
        created_at: u.created_at,
        public_token: None,
    })
}

fn respond(r: AppResult<Response>) -> Response {
    match r {
        Ok(r) => r,
        Err(e) => (e.as_status_code(), e.to_string()).into_response(),
    }
}

pub async fn original(
    Extension(state): Extension<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    respond(answer(state, &headers, &id, false).await)
}

pub async fn thumb(
    Extension(state): Extension<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    respond(answer(state, &headers, &id, true).await)
}
