//! A conversation's internal notes: the team's words beside the texts, never sent, shown apart
//! (yellow, "Note"), newest first with Show more; `@name` in a new note tells that member. They
//! open when asked, beside the texts on a desktop and as a sheet over them on a phone.
use crate::inbox::api::{add_note, list_notes};
use crate::inbox::model::{NoteCursor, NoteView};
use crate::ui::components::{short_time, ErrorBanner};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn Notes(contact_id: Uuid) -> Element {
    let mut first = use_resource(move || list_notes(contact_id, None));
    let mut later = use_signal(Vec::<NoteView>::new);
    let mut next = use_signal(|| None::<NoteCursor>);
    let mut body = use_signal(String::new);
    let mut error = use_signal(|| None::<String>);
    let add = move |e: FormEvent| async move {
        e.prevent_default();
        match add_note(contact_id, body()).await {
            Ok(_) => {
                body.set(String::new());
                error.set(None);
                later.set(vec![]);
                next.set(None);
                first.restart();
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let more = move |before: NoteCursor| async move {
        match list_notes(contact_id, Some(before)).await {
            Ok(p) => {
                later.write().extend(p.items);
                next.set(p.next);
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let page = first
        .read()
        .clone()
        .and_then(Result::ok)
        .unwrap_or_default();
    let mut items = page.items.clone();
    items.extend(later());
    let cursor = if later().is_empty() {
        page.next.clone()
    } else {
        next()
    };
    rsx! {
        details { class: "notes", id: "notes",
            summary { span { class: "notes-long", "Internal notes ({page.total})" } span { class: "notes-short", "Notes ({page.total})" } }
            ul { class: "plain-list", id: "note-list",
                for n in items {
                    li { key: "{n.id}", class: "note",
                        div { class: "muted small", "Note · {n.author} · {short_time(n.created_at)}" }
                        "{n.body}"
                    }
                }
            }
            if let Some(before) = cursor {
                button { class: "secondary show-more", r#type: "button", onclick: move |_| more(before.clone()), "Show more" }
            }
            ErrorBanner { message: error() }
            form { class: "note-form", onsubmit: add,
                textarea { id: "note-body", rows: "2", placeholder: "A note for the team, never sent. @name tells them.", value: "{body}", oninput: move |e| body.set(e.value()) }
                button { id: "note-add", class: "secondary", r#type: "submit", disabled: body.read().trim().is_empty(), "Add note" }
            }
        }
    }
}
