//! The Knowledge page's documents and websites (issue 52 §1): upload a document (PDF, text,
//! Markdown, HTML, up to 10 MB), add a website (how deep to follow its links, how many pages,
//! how often to read it again), see each one's state as it is read (the list looks again every
//! two seconds while one is queued or being read), read one again, rename, change or delete it.
use crate::knowledge::api::{
    delete_knowledge, list_knowledge, read_source_again, rename_source, save_website,
};
use crate::knowledge::model::{
    refresh_words, SourceKind, SourceView, WebInput, DOCUMENT_MAX_BYTES, DOCUMENT_UPLOAD_PATH,
    REFRESH_CHOICES, WEB_DEPTH_MAX, WEB_PAGES_MAX,
};
use crate::ui::components::{use_act, use_pages, ConfirmButton, ErrorBanner, ListFooter, Pages};
use crate::ui::views::knowledge::meta;
use dioxus::prelude::*;
use uuid::Uuid;

/// How often the list looks again while a source is being read.
const POLL: std::time::Duration = std::time::Duration::from_secs(2);

/// Uploads one chosen file as a document.
async fn upload_document(
    file: &dioxus::html::FileData,
) -> Result<SourceView, crate::error::AppError> {
    let name = file.name();
    let kind = file.content_type().unwrap_or_default();
    let bytes = file
        .read_bytes()
        .await
        .map_err(|e| crate::error::AppError::Validation(format!("Could not read {name}: {e}")))?;
    let path = format!("{DOCUMENT_UPLOAD_PATH}?name={}", js_encode(&name));
    crate::rpc::upload(&path, &kind, bytes.to_vec()).await
}

/// A file name as a query value (percent-encoded, byte by byte).
fn js_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// How deep links are followed, in words.
fn depth_words(d: u32) -> String {
    match d {
        0 => "This page only".into(),
        1 => "Pages it links to".into(),
        n => format!("{n} links deep"),
    }
}

