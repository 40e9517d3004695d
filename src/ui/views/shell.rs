//! The signed-in shell: navigation and the current user. Each page opens its own live
//! subscription (`use_live`).
use crate::ai_agent::model::ModelInfo;
use crate::attention::model::{badge, BADGE_MAX};
use crate::auth::api::{current_user, sign_out};
use crate::auth::model::CurrentUser;
use crate::messaging::model::InboxFilter;
use crate::ui::app::Route;
use crate::ui::components::AttentionTick;
use crate::ui::views::inbox::InboxView;
use dioxus::prelude::*;

/// Reads the signed-in person again (after the organisation's name changed, say).
#[derive(Clone, Copy)]
pub struct ReloadMe(pub Resource<Result<Option<CurrentUser>, crate::error::AppError>>);

#[component]
pub fn Shell() -> Element {
    let user = use_resource(current_user);
    use_context_provider(|| ReloadMe(user));

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
    let mut menu_open = use_signal(|| false);
    // The counts follow the page: a new route re-reads them.
    let route = use_route::<Route>();
    let mut seen = use_signal(|| route.clone());
    if *seen.peek() != route {
        seen.set(route.clone());
    }
    let tick = use_context_provider(|| AttentionTick(Signal::new(0))).0;
    // The inbox's view, chosen on the inbox page or from the sidebar's Mine and Unassigned.
    let mut inbox_view = use_context_provider(|| InboxView(Signal::new(InboxFilter::Open))).0;
    let mut me_again = use_context::<ReloadMe>().0;
    let counts = use_resource(move || async move {
        let _ = (seen(), tick());
        match crate::attention::api::attention().await {
            Ok(c) => c,
            // The session ended (removed, or signed out elsewhere): read who is signed in again,
            // which takes this tab to the sign-in page.
            Err(crate::error::AppError::Unauthorized) => {
                me_again.restart();
                Default::default()
            }
            Err(_) => Default::default(),
        }
    });
    let counts = counts.read().clone().unwrap_or_default();
    let model = use_resource(crate::ai_agent::api::model_info);
    let model = model.read().clone().and_then(Result::ok);
    let sign_out_click = move |_| async move {
        let _ = sign_out().await;
        navigator().replace(Route::SignIn {});
    };
    let drawer = if menu_open() { "open" } else { "" };
    rsx! {
        div { class: "shell",
            header { class: "topbar", id: "topbar",
                span { class: "brand", "Herald" }
                span { class: "org-name", "{me.organization_name}" }
                ModelBadge { model: model.clone(), compact: true }
                button { class: "menu-button", id: "menu-button", aria_label: "Menu", aria_expanded: "{menu_open()}",
                    onclick: move |_| menu_open.toggle(), "☰" }
            }
            div { class: "drawer-scrim {drawer}", onclick: move |_| menu_open.set(false) }
            // On a phone the sidebar is a drawer: any tap in it (a link, sign out) closes it.
            nav { class: "sidebar {drawer}", id: "sidebar", onclick: move |_| menu_open.set(false),
                div { class: "brand", "Herald" }
                div { class: "org-name", "{me.organization_name}" }
                Link { to: Route::Inbox {}, class: "nav-link", id: "nav-inbox",
                    onclick: move |_| inbox_view.set(InboxFilter::Open), "Inbox"
                    Count { n: counts.unread_conversations + counts.possible_opt_outs, label: "unread conversations and possible opt-outs" }
                }
                Link { to: Route::Inbox {}, class: "nav-link nav-sub", id: "nav-mine",
                    onclick: move |_| inbox_view.set(InboxFilter::Mine), "Mine"
                    Count { n: counts.mine, label: "open conversations assigned to you" }
                }
                Link { to: Route::Inbox {}, class: "nav-link nav-sub", id: "nav-unassigned",
                    onclick: move |_| inbox_view.set(InboxFilter::Unassigned), "Unassigned"
                    Count { n: counts.unassigned, label: "open conversations nobody is assigned" }
                }
                Link { to: Route::Assistant {}, class: "nav-link", id: "nav-assistant", "Assistant" }
                Link { to: Route::Contacts {}, class: "nav-link", id: "nav-contacts", "Contacts" }
                Link { to: Route::PhoneNumbers {}, class: "nav-link", id: "nav-numbers", "Phone numbers" }
                if me.simulator_enabled {
                    Link { to: Route::Simulator {}, class: "nav-link", id: "nav-simulator", "Phone simulator" }
                }
                Link { to: Route::Agents {}, class: "nav-link", id: "nav-agents", "Agents" }
                a { href: "/knowledge", class: "nav-link nav-sub", id: "nav-knowledge", "Knowledge" }
                Link { to: Route::Plans {}, class: "nav-link", id: "nav-plans", "Plans"
                    Count { n: counts.plans_awaiting_approval + counts.steps_waiting, label: "plans awaiting approval and steps awaiting confirmation" }
                }
                Link { to: Route::Operations {}, class: "nav-link", id: "nav-operations", "Operations" }
                a { href: "/campaigns/new", class: "nav-link nav-sub", id: "nav-new-campaign", "New campaign" }
                a { href: "/reports", class: "nav-link", id: "nav-reports", "Reports" }
                Link { to: Route::Notifications {}, class: "nav-link", id: "nav-notifications", "Notifications"
                    Count { n: counts.unread_notifications, label: "unread notifications" }
                }
                Link { to: Route::Team {}, class: "nav-link", id: "nav-team", "Team" }
                Link { to: Route::Settings {}, class: "nav-link", id: "nav-settings", "Settings" }
                Link { to: Route::Account {}, class: "nav-link", id: "nav-account", "Your account" }
                ModelBadge { model: model.clone(), compact: false }
                div { class: "sidebar-foot",
                    div { class: "me", "{me.name}" }
                    div { class: "me-email", "{me.email}" }
                    if me.organizations.len() > 1 {
                        OrganizationSwitcher { me: me.clone() }
                    }
                    button { class: "link-button", id: "sign-out", onclick: sign_out_click, "Sign out" }
                }
            }
            main { class: "content",
                for b in counts.banners.iter() {
                    a { class: "error-banner owner-banner", role: "alert", href: "/settings/sending", "{b}" }
                }
                Outlet::<Route> {}
            }
            // Phones: the four main pages under the thumb, and the drawer for the rest.
            nav { class: "tabbar", id: "tabbar",
                Link { to: Route::Inbox {}, class: "tab", active_class: "active", id: "tab-inbox",
                    onclick: move |_| inbox_view.set(InboxFilter::Open),
                    span { class: "tab-icon", "✉" } "Inbox"
                    TabCount { n: counts.unread_conversations + counts.possible_opt_outs }
                }
                Link { to: Route::Assistant {}, class: "tab", active_class: "active", id: "tab-assistant",
                    span { class: "tab-icon", "✦" } "Assistant"
                }
                Link { to: Route::Contacts {}, class: "tab", active_class: "active", id: "tab-contacts",
                    span { class: "tab-icon", "☺" } "Contacts"
                }
                Link { to: Route::Plans {}, class: "tab", active_class: "active", id: "tab-plans",
                    span { class: "tab-icon", "☑" } "Plans"
                    TabCount { n: counts.plans_awaiting_approval + counts.steps_waiting }
                }
                button { class: "tab", id: "tab-more", onclick: move |_| menu_open.set(true),
                    span { class: "tab-icon", "☰" } "More"
                    TabCount { n: counts.unread_notifications }
                }
            }
        }
    }
}

