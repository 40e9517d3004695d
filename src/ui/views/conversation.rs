//! One conversation at `/messaging/{contact_id}`: the history, live; tap an inbound text for its
//! suggested replies; texts an agent scheduled; the composer.
use crate::ai_agent::api::open_conversation;
use crate::ai_agent::model::ConversationWithDrafts;
use crate::contacts::model::can_text;
use crate::messaging::api::older_messages;
use crate::messaging::model::LiveTopic;
use crate::messaging::model::{Direction, MessageView};
use crate::ui::app::Route;
use crate::ui::components::grouped;
use crate::ui::components::use_attention;
use crate::ui::components::use_live;
use crate::ui::components::{keep_place_for_earlier, use_history_scroll};
use crate::ui::components::{
    Composer, ErrorBanner, MessageBubble, PossibleOptOut, Prefill, ScheduledTexts,
    SuggestionsPanel, TriageBar,
};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn Conversation(contact_id: Uuid) -> Element {
    let live = use_live(LiveTopic::Conversation(contact_id));
    let attention = use_attention();
    let mut conversation = use_resource(move || {
        // Re-load when an event for this contact arrives.
        let _ = live();
        async move {
            let loaded = open_conversation(contact_id).await;
            // Opening it read its texts: the inbox count goes down.
            if let (Ok(_), Some(a)) = (&loaded, attention) {
                a.bump();
            }
            loaded
        }
    });
    // Older pages the person asked for, the first page's oldest message when they did (the
    // anchor: while the first page still starts there, they join up), and the next page's start.
    let mut earlier = use_signal(Vec::<MessageView>::new);
    let mut anchor = use_signal(|| None::<i64>);
    let mut earlier_next = use_signal(|| None::<i64>);
    let mut loading = use_signal(|| false);
    let mut earlier_error = use_signal(|| None::<String>);
    // Whose suggestions are open: Herald's choice (the newest text's, when it is an inbound one
    // with drafts) unless the person chose since that text came: (the newest text then, the
    // text whose suggestions they opened, or None when they closed them).
    let mut chosen = use_signal(|| None::<(Option<Uuid>, Option<Uuid>)>);
    let prefill = use_signal(|| None::<Prefill>);
    // It opens at the newest text and follows new ones (`history_scroll`).
    let newest = use_memo(move || {
        let c = conversation.read();
        c.as_ref()?
            .as_ref()
            .ok()?
            .conversation
            .messages
            .last()
            .map(|m| m.id)
    });
    let mut sent = use_signal(|| false);
    // Texts set with "Send later": the scheduled list reads again after each.
    let mut scheduled = use_signal(|| 0u32);
    use_history_scroll(contact_id, newest, sent);
    let data = conversation.read().clone();
    match data {
        None => rsx! { div { class: "page", p { class: "muted", "Loading conversation…" } } },
        Some(Err(e)) => rsx! {
            div { class: "page",
                ErrorBanner { message: Some(e.to_string()) }
                Link { to: Route::Inbox {}, "Back to the inbox" }
            }
        },
        // A merged contact's old link: go to the conversation it went into.
        Some(Ok(ConversationWithDrafts {
            conversation: conv, ..
        })) if conv.contact.id != contact_id => {
            navigator().replace(Route::Conversation {
                contact_id: conv.contact.id,
            });
            rsx! { div { class: "page", p { class: "muted", "That contact was merged; opening their conversation…" } } }
        }
        Some(Ok(ConversationWithDrafts {
            conversation: conv,
            suggested,
        })) => {
            let page_start = conv.messages.first().and_then(|m| m.seq);
            // More than a page arrived since the older pages were read: they no longer join up.
            let joined = anchor().is_some() && anchor() == page_start;
            let mut messages = if joined { earlier() } else { vec![] };
            let cursor = if joined { earlier_next() } else { conv.older };
            messages.extend(conv.messages.iter().cloned());
            let shown = messages.len();
            let replies = move |id: Uuid| {
                suggested
                    .iter()
                    .find(|c| c.message_id == id)
                    .map_or(0, |c| c.replies)
            };
            let herald_opens = messages
                .last()
                .filter(|m| m.direction == Direction::Inbound && replies(m.id) > 0)
                .map(|m| m.id);
            // A new text leaves the choice to Herald again.
            let now_newest = newest();
            let open = match chosen() {
                Some((at, choice)) if at == now_newest => choice,
                _ => herald_opens,
            };
            let total = conv.message_count;
            let label = |id: Uuid| {
                conv.numbers
                    .iter()
                    .find(|n| n.id == id)
                    .map(|n| n.friendly_name.clone())
                    .unwrap_or_default()
            };
            rsx! {
                div { class: "page conversation-page",
                    header { class: "page-head",
                        Link { to: Route::Inbox {}, class: "back", "aria-label": "Back to the inbox",
                            span { class: "back-long", "← Inbox" } span { class: "back-short", "←" } }
                        h1 { id: "conversation-title",
                            Link { to: Route::ContactPage { contact_id }, title: "Open the contact page", "{conv.contact.name}" }
                        }
                        span { class: "muted conv-phone", "{conv.contact.phone.clone().unwrap_or_default()}" }
                        if conv.contact.opted_out { span { class: "badge keyword", "Opted out" } }
                        // In the heading's row on a phone, its controls behind one button.
                        if conv.message_count > 0 {
                            TriageBar { contact_id, triage: conv.triage.clone(), on_changed: move |_| conversation.restart() }
                        }
                    }
                    if let Some(item) = conv.possible_opt_out.clone() {
                        PossibleOptOut { key: "{item.id}", item, on_decided: move |_| conversation.restart() }
                    }
                    div { class: "history", id: "history",
                        if conv.messages.is_empty() {
                            p { class: "muted", "No messages yet. Say hello." }
                        }
                        if let Some(before) = cursor {
                            button {
                                id: "earlier-messages",
                                class: "secondary earlier",
                                disabled: loading(),
                                // The composer keeps its focus: on a phone the page would
                                // otherwise move under the text being read as the tab bar
                                // comes back.
                                onmousedown: move |e| e.prevent_default(),
                                onclick: move |_| {
                                    loading.set(true);
                                    keep_place_for_earlier();
                                    spawn(async move {
                                        match older_messages(contact_id, before).await {
                                            Ok(p) => {
                                                if joined {
                                                    let mut all = p.messages;
                                                    all.extend(earlier());
                                                    earlier.set(all);
                                                } else {
                                                    earlier.set(p.messages);
                                                    anchor.set(page_start);
                                                }
                                                earlier_next.set(p.older);
                                                earlier_error.set(None);
                                            }
                                            Err(e) => earlier_error.set(Some(e.to_string())),
                                        }
                                        loading.set(false);
                                    });
                                },
                                if loading() { "Loading…" } else { "Show earlier messages ({grouped(shown as u64)} of {grouped(total)} shown)" }
                            }
                        }
                        ErrorBanner { message: earlier_error() }
                        for m in messages {
                            if m.direction == Direction::Inbound {
                                MessageBubble {
                                    key: "{m.id}",
                                    number_label: label(m.phone_number_id),
                                    selected: open == Some(m.id),
                                    suggested: replies(m.id),
                                    on_tap: move |_| chosen.set(Some((now_newest, if open == Some(m.id) { None } else { Some(m.id) }))),
                                    message: m.clone(),
                                }
                                if open == Some(m.id) {
                                    SuggestionsPanel {
                                        key: "panel-{m.id}",
                                        message_id: m.id,
                                        phone_number_id: m.phone_number_id,
                                        on_use: move |p: Prefill| {
                                            let mut prefill = prefill;
                                            prefill.set(Some(p));
                                            chosen.set(Some((now_newest, None)));
                                        },
                                    }
                                }
                            } else {
                                MessageBubble { key: "{m.id}", number_label: label(m.phone_number_id), message: m.clone() }
                            }
                        }
                    }
                    ScheduledTexts { key: "{conv.messages.len()}", contact_id, version: scheduled() }
                    crate::ui::components::Notes { contact_id }
                    if conv.contact.phone.as_deref().is_some_and(|p| !can_text(p)) {
                        p { class: "notice cannot-reply", id: "cannot-reply",
                            "{conv.contact.phone.clone().unwrap_or_default()} is a short code or sender name. Herald keeps its texts, but nobody can text it back."
                        }
                    } else {
                        Composer {
                            contact_id,
                            numbers: conv.numbers.clone(),
                            default_number_id: conv.default_number_id,
                            opted_out: conv.contact.opted_out,
                            on_sent: move |_| {
                                sent.set(true);
                                conversation.restart();
                            },
                            on_scheduled: move |_| scheduled += 1,
                            prefill,
                        }
                    }
                }
            }
        }
    }
}
