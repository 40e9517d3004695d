//! The "Twilio account" card of the settings page: which account the organisation texts through,
//! and, for owners, connecting or replacing it. Secrets are typed, never shown back.
use crate::provider_accounts::api::{connect_twilio, provider_settings};
use crate::provider_accounts::model::{validate, TwilioAccountInput};
use crate::ui::components::{use_act, use_is_owner, ErrorBanner};
use dioxus::prelude::*;

#[component]
pub fn ProviderCard() -> Element {
    let mut settings = use_resource(provider_settings);
    let owner = use_is_owner();
    let mut form = use_signal(TwilioAccountInput::default);
    let act = use_act();
    let mut saved = use_signal(|| false);
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        saved.set(false);
        if let Err(m) = validate(&form()) {
            act.fail(m);
            return;
        }
        if act.run(connect_twilio(form())).await.is_some() {
            saved.set(true);
            form.set(TwilioAccountInput::default());
            settings.restart();
        }
    };
    let Some(Ok(s)) = settings.read().clone() else {
        return rsx! {};
    };
    rsx! {
        section { class: "card", id: "provider-card",
            h2 { "Twilio account" }
            match &s.connected {
                Some(c) => {
                    let day = crate::ui::components::day(c.updated_at);
                    rsx! {
                        p { id: "provider-connected", "Texts go out through Twilio account {c.account} ({c.rest_auth}), connected by {c.connected_by} on {day}." }
                    }
                }
                None if s.transport == "twilio" => rsx! {
                    p { class: "muted", "No account of your own is connected: texts go out through this server's Twilio account, when its operator allows it." }
                },
                None => rsx! {
                    p { class: "muted", "This server sends through its local outbox (nothing reaches a phone), so no Twilio account is needed." }
                },
            }
            if owner && s.transport == "twilio" {
                if !s.can_connect {
                    p { class: "muted", "To connect an account, the server's operator sets HERALD_SECRET_KEY (credentials are stored encrypted with it)." }
                } else {
                    form { class: "inline-form", onsubmit: save,
                        ErrorBanner { message: act.error() }
                        if saved() { p { class: "notice", id: "provider-saved", "Connected. Twilio accepted the credentials." } }
                        input { id: "twilio-sid", placeholder: "Account SID (AC…)", autocomplete: "off", value: "{form.read().account_sid}", oninput: move |e| form.write().account_sid = e.value() }
                        input { id: "twilio-token", r#type: "password", placeholder: "Auth Token", autocomplete: "off", value: "{form.read().auth_token}", oninput: move |e| form.write().auth_token = e.value() }
                        input { id: "twilio-key", placeholder: "API key SID (SK…, optional)", autocomplete: "off", value: "{form.read().api_key_sid}", oninput: move |e| form.write().api_key_sid = e.value() }
                        input { id: "twilio-secret", r#type: "password", placeholder: "API key secret (optional)", autocomplete: "off", value: "{form.read().api_key_secret}", oninput: move |e| form.write().api_key_secret = e.value() }
                        button { class: "primary", r#type: "submit", if s.connected.is_some() { "Replace account" } else { "Connect account" } }
                    }
                }
            }
        }
    }
}
