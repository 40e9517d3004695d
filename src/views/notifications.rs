//! Notifications: escalations, plans awaiting approval and suggested replies, each opening what
//! it is about (and read once opened).
use crate::components::use_live;
use crate::components::{short_time, ErrorBanner};
use crate::messaging::model::LiveTopic;
use crate::notifications::api::{list_notifications, mark_notification_read};
use dioxus::prelude::*;

#[component]
pub fn Notifications() -> Element {
    let live = use_live(LiveTopic::Notifications);
    let mut notes = use_resource(move || {
        let _ = live();
        list_notifications()
    });
    let current = notes.read().clone();
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Notifications" } }
            match current {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(list)) if list.is_empty() => rsx! { p { class: "muted", "Nothing needs you right now." } },
                Some(Ok(list)) => rsx! {
                    ul { class: "notification-list", id: "notification-list",
                        for n in list {
                            li { key: "{n.id}", class: if n.read { "notification read" } else { "notification" }, "data-kind": "{n.kind}",
                                div { class: "conv-top",
                                    strong { "{n.title}" }
                                    span { class: "conv-time", "{short_time(n.created_at)}" }
                                }
                                p { class: "notification-body", "{n.body}" }
                                div { class: "row",
                                    if let Some(link) = n.link.clone() {
                                        a { class: "notification-open", href: "{link}",
                                            onclick: move |e: MouseEvent| {
                                                e.prevent_default();
                                                let link = link.clone();
                                                async move {
                                                    if !n.read {
                                                        let _ = mark_notification_read(n.id).await;
                                                    }
                                                    match link.parse::<crate::app::Route>() {
                                                        Ok(route) => { navigator().push(route); }
                                                        Err(_) => { navigator().push(link); }
                                                    }
                                                }
                                            },
                                            {open_label(&n.kind)}
                                        }
                                    }
                                    if !n.read {
                                        button { class: "link-button", onclick: move |_| async move {
                                            let _ = mark_notification_read(n.id).await;
                                            notes.restart();
                                        }, "Mark read" }
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

/// What following a notification's link does, in words.
fn open_label(kind: &str) -> &'static str {
    match kind {
        "plan_awaiting" => "Review the plan",
        "drafts" => "Pick a reply",
        _ => "Open the conversation",
    }
}
