//! Notifications: escalations, plans awaiting approval and suggested replies, each opening what
//! it is about (and read once opened).
use crate::ui::components::use_live;
use crate::ui::components::{use_pages, Pages, ShowMore, grouped, short_time, ErrorBanner};
use crate::messaging::model::LiveTopic;
use crate::notifications::api::{list_notifications, mark_notification_read};
use crate::notifications::model::{NotificationCursor, NotificationView};
use dioxus::prelude::*;

#[component]
pub fn Notifications() -> Element {
    let live = use_live(LiveTopic::Notifications);
    // Pages after the first ("Show more"), and where the next one starts.
    let pages = use_pages::<NotificationView, NotificationCursor>();
    let Pages { loading, error: more_error, .. } = pages;
    let mut notes = use_resource(move || {
        let _ = live();
        pages.reset();
        list_notifications(None)
    });
    let current = notes.read().clone().map(|r| {
        r.map(|page| {
            let (list, cursor) = pages.join(page.items, page.next);
            (list, page.total, cursor)
        })
    });
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Notifications" } }
            match current {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok((list, _, _))) if list.is_empty() => rsx! { p { class: "muted", "Nothing needs you right now." } },
                Some(Ok((list, total, cursor))) => rsx! {
                    p { class: "muted small list-count", id: "notifications-count",
                        if cursor.is_some() { "Showing {grouped(list.len() as u64)} of {grouped(total)} notifications." } else if total == 1 { "1 notification." } else { "{grouped(total)} notifications." }
                    }
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
                                                    match link.parse::<crate::ui::app::Route>() {
                                                        Ok(route) => { navigator().push(route); }
                                                        Err(_) => { navigator().push(link); }
                                                    }
                                                }
                                            },
                                            {open_label(&n.kind, n.link.as_deref().unwrap_or_default())}
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
                    ErrorBanner { message: more_error() }
                    if let Some(after) = cursor {
                        ShowMore {
                            id: "notifications-more",
                            loading: loading(),
                            onclick: move |_| {
                                pages.more(list_notifications(Some(after.clone())), |p| (p.items, p.next));
                            },
                        }
                    }
                },
            }
        }
    }
}

/// What following a notification's link does, in words: by what it asks where that is special,
/// else by where the link goes.
pub(crate) fn open_label(kind: &str, link: &str) -> &'static str {
    match kind {
        "plan_awaiting" => return "Review the plan",
        "plan_steps_waiting" => return "Confirm the steps",
        "drafts" if link.starts_with("/messaging/") => return "Pick a reply",
        "drafts" => return "Pick replies in the inbox",
        "lessons_waiting" => return "Review the lessons",
        _ => {}
    }
    let path = link.split(['?', '#']).next().unwrap_or_default();
    match path.trim_end_matches('/').split('/').nth(1).unwrap_or_default() {
        "messaging" if path.len() > "/messaging/".len() => "Open the conversation",
        "messaging" => "Open the inbox",
        "operations" => "Review the campaign",
        "plans" => "Open the plan",
        "agents" => "Open the agent",
        "threads" => "Open the thread",
        "numbers" => "Open phone numbers",
        "account" => "Open your account",
        "settings" => "Open the settings",
        "contacts" => "Open the contact",
        _ => "Open",
    }
}

#[cfg(test)]
mod tests {
    use super::open_label;

    #[test]
    fn a_link_says_where_it_goes() {
        let id = "0b7c3a9e-1111-4222-8333-944455556666";
        assert_eq!(open_label("operation", &format!("/operations/{id}")), "Review the campaign");
        assert_eq!(open_label("number", "/settings/sending"), "Open the settings");
        assert_eq!(open_label("security", "/account"), "Open your account");
        assert_eq!(open_label("note_mention", &format!("/messaging/{id}")), "Open the conversation");
        assert_eq!(open_label("drafts", "/messaging"), "Pick replies in the inbox");
        assert_eq!(open_label("drafts", &format!("/messaging/{id}")), "Pick a reply");
        assert_eq!(open_label("plan_awaiting", &format!("/plans/{id}")), "Review the plan");
    }
}
