//! Settings → Saved replies: the team's texts with merge fields, added, changed and deleted here
//! and inserted from the composer with `/`. Paged in name order.
use crate::saved_replies::api::{delete_saved_reply, list_saved_replies, save_saved_reply};
use crate::saved_replies::model::{SavedReplyInput, SavedReplyView};
use crate::ui::components::{use_pages, ConfirmButton, ErrorBanner, ListFooter, Pages};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn SavedRepliesCard() -> Element {
    let mut first = use_resource(|| list_saved_replies(String::new(), None));
    let pages = use_pages::<SavedReplyView, String>();
    let Pages {
        loading,
        error: more_error,
        ..
    } = pages;
    let mut form = use_signal(SavedReplyInput::default);
    let mut editing = use_signal(|| None::<Uuid>);
    let mut error = use_signal(|| None::<String>);
    let mut reload = move || {
        pages.reset();
        first.restart();
    };
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        match save_saved_reply(editing(), form()).await {
            Ok(_) => {
                form.set(SavedReplyInput::default());
                editing.set(None);
                error.set(None);
                reload();
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let remove = move |id: Uuid| async move {
        match delete_saved_reply(id).await {
            Ok(()) => reload(),
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    rsx! {
        section { class: "card settings-form", id: "saved-replies-card",
            h2 { "Saved replies" }
            p { class: "muted small",
                "Type / in a conversation's composer to insert one. Merge fields: {{{{contact.first_name}}}}, {{{{contact.name}}}}, {{{{contact.<custom field>}}}}, {{{{org.name}}}}, {{{{me.name}}}}; a fallback covers an empty one: {{{{contact.first_name|there}}}}."
            }
            ErrorBanner { message: error() }
            match first.read().clone() {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(page)) => {
                    let (items, cursor) = pages.join(page.items.clone(), page.next.clone());
                    rsx! {
                        ul { class: "plain-list", id: "saved-reply-list",
                            for r in items.clone() {
                                li { key: "{r.id}", class: "saved-reply-row",
                                    strong { "{r.name}" } " "
                                    span { class: "muted", "{r.body}" }
                                    button { class: "link-button", r#type: "button", onclick: move |_| {
                                        editing.set(Some(r.id));
                                        form.set(SavedReplyInput { name: r.name.clone(), body: r.body.clone() });
                                    }, "Edit" }
                                    ConfirmButton { id: "delete-saved-reply-{r.id}", class: "link-button", label: "Delete",
                                        question: "Delete “{r.name}”?", onconfirm: move |_| { spawn(remove(r.id)); } }
                                }
                            }
                        }
                        ListFooter { shown: items.len(), total: page.total, none: "No saved replies yet.", error: more_error(), id: "saved-replies-more",
                            loading: loading(), has_more: cursor.is_some(),
                            onmore: move |_| if let Some(after) = cursor.clone() { pages.more(list_saved_replies(String::new(), Some(after.clone())), |p| (p.items, p.next)) } }
                    }
                }
            }
            form { class: "saved-reply-form", onsubmit: save,
                input { id: "saved-reply-name", placeholder: "Name (e.g. hours)", value: "{form.read().name}", oninput: move |e| form.write().name = e.value() }
                textarea { id: "saved-reply-body", rows: "2", placeholder: "Hi {{{{contact.first_name|there}}}}, we're open 9–5.", value: "{form.read().body}", oninput: move |e| form.write().body = e.value() }
                button { id: "saved-reply-save", class: "primary", r#type: "submit", if editing().is_some() { "Save changes" } else { "Add saved reply" } }
            }
        }
    }
}
