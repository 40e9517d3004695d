//! A person's own account: their password and sessions. (The owners' audit log is a page the
//! server renders, `audit_log::page`.)
use crate::ui::app::Route;
use crate::api_keys::api::{end_all_my_sessions, my_api_keys};
use crate::auth::account_api::{
    change_password, end_my_session, my_email_preference, my_sessions, set_email_notifications,
};
use crate::ui::components::{use_act, ErrorBanner};
use dioxus::prelude::*;

#[component]
pub fn Account() -> Element {
    let mut sessions = use_resource(my_sessions);
    let mut email = use_resource(my_email_preference);
    let keys = use_resource(my_api_keys);
    let mut revoke_keys = use_signal(|| true);
    let mut current = use_signal(String::new);
    let mut new = use_signal(String::new);
    let act = use_act();
    let mut note = use_signal(|| None::<String>);
    let change = move |e: FormEvent| async move {
        e.prevent_default();
        if let Some(n) = act.run(change_password(current(), new())).await {
            current.set(String::new());
            new.set(String::new());
            note.set(Some(format!(
                "Password changed. {n} other session(s) signed out."
            )));
            sessions.restart();
        }
    };
    let key_list = keys.read().clone().and_then(Result::ok).unwrap_or_default();
    let has_keys = !key_list.is_empty();
    let everywhere = move |_| async move {
        let revoke = has_keys && revoke_keys();
        if end_all_my_sessions(Some(revoke)).await.is_ok() {
            navigator().replace(Route::SignIn {});
        }
    };
    let list = sessions.read().clone();
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Your account" } }
            if let Some(Ok(pref)) = email.read().clone() {
                section { class: "card", id: "email-settings",
                    h2 { "Email" }
                    if pref.email_set_up {
                        label { class: "check",
                            input { r#type: "checkbox", id: "email-notifications", checked: pref.notifications,
                                onchange: move |e| async move {
                                    if act.run(set_email_notifications(e.checked())).await.is_some() {
                                        email.restart();
                                    }
                                } }
                            " Email my notifications to {pref.email} too"
                        }
                    } else {
                        p { class: "muted", id: "email-not-set-up", "Email is not set up on this server (SMTP_URL): notifications show in Herald only." }
                    }
                }
            }
            form { class: "card inline-form", id: "password-form", onsubmit: change,
                h2 { "Change your password" }
                ErrorBanner { message: act.error() }
                if let Some(n) = note() { p { class: "notice", id: "password-note", "{n}" } }
                input { id: "current-password", r#type: "password", autocomplete: "current-password", placeholder: "Current password", value: "{current}", oninput: move |e| current.set(e.value()) }
                input { id: "new-password", r#type: "password", autocomplete: "new-password", placeholder: "New password (8 characters or more)", value: "{new}", oninput: move |e| new.set(e.value()) }
                button { class: "primary", r#type: "submit", "Change password" }
            }
            section { class: "card",
                h2 { "Your sessions" }
                p { class: "muted", "Every browser and app signed in as you. Sign out any you do not recognise." }
                match list {
                    None => rsx! { p { class: "muted", "Loading…" } },
                    Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                    Some(Ok(rows)) => rsx! {
                        table { class: "table", id: "sessions",
                            thead { tr { th { "Device" } th { "Signed in" } th { "Last seen" } th { "" } } }
                            tbody {
                                for s in rows {
                                    tr { key: "{s.id}",
                                        td { class: "cell-title", "{s.device}" if s.current { span { class: "badge", " this browser" } } }
                                        td { "data-label": "Signed in", {crate::ui::components::day_time_utc(s.created_at)} }
                                        td { "data-label": "Last seen", {s.last_seen_at.map(crate::ui::components::day_time_utc).unwrap_or_else(|| "—".into())} }
                                        td {
                                            if !s.current {
                                                button { class: "link-button", onclick: move |_| async move {
                                                    let _ = end_my_session(s.id).await;
                                                    sessions.restart();
                                                }, "Sign out" }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    },
                }
                if has_keys {
                    h3 { "API keys you made" }
                    p { class: "muted", "They keep working for you after you sign out, until they are revoked." }
                    ul { id: "my-api-keys",
                        for k in key_list.iter() {
                            li { key: "{k.id}", "{k.name} ({k.prefix}…) in {k.organization_name}" }
                        }
                    }
                    label { class: "check",
                        input { id: "revoke-keys", r#type: "checkbox", checked: revoke_keys(),
                            onchange: move |e| revoke_keys.set(e.checked()) }
                        " Revoke them too when I sign out everywhere"
                    }
                }
                button { id: "sign-out-everywhere", class: "danger", onclick: everywhere, "Sign out everywhere" }
            }
        }
    }
}