/// Documents or websites: the list, and the form that adds one.
#[component]
pub fn ReadSources(kind: SourceKind) -> Element {
    let mut first = use_resource(move || list_knowledge(Some(kind), None));
    let pages = use_pages::<SourceView, String>();
    let Pages {
        loading,
        error: more_error,
        ..
    } = pages;
    let act = use_act();
    let mut web = use_signal(WebInput::default);
    let mut editing = use_signal(|| None::<Uuid>);
    let mut naming = use_signal(|| None::<(Uuid, String)>);
    let mut uploading = use_signal(|| false);
    let mut reload = move || {
        pages.reset();
        first.restart();
    };
    // While a source waits or is being read, look again every two seconds.
    use_future(move || async move {
        loop {
            futures_timer::Delay::new(POLL).await;
            let pending = matches!(&*first.peek(), Some(Ok(p)) if p.items.iter().any(SourceView::pending))
                || pages.later.peek().iter().any(SourceView::pending);
            if pending {
                reload();
            }
        }
    });
    let attach = move |evt: FormEvent| async move {
        for file in evt.files() {
            let name = file.name();
            if file.size() > DOCUMENT_MAX_BYTES {
                act.fail(format!(
                    "{name} is larger than 10 MB, the most a document may be."
                ));
                continue;
            }
            uploading.set(true);
            let sent = upload_document(&file).await;
            uploading.set(false);
            if act.take(sent).is_some() {
                reload();
            }
        }
    };
    let save_web = move |e: FormEvent| async move {
        e.prevent_default();
        if act.run(save_website(editing(), web())).await.is_some() {
            web.set(WebInput::default());
            editing.set(None);
            reload();
        }
    };
    let rename = move |e: FormEvent| async move {
        e.prevent_default();
        let Some((id, title)) = naming() else { return };
        if act.run(rename_source(id, title)).await.is_some() {
            naming.set(None);
            reload();
        }
    };
    let again = move |id: Uuid| async move {
        if act.run(read_source_again(id)).await.is_some() {
            reload();
        }
    };
    let remove = move |id: Uuid| async move {
        if act.run(delete_knowledge(id)).await.is_some() {
            reload();
        }
    };
    let (slug, heading) = match kind {
        SourceKind::Web => ("web", "Websites"),
        _ => ("document", "Documents"),
    };
    rsx! {
        section { class: "card knowledge-sources", id: "{slug}-card",
            h2 { "{heading}" }
            ErrorBanner { message: act.error() }
            match first.read().clone() {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(page)) => {
                    let (items, cursor) = pages.join(page.items.clone(), page.next.clone());
                    rsx! {
                        ul { class: "plain-list", id: "{slug}-list",
                            for s in items.clone() {
                                li { key: "{s.id}", class: "knowledge-row", "data-status": "{s.status}",
                                    div { class: "knowledge-words",
                                        strong { class: "knowledge-title", "{s.title}" }
                                        if let Some(w) = &s.web {
                                            span { class: "muted small", " {w.url} · {depth_words(w.depth)}, up to {w.pages} pages · read again {refresh_words(w.refresh_hours)}" }
                                        }
                                    }
                                    div { class: "muted small knowledge-meta", "{meta(&s)}" }
                                    if naming().is_some_and(|(id, _)| id == s.id) {
                                        form { class: "knowledge-form inline-form", onsubmit: rename,
                                            label { r#for: "rename-{s.id}", "Name" }
                                            input { id: "rename-{s.id}", value: "{naming().map(|n| n.1).unwrap_or_default()}",
                                                oninput: move |e| naming.set(Some((s.id, e.value()))) }
                                            button { class: "primary", r#type: "submit", "Save name" }
                                            button { class: "secondary", r#type: "button", onclick: move |_| naming.set(None), "Cancel" }
                                        }
                                    }
                                    div { class: "row-actions",
                                        button { class: "link-button", r#type: "button", id: "read-again-{s.id}",
                                            disabled: s.pending(), onclick: move |_| { spawn(again(s.id)); }, "Read again" }
                                        if let Some(w) = s.web.clone() {
                                            button { class: "link-button", r#type: "button", onclick: move |_| { web.set(w.clone()); editing.set(Some(s.id)); }, "Change" }
                                        }
                                        button { class: "link-button", r#type: "button", onclick: { let t = s.title.clone(); move |_| naming.set(Some((s.id, t.clone()))) }, "Rename" }
                                        ConfirmButton { id: "delete-knowledge-{s.id}", class: "link-button", label: "Delete",
                                            question: "Delete “{s.title}”? Agents stop answering from it.", onconfirm: move |_| { spawn(remove(s.id)); } }
                                    }
                                }
                            }
                        }
                        ListFooter { shown: items.len(), total: page.total, none: "None yet.", error: more_error(), id: "{slug}-more",
                            loading: loading(), has_more: cursor.is_some(),
                            onmore: move |_| if let Some(after) = cursor.clone() { pages.more(list_knowledge(Some(kind), Some(after.clone())), |p| (p.items, p.next)) } }
                    }
                }
            }
            if kind == SourceKind::Web {
                form { class: "knowledge-form", id: "web-form", onsubmit: save_web,
                    label { r#for: "web-url", "Website address" }
                    input { id: "web-url", r#type: "url", placeholder: "https://brightsmile.example/prices", value: "{web.read().url}", oninput: move |e| web.write().url = e.value() }
                    div { class: "form-row",
                        div {
                            label { r#for: "web-depth", "Follow links" }
                            select { id: "web-depth", value: "{web.read().depth}", onchange: move |e| web.write().depth = e.value().parse().unwrap_or(0),
                                for d in 0..=WEB_DEPTH_MAX {
                                    option { value: "{d}", selected: web.read().depth == d, "{depth_words(d)}" }
                                }
                            }
                        }
                        div {
                            label { r#for: "web-pages", "Most pages" }
                            input { id: "web-pages", r#type: "number", min: "1", max: "{WEB_PAGES_MAX}", value: "{web.read().pages}", oninput: move |e| web.write().pages = e.value().parse().unwrap_or(0) }
                        }
                        div {
                            label { r#for: "web-refresh", "Read again" }
                            select { id: "web-refresh", onchange: move |e| web.write().refresh_hours = e.value().parse().ok(),
                                for h in REFRESH_CHOICES {
                                    option { value: "{h}", selected: web.read().refresh_hours == Some(h), "{refresh_words(Some(h))}" }
                                }
                                option { value: "", selected: web.read().refresh_hours.is_none(), "{refresh_words(None)}" }
                            }
                        }
                    }
                    p { class: "muted small", "Herald reads public pages only, obeys the site's robots.txt, and keeps each page's main text, not its menus." }
                    div { class: "form-actions",
                        button { id: "web-save", class: "primary", r#type: "submit", disabled: act.busy(),
                            if editing().is_some() { "Save and read again" } else { "Add website" }
                        }
                        if editing().is_some() {
                            button { class: "secondary", r#type: "button", onclick: move |_| { editing.set(None); web.set(WebInput::default()); }, "Cancel" }
                        }
                    }
                }
            } else {
                div { class: "knowledge-form",
                    label { r#for: "document-file", "Upload a document (PDF, text, Markdown or HTML, up to 10 MB)" }
                    input { r#type: "file", id: "document-file", accept: ".pdf,.txt,.md,.markdown,.html,.htm,application/pdf,text/plain,text/markdown,text/html", onchange: attach }
                    if uploading() { p { class: "muted small", "Uploading…" } }
                }
            }
        }
    }
}
