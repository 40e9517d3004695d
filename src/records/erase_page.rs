//! The page that deletes a contact, `/contacts/{id}/delete`: what goes (their texts, notes and
//! scheduled texts) and what stays (their number's opt-out), then a confirmation that posts back
//! here. Rendered by the server (`server_page`); the contact page links to it for owners. A
//! refusal (a text in flight, a member who is not an owner) is shown on the page, and nothing
//! is deleted.
// A handler's early exit is a whole response; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
use crate::auth::session::Member;
use crate::error::AppError;
use crate::platform::AppState;
use crate::records::erase::{erase, preview, Preview};
use crate::server_page::{document, status_of, Poster, Viewer};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use dioxus::prelude::*;
use uuid::Uuid;

pub fn routes(state: AppState) -> Router {
    Router::new()
        .route("/contacts/{id}/delete", get(show).post(confirm))
        .with_state(state)
}

async fn show(State(state): State<AppState>, Viewer(m): Viewer, Path(id): Path<Uuid>) -> Response {
    page(&state, &m, id, None).await
}

async fn confirm(
    State(state): State<AppState>,
    Poster(m): Poster,
    Path(id): Path<Uuid>,
) -> Response {
    match erase(&state, &m, id).await {
        Ok(_) => Redirect::to("/contacts").into_response(),
        Err(e) => page(&state, &m, id, Some(e)).await,
    }
}

/// The page, with why the deletion was refused if it was.
async fn page(state: &AppState, m: &Member, id: Uuid, refused: Option<AppError>) -> Response {
    let status = refused.as_ref().map_or(StatusCode::OK, status_of);
    let html = match preview(state, m, id).await {
        Ok(p) => render(state, &p, refused.map(|e| e.to_string())),
        Err(e) => {
            let why = e.to_string();
            let body = rsx! {
                main { class: "page contact-delete",
                    p { a { href: "/contacts", "← Contacts" } }
                    p { class: "error", role: "alert", id: "contact-delete-error", "{why}" }
                }
            };
            return (
                status_of(&e),
                Html(document(state, "Delete a contact", body)),
            )
                .into_response();
        }
    };
    (status, Html(html)).into_response()
}

fn render(state: &AppState, p: &Preview, error: Option<String>) -> String {
    let c = &p.contact;
    let id = c.id;
    let phone = c.phone.clone().unwrap_or_default();
    let title = format!("Delete {}", c.name);
    document(
        state,
        &title,
        rsx! {
            main { class: "page contact-delete",
                p { a { href: "/contacts/{id}", "← {c.name}" } }
                header { class: "page-head", h1 { "Delete {c.name}?" } span { class: "muted", "{phone}" } }
                section { class: "card",
                    if let Some(e) = &error { p { class: "error", role: "alert", id: "contact-delete-error", "{e}" } }
                    p { "This deletes the contact and everything Herald holds of them. It cannot be undone." }
                    ul { id: "contact-delete-what",
                        li { {count(p.messages, "text", "texts")} ", with their pictures" }
                        li { {count(p.notes, "internal note", "internal notes")} }
                        li { {count(p.scheduled, "scheduled text", "scheduled texts")} ", which will not be sent" }
                        li { "their conversation, tags and agent threads" }
                    }
                    if p.opted_out {
                        p { id: "contact-delete-keeps", "Their number stays opted out: a contact made again with {phone} is not texted until they opt in again." }
                    } else {
                        p { class: "muted small", id: "contact-delete-keeps", "Any future opt-out from {phone} is kept with the number, whatever becomes of the contact." }
                    }
                    form { method: "post", action: "/contacts/{id}/delete", class: "inline-form",
                        button { class: "danger", r#type: "submit", id: "contact-delete-confirm", "Delete {c.name}" }
                        a { href: "/contacts/{id}", "Keep them" }
                    }
                }
            }
        },
    )
}

/// "1 text", "2 texts".
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
