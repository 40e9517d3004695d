//! The step plan card's body: the steps as a graph in layers (what can run together), each with
//! its status, intent, the arguments it runs with as a person reads them (names, numbers, the
//! words with what a reference fills marked; the tool and raw JSON behind "Details") and its
//! result or error; Confirm, Edit (change its words, then confirm) and Skip on a write that
//! waits, Confirm all, and Continue in lazy mode. Decisions go to the server, which binds a confirmation to the arguments shown.
//! Simulate asks for a dry run and shows each step's predicted effect and the plan's totals;
//! Re-plan asks the agent for a revision (what completed stays frozen).
use crate::plans::api::{decide_plan_steps, replan_plan, simulate_plan};
use crate::plans::model::{texts_people, PlanStatus, PlanView};
use crate::steps::model::{
    ArgLine, PlanStep, Simulation, StepAction, StepMode, StepPrediction, StepStatus, StepView,
};
use crate::ui::components::{use_act, ErrorBanner};
use dioxus::prelude::*;

/// A JSON value in a line or two: long values are cut.
fn brief(v: &serde_json::Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 160 {
        format!("{}…", s.chars().take(160).collect::<String>())
    } else {
        s
    }
}

/// Arguments as a person reads them (the server words them): a label, the words with what a
/// reference filled marked, and chips.
#[component]
fn ArgLines(class: &'static str, lines: Vec<ArgLine>) -> Element {
    rsx! {
        ul { class: "{class} small",
            for (k , line) in lines.into_iter().enumerate() {
                li { key: "{k}", class: "step-arg", "data-arg": "{line.arg}",
                    span { class: "muted", "{line.label} " }
                    for (j , p) in line.parts.into_iter().enumerate() {
                        if p.filled { mark { key: "{j}", class: "step-fill", "{p.text}" } } else { span { key: "{j}", "{p.text}" } }
                    }
                    for c in line.chips { span { class: "tag", "{c}" } }
                }
            }
        }
    }
}

/// The arguments a person may edit before confirming, as (name, text, is a list): words and
/// lists of words, not the ids and contacts the plan chose (those are re-planned).
fn editable(args: &serde_json::Value) -> Vec<(String, String, bool)> {
    use serde_json::Value;
    args.as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !k.ends_with("_id") && *k != "contacts")
        .filter_map(|(k, v)| match v {
            Value::String(s) => Some((k.clone(), s.clone(), false)),
            Value::Array(l) if l.iter().all(Value::is_string) => {
                let words: Vec<&str> = l.iter().filter_map(Value::as_str).collect();
                Some((k.clone(), words.join(", "), true))
            }
            _ => None,
        })
        .collect()
}

/// What a person typed as the argument's value: a list is split at commas.
fn typed(text: &str, list: bool) -> serde_json::Value {
    if list {
        text.split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(|w| serde_json::Value::String(w.to_owned()))
            .collect()
    } else {
        serde_json::Value::String(text.to_owned())
    }
}

