//! The phone simulator: text one of the organisation's numbers as a contact, through the real webhook path.
use crate::ui::app::Route;
use crate::ui::components::ErrorBanner;
use crate::contacts::api::search_contacts;
use crate::messaging::api::simulate_inbound;
use crate::messaging::model::SimulatedText;
use crate::phone_numbers::api::list_phone_numbers;
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn Simulator() -> Element {
    let contacts = use_resource(|| search_contacts(String::new()));
    let numbers = use_resource(list_phone_numbers);
    let mut from = use_signal(String::new);
    let mut to = use_signal(|| None::<Uuid>);
    let mut body = use_signal(String::new);
    let mut error = use_signal(|| None::<String>);
    let mut sent = use_signal(Vec::<String>::new);

    let send = move |e: FormEvent| async move {
        e.prevent_default();
        let to_id = match to().or_else(|| {
            numbers
                .read()
                .as_ref()
                .and_then(|r| r.as_ref().ok())
                .and_then(|n| n.first())
                .map(|n| n.id)
        }) {
            Some(id) => id,
            None => {
                error.set(Some(
                    "Add a phone number to your organisation first.".into(),
                ));
                return;
            }
        };
        match simulate_inbound(SimulatedText {
            from: from(),
            to_number_id: to_id,
            body: body(),
        })
        .await
        {
            Ok(_) => {
                sent.write().push(format!("{} → {}", from(), body()));
                body.set(String::new());
                error.set(None);
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    // The first page of contacts, as suggestions: any other number can be typed.
    let contact_list = contacts
        .read()
        .clone()
        .and_then(Result::ok)
        .map(|p| p.items)
        .unwrap_or_default();
    let number_list = numbers
        .read()
        .clone()
        .and_then(Result::ok)
        .unwrap_or_default();
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Phone simulator" } }
            p { class: "muted", "Try Herald without a phone: text one of your numbers as a contact. The text takes the same webhook path a real one does." }
            form { class: "card phone", onsubmit: send,
                ErrorBanner { message: error() }
                label { "From (a contact, or type any number)"
                    input { id: "sim-from", list: "sim-contacts", placeholder: "+1 415 555 2671", value: "{from}", oninput: move |e| from.set(e.value()) }
                    datalist { id: "sim-contacts",
                        for c in contact_list.iter().filter(|c| c.phone.is_some()) {
                            option { value: "{c.phone.clone().unwrap_or_default()}", "{c.name}" }
                        }
                    }
                }
                label { "To"
                    select { id: "sim-to", onchange: move |e| to.set(e.value().parse().ok()),
                        for n in number_list.iter() {
                            option { value: "{n.id}", selected: Some(n.id) == to(), "{n.friendly_name} ({n.number})" }
                        }
                    }
                }
                label { "Text"
                    textarea { id: "sim-body", rows: "3", value: "{body}", oninput: move |e| body.set(e.value()) }
                }
                button { id: "sim-send", class: "primary", r#type: "submit", "Send text" }
            }
            if !sent.read().is_empty() {
                div { class: "card",
                    h2 { "Sent from the simulator" }
                    ul { id: "sim-log", for s in sent.read().iter() { li { "{s}" } } }
                    Link { to: Route::Inbox {}, "Open the inbox" }
                }
            }
        }
    }
}
