//! The composer: pick which of the organisation's numbers to send from, write, send.
use crate::components::{ErrorBanner, Prefill};
use crate::messaging::api::send_message;
use crate::messaging::model::{SendSmsRequest, MAX_SMS_CHARS};
use crate::phone_numbers::model::PhoneNumberView;
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn Composer(
    contact_id: Uuid,
    numbers: Vec<PhoneNumberView>,
    default_number_id: Option<Uuid>,
    opted_out: bool,
    on_sent: EventHandler<()>,
    prefill: Signal<Option<Prefill>>,
) -> Element {
    let mut body = use_signal(String::new);
    let mut from = use_signal(|| default_number_id);
    let mut origin = use_signal(|| None::<String>);
    let mut prefill = prefill;
    // A picked suggestion fills the composer and answers from the number it came to.
    use_effect(move || {
        if let Some(p) = prefill() {
            body.set(p.body);
            from.set(Some(p.phone_number_id));
            origin.set(Some("suggestion".into()));
            prefill.set(None);
        }
    });
    let mut error = use_signal(|| None::<String>);
    let mut sending = use_signal(|| false);
    // Follow the server's default when the conversation changes under us.
    use_effect(use_reactive!(
        |default_number_id| from.set(default_number_id)
    ));

    let send = move |e: FormEvent| async move {
        e.prevent_default();
        let Some(number) = from() else {
            error.set(Some("Add a phone number to send from first.".into()));
            return;
        };
        sending.set(true);
        match send_message(SendSmsRequest {
            contact_id,
            phone_number_id: number,
            body: body(),
            ai_origin: origin(),
        })
        .await
        {
            Ok(_) => {
                body.set(String::new());
                origin.set(None);
                error.set(None);
                on_sent.call(());
            }
            Err(err) => error.set(Some(err.to_string())),
        }
        sending.set(false);
    };
    let chars = body.read().chars().count();
    rsx! {
        form { class: "composer", onsubmit: send,
            ErrorBanner { message: error() }
            if opted_out {
                div { class: "notice", "This contact has opted out of texts. Herald will refuse to send until they text START." }
            }
            div { class: "composer-row",
                select {
                    id: "composer-from",
                    title: "Send from",
                    onchange: move |e| from.set(e.value().parse().ok()),
                    for n in numbers.iter() {
                        option { value: "{n.id}", selected: Some(n.id) == from(), "{n.friendly_name} ({n.number})" }
                    }
                }
                textarea {
                    id: "composer-body",
                    placeholder: "Write a text…",
                    rows: "2",
                    value: "{body}",
                    oninput: move |e| {
                        if e.value().is_empty() {
                            origin.set(None);
                        }
                        body.set(e.value())
                    },
                }
                button { id: "composer-send", class: "primary", r#type: "submit", disabled: sending() || chars == 0, "Send" }
            }
            div { class: "muted small", "{chars} / {MAX_SMS_CHARS} characters" }
        }
    }
}
