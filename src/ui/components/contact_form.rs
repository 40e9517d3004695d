//! The contact form: details, tags, custom fields, time zone, consent, and the opt-out box. The
//! contacts page opens it as a side sheet; the contact page shows it in place.
use crate::compliance::model::{ConsentInput, ConsentSource};
use crate::contacts::api::{create_contact, set_contact_opt_out, update_contact};
use crate::contacts::model::{ContactInput, ContactView};
use crate::ui::components::{use_is_owner, ErrorBanner};
use dioxus::prelude::*;
use uuid::Uuid;

fn input_from(c: &ContactView) -> ContactInput {
    ContactInput {
        name: c.name.clone(),
        phone: c.phone.clone().unwrap_or_default(),
        email: c.email.clone().unwrap_or_default(),
        tags: vec![c.tags.join(", ")],
        custom_fields: c.custom_fields.clone(),
        notes: c.notes.clone(),
        time_zone: c.time_zone.clone().unwrap_or_default(),
        consent: Some(ConsentInput {
            source: c.consent_source,
            note: c.consent_note.clone(),
        }),
    }
}

/// While `dirty`, closing the tab or following a link asks before what was typed is lost (one
/// listener each, installed once; a link's click is stopped before the router sees it). Written
/// short: it is part of the first load.
fn guard_leaving(dirty: bool) {
    let js = "const w=window;if(!w.hg){w.hg=1;addEventListener('beforeunload',e=>{if(w.hd)e.preventDefault()});\
document.addEventListener('click',e=>{const a=e.target.closest&&e.target.closest('a[href]');if(!a)return;\
if(w.hd&&!a.download&&!confirm('Leave without saving the contact? What you typed will be lost.')){e.preventDefault();e.stopImmediatePropagation()}else w.hd=0},true)}w.hd=";
    document::eval(&(js.to_owned() + if dirty { "1" } else { "0" }));
}

