//! A destructive action that asks first (issue 51 §6): the button turns into its question, with
//! the action and "Keep" beside it; nothing happens until the action is pressed again.
use dioxus::prelude::*;

#[component]
pub fn ConfirmButton(
    /// The button's id; the confirming one is `{id}-confirm`.
    id: String,
    /// What the button says, and the confirming button too ("Cancel campaign").
    label: String,
    /// The question asked first ("Cancel this campaign? Texts not yet sent are not sent.").
    question: String,
    #[props(default = "secondary".to_string())] class: String,
    #[props(default)] disabled: bool,
    onconfirm: EventHandler<()>,
) -> Element {
    let mut asking = use_signal(|| false);
    if asking() {
        rsx! {
            span { class: "confirm", role: "group", "aria-label": "{question}",
                span { class: "confirm-question", "{question} " }
                button { class: "danger confirm-yes", id: "{id}-confirm", r#type: "button", disabled,
                    onclick: move |_| {
                        asking.set(false);
                        onconfirm.call(());
                    },
                    "{label}"
                }
                button { class: "link-button confirm-keep", r#type: "button", onclick: move |_| asking.set(false), "Keep" }
            }
        }
    } else {
        rsx! {
            button { class, id, r#type: "button", disabled, onclick: move |_| asking.set(true), "{label}" }
        }
    }
}
