//! Texts an agent scheduled for this contact, above the composer: when each goes, and Cancel
//! until it has gone. Nothing shows when there are none.
use crate::messaging::api::{cancel_scheduled_text, list_scheduled_texts};
use crate::ui::components::{short_time, use_act, ErrorBanner};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn ScheduledTexts(contact_id: Uuid) -> Element {
    let mut list = use_resource(move || list_scheduled_texts(contact_id));
    let act = use_act();
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
                        span { class: "muted small", "{short_time(t.send_at)} · {t.status} " }
                        span { "{t.body}" }
                        if let Some(e) = t.error.clone() { span { class: "step-error small", " {e}" } }
                        if t.status == "scheduled" {
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
