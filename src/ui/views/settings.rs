//! The organisation settings page: name, time zone and the rules every agent follows, and the
//! texting-law wording (HELP, the opt-out confirmation, AI disclosure, extra opt-out phrases).
//! The owner edits them; a member sees them read-only. Below them, the team's saved replies.
use crate::compliance::api::{compliance_settings, update_compliance_settings};
use crate::compliance::model::{ComplianceSettingsView, MAX_WORDING_CHARS};
use crate::ui::components::{use_is_owner, ErrorBanner};
use crate::organization::api::{org_settings, time_zones, update_org_settings};
use crate::organization::model::{
    OrgSettings, AI_PAUSE_HOURS_MAX, MAX_NAME_CHARS, MAX_RULES_CHARS,
};
use dioxus::prelude::*;

#[component]
pub fn Settings() -> Element {
    let settings = use_resource(org_settings);
    let compliance = use_resource(compliance_settings);
    let loaded = settings.read().clone();
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Organisation settings" } }
            match loaded {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(s)) => rsx! { SettingsForm { settings: s } },
            }
            match compliance.read().clone() {
                None => rsx! {},
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(v)) => rsx! { ComplianceForm { view: v } },
            }
            crate::ui::views::saved_replies::SavedRepliesCard {}
            crate::ui::views::provider::ProviderCard {}
            section { class: "card", id: "sending-card",
                h2 { "Sending" }
                p { "When a campaign pauses itself. " a { href: "/settings/sending", id: "sending-link", "Sending →" } }
            }
            section { class: "card", id: "developers-card",
                h2 { "API keys" }
                p { "Connect other systems to Herald with an API key. " a { href: "/developers", id: "developers-link", "Developers →" } }
            }
        }
    }
}

