//! The inbox: conversations by latest message in views (open, mine, unassigned, unread,
//! snoozed, closed, all) with their exact counts, unread markers and assignees, updated live. On
//! a phone the views open as a sheet. With several numbers, a choice narrows every view to one.
use crate::compliance::api::list_possible_opt_outs;
use crate::compliance::model::OptOutReviewPage;
use crate::inbox::api::inbox_counts;
use crate::inbox::api::list_conversations;
use crate::inbox::model::ConversationState;
use crate::messaging::model::LiveTopic;
use crate::messaging::model::{
    ConversationSummary, Direction, InboxCursor, InboxFilter, InboxPage,
};
use crate::phone_numbers::api::list_phone_numbers;
use crate::ui::app::Route;
use crate::ui::components::use_live;
use crate::ui::components::{grouped, short_time, use_pages, ErrorBanner, Pages, ShowMore};
use dioxus::prelude::*;

#[component]
pub fn Home() -> Element {
    use_effect(|| {
        navigator().replace(Route::Inbox {});
    });
    rsx! { div { class: "loading-page", "Opening the inbox…" } }
}

/// The inbox's view for the signed-in shell: the sidebar's Inbox (Open, the work still to do, as
/// peers open on), Mine and Unassigned links choose it, and so do the page's own tabs.
#[derive(Clone, Copy)]
pub struct InboxView(pub Signal<InboxFilter>);

