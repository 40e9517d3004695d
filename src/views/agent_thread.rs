//! An agent's thread: inbound texts, tool calls with their arguments and results, replies and
//! escalations, updated live.
use crate::ai_agent::api::get_thread_events;
use crate::components::use_live;
use crate::components::{short_time, ErrorBanner};
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
        crate::plans::api::list_plans(None, None)
    });
    // Plans this thread presented, newest first.
    let thread_plans: Vec<crate::plans::model::PlanView> = plans
        .read()
        .clone()
        .and_then(Result::ok)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.thread_id == Some(thread_id))
        .collect();
    rsx! {
        div { class: "page",
            header { class: "page-head",
                button { class: "link-button back", onclick: move |_| navigator().go_back(), "← Back" }
                h1 { "Agent thread" }
            }
            for p in thread_plans {
                crate::components::PlanCard { key: "{p.id}-{p.updated_at}", plan: p.clone(), on_changed: move |_| plans.restart() }
            }
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
