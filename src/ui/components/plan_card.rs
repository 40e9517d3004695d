//! The plan card: title and summary, "N in · M out", exclusions grouped by reason, the policy's
//! decision, and Approve · Edit · Reject; the full lists open on demand.
use crate::plans::api::{approve_plan, edit_plan, reject_plan};
use crate::plans::edit::{MAX_CONCEPT_CHARS, MAX_SUMMARY_CHARS, MAX_TITLE_CHARS};
use crate::plans::model::{Decision, PlanEdit, PlanStatus, PlanView};
use crate::ui::components::{short_time, use_act, ErrorBanner};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn PlanCard(plan: PlanView, on_changed: EventHandler<()>) -> Element {
    let id = plan.id;
    let mut editing = use_signal(|| false);
    let mut rejecting = use_signal(|| false);
    let mut reason = use_signal(String::new);
    let mut title = use_signal(|| plan.title.clone());
    let mut summary = use_signal(|| plan.summary.clone());
    let mut concept = use_signal(|| plan.action.message_concept().map(str::to_owned));
    let from_number = use_signal(|| plan.action.from_number_id());
    let sends = plan.action.sends_messages();
    let include = use_signal(|| {
        plan.contacts
            .iter()
            .map(|c| (c.change.contact_id, c.change.include))
            .collect::<Vec<(Uuid, bool)>>()
    });
    let act = use_act();
    let awaiting = plan.status == PlanStatus::AwaitingApproval;
    let status = plan.status.as_str().replace('_', " ");

    let approve = move |_| async move {
        act.run(approve_plan(id)).await;
        // Approved, or refused on a changed audience: the card shows which.
        on_changed.call(());
    };
    let save = move |_| async move {
        let edit = PlanEdit {
            message_concept: concept(),
            from_number_id: from_number(),
            title: Some(title()),
            summary: Some(summary()),
            include: include(),
        };
        if act.run(edit_plan(id, edit)).await.is_some() {
            editing.set(false);
            on_changed.call(());
        }
    };
    let reject = move |_| async move {
        if act.run(reject_plan(id, reason())).await.is_some() {
            rejecting.set(false);
            on_changed.call(());
        }
    };
    rsx! {
        div { class: "plan-card card", "data-plan-id": "{plan.id}", "data-status": "{plan.status.as_str()}",
            div { class: "plan-head",
                span { class: "plan-kicker", "Plan by {plan.agent_name}" }
                span { class: "badge plan-status status-{plan.status.as_str()}", "{status}" }
            }
            if editing() {
                input { class: "plan-title-input", maxlength: MAX_TITLE_CHARS as i64, value: "{title}", oninput: move |e| title.set(e.value()) }
                textarea { class: "plan-summary-input", rows: "2", maxlength: MAX_SUMMARY_CHARS as i64, value: "{summary}", oninput: move |e| summary.set(e.value()) }
            } else {
                h3 { class: "plan-title", "{plan.title}" }
                p { class: "plan-summary", "{plan.summary}" }
            }
            if let Some(why) = plan.unreadable.clone() {
                div { class: "error-banner plan-unreadable", role: "alert", "{why}" }
            }
            if let Some(c) = plan.action.message_concept() {
                if editing() {
                    label { "Message concept"
                        textarea { class: "plan-concept-input", rows: "2", maxlength: MAX_CONCEPT_CHARS as i64, value: "{concept().unwrap_or_default()}", oninput: move |e| concept.set(Some(e.value())) }
                    }
                } else {
                    div { class: "plan-concept", strong { "Message concept: " } "{c}" }
                }
            }
            if sends && plan.step_views.is_empty() {
                FromNumber { editing, shown: plan.from_number.clone(), from_number }
            }
            if let Some(a) = plan.audience.clone() {
                crate::ui::components::PlanAudience { key: "{plan.updated_at}", plan_id: plan.id, audience: a, editable: awaiting, on_changed }
            } else if plan.step_views.is_empty() {
                div { class: "plan-counts", "{plan.included()} in · {plan.excluded()} out" }
            } else {
                crate::ui::components::StepPlan { plan: plan.clone(), on_changed }
            }
            if let Some(cost) = plan.estimated_cost {
                div { class: "plan-cost muted", title: "SMS segments × price per segment", "Estimated cost: {cost.label()}" }
            }
            if let Some(op) = plan.executed_ref {
                crate::ui::components::OperationCard { operation_id: op }
            }
            PlanNotes { plan: plan.clone() }
            ContactList { plan: plan.clone(), editing: editing(), include }
            ErrorBanner { message: act.error() }
            if awaiting {
                div { class: "row plan-actions",
                    if editing() {
                        button { class: "primary plan-save", onclick: save, "Save changes" }
                        button { class: "secondary", onclick: move |_| editing.set(false), "Cancel" }
                    } else {
                        if plan.unreadable.is_none() {
                            button { class: "primary plan-approve", disabled: act.busy(), onclick: approve, "Approve" }
                            button { class: "secondary plan-edit", onclick: move |_| editing.set(true), "Edit" }
                        }
                        button { class: "danger plan-reject", onclick: move |_| rejecting.set(!rejecting()), "Reject" }
                    }
                }
                if rejecting() {
                    div { class: "row",
                        input { class: "plan-reject-reason", placeholder: "Why? The agent will revise the plan.", value: "{reason}", oninput: move |e| reason.set(e.value()) }
                        button { class: "danger plan-reject-send", onclick: reject, "Send rejection" }
                    }
                }
            }
            crate::ui::components::PlanStop { plan: plan.clone(), on_changed }
            div { class: "muted small", "Policy: {plan.approval_policy.label()} · created {short_time(plan.created_at)}" }
        }
    }
}