#[component]
pub fn StepPlan(plan: PlanView, on_changed: EventHandler<()>) -> Element {
    let act = use_act();
    let mut sim = use_signal(|| None::<Simulation>);
    let id = plan.id;
    let running = plan.status == PlanStatus::Executing;
    let open = matches!(
        plan.status,
        PlanStatus::AwaitingApproval | PlanStatus::Approved | PlanStatus::Executing
    );
    let mut note = use_signal(String::new);
    let mut asked = use_signal(|| false);
    let replannable = plan.replannable;
    let replan = move |_| async move {
        if act.run(replan_plan(id, note())).await.is_some() {
            asked.set(true);
        }
    };
    let simulate = move |_| async move {
        if let Some(s) = act.run(simulate_plan(id)).await {
            sim.set(Some(s));
        }
    };
    let (mode, steps) = match &plan.action {
        crate::plans::model::PlanAction::Steps { mode, steps } => (*mode, steps.clone()),
        _ => return rsx! {},
    };
    let layers = plan
        .step_views
        .iter()
        .map(|v| v.layer)
        .max()
        .map_or(0, |m| m + 1);
    let waiting = steps
        .iter()
        .filter(|s| s.status == StepStatus::AwaitingConfirmation)
        .count();
    // Confirming a text is an owner's call: a member is not offered what would be refused.
    let owner = crate::ui::components::use_is_owner();
    let texts_remaining = steps
        .iter()
        .any(|s| !s.status.is_final() && texts_people(&s.tool));
    let send = move |action: StepAction| async move {
        if act.run(decide_plan_steps(id, action)).await.is_some() {
            on_changed.call(());
        }
    };
    let predicted = |id: &str| {
        sim.read()
            .as_ref()
            .and_then(|s| s.steps.iter().find(|p| p.id == id).cloned())
    };
    let rows: Vec<(PlanStep, StepView, Option<StepPrediction>)> = steps
        .into_iter()
        .zip(plan.step_views.iter().cloned())
        .map(|(s, v)| {
            let p = predicted(&s.id);
            (s, v, p)
        })
        .collect();
    let meta = plan.step_meta.clone().map(|m| (m.original_request, m.line));
    rsx! {
        div { class: "step-plan", "data-mode": if mode == StepMode::Lazy { "lazy" } else { "eager" },
            if let Some((request, line)) = meta {
                if let Some(r) = request { p { class: "muted small step-request", "Asked: “{r}”" } }
                p { class: "muted small step-meta", "{line}" }
            }
            for layer in 0..layers {
                div { key: "{layer}", class: "step-layer",
                    span { class: "step-layer-label muted small", "Step {layer + 1}" }
                    for (step , view , prediction) in rows.iter().filter(|(_, v, _)| v.layer == layer).cloned() {
                        StepBox { key: "{step.id}", may_confirm: owner || !texts_people(&step.tool), step, view, prediction, running, on_decide: send }
                    }
                }
            }
            if let Some(s) = sim.read().as_ref() {
                p { class: "step-sim-totals small", "{s.summary}" }
            }
            ErrorBanner { message: act.error() }
            if open || replannable {
                div { class: "row",
                    if open {
                        button { class: "secondary step-simulate", onclick: simulate, "Simulate" }
                    }
                    if replannable && !asked() {
                        input { class: "replan-note", placeholder: "What should change? (optional)", value: "{note}", oninput: move |e| note.set(e.value()) }
                        button { class: "secondary step-replan", onclick: replan, "Re-plan" }
                    }
                }
            }
            if asked() {
                p { class: "muted small step-replan-asked", "Asked the agent for a revised plan; it appears beside this one." }
            }
            if running && (waiting > 0 || mode == StepMode::Lazy) {
                div { class: "row plan-actions",
                    if waiting > 0 && (owner || !texts_remaining) {
                        button { class: "primary step-confirm-all", onclick: move |_| send(StepAction::ConfirmAll), "Confirm all remaining" }
                    }
                    if mode == StepMode::Lazy {
                        button { class: "secondary step-continue", onclick: move |_| send(StepAction::Continue), "Continue" }
                    }
                }
            }
        }
    }
}