/// The account menu's switcher, for an account in several organisations: choosing one opens it
/// in a new session, and the app starts again there.
#[component]
fn OrganizationSwitcher(me: CurrentUser) -> Element {
    let change = move |e: FormEvent| async move {
        let Ok(id) = e.value().parse::<uuid::Uuid>() else {
            return;
        };
        if crate::auth::api::switch_organization(id).await.is_ok() {
            // Every page's data was the other organisation's: start the app afresh.
            document::eval("location.replace('/')");
        }
    };
    rsx! {
        label { class: "org-switch",
            "Organisation"
            select { id: "org-switch", onchange: change, onclick: |e| e.stop_propagation(),
                for o in me.organizations.iter() {
                    option { value: "{o.id}", selected: o.id == me.organization_id, "{o.name}" }
                }
            }
        }
    }
}

/// A count beside a sidebar link, when there is something to see; "999+" past 999.
#[component]
fn Count(n: u64, label: &'static str) -> Element {
    let shown = badge(n);
    let title = if n > BADGE_MAX {
        format!("more than {BADGE_MAX} {label}")
    } else {
        format!("{n} {label}")
    };
    rsx! {
        if n > 0 {
            span { class: "nav-count", title, "{shown}" }
        }
    }
}

/// A count on a tab of the phone's tab bar.
#[component]
fn TabCount(n: u64) -> Element {
    rsx! {
        if n > 0 {
            span { class: "count", "{badge(n)}" }
        }
    }
}

/// Says which model answers, and plainly when it is the built-in offline one. The sidebar has
/// the full badge; a phone's top bar a short one, so the drawer need not be opened to know.
#[component]
fn ModelBadge(model: Option<ModelInfo>, compact: bool) -> Element {
    let id = if compact {
        "topbar-model"
    } else {
        "model-badge"
    };
    let size = if compact { "compact" } else { "" };
    match model {
        Some(m) if m.offline => rsx! {
            div { class: "model-badge offline {size}", id, title: "No API key is set: replies come from Herald's deterministic offline model.",
                if compact { "Offline model" } else { "Offline model (no API key)" }
            }
        },
        Some(m) => {
            rsx! { div { class: "model-badge {size}", id, title: "Model: {m.label}", if compact { "AI on" } else { "Model: {m.label}" } } }
        }
        None => rsx! {},
    }
}