/// A field's value as the form shows it: text as it is, anything else as JSON.
fn shown(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `contact`: the contact edited, or None for a new one. `on_saved` hears of every change
/// (a save, an opt-out); `on_close`, when given, is a Close button and follows a save.
#[component]
pub fn ContactForm(
    contact: Option<ContactView>,
    on_saved: EventHandler<ContactView>,
    on_close: Option<EventHandler<()>>,
    /// Offers a link to the contact's own page (from the contacts list's side sheet).
    #[props(default)]
    link_to_page: bool,
) -> Element {
    let is_owner = use_is_owner();
    let editing = contact.clone();
    let mut current = use_signal(|| contact.clone());
    let mut form = use_signal(|| contact.as_ref().map(input_from).unwrap_or_default());
    let mut error = use_signal(|| None::<String>);
    let mut clear_reason = use_signal(String::new);
    let mut new_field = use_signal(|| (String::new(), String::new()));
    let mut saved = use_signal(|| false);
    // Typed and not saved: leaving the page (or following a link) asks first.
    use_effect(move || {
        guard_leaving(
            !new_field.read().0.trim().is_empty()
                || *form.read() != current.read().as_ref().map(input_from).unwrap_or_default(),
        )
    });
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        saved.set(false);
        // A field typed but not added goes in with the rest.
        let (k, v) = new_field();
        if !k.trim().is_empty() {
            form.write()
                .custom_fields
                .insert(k.trim().to_owned(), v.into());
        }
        let res = match current() {
            Some(c) => update_contact(c.id, form()).await,
            None => create_contact(form()).await,
        };
        match res {
            Ok(done) => {
                error.set(None);
                new_field.set((String::new(), String::new()));
                form.set(input_from(&done));
                current.set(Some(done.clone()));
                saved.set(true);
                on_saved.call(done);
                // The side sheet closes once saved; the contact page keeps its form.
                if let Some(close) = on_close {
                    close.call(());
                }
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let toggle_opt_out = move |id: Uuid, opted_out: bool| async move {
        let reason = (!opted_out).then(|| clear_reason.read().clone());
        match set_contact_opt_out(id, opted_out, reason).await {
            Ok(updated) => {
                clear_reason.set(String::new());
                current.set(Some(updated.clone()));
                on_saved.call(updated);
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let fields: Vec<(String, String)> = form
        .read()
        .custom_fields
        .iter()
        .map(|(k, v)| (k.clone(), shown(v)))
        .collect();
    rsx! {
        form { class: "card side-form", id: "contact-form", onsubmit: save,
            h2 { if editing.is_some() { "Edit contact" } else { "New contact" } }
            if let Some(c) = current().filter(|_| link_to_page) {
                Link { id: "contact-open", to: crate::ui::app::Route::ContactPage { contact_id: c.id }, "Open the contact page →" }
            }
            ErrorBanner { message: error() }
            label { "Name" input { id: "contact-name", value: "{form.read().name}", oninput: move |e| form.write().name = e.value() } }
            label { "Phone" input { id: "contact-phone", placeholder: "+1 415 555 2671", value: "{form.read().phone}", oninput: move |e| form.write().phone = e.value() } }
            label { "Email" input { id: "contact-email", value: "{form.read().email}", oninput: move |e| form.write().email = e.value() } }
            label { "Tags (comma-separated)" input { id: "contact-tags", value: "{form.read().tags.join(\", \")}", oninput: move |e| form.write().tags = vec![e.value()] } }
            fieldset { class: "custom-fields", id: "contact-fields",
                legend { "Custom fields" }
                for (k, v) in fields {
                    div { key: "{k}", class: "row field-row",
                        span { class: "field-name", "{k}" }
                        input { class: "field-value", "data-field": "{k}", value: "{v}",
                            oninput: {
                                let k = k.clone();
                                move |e: FormEvent| { form.write().custom_fields.insert(k.clone(), e.value().into()); }
                            } }
                        button { r#type: "button", class: "icon", title: "Remove {k}",
                            onclick: {
                                let k = k.clone();
                                move |_| { form.write().custom_fields.remove(&k); }
                            }, "×" }
                    }
                }
                div { class: "row field-row",
                    input { id: "field-new-name", placeholder: "Field", value: "{new_field.read().0}", oninput: move |e| new_field.write().0 = e.value() }
                    input { id: "field-new-value", placeholder: "Value", value: "{new_field.read().1}", oninput: move |e| new_field.write().1 = e.value() }
                    button { id: "field-add", r#type: "button", class: "secondary",
                        disabled: new_field.read().0.trim().is_empty(),
                        onclick: move |_| {
                            let (k, v) = new_field();
                            form.write().custom_fields.insert(k.trim().to_owned(), v.into());
                            new_field.set((String::new(), String::new()));
                        }, "Add" }
                }
            }
            label { "Time zone" input { id: "contact-tz", placeholder: "America/Los_Angeles", value: "{form.read().time_zone}", oninput: move |e| form.write().time_zone = e.value() } }
            label { "Notes" textarea { rows: "3", value: "{form.read().notes}", oninput: move |e| form.write().notes = e.value() } }
            label { "Consent to texts"
                select { id: "contact-consent",
                    onchange: move |e| {
                        let source = ConsentSource::parse(&e.value()).unwrap_or_default();
                        let note = form.read().consent.clone().unwrap_or_default().note;
                        form.write().consent = Some(ConsentInput { source, note });
                    },
                    for c in ConsentSource::ALL {
                        option { value: c.as_str(), selected: form.read().consent.as_ref().map(|x| x.source).unwrap_or_default() == c, "{c.label()}" }
                    }
                }
            }
            label { "Consent evidence"
                input { id: "contact-consent-note", placeholder: "Signed up on the booking form, 3 March",
                    value: "{form.read().consent.clone().unwrap_or_default().note}",
                    oninput: move |e| {
                        let source = form.read().consent.clone().unwrap_or_default().source;
                        form.write().consent = Some(ConsentInput { source, note: e.value() });
                    } }
            }
            p { class: "muted small", "Campaigns and other texts the business starts need written consent (a web form, or an import whose file records it). A contact who texted first may be answered." }
            if let Some(z) = current().and_then(|c| c.inferred_zone) {
                p { class: "muted small", id: "contact-inferred-zone", "Without a time zone, texts follow {z}." }
            }
            div { class: "row",
                button { id: "contact-save", class: "primary", r#type: "submit", "Save" }
                if saved() { span { class: "ok", id: "contact-saved", "Saved." } }
                if let Some(close) = on_close {
                    button { id: "contact-close", class: "secondary", r#type: "button", onclick: move |_| { guard_leaving(false); close.call(()) }, "Close" }
                }
            }
            if let Some(c) = current() {
                div { class: "opt-out-box",
                    if c.opted_out {
                        p { "Opted out of SMS ({c.opt_out_source.clone().unwrap_or_default()})." }
                        if is_owner {
                            label { "Why may they be texted again?"
                                input { id: "opt-in-reason", placeholder: "They signed a new consent form on 3 March",
                                    value: "{clear_reason}", oninput: move |e| clear_reason.set(e.value()) }
                            }
                            button { id: "opt-in", class: "secondary", r#type: "button", disabled: clear_reason.read().trim().is_empty(), onclick: move |_| toggle_opt_out(c.id, false), "Opt back in" }
                        } else {
                            p { class: "muted small", id: "opt-in-owner-only", "Only an owner can opt them back in; a contact who texted STOP can text START." }
                        }
                    } else {
                        p { class: "muted", "Subscribed to SMS." }
                        button { id: "opt-out", class: "danger", r#type: "button", onclick: move |_| toggle_opt_out(c.id, true), "Opt out manually" }
                    }
                }
            }
        }
    }
}