#[component]
fn StepBox(
    step: PlanStep,
    view: StepView,
    prediction: Option<StepPrediction>,
    running: bool,
    may_confirm: bool,
    on_decide: EventHandler<StepAction>,
) -> Element {
    let status = step.status;
    let each = view.each.clone();
    let args = match (&view.resolved, &each) {
        // A for_each step: its template (the items are shown below it).
        (Some(r), Some(_)) => r["arguments"].clone(),
        (Some(r), None) => r.clone(),
        (None, _) => step.arguments.clone(),
    };
    let waits = running && status == StepStatus::AwaitingConfirmation;
    let (sid, hash) = (
        step.id.clone(),
        view.arguments_hash.clone().unwrap_or_default(),
    );
    let skip_id = step.id.clone();
    let status_class = status.as_str();
    // Editing before confirming: the fields a person may change, as text. What they typed stays
    // in the form until the server takes it (the card then shows the plan anew); a refusal shows
    // on the card and leaves the form as it was.
    let fields = editable(&args);
    let mut editing = use_signal(|| false);
    let mut drafts = use_signal(Vec::<String>::new);
    let originals: Vec<String> = fields.iter().map(|f| f.1.clone()).collect();
    let (edit_id, edit_fields) = (step.id.clone(), fields.clone());
    let save = move |_| {
        let changes: serde_json::Map<String, serde_json::Value> = edit_fields
            .iter()
            .zip(drafts.read().iter())
            .filter(|((_, was, _), now)| was != *now)
            .map(|((k, _, list), now)| (k.clone(), typed(now, *list)))
            .collect();
        on_decide.call(StepAction::Edit {
            step: edit_id.clone(),
            arguments: changes.into(),
            confirm: true,
        });
    };
    rsx! {
        div { class: "step-box step-{status_class}", "data-step": "{step.id}", "data-status": "{status_class}",
            div { class: "step-head",
                strong { "{step.intent}" }
                span { class: "step-badges",
                    if view.mutates { span { class: "badge keyword", "writes" } }
                    if let Some(why) = view.wont_send.clone() {
                        span { class: "badge step-wont-send", "Won't be sent: {why}" }
                    } else {
                        span { class: "badge step-status", "{status.label()}" }
                    }
                }
            }
            if let Some(w) = step.when.clone() { div { class: "step-when small", "Only if {w}" } }
            if step.on.is_some() { div { class: "step-when small", "Only if the step it reads fails" } }
            ArgLines { class: "step-readable", lines: view.readable.clone() }
            details { class: "step-details small",
                summary { class: "muted", "Details" }
                div { class: "mono", "{step.tool}" }
                if let Some(r) = step.result.as_ref() { div { class: "mono step-raw-result", "→ {r}" } }
                ul { class: "step-args mono",
                    for (k , v) in args.as_object().cloned().unwrap_or_default() {
                        li { key: "{k}",
                            span { class: "muted", "{k}: " }
                            match v {
                                serde_json::Value::String(s) => rsx! { "{s}" },
                                other => rsx! { "{brief(&other)}" },
                            }
                        }
                    }
                }
            }
            if let Some(e) = each {
                div { class: "step-each small", "data-each-count": "{e.count.unwrap_or_default()}",
                    div {
                        strong { "For {e.over}" }
                        if let Some(n) = e.count { span { class: "muted", " · {n} item(s)" } }
                    }
                    ArgLines { class: "step-sample", lines: e.readable.clone() }
                    if let Some(c) = e.cost { div { class: "muted", "{c}" } }
                    if let Some(p) = e.progress { div { class: "step-progress", "{p}" } }
                }
            } else if step.result.is_some() {
                div { class: "step-result small", "→ {view.result_words.clone().unwrap_or_default()}" }
            }
            if let Some(e) = step.error.clone() {
                div { class: "step-error small", "{e}" }
            }
            if let Some(p) = prediction.filter(|p| !p.already) {
                div { class: "step-predicted small", "data-predicted": "{p.status.as_str()}",
                    match (p.effect, p.error, p.result) {
                        (_, Some(e), _) => rsx! { "Would not run: {e}" },
                        (Some(effect), _, _) => rsx! { "{effect}" },
                        (_, _, Some(r)) => rsx! { "Reads: {brief(&r)}" },
                        _ => rsx! { "Would run" },
                    }
                }
            }
            if editing() {
                div { class: "step-edit-form",
                    for (i , (k , _ , _)) in fields.iter().enumerate() {
                        label { key: "{k}", class: "small muted", "{k}"
                            textarea { class: "step-edit-field", "data-field": "{k}", rows: "2",
                                value: "{drafts.read().get(i).cloned().unwrap_or_default()}",
                                oninput: move |e| if let Some(d) = drafts.write().get_mut(i) { *d = e.value() },
                            }
                        }
                    }
                    div { class: "row",
                        button { class: "primary step-edit-save", onclick: save, "Save and confirm" }
                        button { class: "secondary step-edit-cancel", onclick: move |_| editing.set(false), "Cancel" }
                    }
                }
            }
            if waits && !editing() {
                div { class: "row",
                    if may_confirm && !fields.is_empty() {
                        button { class: "secondary step-edit", onclick: move |_| { drafts.set(originals.clone()); editing.set(true) }, "Edit" }
                    }
                    if may_confirm {
                        button { class: "primary step-confirm", onclick: move |_| on_decide.call(StepAction::Confirm { step: sid.clone(), arguments_hash: hash.clone() }), "Confirm" }
                    } else {
                        span { class: "muted small", "An owner confirms texts and campaigns." }
                    }
                    button { class: "secondary step-skip", onclick: move |_| on_decide.call(StepAction::Skip { step: skip_id.clone() }), "Skip" }
                }
            }
        }
    }
}
