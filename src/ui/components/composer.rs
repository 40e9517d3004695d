//! The composer: pick which of the organisation's numbers to send from, write, send. Typing `/`
//! opens the saved replies whose name starts with what follows; picking one puts its text, filled
//! in for this contact, in the composer. Below it: characters, segments and the cost. "Later"
//! sets the text for a date and time on the contact's own clock (`SendLaterPicker`).
use crate::ai_agent::api::send_message;
use crate::campaign::segments::{mms_label, segments};
use crate::media::model::{UploadView, MAX_SEND_BYTES};
use crate::messaging::api::send_later;
use crate::messaging::model::{SendLaterRequest, SendSmsRequest, MAX_SMS_CHARS};
use crate::phone_numbers::model::PhoneNumberView;
use crate::saved_replies::api::{fill_saved_reply, list_saved_replies};
use crate::ui::components::{upload_picture, use_act, Act, ErrorBanner, Prefill};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn Composer(
    contact_id: Uuid,
    numbers: Vec<PhoneNumberView>,
    default_number_id: Option<Uuid>,
    opted_out: bool,
    on_sent: EventHandler<()>,
    /// A text was set for later.
    #[props(default)]
    on_scheduled: EventHandler<()>,
    prefill: Signal<Option<Prefill>>,
) -> Element {
    let mut body = use_signal(String::new);
    let mut from = use_signal(|| default_number_id);
    // The suggestion set the text came from, if it did.
    let mut origin = use_signal(|| None::<Uuid>);
    let mut prefill = prefill;
    // A picked suggestion fills the composer and answers from the number it came to.
    use_effect(move || {
        if let Some(p) = prefill() {
            body.set(p.body);
            from.set(Some(p.phone_number_id));
            origin.set(Some(p.suggestion_id));
            prefill.set(None);
        }
    });
    let act = use_act();
    // Pictures uploaded for this text, with their file names.
    let mut pictures = use_signal(Vec::<(UploadView, String)>::new);
    let mut uploading = use_signal(|| false);
    let attach = move |evt: FormEvent| async move {
        for file in evt.files() {
            let name = file.name();
            if file.size() > MAX_SEND_BYTES {
                act.fail(format!(
                    "{name} is over 5 MB, the carriers' limit for a text."
                ));
                continue;
            }
            uploading.set(true);
            let sent = upload_picture(&file).await;
            uploading.set(false);
            if let Some(view) = act.take(sent) {
                pictures.write().push((view, name));
            }
        }
    };
    // Follow the server's default when the conversation changes under us.
    use_effect(use_reactive!(
        |default_number_id| from.set(default_number_id)
    ));

    // "Later": the date and time on the contact's clock, as the picker holds it.
    let mut later = use_signal(|| None::<String>);
    let send = move |e: FormEvent| async move {
        e.prevent_default();
        let Some(number) = from() else {
            act.fail("Add a phone number to send from first.");
            return;
        };
        if let Some(at) = later() {
            let Some(at) = crate::ui::components::send_later::parse_local(&at) else {
                act.fail("Pick the date and time the text should go.");
                return;
            };
            if !pictures.read().is_empty() {
                act.fail("A text set for later goes without pictures: remove them, or Send now.");
                return;
            }
            let text = SendLaterRequest {
                contact_id,
                phone_number_id: number,
                body: body(),
                at,
            };
            if act.run(send_later(text)).await.is_some() {
                body.set(String::new());
                origin.set(None);
                later.set(None);
                on_scheduled.call(());
            }
            return;
        }
        let media_ids: Vec<Uuid> = pictures.read().iter().map(|(p, _)| p.id).collect();
        let text = SendSmsRequest {
            contact_id,
            phone_number_id: number,
            body: body(),
            ai_origin: None,
            suggestion_id: origin(),
            media_ids,
        };
        if act.run(send_message(text)).await.is_some() {
            body.set(String::new());
            pictures.set(vec![]);
            origin.set(None);
            on_sent.call(());
        }
    };
    // "/name": the saved replies whose name starts with it.
    let picking = use_memo(move || body.read().strip_prefix('/').map(str::to_owned));
    let chars = body.read().chars().count();
    let seg = segments(&body.read());
    rsx! {
        form { class: "composer", onsubmit: send,
            ErrorBanner { message: act.error() }
            if opted_out {
                div { class: "notice", "This contact has opted out of texts. Herald will refuse to send until they text START." }
            }
            div { class: "composer-row",
                select {
                    id: "composer-from",
                    title: "Send from",
                    "aria-label": "Send from",
                    onchange: move |e| from.set(e.value().parse().ok()),
                    for n in numbers.iter() {
                        option { value: "{n.id}", selected: Some(n.id) == from(), "{n.friendly_name} ({n.number})" }
                    }
                }
                textarea {
                    id: "composer-body",
                    placeholder: "Write a text, or / for a saved reply",
                    rows: "2",
                    value: "{body}",
                    oninput: move |e| {
                        if e.value().is_empty() {
                            origin.set(None);
                        }
                        body.set(e.value())
                    },
                }
                label { class: "button secondary attach", title: "Attach a picture (JPEG, PNG or GIF, up to 5 MB)",
                    "Photo"
                    input { r#type: "file", id: "composer-attach", accept: "image/jpeg,image/png,image/gif", class: "attach-input", onchange: attach }
                }
                // Pressing Send leaves the focus where it was: on a phone the tab bar, which
                // steps aside while writing, does not come back under the finger mid-press.
                button {
                    id: "composer-later",
                    class: "secondary",
                    r#type: "button",
                    "aria-pressed": "{later.read().is_some()}",
                    title: "Send this text later, at a time on their clock",
                    onclick: move |_| {
                        let open = later.read().is_some();
                        later.set(if open { None } else { Some(String::new()) });
                    },
                    "Later"
                }
                button { id: "composer-send", class: "primary", r#type: "submit", onmousedown: |e| e.prevent_default(), disabled: act.busy() || uploading() || (chars == 0 && pictures.read().is_empty()),
                    if later.read().is_some() { "Schedule" } else { "Send" }
                }
            }
            if later.read().is_some() {
                crate::ui::components::send_later::SendLaterPicker { contact_id, at: later, id: "composer-when" }
            }
            if !pictures.read().is_empty() || uploading() {
                Attachments { pictures, uploading: uploading() }
            }
            if let Some(query) = picking() {
                SavedReplyPicker { query, contact_id, body, act }
            }
            div { class: "muted small", id: "composer-count",
                "{chars} / {MAX_SMS_CHARS} characters"
                if !pictures.read().is_empty() { " · {mms_label()}" } else if seg.count > 0 { " · {seg.label()}" }
            }
        }
    }
}

/// The pictures uploaded for the text, each removable, and whether one is uploading.
#[component]
fn Attachments(mut pictures: Signal<Vec<(UploadView, String)>>, uploading: bool) -> Element {
    rsx! {
        div { class: "attachments", id: "composer-attachments",
            for (i, (p, name)) in pictures.read().iter().enumerate() {
                span { key: "{p.id}", class: "tag attachment", "{name} ({p.size_bytes / 1024} KB) "
                    button { r#type: "button", class: "icon", title: "Remove {name}",
                        onclick: move |_| { pictures.write().remove(i); }, "×" }
                }
            }
            if uploading { span { class: "muted small", "Uploading…" } }
        }
    }
}

/// The saved replies whose name starts with what follows "/"; a pick fills the text in, its
/// merge fields filled for the contact.
#[component]
fn SavedReplyPicker(
    query: String,
    contact_id: Uuid,
    mut body: Signal<String>,
    act: Act,
) -> Element {
    let replies = use_resource(use_reactive!(|query| list_saved_replies(query, None)));
    let pick = move |id: Uuid| async move {
        if let Some(text) = act.run(fill_saved_reply(id, contact_id)).await {
            body.set(text);
        }
    };
    let Some(found) = replies.read().clone() else {
        return rsx! {};
    };
    rsx! {
        div { class: "saved-replies", id: "saved-replies",
            match found {
                Err(e) => rsx! { p { class: "muted small", "{e}" } },
                Ok(page) if page.items.is_empty() => rsx! {
                    p { class: "muted small", "No saved reply starts with “{query}”. Add them in Settings." }
                },
                Ok(page) => rsx! {
                    for r in page.items.clone() {
                        // The composer keeps its focus: the caret stays in the text to go on
                        // writing, and on a phone the tab bar does not come back mid-reply.
                        button { key: "{r.id}", r#type: "button", class: "saved-reply", onmousedown: |e| e.prevent_default(), onclick: move |_| pick(r.id),
                            strong { "{r.name}" } " " span { class: "muted", "{r.body}" }
                        }
                    }
                    if page.total > page.items.len() as u64 {
                        p { class: "muted small", "Showing {page.items.len()} of {page.total}: type more of the name." }
                    }
                },
            }
        }
    }
}
