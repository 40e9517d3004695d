//! Stopping a plan after approval (issue 29 §2): Stop, with a reason the agent is told, on an
//! approved or running plan; on a stopped plan, who stopped it, when and why.
use crate::plans::api::stop_plan;
use crate::plans::model::{PlanStatus, PlanView};
use crate::ui::components::{short_time, use_act, ErrorBanner};
use dioxus::prelude::*;

#[component]
pub fn PlanStop(plan: PlanView, on_changed: EventHandler<()>) -> Element {
    let id = plan.id;
    let mut asking = use_signal(|| false);
    let mut reason = use_signal(String::new);
    let act = use_act();
    let stop = move |_| async move {
        if act.run(stop_plan(id, reason())).await.is_some() {
            asking.set(false);
            on_changed.call(());
        }
    };
    let running = matches!(plan.status, PlanStatus::Approved | PlanStatus::Executing);
    let stopped = plan
        .audit
        .iter()
        .rev()
        .find(|a| a.kind == "plan_stopped")
        .cloned();
    rsx! {
        if let (PlanStatus::Stopped, Some(s)) = (plan.status, stopped) {
            div { class: "plan-stopped notice", role: "status",
                "Stopped by {s.actor_name.clone().unwrap_or_else(|| \"a person\".into())} · {short_time(s.at)}"
                if let Some(r) = s.reason.clone() { " · “{r}”" }
            }
        }
        if running {
            ErrorBanner { message: act.error() }
            if asking() {
                div { class: "row plan-stop-form",
                    input { class: "plan-stop-reason", maxlength: "500", placeholder: "Why? The agent is told.", value: "{reason}", oninput: move |e| reason.set(e.value()) }
                    button { class: "danger plan-stop-send", disabled: act.busy(), onclick: stop, "Stop the plan" }
                    button { class: "secondary", onclick: move |_| asking.set(false), "Keep it running" }
                }
            } else {
                div { class: "row plan-actions",
                    button { class: "secondary plan-stop", title: "Nothing new of this plan starts; its scheduled texts are cancelled and its campaigns paused", onclick: move |_| asking.set(true), "Stop" }
                }
            }
        }
    }
}
