//! The team page: members of the organisation; the owner adds new ones.
use crate::auth::api::{add_member, list_members};
use crate::auth::model::{CurrentUser, NewMemberForm, Role};
use crate::components::ErrorBanner;
use dioxus::prelude::*;

#[component]
pub fn Team() -> Element {
    let me = use_context::<CurrentUser>();
    let mut members = use_resource(list_members);
    let mut form = use_signal(|| NewMemberForm {
        name: String::new(),
        email: String::new(),
        password: String::new(),
    });
    let mut error = use_signal(|| None::<String>);
    let add = move |e: FormEvent| async move {
        e.prevent_default();
        match add_member(form()).await {
            Ok(_) => {
                form.set(NewMemberForm {
                    name: String::new(),
                    email: String::new(),
                    password: String::new(),
                });
                error.set(None);
                members.restart();
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let list = members.read().clone();
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Team" } }
            match list {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(rows)) => rsx! {
                    table { class: "table",
                        thead { tr { th { "Name" } th { "Email" } th { "Role" } } }
                        tbody {
                            for m in rows {
                                tr { key: "{m.user_id}", td { class: "cell-title", "{m.name}" } td { "data-label": "Email", "{m.email}" } td { "data-label": "Role", "{m.role.as_str()}" } }
                            }
                        }
                    }
                },
            }
            if me.role == Role::Owner {
                form { class: "card inline-form", onsubmit: add,
                    h2 { "Add a member" }
                    ErrorBanner { message: error() }
                    input { placeholder: "Name", value: "{form.read().name}", oninput: move |e| form.write().name = e.value() }
                    input { r#type: "email", placeholder: "Email", value: "{form.read().email}", oninput: move |e| form.write().email = e.value() }
                    input { r#type: "password", placeholder: "First password", value: "{form.read().password}", oninput: move |e| form.write().password = e.value() }
                    button { class: "primary", r#type: "submit", "Add member" }
                }
            }
        }
    }
}