#[component]
pub fn Inbox() -> Element {
    let live = use_live(LiveTopic::Inbox);
    let mut filter = use_context::<InboxView>().0;
    // One of the organisation's numbers, or all of them.
    let mut number = use_signal(|| None::<uuid::Uuid>);
    let numbers = use_resource(list_phone_numbers);
    // The views' sheet on a phone (the tabs on a wider screen).
    let mut sheet = use_signal(|| false);
    // Words to search the texts for; while there are some, the results replace the list.
    let mut search = use_signal(String::new);
    let searching = use_memo(move || search().trim().to_owned());
    // Pages after the first, as "Show more" loaded them, and where the next one starts.
    let pages = use_pages::<ConversationSummary, InboxCursor>();
    let Pages {
        mut later,
        mut next,
        error: mut more_error,
        ..
    } = pages;
    // A view chosen from the sidebar starts at its first page, as one chosen here does.
    use_effect(move || {
        let _ = filter();
        later.set(vec![]);
        next.set(None);
        more_error.set(None);
    });
    let conversations = use_resource(move || {
        let _ = live();
        let f = filter();
        list_conversations(f, None, number())
    });
    let counts = use_resource(move || {
        let _ = live();
        inbox_counts(number())
    });
    let reviews = use_resource(move || {
        let _ = live();
        list_possible_opt_outs(0)
    });
    let first = conversations.read().clone();
    let pending = reviews
        .read()
        .clone()
        .and_then(Result::ok)
        .unwrap_or_default();
    let counted = counts
        .read()
        .clone()
        .and_then(Result::ok)
        .unwrap_or_default();
    let count_of = move |f: InboxFilter| counted.of(f);
    let current_label = InboxFilter::ALL
        .iter()
        .find(|(f, _)| *f == filter())
        .map(|(_, l)| *l)
        .unwrap_or("All");
    let mut choose = move |f: InboxFilter| {
        filter.set(f);
        sheet.set(false);
        later.set(vec![]);
        next.set(None);
        more_error.set(None);
    };
    let tab = |f: InboxFilter| {
        if filter() == f {
            "filter-tab active"
        } else {
            "filter-tab"
        }
    };
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Inbox" } }
            if pending.total > 0 { PossibleOptOuts { pending: pending.clone() } }
            input { id: "message-search", class: "search", r#type: "search", placeholder: "Search texts", "aria-label": "Search texts", value: "{search}", oninput: move |e| search.set(e.value()) }
            if !searching().is_empty() {
                super::message_search::MessageSearch { query: searching }
            } else {
            button { id: "inbox-views", class: "secondary views-button", onclick: move |_| sheet.set(!sheet()),
                "{current_label} · {grouped(count_of(filter()))} ▾"
            }
            if let Some(Ok(ns)) = numbers.read().clone().filter(|n| n.as_ref().is_ok_and(|n| n.len() > 1)) {
                select { id: "inbox-number", class: "number-filter", "aria-label": "Number",
                    onchange: move |e| {
                        number.set(e.value().parse().ok());
                        later.set(vec![]);
                        next.set(None);
                    },
                    option { value: "", "All numbers" }
                    for n in ns {
                        option { key: "{n.id}", value: "{n.id}", selected: number() == Some(n.id), "{n.friendly_name}" }
                    }
                }
            }
            nav { class: if sheet() { "filter-tabs open" } else { "filter-tabs" }, id: "inbox-filters",
                for (f, label) in InboxFilter::ALL {
                    button { key: "{f.as_str()}", id: "filter-{f.as_str()}", class: tab(f), onclick: move |_| choose(f),
                        "{label} "
                        span { class: "tab-count", "{grouped(count_of(f))}" }
                    }
                }
            }
            match first {
                None => rsx! { p { class: "muted", "Loading conversations…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(page)) if page.items.is_empty() => rsx! { EmptyInbox { filter: filter(), label: current_label } },
                Some(Ok(page)) => rsx! { ConversationList { page, pages, filter: filter(), number: number() } },
            }
            }
        }
    }
}

/// Texts that may ask for no more messages, waiting for someone to decide.
#[component]
fn PossibleOptOuts(pending: OptOutReviewPage) -> Element {
    rsx! {
        section { class: "card possible-opt-outs", id: "possible-opt-outs",
            h2 { "Possible opt-outs ({pending.total})" }
            p { class: "muted small", "Texts that may ask for no more messages. Automated texts to these people wait until someone decides." }
            if pending.total > pending.items.len() as u64 {
                p { class: "muted small", "Showing the oldest {pending.items.len()} of {pending.total}." }
            }
            ul { class: "plain-list",
                for r in pending.items {
                    li { key: "{r.id}",
                        Link { to: Route::Conversation { contact_id: r.contact_id }, class: "possible-opt-out-link",
                            strong { "{r.contact_name}" } ": " q { "{r.body}" }
                        }
                    }
                }
            }
        }
    }
}

/// A view with no conversations in it.
#[component]
fn EmptyInbox(filter: InboxFilter, label: &'static str) -> Element {
    rsx! {
        div { class: "empty",
            if filter == InboxFilter::Unread {
                p { "Nothing unread." }
            } else if filter != InboxFilter::All {
                p { "No {label.to_lowercase()} conversations." }
            } else {
                p { "No conversations yet." }
                p { class: "muted", "Text one of your numbers from the phone simulator, or open a contact and send the first message." }
            }
        }
    }
}

/// One conversation in the list: who, when, unread, its state and assignee, and the last text.
#[component]
fn ConversationRow(c: ConversationSummary) -> Element {
    rsx! {
        li {
            Link {
                to: Route::Conversation { contact_id: c.contact_id },
                class: if c.unread > 0 { "conversation-item unread" } else { "conversation-item" },
                div { class: "conv-top",
                    span { class: "conv-name", "{c.contact_name}" }
                    if c.unread > 0 { span { class: "unread-dot", title: "Unread", "{c.unread}" } }
                    span { class: "conv-time", "{short_time(c.last_at)}" }
                }
                if c.triage.state != ConversationState::Open || c.triage.assignee.is_some() {
                    div { class: "conv-triage",
                        match c.triage.state {
                            ConversationState::Closed => rsx! { span { class: "badge state-closed", "Closed" } },
                            ConversationState::Snoozed => rsx! { span { class: "badge state-snoozed", "Snoozed" } },
                            ConversationState::Open => rsx! {},
                        }
                        if let Some(a) = c.triage.assignee.clone() { span { class: "assignee-name", "→ {a.name}" } }
                    }
                }
                div { class: "conv-preview",
                    if c.last_direction == Direction::Outbound { span { class: "muted", "You: " } }
                    if c.last_body.is_empty() && c.last_media_count > 0 { "Picture" } else { "{c.last_body}" }
                    if c.opted_out { span { class: "badge keyword", " opted out" } }
                }
            }
        }
    }
}

/// A view's conversations: the first page as read now, then the later pages "Show more" added.
#[component]
fn ConversationList(
    page: InboxPage,
    pages: Pages<ConversationSummary, InboxCursor>,
    filter: InboxFilter,
    number: Option<uuid::Uuid>,
) -> Element {
    let loading = pages.loading;
    let more_error = pages.error;
    let later = pages.later;
    let next = pages.next;
    // The first page is read again on every live event; later pages keep what
    // they showed, less the conversations that moved up into the first.
    let mut items = page.items.clone();
    let shown: std::collections::HashSet<_> = items.iter().map(|c| c.contact_id).collect();
    items.extend(
        later()
            .into_iter()
            .filter(|c| !shown.contains(&c.contact_id)),
    );
    let cursor = if later().is_empty() {
        page.next.clone()
    } else {
        next()
    };
    let total = page.total;
    let count = items.len();
    rsx! {
        ul { class: "conversation-list", id: "conversation-list",
            for c in items {
                ConversationRow { key: "{c.contact_id}", c }
            }
        }
        p { class: "muted small list-count", id: "inbox-count",
            if cursor.is_some() { "Showing {grouped(count as u64)} of {grouped(total)} conversations." } else if total == 1 { "1 conversation." } else { "All {grouped(total)} conversations shown." }
        }
        ErrorBanner { message: more_error() }
        if let Some(after) = cursor {
            ShowMore {
                id: "inbox-more",
                loading: loading(),
                onclick: move |_| {
                    let after = after.clone();
                    pages.more(list_conversations(filter, Some(after), number), |p| (p.items, p.next));
                },
            }
        }
    }
}
