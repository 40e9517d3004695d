//! Texts scheduled for this contact, above the composer: an agent's, a plan's or a member's
//! ("Send later"), when each goes, and Change or Cancel until it has gone. Nothing shows when
//! there are none.
use crate::messaging::api::{cancel_scheduled_text, edit_scheduled_text, list_scheduled_texts};
use crate::messaging::model::ScheduledTextView;
use crate::ui::components::send_later::{parse_local, SendLaterPicker};
use crate::ui::components::{short_time, use_act, ErrorBanner};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
/// `version` changes when a text was set for later here: the list reads again.
pub fn ScheduledTexts(contact_id: Uuid, #[props(default)] version: u32) -> Element {
    let mut list = use_resource(use_reactive!(|version| async move {
        let _ = version;
        list_scheduled_texts(contact_id).await
    }));
    let act = use_act();
    // The text being changed.
    let mut editing = use_signal(|| None::<Uuid>);
    let texts = match list.read().clone() {
        Some(Ok(t)) => t,
        _ => Vec::new(),
    };
    if texts.is_empty() {
        return rsx! {};
    }
    rsx! {
        div { class: "card scheduled-texts", id: "scheduled-texts",
            strong { class: "small", "Scheduled texts" }
            ul {
                for t in texts {
                    li { key: "{t.id}", class: "scheduled-text", "data-status": "{t.status}",
                        span { class: "muted small",
                            // When it goes on the contact's clock, as it was set; else the time here.
                            match t.their_time.as_deref() {
                                Some(their) => rsx! { "{their.replace('T', \" \")} their time · {t.status} · " },
                                None => rsx! { "{short_time(t.send_at)} · {t.status} · " },
                            }
                            if t.by_person { "by your team " } else { "by an agent " }
                        }
                        if editing() == Some(t.id) {
                            EditScheduled { text: t.clone(), contact_id, on_done: move |_| { editing.set(None); list.restart(); } }
                        } else {
                            span { class: "scheduled-body", "{t.body}" }
                        }
                        if let Some(e) = t.error.clone() { span { class: "step-error small", " {e}" } }
                        if t.status == "scheduled" && editing() != Some(t.id) {
                            button {
                                class: "secondary scheduled-edit",
                                onclick: move |_| editing.set(Some(t.id)),
                                "Change"
                            }
                            button {
                                class: "secondary scheduled-cancel",
                                onclick: move |_| async move {
                                    act.run(cancel_scheduled_text(t.id)).await;
                                    list.restart();
                                },
                                "Cancel"
                            }
                        }
                    }
                }
            }
            ErrorBanner { message: act.error() }
        }
    }
}

/// A waiting text's words and time, changed in place.
#[component]
fn EditScheduled(text: ScheduledTextView, contact_id: Uuid, on_done: EventHandler<()>) -> Element {
    let mut body = use_signal(|| text.body.clone());
    let at = use_signal(|| Some(text.their_time.clone().unwrap_or_default()));
    let act = use_act();
    let id = text.id;
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        let Some(when) = at.read().as_deref().and_then(parse_local) else {
            act.fail("Pick the date and time the text should go.");
            return;
        };
        if act
            .run(edit_scheduled_text(id, body(), when))
            .await
            .is_some()
        {
            on_done.call(());
        }
    };
    rsx! {
        form { class: "scheduled-change", onsubmit: save,
            label { r#for: "scheduled-body-{id}", class: "small", "Text" }
            textarea { id: "scheduled-body-{id}", class: "scheduled-change-body", rows: "2", value: "{body}", oninput: move |e| body.set(e.value()) }
            SendLaterPicker { contact_id, at, id: "scheduled-when-{id}" }
            button { class: "primary scheduled-save", r#type: "submit", disabled: act.busy(), "Save" }
            button { class: "secondary", r#type: "button", onclick: move |_| on_done.call(()), "Keep as it was" }
            ErrorBanner { message: act.error() }
        }
    }
}
