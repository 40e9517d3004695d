//! The Assistant: chat with your CRM assistant; the Plan switch asks for a read-only planning
//! turn, and plans it presents appear as cards to approve, edit or reject.
use crate::ai_agent::api::ask_assistant;
use crate::messaging::model::LiveTopic;
use crate::plans::api::get_assistant;
use crate::ui::components::use_live;
use crate::ui::components::{short_time, ErrorBanner, PlanCard};
use dioxus::prelude::*;

#[component]
pub fn Assistant() -> Element {
    let live = use_live(LiveTopic::Threads);
    let mut data = use_resource(move || {
        let _ = live();
        get_assistant()
    });
    let mut text = use_signal(String::new);
    let mut plan_mode = use_signal(|| false);
    let mut error = use_signal(|| None::<String>);
    let send = move |e: FormEvent| async move {
        e.prevent_default();
        match ask_assistant(text(), plan_mode()).await {
            Ok(_) => {
                text.set(String::new());
                error.set(None);
                data.restart();
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let current = data.read().clone();
    rsx! {
        div { class: "page assistant-page",
            header { class: "page-head", h1 { "Assistant" } }
            match current {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(view)) => rsx! {
                    if view.events.is_empty() {
                        p { class: "muted", "Ask about your contacts, or turn on Plan and ask for work, like \"tag everyone who has not replied in 30 days as quiet\"." }
                    }
                    div { class: "assistant-log", id: "assistant-log",
                        for e in view.events.iter().filter(|e| e.kind != "turn_started") {
                            div { key: "{e.id}", class: "assistant-entry kind-{e.kind}",
                                span { class: "event-summary", "{e.summary}" }
                                span { class: "muted small", " {short_time(e.created_at)}" }
                                // Words, not tool-call arguments: the plan card shows what a plan says.
                                if e.kind == "user_message" || (e.kind == "assistant" && e.summary == "Agent") {
                                    if let Some(d) = e.detail.clone() { p { class: "assistant-text", "{d}" } }
                                }
                            }
                        }
                    }
                    if view.plans_total > view.plans.len() as u64 {
                        p { class: "muted small", id: "assistant-plans-count",
                            "The newest {view.plans.len()} of this conversation's {view.plans_total} plans; every one is on the Plans page."
                        }
                    }
                    for p in view.plans.iter().rev() {
                        PlanCard { key: "{p.id}-{p.updated_at}", plan: p.clone(), on_changed: move |_| data.restart() }
                    }
                    if !view.planning_enabled {
                        p { class: "notice", "Planning is off for your assistant; turn it on in Agents to let it plan." }
                    }
                },
            }
            form { class: "composer assistant-composer", onsubmit: send,
                ErrorBanner { message: error() }
                div { class: "composer-row",
                    label { class: "check plan-switch", title: "Plan mode: the assistant researches read-only and presents a plan; nothing changes until it is approved.",
                        input { id: "plan-switch", r#type: "checkbox", checked: plan_mode(), onchange: move |e| plan_mode.set(e.checked()) }
                        " Plan"
                    }
                    textarea { id: "assistant-input", rows: "2", placeholder: "Ask your assistant…", value: "{text}", oninput: move |e| text.set(e.value()) }
                    button { id: "assistant-send", class: "primary", r#type: "submit", disabled: text.read().trim().is_empty(), "Send" }
                }
            }
        }
    }
}
