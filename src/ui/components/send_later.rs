//! "Send later" in the composer: a date and time on the contact's own clock, with their zone
//! and time now, and when the text will really go (after their quiet hours, if the time falls
//! in them) or why that time cannot be chosen.
use crate::messaging::api::send_later_when;
use chrono::NaiveDateTime;
use dioxus::prelude::*;
use uuid::Uuid;

/// A `datetime-local` input's value ("2026-12-08T09:30").
pub fn parse_local(s: &str) -> Option<NaiveDateTime> {
    NaiveDateTime::parse_from_str(s.trim(), "%Y-%m-%dT%H:%M").ok()
}

#[component]
/// `id` names the input (its words are `{id}-words`).
pub fn SendLaterPicker(contact_id: Uuid, at: Signal<Option<String>>, id: String) -> Element {
    let mut at = at;
    let chosen = use_memo(move || at.read().as_deref().and_then(parse_local));
    let when = use_resource(move || send_later_when(contact_id, chosen()));
    let info = when.read().clone();
    let (zone, their_now) = match &info {
        Some(Ok(w)) => (w.zone.clone(), w.their_now.clone()),
        _ => (String::new(), String::new()),
    };
    rsx! {
        div { class: "send-later",
            label { r#for: "{id}", class: "small", "Send at, their time" }
            input {
                r#type: "datetime-local",
                id: "{id}",
                min: "{their_now}",
                value: "{at.read().clone().unwrap_or_default()}",
                oninput: move |e| at.set(Some(e.value())),
            }
            p { class: "muted small", id: "{id}-words", "aria-live": "polite",
                match info {
                    None => rsx! { "…" },
                    Some(Err(e)) => rsx! { "{e}" },
                    Some(Ok(w)) => rsx! {
                        "Their clock: {zone}, now {their_now.replace('T', \" \")}. "
                        if let Some(p) = w.problem { strong { class: "step-error", "{p}" } }
                        else if let Some(g) = w.goes { "Goes {g}. " }
                        if let Some(h) = w.held { span { class: "notice", "{h}" } }
                    },
                }
            }
        }
    }
}
