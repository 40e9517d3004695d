//! The contacts page: search, create and edit, tags, opt-out status, and CSV import.
use crate::contacts::api::list_contacts;
use crate::contacts::model::{ContactCursor, ContactFilter, ContactView};
use crate::ui::components::{
    grouped, use_act, use_is_owner, use_pages, ContactForm, ErrorBanner, ShowMore,
};
use dioxus::prelude::*;

#[component]
pub fn Contacts() -> Element {
    let is_owner = use_is_owner();
    let mut query = use_signal(String::new);
    let mut tag = use_signal(String::new);
    let mut sms = use_signal(|| None::<bool>);
    let mut quiet_days = use_signal(|| None::<u32>);
    // A saved segment, when one is picked: the list is then exactly its members.
    let segment = use_signal(|| None::<crate::contacts::model::SegmentView>);
    let controls = use_memo(move || ContactFilter {
        search: Some(query()).filter(|q| !q.trim().is_empty()),
        tags_any: Some(tag())
            .filter(|t| !t.trim().is_empty())
            .into_iter()
            .collect(),
        opted_out: sms(),
        no_reply_within_days: quiet_days(),
        ..Default::default()
    });
    let filter = use_memo(move || match segment() {
        Some(s) => s.filter,
        None => controls(),
    });
    // Pages after the first ("Show more"), and where the next one starts.
    let pages = use_pages::<ContactView, ContactCursor>();
    // The rows carry the search they answer, so the table can say which one it shows.
    let mut contacts = use_resource(move || async move {
        let f = filter();
        pages.reset();
        let page = list_contacts(f.clone(), None).await;
        page.map(|p| (f.search.clone().unwrap_or_default(), p))
    });
    let mut editing = use_signal(|| None::<ContactView>);
    let act = use_act();
    let mut show_form = use_signal(|| false);
    let list = contacts.read().clone();
    rsx! {
        div { class: "page",
            header { class: "page-head",
                h1 { "Contacts" }
                if is_owner {
                    a { id: "export-contacts", class: "button secondary", href: export_href(&filter()), download: "contacts.csv", "Export CSV" }
                }
                a { id: "import-open", class: "button secondary", href: "/contacts/import", "Import CSV" }
                a { id: "text-these", class: "button secondary", href: text_these_href(segment().map(|s| s.id), &controls()), "Text these" }
                button { id: "new-contact", class: "primary", onclick: move |_| {
                    editing.set(None);
                    show_form.set(true);
                }, "New contact" }
            }
            input { id: "contact-search", class: "search", "aria-label": "Search contacts", hidden: segment().is_some(), placeholder: "Search by name, phone or tag", value: "{query}", oninput: move |e| query.set(e.value()) }
            super::segment_bar::SegmentBar { filter: controls, segment }
            div { class: "inline-form contact-filters", id: "contact-filters", hidden: segment().is_some(),
                input { id: "filter-tag", "aria-label": "Tag", placeholder: "Tag", value: "{tag}", oninput: move |e| tag.set(e.value()) }
                select { id: "filter-sms", "aria-label": "SMS status", onchange: move |e| sms.set(match e.value().as_str() { "out" => Some(true), "in" => Some(false), _ => None }),
                    option { value: "", "Any SMS status" }
                    option { value: "in", "Subscribed" }
                    option { value: "out", "Opted out" }
                }
                select { id: "filter-quiet", "aria-label": "Last reply", onchange: move |e| quiet_days.set(e.value().parse().ok()),
                    option { value: "", "Any last reply" }
                    option { value: "7", "No reply in 7 days" }
                    option { value: "30", "No reply in 30 days" }
                    option { value: "90", "No reply in 90 days" }
                }
            }
            div { class: "two-col",
                div { class: "col-main",
                    ErrorBanner { message: act.error() }
                    match list {
                        None => rsx! { p { class: "muted", "Loading…" } },
                        Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                        Some(Ok((_, page))) if page.items.is_empty() => rsx! { p { class: "muted", id: "contacts-count", "No contacts match." } },
                        Some(Ok((shown, page))) => {
                            let (rows, cursor) = pages.join(page.items.clone(), page.next.clone());
                            let total = page.total;
                            let count = rows.len();
                            rsx! {
                            p { class: "muted small list-count", id: "contacts-count",
                                if cursor.is_some() { "Showing {grouped(count as u64)} of {grouped(total)} contacts." } else { "{grouped(total)} contacts." }
                            }
                            table { class: "table", id: "contacts-table", "data-query": "{shown}",
                                thead { tr { th { "Name" } th { "Phone" } th { "Tags" } th { "SMS" } } }
                                tbody {
                                    for c in rows {
                                        tr { key: "{c.id}", class: "contact-row", onclick: {
                                                let c = c.clone();
                                                move |_| {
                                                    editing.set(Some(c.clone()));
                                                    show_form.set(true);
                                                }
                                            },
                                            td { class: "cell-title", "{c.name}" }
                                            td { class: "mono", "data-label": "Phone", "{c.phone.clone().unwrap_or_default()}" }
                                            td { "data-label": "Tags", for t in c.tags.iter() { span { class: "tag", "{t}" } } }
                                            td { "data-label": "SMS", if c.opted_out { span { class: "badge keyword", "opted out" } } else { span { class: "muted", "subscribed" } } }
                                        }
                                    }
                                }
                            }
                            ErrorBanner { message: (pages.error)() }
                            if let Some(after) = cursor {
                                ShowMore {
                                    id: "contacts-more",
                                    loading: (pages.loading)(),
                                    onclick: move |_| {
                                        let after = after.clone();
                                        pages.more(list_contacts(filter(), Some(after)), |p| (p.items, p.next));
                                    },
                                }
                            }
                            }
                        },
                    }
                }
                if show_form() {
                        ContactForm {
                            key: "{editing().map(|c| c.id.to_string()).unwrap_or_default()}",
                            contact: editing(),
                            on_saved: move |c: ContactView| {
                                act.clear();
                                editing.set(Some(c));
                                contacts.restart();
                            },
                            on_close: move |_| show_form.set(false),
                            link_to_page: true,
                        }
                }
            }
        }
    }
}

/// The CSV export of the contacts `f` matches (every page of them, not only those shown).
fn export_href(f: &ContactFilter) -> String {
    let json = serde_json::to_string(f).unwrap_or_default();
    format!("/api/contacts/export.csv?filter={}", query_value(&json))
}

/// `s` as a query string's value (percent-encoded).
fn query_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The New campaign screen for these contacts: the segment picked, or the filter as set (the
/// JSON of a `campaign::model::WrittenAudience`, written by hand to keep the first load small).
fn text_these_href(segment: Option<uuid::Uuid>, f: &ContactFilter) -> String {
    let json = match segment {
        Some(id) => format!(r#"{{"kind":"segment","id":"{id}"}}"#),
        None => format!(
            r#"{{"kind":"filter","filter":{}}}"#,
            serde_json::to_string(f).unwrap_or_default()
        ),
    };
    format!("/campaigns/new?audience={}", query_value(&json))
}
