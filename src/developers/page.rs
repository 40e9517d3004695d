//! The Developers page's HTML, rendered with Dioxus's server renderer (which escapes every
//! value) and styled by the app's own stylesheet.
use crate::api_keys::model::{ApiKeyPage, SCOPES};
use crate::format::short_time;
use crate::webhooks::service::Subscription;
use dioxus::prelude::*;

/// What the page says beside the keys and webhooks.
#[derive(Default)]
pub struct Notice {
    /// A new key's secret, shown this once.
    pub secret: Option<(String, String)>,
    /// A new webhook's signing secret, shown this once.
    pub webhook_secret: Option<(String, String)>,
    pub error: Option<String>,
    /// The name typed, kept when creating failed.
    pub name: String,
    /// The URL typed, kept when subscribing failed.
    pub url: String,
    /// Why a webhook action was refused, shown beside the webhooks.
    pub webhook_error: Option<String>,
}

/// The page's `main`; `handlers` puts it in the app's navigation.
pub fn render(
    owner: bool,
    keys: Option<&ApiKeyPage>,
    hooks: &[Subscription],
    notice: &Notice,
) -> Element {
    rsx! {
            main { class: "page developers",
                p { a { href: "/settings", "← Settings" } }
                header { class: "page-head", h1 { "Developers" } }
                section { class: "card",
                    h2 { "The Herald API" }
                    p {
                        "Other systems (a booking system, a shop, Zapier or Make) reach this organisation's contacts, conversations, texts and plans at "
                        code { "/v1" } " with an API key sent as " code { "Authorization: Bearer herald_…" } ". "
                        "The API is described by its OpenAPI document: " a { href: "/v1/openapi.json", id: "openapi-link", "/v1/openapi.json" } "."
                    }
                    p { class: "muted small",
                        "Each key holds only the scopes chosen for it and makes at most 10 requests a second (bursts of 50). A text sent with a key passes every check a text from the inbox passes, and every call is in the audit log under the key's name."
                    }
                }
                if !owner {
                    section { class: "card", p { id: "developers-owner-only", "Only the organisation's owner manages API keys." } }
                } else {
                    section { class: "card", id: "api-keys",
                        h2 { "API keys" }
                        if let Some(e) = &notice.error { p { class: "error", role: "alert", id: "api-key-error", "{e}" } }
                        if let Some((name, secret)) = &notice.secret {
                            div { class: "notice", id: "api-key-secret",
                                p { "The key \u{201c}{name}\u{201d} was created. Copy it now: it is not shown again." }
                                p { code { id: "api-key-token", "{secret}" } }
                            }
                        }
                        form { method: "post", action: "/developers/keys", class: "inline-form", id: "api-key-form",
                            input { name: "name", id: "api-key-name", placeholder: "Name, such as Zapier", maxlength: "80", required: true, value: "{notice.name}" }
                            for s in SCOPES {
                                label { class: "check",
                                    input { r#type: "checkbox", name: "scope", value: s, "data-scope": s, checked: s == SCOPES[0] }
                                    "{s}"
                                }
                            }
                            button { class: "primary", r#type: "submit", id: "api-key-create", "Create key" }
                        }
                        if let Some(p) = keys {
                            p { class: "muted small", id: "api-keys-count",
                                if p.total == 1 { "1 key." } else { "{p.total} keys." }
                            }
                            ul { class: "plain-list",
                                for k in p.keys.iter() {
                                    li { class: "api-key", "data-name": "{k.name}",
                                        strong { "{k.name}" } " " code { "{k.prefix}…" }
                                        " · {k.scopes.join(\", \")} · "
                                        span { class: "api-key-state",
                                            match (k.revoked_at, k.last_used_at) {
                                                (Some(r), _) => format!("revoked {}", short_time(r)),
                                                (None, Some(u)) => format!("last used {}", short_time(u)),
                                                (None, None) => "never used".to_string(),
                                            }
                                        }
                                        " · "
                                        span { class: "api-key-reads", if k.reads == 1 { "1 read" } else { "{k.reads} reads" } }
                                        if k.revoked_at.is_none() {
                                            form { method: "post", action: "/developers/keys/{k.id}/revoke", class: "api-key-revoke-form",
                                                button { class: "link api-key-revoke", r#type: "submit", "Revoke" }
                                            }
                                        }
                                    }
                                }
                            }
                            if let Some(n) = &p.next {
                                a { id: "api-keys-older", href: "/developers?before_at={n.at.timestamp_micros()}&before_id={n.id}", "Older keys →" }
                            }
                        }
                    }
                    {webhooks(hooks, notice)}
                }
            }
    }
}

fn webhooks(hooks: &[Subscription], notice: &Notice) -> Element {
    use crate::webhooks::{service::when, EVENTS};
    rsx! {
        section { class: "card", id: "webhooks",
            h2 { "Webhooks" }
            p { class: "muted small",
                "Herald posts each event to the URLs subscribed to it, signed as Standard Webhooks specifies (headers webhook-id, webhook-timestamp and webhook-signature), in order for each URL. A failed delivery is tried again with growing waits for a day, then set aside; it can be sent again from here. Private addresses are refused."
            }
            if let Some(e) = &notice.webhook_error { p { class: "error", role: "alert", id: "webhook-error", "{e}" } }
            if let Some((url, secret)) = &notice.webhook_secret {
                div { class: "notice", id: "webhook-secret",
                    p { "Deliveries to {url} are signed with this secret. Copy it now: it is not shown again." }
                    p { code { id: "webhook-secret-value", "{secret}" } }
                }
            }
            form { method: "post", action: "/developers/webhooks", class: "inline-form", id: "webhook-form",
                input { name: "url", id: "webhook-url", r#type: "url", placeholder: "https://example.com/herald-events", required: true, value: "{notice.url}" }
                for e in EVENTS {
                    label { class: "check",
                        input { r#type: "checkbox", name: "event", value: e, "data-event": e, checked: e == EVENTS[0] }
                        "{e}"
                    }
                }
                button { class: "primary", r#type: "submit", id: "webhook-create", "Add webhook" }
            }
            p { class: "muted small", id: "webhooks-count",
                if hooks.len() == 1 { "1 webhook." } else { "{hooks.len()} webhooks." }
            }
            for h in hooks.iter() {
                div { class: "webhook", "data-url": "{h.row.url}",
                    p {
                        strong { class: "webhook-url", "{h.row.url}" }
                        br {}
                        span { class: "muted small", "{h.row.events.replace(' ', \", \")} · {h.waiting} waiting" }
                    }
                    div { class: "row",
                        form { method: "post", action: "/developers/webhooks/{h.row.id}/test", class: "inline",
                            button { class: "webhook-test", r#type: "submit", "Send a test event" }
                        }
                        form { method: "post", action: "/developers/webhooks/{h.row.id}/remove", class: "inline",
                            button { class: "link webhook-remove", r#type: "submit", "Remove" }
                        }
                    }
                    if h.recent.is_empty() {
                        p { class: "muted small", "Nothing delivered yet." }
                    } else {
                        table { class: "deliveries",
                            thead { tr { th { "Event" } th { "Status" } th { "Answer" } th { "Tries" } th { "When" } th {} } }
                            tbody {
                                for d in h.recent.iter() {
                                    tr { class: "delivery", "data-status": "{d.status}",
                                        td { "{d.event_type}" }
                                        td { class: "delivery-status", "{d.status}" }
                                        td { class: "delivery-code",
                                            match (d.last_status, &d.last_error) {
                                                (Some(c), _) => c.to_string(),
                                                (None, Some(e)) => e.clone(),
                                                (None, None) => "—".to_string(),
                                            }
                                        }
                                        td { "{d.attempts}" }
                                        td { "{short_time(when(d))}" }
                                        td {
                                            if d.status != "pending" {
                                                form { method: "post", action: "/developers/deliveries/{d.id}/redeliver", class: "inline",
                                                    button { class: "link delivery-redeliver", r#type: "submit", "Redeliver" }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
