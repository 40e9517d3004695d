//! Legacy suggesters on the agents page: numbers with no AI agent (and contacts bound to one)
//! get three suggested replies from a suggester. The owner creates and edits them, turns on
//! auto-reply above a confidence threshold, and binds them to numbers and contacts.
use crate::ai_agent::model::{TextAgentInput, TextAgentView};
use crate::ai_agent::text_agents_api::{
    bind_text_agent, create_text_agent, list_text_agents, update_text_agent,
};
use crate::phone_numbers::model::PhoneNumberView;
use crate::ui::components::{use_is_owner, ErrorBanner};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn Suggesters() -> Element {
    let is_owner = use_is_owner();
    let mut list = use_resource(list_text_agents);
    let numbers = use_resource(crate::phone_numbers::api::list_phone_numbers);
    let mut form = use_signal(TextAgentInput::default);
    let mut error = use_signal(|| None::<String>);
    let create = move |e: FormEvent| async move {
        e.prevent_default();
        match create_text_agent(form()).await {
            Ok(_) => {
                form.set(TextAgentInput::default());
                error.set(None);
                list.restart();
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let numbers = numbers
        .read()
        .clone()
        .and_then(Result::ok)
        .unwrap_or_default();
    let current = list.read().clone();
    rsx! {
        section { class: "suggesters", id: "suggesters",
            h2 { "Legacy suggesters" }
            p { class: "muted small", "A number with no agent, or a contact bound to a suggester, gets three suggested replies in the conversation. With auto-reply, the best one is sent when it is at least as confident as the threshold." }
            match current {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(rows)) => rsx! {
                    for a in rows {
                        SuggesterCard { key: "{a.id}", agent: a, numbers: numbers.clone(), on_saved: move |_| list.restart() }
                    }
                },
            }
            if is_owner {
                form { class: "card inline-form", id: "new-suggester", onsubmit: create,
                    h3 { "New suggester" }
                    ErrorBanner { message: error() }
                    input { id: "suggester-name", placeholder: "Name", value: "{form.read().name}", oninput: move |e| form.write().name = e.value() }
                    button { class: "secondary", r#type: "submit", "Create suggester" }
                }
            }
        }
    }
}

#[component]
fn SuggesterCard(
    agent: TextAgentView,
    numbers: Vec<PhoneNumberView>,
    on_saved: EventHandler<()>,
) -> Element {
    let id = agent.id;
    let is_owner = use_is_owner();
    let mut form = use_signal(|| TextAgentInput {
        name: agent.name.clone(),
        persona: agent.persona.clone(),
        auto_reply: agent.auto_reply,
        confidence_threshold: agent.confidence_threshold,
    });
    let mut chosen = use_signal(|| agent.number_ids.clone());
    let mut bound = use_signal(|| agent.contacts.clone());
    let mut search = use_signal(String::new);
    let found = use_resource(move || async move {
        let q = search();
        if q.trim().len() < 2 {
            return Vec::new();
        }
        crate::contacts::api::search_contacts(q)
            .await
            .map(|p| p.items)
            .unwrap_or_default()
    });
    let mut error = use_signal(|| None::<String>);
    let mut saved = use_signal(|| false);
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        saved.set(false);
        let contact_ids: Vec<Uuid> = bound().iter().map(|(c, _)| *c).collect();
        let res = match update_text_agent(id, form()).await {
            Ok(_) => bind_text_agent(id, chosen(), contact_ids).await,
            Err(e) => Err(e),
        };
        match res {
            Ok(_) => {
                error.set(None);
                saved.set(true);
                on_saved.call(());
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    rsx! {
        form { class: "card suggester-card", "data-suggester": "{agent.name}", onsubmit: save,
            ErrorBanner { message: error() }
            label { "Name" input { class: "suggester-name", disabled: !is_owner, value: "{form.read().name}", oninput: move |e| form.write().name = e.value() } }
            label { "Persona"
                textarea { class: "suggester-persona", rows: "2", disabled: !is_owner, placeholder: "Who it speaks as, and how",
                    value: "{form.read().persona}", oninput: move |e| form.write().persona = e.value() }
            }
            div { class: "row",
                label { class: "check",
                    input { class: "suggester-auto", r#type: "checkbox", disabled: !is_owner, checked: form.read().auto_reply,
                        onchange: move |e| form.write().auto_reply = e.checked() }
                    " Auto-reply"
                }
                label { "Confidence threshold"
                    input { class: "suggester-threshold", r#type: "number", min: "0", max: "1", step: "0.05", disabled: !is_owner,
                        value: "{form.read().confidence_threshold}",
                        oninput: move |e| if let Ok(v) = e.value().parse() { form.write().confidence_threshold = v } }
                }
            }
            h3 { "Numbers" }
            for n in numbers {
                label { class: "check", key: "{n.id}",
                    input { r#type: "checkbox", class: "suggester-number", "data-number": "{n.number}", disabled: !is_owner,
                        checked: chosen.read().contains(&n.id),
                        onchange: move |e| {
                            let mut c = chosen.write();
                            c.retain(|x| *x != n.id);
                            if e.checked() {
                                c.push(n.id);
                            }
                        },
                    }
                    " {n.friendly_name} ({n.number})"
                }
            }
            h3 { "Contacts" }
            ul { class: "suggester-contacts",
                for (cid, name) in bound() {
                    li { key: "{cid}", "{name} "
                        if is_owner {
                            button { r#type: "button", class: "link-button", onclick: move |_| bound.write().retain(|(c, _)| *c != cid), "Remove" }
                        }
                    }
                }
            }
            if is_owner {
                input { class: "suggester-contact-search", placeholder: "Add a contact: search by name or phone", value: "{search}", oninput: move |e| search.set(e.value()) }
                ul { class: "suggester-found",
                    for c in found.read().clone().unwrap_or_default().into_iter().take(8) {
                        li { key: "{c.id}",
                            button { r#type: "button", class: "link-button suggester-add", onclick: move |_| {
                                if !bound.read().iter().any(|(b, _)| *b == c.id) {
                                    bound.write().push((c.id, c.name.clone()));
                                }
                                search.set(String::new());
                            }, "Bind {c.name}" }
                        }
                    }
                }
                div { class: "row",
                    button { class: "primary suggester-save", r#type: "submit", "Save suggester" }
                    if saved() { span { class: "ok", "Saved." } }
                }
            } else {
                p { class: "muted small", "Only the organisation's owner changes suggesters." }
            }
        }
    }
}
