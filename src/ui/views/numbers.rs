//! The phone numbers page: the organisation's numbers; owners add and edit them, and choose
//! which assign their new conversations in turn.
use crate::auth::model::{CurrentUser, Role};
use crate::ui::components::ErrorBanner;
use crate::phone_numbers::api::{
    create_phone_number, list_phone_numbers, number_provider, update_phone_number,
};
use crate::phone_numbers::model::PhoneNumberInput;
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn PhoneNumbers() -> Element {
    let me = use_context::<CurrentUser>();
    let mut numbers = use_resource(list_phone_numbers);
    let provider = use_resource(number_provider);
    let mut form = use_signal(PhoneNumberInput::default);
    let mut editing = use_signal(|| None::<Uuid>);
    let mut error = use_signal(|| None::<String>);
    let is_owner = me.role == Role::Owner;
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        let res = match editing() {
            Some(id) => update_phone_number(id, form()).await,
            None => create_phone_number(form()).await,
        };
        match res {
            Ok(_) => {
                form.set(PhoneNumberInput::default());
                editing.set(None);
                error.set(None);
                numbers.restart();
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let list = numbers.read().clone();
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Phone numbers" } }
            p { class: "muted", "Contacts text these numbers; replies leave from the number they texted." }
            match provider.read().clone() {
                Some(Ok(p)) if !p.checks_ownership => rsx! {
                    p { class: "notice", id: "numbers-free-form", "Texts go to the local outbox and reach nobody, so any number can be added for a demo. With Twilio, only numbers of your Twilio account can be added." }
                },
                Some(Ok(p)) => rsx! {
                    p { class: "muted small", id: "numbers-checked", "Only numbers of your {p.name} account can be added; Herald checks each one with {p.name}." }
                },
                _ => rsx! {},
            }
            match list {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(rows)) => rsx! {
                    table { class: "table", id: "numbers-table",
                        thead { tr { th { "Name" } th { "Number" } th { "Provider SID" } th { "Assigns" } th {} } }
                        tbody {
                            for n in rows {
                                tr { key: "{n.id}",
                                    td { class: "cell-title", "{n.friendly_name}" }
                                    td { class: "mono", "data-label": "Number", "{n.number}" }
                                    td { class: "mono muted", "data-label": "Provider SID", "{n.provider_sid.clone().unwrap_or_default()}" }
                                    td { "data-label": "Assigns", if n.auto_assign { "In turn" } else { "—" } }
                                    td {
                                        if is_owner {
                                            button { class: "link-button", onclick: move |_| {
                                                editing.set(Some(n.id));
                                                form.set(PhoneNumberInput { number: n.number.clone(), friendly_name: n.friendly_name.clone(), provider_sid: n.provider_sid.clone().unwrap_or_default(), auto_assign: n.auto_assign });
                                            }, "Edit" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                },
            }
            if is_owner {
                form { class: "card inline-form", onsubmit: save,
                    h2 { if editing().is_some() { "Edit number" } else { "Add a number" } }
                    ErrorBanner { message: error() }
                    input { id: "number-input", placeholder: "+1 415 555 0100", value: "{form.read().number}", oninput: move |e| form.write().number = e.value() }
                    input { id: "number-name", placeholder: "Front desk", value: "{form.read().friendly_name}", oninput: move |e| form.write().friendly_name = e.value() }
                    input { id: "number-sid", placeholder: "PN… (optional)", value: "{form.read().provider_sid}", oninput: move |e| form.write().provider_sid = e.value() }
                    label { class: "check",
                        input { id: "number-auto-assign", r#type: "checkbox", checked: form.read().auto_assign, onchange: move |e| form.write().auto_assign = e.checked() }
                        " Assign new conversations in turn to the members online in the last 15 minutes"
                    }
                    button { id: "number-save", class: "primary", r#type: "submit", if editing().is_some() { "Save" } else { "Add number" } }
                }
            } else {
                p { class: "muted", "Only an owner can add or edit numbers." }
            }
        }
    }
}
