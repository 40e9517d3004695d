//! Server-side sessions: the cookie, its stored hash, and `require_member` for every server function.
use crate::auth::entity::{membership, session};
use crate::auth::model::Role;
use crate::auth::tokens::{hash_token, new_token};
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use chrono::Duration;
use dioxus::fullstack::FullstackContext;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, Condition, EntityTrait, QueryFilter, Set};
use uuid::Uuid;

pub const SESSION_COOKIE: &str = "herald_session";
const SESSION_DAYS: i64 = 30;

/// The signed-in caller: every query a server function makes is scoped by `organization_id`.
#[derive(Clone, Debug)]
pub struct Member {
    pub user_id: Uuid,
    pub organization_id: Uuid,
    pub role: Role,
}

impl Member {
    pub fn require_owner(&self) -> AppResult<()> {
        match self.role {
            Role::Owner => Ok(()),
            Role::Member => Err(AppError::Forbidden),
        }
    }
}

/// Resolves the caller's session from the request cookie.
pub async fn member_from_cookie_header(
    state: &AppState,
    cookie_header: Option<&str>,
) -> AppResult<Member> {
    let token = session_token(cookie_header).ok_or(AppError::Unauthorized)?;
    let row = session::Entity::find()
        .filter(session::Column::TokenHash.eq(hash_token(&token)))
        .filter(session::Column::ExpiresAt.gt(state.clock.now()))
        .one(&state.db)
        .await?
        .ok_or(AppError::Unauthorized)?;
    let member = member_for(state, row.user_id, row.organization_id).await?;
    touch(state, &row).await;
    Ok(member)
}

/// Records that the session was used, at most once a minute (one conditional UPDATE).
async fn touch(state: &AppState, row: &session::Model) {
    let now = state.clock.now();
    let stale = now - Duration::seconds(60);
    if row.last_seen_at.is_some_and(|t| t > stale) {
        return;
    }
    let res = session::Entity::update_many()
        .col_expr(session::Column::LastSeenAt, Expr::value(now))
        .filter(session::Column::Id.eq(row.id))
        .filter(
            Condition::any()
                .add(session::Column::LastSeenAt.is_null())
                .add(session::Column::LastSeenAt.lt(stale)),
        )
        .exec(&state.db)
        .await;
    if let Err(e) = res {
        tracing::debug!(error = %e, "session last-seen not recorded");
    }
}

/// The hash of the caller's session token, if the request carries one.
pub fn current_token_hash() -> AppResult<Option<String>> {
    Ok(session_token(request_cookies()?.as_deref()).map(|t| hash_token(&t)))
}

/// The membership of `user_id` in `organization_id`.
pub async fn member_for(
    state: &AppState,
    user_id: Uuid,
    organization_id: Uuid,
) -> AppResult<Member> {
    let m = membership::Entity::find()
        .filter(membership::Column::UserId.eq(user_id))
        .filter(membership::Column::OrganizationId.eq(organization_id))
        .one(&state.db)
        .await?
        .ok_or(AppError::Unauthorized)?;
    Ok(Member {
        user_id: m.user_id,
        organization_id: m.organization_id,
        role: Role::parse(&m.role).unwrap_or(Role::Member),
    })
}

/// The Cookie header of the request being handled.
pub(crate) fn request_cookies() -> AppResult<Option<String>> {
    let ctx = FullstackContext::current().ok_or(AppError::Unauthorized)?;
    let header = ctx
        .parts_mut()
        .headers
        .get(axum::http::header::COOKIE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    Ok(header)
}

/// The session token in a Cookie header, if any.
fn session_token(cookie_header: Option<&str>) -> Option<String> {
    cookie_header
        .into_iter()
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == SESSION_COOKIE)
        .map(|c| c.value().to_owned())
}

/// The state and signed-in member for the server function being handled.
pub async fn require_member() -> AppResult<(AppState, Member)> {
    let state = AppState::current()?;
    let header = request_cookies()?;
    let member = member_from_cookie_header(&state, header.as_deref()).await?;
    Ok((state, member))
}

/// Deletes expired sessions (a lookup already refuses them; this keeps the table small and
/// leaves no stale token hashes behind). Answers how many went.
pub async fn sweep_expired(state: &AppState) -> AppResult<u64> {
    Ok(session::Entity::delete_many()
        .filter(session::Column::ExpiresAt.lte(state.clock.now()))
        .exec(&state.db)
        .await?
        .rows_affected)
}

/// Stores a new session and sets its cookie on the response.
pub async fn start_session(
    state: &AppState,
    user_id: Uuid,
    organization_id: Uuid,
) -> AppResult<()> {
    let (token, token_hash) = new_token();
    let now = state.clock.now();
    session::ActiveModel {
        id: Set(Uuid::new_v4()),
        token_hash: Set(token_hash),
        user_id: Set(user_id),
        organization_id: Set(organization_id),
        created_at: Set(now),
        expires_at: Set(now + Duration::days(SESSION_DAYS)),
        user_agent: Set(request_user_agent()),
        last_seen_at: Set(Some(now)),
    }
    .insert(&state.db)
    .await?;
    set_cookie(state, &token, time_max_age(SESSION_DAYS * 86_400));
    Ok(())
}

/// Deletes the caller's session row and clears the cookie.
pub async fn end_session(state: &AppState) -> AppResult<()> {
    forget_session(state).await?;
    set_cookie(state, "", time_max_age(0));
    Ok(())
}

/// Deletes the caller's session row, leaving the cookie to whatever is set next.
pub async fn forget_session(state: &AppState) -> AppResult<()> {
    if let Some(token) = session_token(request_cookies()?.as_deref()) {
        session::Entity::delete_many()
            .filter(session::Column::TokenHash.eq(hash_token(&token)))
            .exec(&state.db)
            .await?;
    }
    Ok(())
}

/// The request's User-Agent, shortened, for the list of sessions.
fn request_user_agent() -> Option<String> {
    let ctx = FullstackContext::current()?;
    let parts = ctx.parts_mut();
    let ua = parts
        .headers
        .get(axum::http::header::USER_AGENT)?
        .to_str()
        .ok()?;
    Some(ua.chars().take(300).collect())
}

/// Clears the session cookie on the response being built.
pub fn clear_cookie(state: &AppState) {
    set_cookie(state, "", time_max_age(0));
}

fn time_max_age(secs: i64) -> cookie::time::Duration {
    cookie::time::Duration::seconds(secs)
}

fn set_cookie(state: &AppState, value: &str, max_age: cookie::time::Duration) {
    let secure = state.config.public_url.starts_with("https://");
    let c = cookie::Cookie::build((SESSION_COOKIE, value.to_owned()))
        .path("/")
        .http_only(true)
        .same_site(cookie::SameSite::Lax)
        .secure(secure)
        .max_age(max_age)
        .build();
    if let (Some(ctx), Ok(v)) = (
        FullstackContext::current(),
        axum::http::HeaderValue::from_str(&c.to_string()),
    ) {
        ctx.add_response_header(axum::http::header::SET_COOKIE, v);
    }
}

/// The client's address, for rate limiting.
pub fn client_address(state: &AppState) -> String {
    FullstackContext::current()
        .and_then(|ctx| {
            let parts = ctx.parts_mut();
            let socket = parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|ci| ci.0.ip());
            address_of(
                &parts.headers,
                socket,
                state.config.trusted_proxy_header.as_deref(),
            )
        })
        .unwrap_or_else(|| "unknown".into())
}

pub use crate::platform::client_address::address_of;
