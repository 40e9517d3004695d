//! The inline suggestions panel: reply options for a tapped inbound message, from the number's
//! agent or the legacy suggester; "Use this reply" puts one in the composer.
use crate::ai_agent::api::get_suggestions;
use crate::ui::components::use_page_tick;
use crate::ui::components::ErrorBanner;
use dioxus::prelude::*;
use uuid::Uuid;

/// A suggestion picked for the composer, to be sent from the number the contact texted.
#[derive(Clone, Debug, PartialEq)]
pub struct Prefill {
    pub body: String,
    pub phone_number_id: Uuid,
    /// The suggestion set it came from: the reports count its use, as written or edited.
    pub suggestion_id: Uuid,
}

#[component]
pub fn SuggestionsPanel(
    message_id: Uuid,
    phone_number_id: Uuid,
    on_use: EventHandler<Prefill>,
) -> Element {
    let live = use_page_tick();
    let sets = use_resource(move || {
        let _ = live();
        get_suggestions(message_id)
    });
    let data = sets.read().clone();
    rsx! {
        div { class: "suggestions-panel", id: "suggestions-panel",
            match data {
                None => rsx! { p { class: "muted small", "Loading suggestions…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(sets)) if sets.is_empty() => rsx! {
                    p { class: "muted small", "No suggestions for this message yet. Assign an agent in suggest mode to this number to get them." }
                },
                Some(Ok(sets)) => rsx! {
                    for set in sets.into_iter().take(1) {
                        div { class: "suggestions-head",
                            span { "Suggested by {set.source}" }
                            if set.offline { span { class: "badge offline", "offline model" } }
                        }
                        div { class: "suggestion-cards",
                            for (i, option) in set.options.into_iter().enumerate() {
                                div { class: "suggestion-card", key: "{i}",
                                    p { class: "suggestion-body", "{option.body}" }
                                    super::Cited { sources: option.sources.clone() }
                                    div { class: "suggestion-foot",
                                        button {
                                            class: "use-reply secondary",
                                            onclick: move |_| on_use.call(Prefill { body: option.body.clone(), phone_number_id, suggestion_id: set.id }),
                                            "Use this reply"
                                        }
                                    }
                                }
                            }
                        }
                    }
                },
            }
        }
    }
}
