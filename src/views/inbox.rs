//! The inbox: conversations by latest message, with unread markers, updated live.
use crate::app::Route;
use crate::compliance::api::list_possible_opt_outs;
use crate::components::use_live;
use crate::components::{short_time, ErrorBanner};
use crate::messaging::api::list_conversations;
use crate::messaging::model::Direction;
use crate::messaging::model::LiveTopic;
use dioxus::prelude::*;

#[component]
pub fn Home() -> Element {
    use_effect(|| {
        navigator().replace(Route::Inbox {});
    });
    rsx! { div { class: "loading-page", "Opening the inbox…" } }
}

#[component]
pub fn Inbox() -> Element {
    let live = use_live(LiveTopic::Inbox);
    let conversations = use_resource(move || {
        let _ = live();
        list_conversations()
    });
    let reviews = use_resource(move || {
        let _ = live();
        list_possible_opt_outs(0)
    });
    let list = conversations.read().clone();
    let pending = reviews
        .read()
        .clone()
        .and_then(Result::ok)
        .unwrap_or_default();
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Inbox" } }
            if pending.total > 0 {
                section { class: "card possible-opt-outs", id: "possible-opt-outs",
                    h2 { "Possible opt-outs ({pending.total})" }
                    p { class: "muted small", "Texts that may ask for no more messages. Automated texts to these people wait until someone decides." }
                    if pending.total > pending.items.len() as u64 {
                        p { class: "muted small", "Showing the oldest {pending.items.len()} of {pending.total}." }
                    }
                    ul { class: "plain-list",
                        for r in pending.items.clone() {
                            li { key: "{r.id}",
                                Link { to: Route::Conversation { contact_id: r.contact_id }, class: "possible-opt-out-link",
                                    strong { "{r.contact_name}" } ": " q { "{r.body}" }
                                }
                            }
                        }
                    }
                }
            }
            match list {
                None => rsx! { p { class: "muted", "Loading conversations…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(items)) if items.is_empty() => rsx! {
                    div { class: "empty",
                        p { "No conversations yet." }
                        p { class: "muted", "Text one of your numbers from the phone simulator, or open a contact and send the first message." }
                    }
                },
                Some(Ok(items)) => rsx! {
                    ul { class: "conversation-list", id: "conversation-list",
                        for c in items {
                            li { key: "{c.contact_id}",
                                Link {
                                    to: Route::Conversation { contact_id: c.contact_id },
                                    class: if c.unread > 0 { "conversation-item unread" } else { "conversation-item" },
                                    div { class: "conv-top",
                                        span { class: "conv-name", "{c.contact_name}" }
                                        if c.unread > 0 { span { class: "unread-dot", title: "Unread", "{c.unread}" } }
                                        span { class: "conv-time", "{short_time(c.last_at)}" }
                                    }
                                    div { class: "conv-preview",
                                        if c.last_direction == Direction::Outbound { span { class: "muted", "You: " } }
                                        "{c.last_body}"
                                        if c.opted_out { span { class: "badge keyword", " opted out" } }
                                    }
                                }
                            }
                        }
                    }
                },
            }
        }
    }
}
