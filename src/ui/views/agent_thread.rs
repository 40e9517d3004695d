//! An agent's thread: inbound texts, tool calls with their arguments and results, replies and
//! escalations, updated live; the agent's owner instructs it from the composer, with the Plan
//! switch asking for a plan instead of action.
use crate::ai_agent::api::get_thread_events;
use crate::ui::components::use_live;
use crate::ui::components::{short_time, ErrorBanner};
use crate::messaging::model::LiveTopic;
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn AgentThread(thread_id: Uuid) -> Element {
    let live = use_live(LiveTopic::Thread(thread_id));
    let events = use_resource(move || {
        let _ = live();
        get_thread_events(thread_id)
    });
    let current = events.read().clone();
    let mut plans = use_resource(move || {
        let _ = live();
        crate::plans::api::list_plans(None, None, Some(thread_id), None, None, None, None)
    });
    // Plans this thread presented, newest first (a page of them, and how many there are).
    let page = plans
        .read()
        .clone()
        .and_then(Result::ok)
        .unwrap_or_default();
    let thread_total = page.total;
    let thread_plans = page.items;
    rsx! {
        div { class: "page",
            header { class: "page-head",
                button { class: "link-button back", onclick: move |_| navigator().go_back(), "← Back" }
                h1 { "Agent thread" }
            }
            if thread_total > thread_plans.len() as u64 {
                p { class: "muted small", "The newest {thread_plans.len()} of this thread's {thread_total} plans; every one is on the Plans page." }
            }
            for p in thread_plans {
                crate::ui::components::PlanCard { key: "{p.id}-{p.updated_at}", plan: p.clone(), on_changed: move |_| plans.restart() }
            }
            OperatorComposer { thread_id }
            match current {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(list)) => rsx! {
                    ol { class: "thread-events", id: "thread-events",
                        for e in list {
                            li { key: "{e.id}", class: "thread-event kind-{e.kind}",
                                div { class: "event-head",
                                    span { class: "event-summary", "{e.summary}" }
                                    span { class: "muted small", " {short_time(e.created_at)}" }
                                    if !e.processed { span { class: "badge", "pending" } }
                                }
                                if let Some(d) = e.detail { pre { class: "event-detail", "{d}" } }
                            }
                        }
                    }
                },
            }
        }
    }
}

/// The operator's composer: only for the agent's owner or the organisation's owner.
#[component]
fn OperatorComposer(thread_id: Uuid) -> Element {
    let operator = use_resource(move || crate::ai_agent::api::thread_operator(thread_id));
    let mut text = use_signal(String::new);
    let mut plan_mode = use_signal(|| false);
    let mut error = use_signal(|| None::<String>);
    let mut sent = use_signal(|| false);
    let Some(Ok(op)) = operator.read().clone() else {
        return rsx! {};
    };
    if !op.can_instruct {
        return rsx! {
            p { class: "muted small", id: "operator-owner-only", "Only {op.agent_name}'s owner or the organisation's owner can instruct it." }
        };
    }
    let send = move |e: FormEvent| async move {
        e.prevent_default();
        sent.set(false);
        match crate::ai_agent::api::post_to_thread(thread_id, text(), plan_mode()).await {
            Ok(()) => {
                text.set(String::new());
                error.set(None);
                sent.set(true);
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let planning = op.planning_enabled;
    rsx! {
        form { class: "composer operator-composer", id: "operator-composer", onsubmit: send,
            ErrorBanner { message: error() }
            div { class: "composer-row",
                label { class: "check plan-switch",
                    title: if planning { "Plan mode: the agent researches read-only and presents a plan; nothing changes until it is approved." } else { "Planning is off for this agent; turn it on in Agents." },
                    input { id: "operator-plan-switch", r#type: "checkbox", disabled: !planning, checked: plan_mode(), onchange: move |e| plan_mode.set(e.checked()) }
                    " Plan"
                }
                textarea { id: "operator-input", rows: "2", maxlength: crate::ai_agent::model::MAX_INSTRUCTION_CHARS as i64,
                    placeholder: "Instruct {op.agent_name}…", value: "{text}", oninput: move |e| text.set(e.value()) }
                button { id: "operator-send", class: "primary", r#type: "submit", disabled: text.read().trim().is_empty(), "Send" }
            }
            if sent() { p { class: "ok small", id: "operator-sent", "Sent to {op.agent_name}." } }
        }
    }
}