/// The number a campaign sends from: shown, or chosen from the organisation's numbers while
/// the plan is edited (read only then).
#[component]
fn FromNumber(
    editing: Signal<bool>,
    shown: Option<String>,
    mut from_number: Signal<Option<Uuid>>,
) -> Element {
    let numbers = use_resource(move || async move {
        if editing() {
            crate::phone_numbers::api::list_phone_numbers().await.ok()
        } else {
            None
        }
    });
    rsx! {
        if editing() {
            label { "Send from"
                select { class: "plan-from-number",
                    onchange: move |e| from_number.set(e.value().parse().ok()),
                    match numbers.read().clone().flatten() {
                        None => rsx! { option { value: "{from_number().map(|n| n.to_string()).unwrap_or_default()}", "{shown.clone().unwrap_or_default()}" } },
                        Some(list) => rsx! {
                            for n in list {
                                option { key: "{n.id}", value: "{n.id}", selected: from_number() == Some(n.id),
                                    if n.friendly_name.is_empty() { "{n.number}" } else { "{n.number} · {n.friendly_name}" }
                                }
                            }
                        },
                    }
                }
            }
        } else {
            div { class: "plan-from",
                strong { "From: " }
                match shown.clone() {
                    Some(n) => rsx! { span { class: "mono", "{n}" } },
                    None => rsx! { span { class: "muted", "the organisation's first number" } },
                }
            }
        }
    }
}

/// Why contacts are left out, and what the policy decided.
#[component]
fn PlanNotes(plan: PlanView) -> Element {
    let groups = plan.exclusions_by_kind();
    let auto_approved = plan.decision == Some(Decision::Proceed) && plan.approved_by_name.is_none();
    let status = plan.status.as_str().replace('_', " ");
    rsx! {
        if !groups.is_empty() {
            ul { class: "plan-exclusions",
                for (why, names) in groups {
                    li { key: "{why}", strong { "{why}" } " ({names.len()}): {names.join(\", \")}" }
                }
            }
        }
        if auto_approved {
            div { class: "plan-auto-note", "Plan auto-approved → {status}. {plan.decision_reason.clone().unwrap_or_default()}" }
        } else if let Some(r) = plan.decision_reason.clone() {
            div { class: "plan-decision muted small", "{r}" }
        }
        if let Some(err) = plan.error.clone() {
            div { class: "error-banner", "The plan failed: {err}" }
        }
    }
}

/// Every contact of the plan, each with its reason, tags and why it is left out; while the plan
/// is edited, a box to take each in or out.
#[component]
fn ContactList(plan: PlanView, editing: bool, mut include: Signal<Vec<(Uuid, bool)>>) -> Element {
    rsx! {
        details { class: "plan-lists", hidden: !plan.step_views.is_empty() || plan.audience.is_some(),
            summary { "Show every contact" }
            ul {
                for c in plan.contacts.iter() {
                    li { key: "{c.change.contact_id}", class: if c.change.include { "in" } else { "out" },
                        if editing {
                            input {
                                r#type: "checkbox",
                                class: "plan-include",
                                "data-name": "{c.name}",
                                checked: include.read().iter().any(|(i, on)| *i == c.change.contact_id && *on),
                                onchange: {
                                    let cid = c.change.contact_id;
                                    move |e: FormEvent| {
                                        let mut v = include.write();
                                        if let Some(x) = v.iter_mut().find(|(i, _)| *i == cid) {
                                            x.1 = e.checked();
                                        }
                                    }
                                },
                            }
                        }
                        " {c.name}"
                        span { class: "muted small", " · {c.change.reason}" }
                        if !c.change.add_tags.is_empty() { span { class: "tag", "+{c.change.add_tags.join(\", +\")}" } }
                        // Said once: the reason may already say it.
                        if c.opted_out && !c.change.reason.to_lowercase().contains("opted out") { span { class: "badge keyword", "opted out" } }
                        if c.no_marketing_consent && c.change.include { span { class: "badge keyword", "no marketing consent: left out" } }
                    }
                }
            }
        }
    }
}
