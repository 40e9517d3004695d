//! The pages a link opens without signing in: joining by invitation, and choosing a new password
//! from a reset link.
use crate::ui::app::Route;
use crate::auth::account_api::reset_password;
use crate::team::api::{accept_invitation, invitation_info};
use crate::ui::components::ErrorBanner;
use dioxus::prelude::*;

#[component]
pub fn Join(token: String) -> Element {
    let t = token.clone();
    let info = use_resource(move || invitation_info(t.clone()));
    let mut name = use_signal(String::new);
    let mut email = use_signal(String::new);
    let mut password = use_signal(String::new);
    let mut error = use_signal(|| None::<String>);
    let mut busy = use_signal(|| false);
    let submit = move |e: FormEvent| {
        let token = token.clone();
        async move {
            e.prevent_default();
            busy.set(true);
            match accept_invitation(token, name(), email(), password()).await {
                Ok(_) => {
                    navigator().replace(Route::Inbox {});
                }
                Err(err) => error.set(Some(err.to_string())),
            }
            busy.set(false);
        }
    };
    let info = info.read().clone();
    rsx! {
        div { class: "auth-page",
            match info {
                None => rsx! { div { class: "card auth-card", p { class: "muted", "Opening the invitation…" } } },
                Some(Err(e)) => rsx! {
                    div { class: "card auth-card", id: "join-invalid",
                        h1 { "This invitation cannot be used" }
                        ErrorBanner { message: Some(e.to_string()) }
                        p { class: "muted", Link { to: Route::SignIn {}, "Sign in" } }
                    }
                },
                Some(Ok(i)) => rsx! {
                    form { class: "card auth-card", id: "join-form", onsubmit: submit,
                        h1 { "Join {i.organization_name}" }
                        p { class: "muted", "{i.invited_by} invited you as {i.role.as_str()}. Choose your own password: nobody else sees it." }
                        ErrorBanner { message: error() }
                        label { "Your name" input { id: "join-name", autocomplete: "name", value: "{name}", oninput: move |e| name.set(e.value()) } }
                        label { "Email" input { id: "join-email", r#type: "email", autocomplete: "username", value: "{email}", oninput: move |e| email.set(e.value()) } }
                        label { "Password (8 characters or more)"
                            input { id: "join-password", r#type: "password", autocomplete: "new-password", value: "{password}", oninput: move |e| password.set(e.value()) }
                        }
                        button { id: "join-submit", class: "primary", r#type: "submit", disabled: busy(), "Join" }
                    }
                },
            }
        }
    }
}

#[component]
pub fn Reset(token: String) -> Element {
    let mut password = use_signal(String::new);
    let mut error = use_signal(|| None::<String>);
    let mut done = use_signal(|| false);
    let submit = move |e: FormEvent| {
        let token = token.clone();
        async move {
            e.prevent_default();
            match reset_password(token, password()).await {
                Ok(()) => done.set(true),
                Err(err) => error.set(Some(err.to_string())),
            }
        }
    };
    rsx! {
        div { class: "auth-page",
            if done() {
                div { class: "card auth-card", id: "reset-done",
                    h1 { "Your password is changed" }
                    p { "Every session of your account has ended. Sign in with the new password." }
                    Link { to: Route::SignIn {}, class: "button primary", "Sign in" }
                }
            } else {
                form { class: "card auth-card", onsubmit: submit,
                    h1 { "Choose a new password" }
                    ErrorBanner { message: error() }
                    label { "New password (8 characters or more)"
                        input { id: "reset-password", r#type: "password", autocomplete: "new-password", value: "{password}", oninput: move |e| password.set(e.value()) }
                    }
                    button { id: "reset-submit", class: "primary", r#type: "submit", "Set password" }
                }
            }
        }
    }
}
