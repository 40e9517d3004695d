//! `/forgot`: a person who forgot their password gives their address and, when email is set up,
//! gets a reset link there (`auth::email_account::request_reset`). Rendered by the server with a
//! plain form, so the sign-in page's first load carries only the link to it. Asking is limited
//! per address and per caller as signing in is.
// A handler's early exit is a whole response; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
use crate::auth::email_account::{request_reset, NOT_SET_UP, RESET_SENT};
use crate::platform::AppState;
use crate::server_page::{document, status_of};
use axum::extract::{ConnectInfo, Form, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use dioxus::prelude::*;

pub fn routes(state: AppState) -> Router {
    Router::new()
        .route("/forgot", get(show).post(ask))
        .with_state(state)
}

#[derive(serde::Deserialize)]
struct Asked {
    email: String,
}

/// The page: the form, or (no email) what to do instead; `said` above it after a request.
fn page(state: &AppState, said: Option<(&str, bool)>) -> String {
    let set_up = state.mailer().is_some();
    let body = rsx! {
        main { class: "auth-page",
            div { class: "card auth-card",
                h1 { "Forgot your password?" }
                if let Some((words, ok)) = said {
                    p { class: if ok { "notice" } else { "error" }, role: "alert", id: "forgot-said", "{words}" }
                }
                if set_up {
                    form { method: "post", action: "/forgot", id: "forgot-form",
                        label { r#for: "forgot-email", "Your email" }
                        input { id: "forgot-email", name: "email", r#type: "email", required: true, autocomplete: "email" }
                        button { class: "primary", r#type: "submit", id: "forgot-send", "Email me a reset link" }
                    }
                } else {
                    p { id: "forgot-no-email", "{NOT_SET_UP}" }
                }
                p { a { href: "/signin", "← Sign in" } }
            }
        }
    };
    document(state, "Forgot your password?", body)
}

async fn show(State(state): State<AppState>) -> Html<String> {
    Html(page(&state, None))
}

async fn ask(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    Form(a): Form<Asked>,
) -> Response {
    if !crate::platform::origin::same_site(&headers, &state.config.public_url) {
        return (
            StatusCode::FORBIDDEN,
            "This request came from another site, so Herald refused it.",
        )
            .into_response();
    }
    let address = crate::platform::client_address::address_of(
        &headers,
        Some(peer.ip()),
        state.config.trusted_proxy_header.as_deref(),
    )
    .unwrap_or_else(|| "unknown".into());
    let limited = state
        .sign_in_limiter()
        .check(&state.db, state.clock.now(), &a.email, &address)
        .await;
    let answer = match limited {
        Ok(Ok(())) => request_reset(&state, &a.email).await,
        Ok(Err(secs)) => Err(crate::error::AppError::RateLimited(format!(
            "Too many requests. Wait {secs} seconds and try again."
        ))),
        Err(e) => Err(e),
    };
    match answer {
        Ok(()) => Html(page(&state, Some((RESET_SENT, true)))).into_response(),
        Err(e) => (
            status_of(&e),
            Html(page(&state, Some((&e.to_string(), false)))),
        )
            .into_response(),
    }
}
