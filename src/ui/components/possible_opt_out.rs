//! A "Possible opt-out" item: the contact's words, why they look like an opt-out, and a person's
//! two answers. Until someone answers, Herald sends that number nothing automated.
use crate::compliance::api::decide_possible_opt_out;
use crate::compliance::model::OptOutReviewView;
use crate::ui::components::{use_act, ErrorBanner};
use dioxus::prelude::*;

#[component]
pub fn PossibleOptOut(item: OptOutReviewView, on_decided: EventHandler<()>) -> Element {
    let act = use_act();
    let id = item.id;
    let decide = move |opt_out: bool| async move {
        if act
            .run(decide_possible_opt_out(id, opt_out))
            .await
            .is_some()
        {
            on_decided.call(());
        }
    };
    rsx! {
        div { class: "notice possible-opt-out", id: "possible-opt-out-{item.id}", role: "alert",
            strong { "Possible opt-out" }
            p { "{item.contact_name} wrote: " q { class: "quoted", "{item.body}" } }
            p { class: "muted small",
                "\"{item.matched}\" may mean they want no more texts. Herald sends them nothing automated until someone decides."
            }
            ErrorBanner { message: act.error() }
            div { class: "row wrap",
                button { class: "danger", id: "confirm-opt-out", disabled: act.busy(),
                    onclick: move |_| decide(true), "It's an opt-out" }
                button { id: "dismiss-opt-out", disabled: act.busy(),
                    onclick: move |_| decide(false), "Not an opt-out" }
            }
        }
    }
}
