//! The sign-up page: an empty instance's setup, or an open instance's new organisation.
use crate::ui::app::Route;
use crate::auth::api::sign_up_state;
use crate::team::api::sign_up;
use crate::auth::model::SignUpForm;
use crate::ui::components::ErrorBanner;
use dioxus::prelude::*;

#[component]
pub fn SignUp() -> Element {
    let mut org = use_signal(String::new);
    let mut name = use_signal(String::new);
    let mut email = use_signal(String::new);
    let mut password = use_signal(String::new);
    let mut token = use_signal(String::new);
    let mut error = use_signal(|| None::<String>);
    let submit = move |e: FormEvent| async move {
        e.prevent_default();
        let form = SignUpForm {
            organization_name: org(),
            name: name(),
            email: email(),
            password: password(),
            setup_token: Some(token()).filter(|t| !t.is_empty()),
        };
        match sign_up(form).await {
            Ok(_) => {
                navigator().replace(Route::Inbox {});
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let mode = use_resource(sign_up_state);
    let mode = mode.read().clone();
    let first_run = matches!(&mode, Some(Ok(s)) if s.first_run);
    let needs_token = matches!(&mode, Some(Ok(s)) if s.needs_setup_token);
    if let Some(Ok(s)) = &mode {
        if !s.allowed() {
            return rsx! {
                div { class: "auth-page",
                    div { class: "card auth-card", id: "signup-closed",
                        h1 { "Sign-up is by invitation" }
                        p { "This Herald lets people in by invitation. Ask an owner of your organisation for an invitation link; it lets you choose your own password." }
                        p { class: "muted", "Already have an account? " Link { to: Route::SignIn {}, "Sign in" } }
                    }
                }
            };
        }
    }
    rsx! {
        div { class: "auth-page",
            form { class: "card auth-card", onsubmit: submit,
                h1 { if first_run { "Set up Herald" } else { "Create your organisation" } }
                if first_run {
                    p { class: "muted", "Nobody has set up this Herald yet. You will be the owner of its first organisation, and invite your team from the Team page." }
                }
                ErrorBanner { message: error() }
                if needs_token {
                    label { "Set-up token (printed in the server's log at start-up)"
                        input { id: "signup-token", autocomplete: "off", value: "{token}", oninput: move |e| token.set(e.value()) }
                    }
                }
                label { "Organisation" input { id: "signup-org", value: "{org}", oninput: move |e| org.set(e.value()) } }
                label { "Your name" input { id: "signup-name", value: "{name}", oninput: move |e| name.set(e.value()) } }
                label { "Email" input { id: "signup-email", r#type: "email", value: "{email}", oninput: move |e| email.set(e.value()) } }
                label { "Password (8 characters or more)"
                    input { id: "signup-password", r#type: "password", autocomplete: "new-password", value: "{password}", oninput: move |e| password.set(e.value()) }
                }
                button { id: "signup-submit", class: "primary", r#type: "submit", "Create organisation" }
                p { class: "muted", "Already have an account? " Link { to: Route::SignIn {}, "Sign in" } }
            }
        }
    }
}
