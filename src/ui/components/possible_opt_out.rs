//! A "Possible opt-out" item: the contact's words, why they look like an opt-out, and a person's
//! two answers. Until someone answers, Herald sends that number nothing automated.
use crate::compliance::api::decide_possible_opt_out;
use crate::compliance::model::OptOutReviewView;
use crate::ui::components::ErrorBanner;
use dioxus::prelude::*;

#[component]
pub fn PossibleOptOut(item: OptOutReviewView, on_decided: EventHandler<()>) -> Element {
    let mut error = use_signal(|| None::<String>);
    let mut busy = use_signal(|| false);
    let id = item.id;
    let decide = move |opt_out: bool| async move {
        busy.set(true);
        match decide_possible_opt_out(id, opt_out).await {
            Ok(()) => {
                error.set(None);
                on_decided.call(());
            }
            Err(e) => error.set(Some(e.to_string())),
        }
        busy.set(false);
    };
    rsx! {
        div { class: "notice possible-opt-out", id: "possible-opt-out-{item.id}", role: "alert",
            strong { "Possible opt-out" }
            p { "{item.contact_name} wrote: " q { class: "quoted", "{item.body}" } }
            p { class: "muted small",
                "\"{item.matched}\" may mean they want no more texts. Herald sends them nothing automated until someone decides."
            }
            ErrorBanner { message: error() }
            div { class: "row wrap",
                button { class: "danger", id: "confirm-opt-out", disabled: busy(),
                    onclick: move |_| decide(true), "It's an opt-out" }
                button { id: "dismiss-opt-out", disabled: busy(),
                    onclick: move |_| decide(false), "Not an opt-out" }
            }
        }
    }
}
