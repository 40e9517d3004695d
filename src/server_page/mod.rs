//! Pages the server renders as plain HTML with forms, not the wasm app: rarely opened ones (the
//! Developers page, deleting a contact) that the app's first-load budget cannot carry (issue 28's
//! 400 KB goal). Each is rendered with Dioxus's server renderer, which escapes every value, in
//! the app's own stylesheet. A visitor who is not signed in goes to sign in, and a form posted
//! from another site is refused before anything changes, as `/api` calls are.
// A handler's early exit is a whole response; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
use crate::auth::session::{member_from_cookie_header, Member};
use crate::platform::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use dioxus::prelude::Element;
use std::sync::OnceLock;

mod shell;
pub use shell::{main_html, signed_in_document, MainHtml};

/// The built app's stylesheet (`assets/main-dxh….css` in the public folder), when there is one.
fn stylesheet(public: Option<&std::path::Path>) -> Option<String> {
    static FOUND: OnceLock<Option<String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let dir = public?.join("assets");
            std::fs::read_dir(dir).ok()?.flatten().find_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name.starts_with("main-dxh") && name.ends_with(".css"))
                    .then(|| format!("/assets/{name}"))
            })
        })
        .clone()
}

/// A whole HTML document: `body` under `title`, in the app's stylesheet.
pub fn document(state: &AppState, title: &str, body: Element) -> String {
    let body = dioxus::ssr::render_element(body);
    let link = stylesheet(state.config.public_dir.as_deref())
        .map(|h| format!("<link rel=\"stylesheet\" href=\"{h}\">"))
        .unwrap_or_default();
    let title = html_escape(title);
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title} · Herald</title>{link}</head><body>{body}</body></html>"
    )
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The HTTP status of an error, for a page that shows it.
pub fn status_of(e: &crate::error::AppError) -> StatusCode {
    use dioxus::fullstack::AsStatusCode;
    StatusCode::from_u16(e.as_status_code().as_u16()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// A page that only says why it cannot be shown, under `title`, with a link `back` (path, words),
/// answered with the error's status.
pub fn error_page(
    state: &AppState,
    title: &str,
    back: (&str, &str),
    e: &crate::error::AppError,
) -> Response {
    use dioxus::prelude::*;
    let why = e.to_string();
    let (href, words) = back;
    let body = rsx! {
        main { class: "page",
            p { a { href: "{href}", "← {words}" } }
            p { class: "error", role: "alert", id: "page-error", "{why}" }
        }
    };
    (
        status_of(e),
        axum::response::Html(document(state, title, body)),
    )
        .into_response()
}

/// The signed-in member of a page's request; a visitor who is not goes to sign in.
pub struct Viewer(pub Member);

/// The member who posted a page's form from this site; a post from another site is refused
/// before anything changes, and a visitor who is not signed in goes to sign in.
pub struct Poster(pub Member);

async fn signed_in(state: &AppState, parts: &Parts) -> Result<Member, Response> {
    let cookies = parts
        .headers
        .get(header::COOKIE)
        .and_then(|v| v.to_str().ok());
    member_from_cookie_header(state, cookies)
        .await
        .map_err(|_| Redirect::to("/signin").into_response())
}

impl FromRequestParts<AppState> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        signed_in(state, parts).await.map(Viewer)
    }
}

impl FromRequestParts<AppState> for Poster {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        if !crate::platform::origin::same_site(&parts.headers, &state.config.public_url) {
            return Err((
                StatusCode::FORBIDDEN,
                "This request came from another site, so Herald refused it.",
            )
                .into_response());
        }
        signed_in(state, parts).await.map(Poster)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_title_cannot_break_out_of_its_element() {
        assert_eq!(
            super::html_escape("Ada <b>\"&\"</b>"),
            "Ada &lt;b&gt;&quot;&amp;&quot;&lt;/b&gt;"
        );
    }
}
