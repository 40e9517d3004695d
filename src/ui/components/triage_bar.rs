//! A conversation's state and assignee on its page: close or reopen it, snooze it, assign it to a
//! teammate; while a person's text has paused the AI, say so and offer Resume. The server checks
//! and records each change; the page reloads from the live event.
use crate::inbox::api::{assign_conversation, resume_ai, set_conversation_state};
use crate::inbox::model::{ConversationState, StateChange, Triage, SNOOZES};
use crate::team::api::list_members;
use crate::ui::components::{short_time, use_act, ErrorBanner};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn TriageBar(contact_id: Uuid, triage: Triage, on_changed: EventHandler<()>) -> Element {
    let members = use_resource(|| async { list_members().await.unwrap_or_default() });
    let mine = try_use_context::<crate::auth::model::CurrentUser>().map(|u| u.user_id);
    let act = use_act();
    // On a phone the controls fold behind one button (issue 51 §2); wider screens show them.
    let mut expanded = use_signal(|| false);
    // A state change, an assignee, or (neither) the end of the AI's pause.
    let run = move |change: Option<StateChange>, assignee: Option<Option<Uuid>>| {
        spawn(async move {
            let change = async move {
                match (change, assignee) {
                    (Some(c), _) => set_conversation_state(contact_id, c).await,
                    (None, Some(a)) => assign_conversation(contact_id, a).await,
                    (None, None) => resume_ai(contact_id).await,
                }
            };
            if act.run(change).await.is_some() {
                on_changed.call(());
            }
        });
    };
    let (badge, class) = match triage.state {
        ConversationState::Open => ("Open".to_owned(), "badge state-open"),
        ConversationState::Closed => ("Closed".to_owned(), "badge state-closed"),
        ConversationState::Snoozed => (
            match triage.snoozed_until {
                Some(t) => format!("Snoozed until {} UTC", short_time(t)),
                None => "Snoozed".to_owned(),
            },
            "badge state-snoozed",
        ),
    };
    let paused_by = triage
        .ai_paused_by
        .clone()
        .unwrap_or_else(|| "a teammate".into());
    let list = members.read().clone().unwrap_or_default();
    let assigned = triage
        .assignee
        .as_ref()
        .map(|a| a.user_id.to_string())
        .unwrap_or_default();
    rsx! {
        div { class: "triage-bar", id: "triage-bar",
            span { class, id: "conversation-state", "{badge}" }
            button { id: "triage-toggle", class: "secondary triage-toggle", r#type: "button",
                "aria-expanded": "{expanded()}", "aria-controls": "triage-controls",
                "aria-label": "Close, snooze or assign",
                onclick: move |_| expanded.toggle(), "⋯" }
            div { id: "triage-controls", class: if expanded() { "triage-controls open" } else { "triage-controls" },
            if triage.state == ConversationState::Open {
                button { id: "close-conversation", class: "secondary", disabled: act.busy(),
                    onclick: move |_| run(Some(StateChange::Close), None), "Close" }
            } else {
                button { id: "reopen-conversation", class: "secondary", disabled: act.busy(),
                    onclick: move |_| run(Some(StateChange::Open), None), "Reopen" }
            }
            select { id: "snooze-conversation", "aria-label": "Snooze", disabled: act.busy(),
                onchange: move |e| {
                    if let Ok(minutes) = e.value().parse::<u32>() {
                        run(Some(StateChange::SnoozeFor { minutes }), None);
                    }
                },
                option { value: "", selected: true, "Snooze…" }
                for (label, minutes) in SNOOZES {
                    option { value: "{minutes}", selected: false, "{label}" }
                }
            }
            label { class: "assignee",
                "Assigned to "
                select { id: "assign-conversation", disabled: act.busy(),
                    onchange: move |e| {
                        let v = e.value();
                        run(None, Some(v.parse::<Uuid>().ok()));
                    },
                    option { value: "", selected: assigned.is_empty(), "Nobody" }
                    for m in list {
                        option { key: "{m.user_id}", value: "{m.user_id}", selected: assigned == m.user_id.to_string(),
                            if Some(m.user_id) == mine { "Me ({m.name})" } else { "{m.name}" }
                        }
                    }
                }
            }
            }
            if let Some(until) = triage.ai_paused_until {
                div { class: "ai-paused", id: "ai-paused",
                    span { "AI paused: {paused_by} is handling this (until {short_time(until)} UTC)." }
                    button { id: "resume-ai", class: "secondary", disabled: act.busy(), onclick: move |_| run(None, None), "Resume AI" }
                }
            }
            ErrorBanner { message: act.error() }
        }
    }
}
