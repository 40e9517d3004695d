//! Message search in the inbox: the organisation's texts holding every word typed, newest
//! first, with the exact number found, a page at a time; each opens its conversation.
use crate::messaging::api::search_messages;
use crate::messaging::model::MessageHit;
use crate::ui::app::Route;
use crate::ui::components::{grouped, short_time, use_pages, ErrorBanner, Pages, ShowMore};
use dioxus::prelude::*;

#[component]
pub fn MessageSearch(query: ReadSignal<String>) -> Element {
    let pages = use_pages::<MessageHit, i64>();
    let Pages {
        mut later,
        mut next,
        loading,
        error: more_error,
    } = pages;
    let found = use_resource(move || async move {
        let q = query();
        later.set(vec![]);
        next.set(None);
        search_messages(q.clone(), None).await.map(|p| (q, p))
    });
    let current = found.read().clone();
    rsx! {
        match current {
            None => rsx! { p { class: "muted", "Searching…" } },
            Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
            Some(Ok((q, page))) => {
                let cursor = if later.read().is_empty() { page.next } else { next() };
                let mut hits = page.items.clone();
                hits.extend(later());
                let shown = hits.len() as u64;
                rsx! {
                    p { class: "muted small list-count", id: "search-count", "data-query": "{q}",
                        if page.total == 0 { "No texts contain “{q}”." }
                        else if cursor.is_some() { "Showing {grouped(shown)} of {grouped(page.total)} texts." }
                        else { "{grouped(page.total)} texts found." }
                    }
                    ul { class: "conversation-list", id: "search-results",
                        for h in hits {
                            li { key: "{h.message_id}",
                                Link { to: Route::Conversation { contact_id: h.contact_id }, class: "conversation-item search-hit",
                                    div { class: "conv-top",
                                        span { class: "conv-name", "{h.contact_name}" }
                                        span { class: "conv-time", "{short_time(h.at)}" }
                                    }
                                    div { class: "conv-preview",
                                        if h.direction == "outbound" { span { class: "muted", "You: " } }
                                        "{h.body}"
                                    }
                                }
                            }
                        }
                    }
                    ErrorBanner { message: more_error() }
                    if let Some(before) = cursor {
                        ShowMore {
                            id: "search-more",
                            loading: loading(),
                            onclick: move |_| {
                                pages.more(search_messages(query(), Some(before)), |p| (p.items, p.next));
                            },
                        }
                    }
                }
            }
        }
    }
}
