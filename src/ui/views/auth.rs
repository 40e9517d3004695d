//! The sign-in page.
use crate::auth::api::{sign_in, sign_up_state};
use crate::auth::model::{OrganizationChoice, SignInForm, SignInResult};
use crate::ui::app::Route;
use crate::ui::components::ErrorBanner;
use dioxus::prelude::*;

#[component]
pub fn SignIn() -> Element {
    let mut email = use_signal(String::new);
    let mut password = use_signal(String::new);
    let mut error = use_signal(|| None::<String>);
    let mut busy = use_signal(|| false);
    // An account in several organisations chooses which to open.
    let mut choices = use_signal(Vec::<OrganizationChoice>::new);
    let mode = use_resource(sign_up_state);
    let can_sign_up = matches!(&*mode.read(), Some(Ok(s)) if s.allowed());
    let go = move |organization_id| async move {
        busy.set(true);
        let form = SignInForm {
            email: email(),
            password: password(),
            organization_id,
        };
        match sign_in(form).await {
            Ok(SignInResult::SignedIn(_)) => {
                error.set(None);
                navigator().replace(Route::Inbox {});
            }
            Ok(SignInResult::Choose(list)) => choices.set(list),
            Err(err) => error.set(Some(err.to_string())),
        }
        busy.set(false);
    };
    let submit = move |e: FormEvent| async move {
        e.prevent_default();
        go(None).await
    };
    if !choices.read().is_empty() {
        return rsx! {
            div { class: "auth-page",
                div { class: "card auth-card", id: "choose-organization",
                    h1 { "Choose an organisation" }
                    ErrorBanner { message: error() }
                    p { class: "muted", "Your account belongs to more than one. You can switch later from the menu." }
                    for c in choices() {
                        button { class: "choice", disabled: busy(), onclick: move |_| go(Some(c.id)),
                            "{c.name}" span { class: "muted", " · {c.role.as_str()}" }
                        }
                    }
                }
            }
        };
    }
    rsx! {
        div { class: "auth-page",
            form { class: "card auth-card", onsubmit: submit,
                h1 { "Sign in to Herald" }
                ErrorBanner { message: error() }
                label { "Email"
                    input { id: "signin-email", r#type: "email", autocomplete: "username", value: "{email}", oninput: move |e| email.set(e.value()) }
                }
                label { "Password"
                    input { id: "signin-password", r#type: "password", autocomplete: "current-password", value: "{password}", oninput: move |e| password.set(e.value()) }
                }
                button { id: "signin-submit", class: "primary", r#type: "submit", disabled: busy(), "Sign in" }
                p { class: "muted", a { href: "/forgot", id: "signin-forgot", "Forgot your password?" } }
                if can_sign_up {
                    p { class: "muted", "New to Herald? " Link { to: Route::SignUp {}, "Create an organisation" } }
                } else {
                    p { class: "muted", id: "invite-only", "New here? Ask an owner of your organisation for an invitation link." }
                }
            }
        }
    }
}