#[component]
fn SettingsForm(settings: OrgSettings) -> Element {
    let is_owner = use_is_owner();
    let reload_me = use_context::<crate::ui::views::shell::ReloadMe>();
    let mut form = use_signal(|| settings.clone());
    let mut error = use_signal(|| None::<String>);
    let time_zone_list = use_resource(time_zones);
    let mut saved = use_signal(|| false);
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        saved.set(false);
        match update_org_settings(form()).await {
            Ok(s) => {
                error.set(None);
                saved.set(true);
                form.set(s);
                // The top bar shows the organisation's name.
                reload_me.0.clone().restart();
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let rules_len = form.read().rules.trim().chars().count();
    let zones = time_zone_list.read().clone().and_then(Result::ok).unwrap_or_default();
    rsx! {
        form { class: "card settings-form", id: "settings-form", onsubmit: save,
            if !is_owner {
                p { class: "muted", id: "settings-owner-only", "Only the organisation's owner can change these settings." }
            }
            ErrorBanner { message: error() }
            label { "Name"
                input { id: "settings-name", maxlength: MAX_NAME_CHARS as i64, disabled: !is_owner,
                    value: "{form.read().name}", oninput: move |e| form.write().name = e.value() }
            }
            label { "Time zone"
                select { id: "settings-time-zone", disabled: !is_owner,
                    onchange: move |e| form.write().time_zone = e.value(),
                    // The saved zone stays offered while the list loads, or were it not in it.
                    if !zones.contains(&form.read().time_zone) {
                        option { value: "{form.read().time_zone}", selected: true, "{form.read().time_zone}" }
                    }
                    for z in zones.iter() {
                        option { key: "{z}", value: "{z}", selected: *z == form.read().time_zone, "{z}" }
                    }
                }
            }
            label { "Organisation rules"
                textarea { id: "settings-rules", rows: "6", maxlength: MAX_RULES_CHARS as i64, disabled: !is_owner,
                    placeholder: "Never quote prices by text. Sign off as the Acme front desk.",
                    value: "{form.read().rules}", oninput: move |e| form.write().rules = e.value() }
            }
            p { class: "muted small", id: "settings-rules-help",
                "Every agent follows these rules on every turn, above its own, and so do campaign drafts. A contact's text can never change them. {rules_len} of {MAX_RULES_CHARS} characters."
            }
            label { "Pause the AI after a person texts by hand (hours)"
                input { id: "settings-ai-pause", r#type: "number", min: "1", max: "{AI_PAUSE_HOURS_MAX}", disabled: !is_owner,
                    value: "{form.read().ai_pause_hours}",
                    oninput: move |e| form.write().ai_pause_hours = e.value().trim().parse().unwrap_or(0) }
            }
            p { class: "muted small", "When someone on the team replies in a conversation, autonomous agents stay silent there for this long (or until someone presses Resume). Suggestions go on." }
            label { "Link domains for saved replies (one per line)"
                textarea { id: "settings-link-domains", rows: "3", disabled: !is_owner,
                    placeholder: "brightsmile.example",
                    value: "{form.read().link_domains}", oninput: move |e| form.write().link_domains = e.value() }
            }
            p { class: "muted small", "A saved reply's links become Herald short links (counted per contact) when an owner wrote it, or when they go to one of these domains. Other links are sent as written, so nobody can hide where a link goes." }
            if is_owner {
                div { class: "row",
                    button { id: "settings-save", class: "primary", r#type: "submit", "Save settings" }
                    if saved() { span { class: "ok", "Saved." } }
                }
            }
        }
    }
}

/// Texting law: the wording Herald sends on the organisation's behalf, and its own opt-out words.
#[component]
fn ComplianceForm(view: ComplianceSettingsView) -> Element {
    let is_owner = use_is_owner();
    let mut form = use_signal(|| view.settings.clone());
    let mut error = use_signal(|| None::<String>);
    let mut saved = use_signal(|| false);
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        saved.set(false);
        match update_compliance_settings(form()).await {
            Ok(v) => {
                error.set(None);
                saved.set(true);
                form.set(v.settings);
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    rsx! {
        form { class: "card settings-form", id: "compliance-form", onsubmit: save,
            h2 { "Texting law" }
            p { class: "muted small", "Herald honours an opt-out in any words, answers HELP, and checks consent, quiet hours and state rules as every text leaves. Leave a text empty to use the default shown." }
            ErrorBanner { message: error() }
            label { "Answer to HELP"
                textarea { id: "compliance-help", rows: "2", maxlength: MAX_WORDING_CHARS as i64, disabled: !is_owner,
                    placeholder: "{view.default_help_text}",
                    value: "{form.read().help_text}", oninput: move |e| form.write().help_text = e.value() }
            }
            label { "Opt-out confirmation (one text, no marketing)"
                textarea { id: "compliance-opt-out-reply", rows: "2", maxlength: MAX_WORDING_CHARS as i64, disabled: !is_owner,
                    placeholder: "{view.default_opt_out_reply}",
                    value: "{form.read().opt_out_reply}", oninput: move |e| form.write().opt_out_reply = e.value() }
            }
            label { class: "check",
                input { r#type: "checkbox", id: "compliance-disclose", disabled: !is_owner, checked: form.read().ai_disclosure,
                    onchange: move |e| form.write().ai_disclosure = e.checked() }
                "An autonomous agent says it is automated in its first reply of a conversation (and again after 30 days)"
            }
            label { "AI disclosure"
                input { id: "compliance-disclosure-text", maxlength: MAX_WORDING_CHARS as i64, disabled: !is_owner,
                    placeholder: "{view.default_ai_disclosure_text}",
                    value: "{form.read().ai_disclosure_text}", oninput: move |e| form.write().ai_disclosure_text = e.value() }
            }
            label { "More opt-out words, one per line"
                textarea { id: "compliance-phrases", rows: "3", disabled: !is_owner,
                    placeholder: "no gracias\nplease unsubscribe my mother",
                    value: "{form.read().opt_out_phrases}", oninput: move |e| form.write().opt_out_phrases = e.value() }
            }
            if is_owner {
                div { class: "row",
                    button { id: "compliance-save", class: "primary", r#type: "submit", "Save texting settings" }
                    if saved() { span { class: "ok", "Saved." } }
                }
            }
        }
    }
}
