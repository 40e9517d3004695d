//! The signed-in shell: navigation and the current user. Each page opens its own live
//! subscription (`use_live`).
use crate::app::Route;
use crate::auth::api::{current_user, sign_out};
use crate::auth::model::CurrentUser;
use dioxus::prelude::*;

#[component]
pub fn Shell() -> Element {
    let user = use_resource(current_user);

    use_effect(move || {
        if matches!(*user.read(), Some(Ok(None))) {
            navigator().replace(Route::SignIn {});
        }
    });
    let state = user.read().clone();
    match state {
        None => rsx! { div { class: "loading-page", "Loading Herald…" } },
        Some(Ok(Some(me))) => rsx! { SignedIn { me } },
        Some(Ok(None)) => rsx! { div { class: "loading-page", "Redirecting to sign in…" } },
        Some(Err(e)) => rsx! { div { class: "error-banner", "{e}" } },
    }
}

#[component]
fn SignedIn(me: CurrentUser) -> Element {
    use_context_provider(|| me.clone());
    let sign_out_click = move |_| async move {
        let _ = sign_out().await;
        navigator().replace(Route::SignIn {});
    };
    rsx! {
        div { class: "shell",
            nav { class: "sidebar",
                div { class: "brand", "Herald" }
                div { class: "org-name", "{me.organization_name}" }
                Link { to: Route::Inbox {}, class: "nav-link", id: "nav-inbox", "Inbox" }
                Link { to: Route::Assistant {}, class: "nav-link", id: "nav-assistant", "Assistant" }
                Link { to: Route::Contacts {}, class: "nav-link", id: "nav-contacts", "Contacts" }
                Link { to: Route::PhoneNumbers {}, class: "nav-link", id: "nav-numbers", "Phone numbers" }
                if me.simulator_enabled {
                    Link { to: Route::Simulator {}, class: "nav-link", id: "nav-simulator", "Phone simulator" }
                }
                Link { to: Route::Agents {}, class: "nav-link", id: "nav-agents", "Agents" }
                Link { to: Route::Plans {}, class: "nav-link", id: "nav-plans", "Plans" }
                Link { to: Route::Operations {}, class: "nav-link", id: "nav-operations", "Operations" }
                Link { to: Route::Notifications {}, class: "nav-link", id: "nav-notifications", "Notifications" }
                Link { to: Route::Team {}, class: "nav-link", id: "nav-team", "Team" }
                ModelBadge {}
                div { class: "sidebar-foot",
                    div { class: "me", "{me.name}" }
                    div { class: "me-email", "{me.email}" }
                    button { class: "link-button", id: "sign-out", onclick: sign_out_click, "Sign out" }
                }
            }
            main { class: "content", Outlet::<Route> {} }
        }
    }
}

/// Says which model answers, and plainly when it is the built-in offline one.
#[component]
fn ModelBadge() -> Element {
    let info = use_resource(crate::ai_agent::api::model_info);
    let current = info.read().clone();
    match current {
        Some(Ok(m)) if m.offline => rsx! {
            div { class: "model-badge offline", id: "model-badge", title: "No API key is set: replies come from Herald's deterministic offline model.", "Offline model (no API key)" }
        },
        Some(Ok(m)) => rsx! { div { class: "model-badge", id: "model-badge", "Model: {m.label}" } },
        _ => rsx! {},
    }
}
