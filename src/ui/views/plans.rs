//! The Plans page, the audit: every plan with its status, policy, decision, approver and times,
//! a page at a time, filtered by status (or steps waiting on a person), agent and age, and
//! searched by title and request.
use crate::ui::components::use_live;
use crate::ui::components::{use_pages, Pages, ShowMore, grouped, short_time, ErrorBanner, PlanCard};
use crate::messaging::model::LiveTopic;
use crate::plans::api::list_plans;
use crate::plans::model::{PlanCursor, PlanStatus, PlanView};
use dioxus::prelude::*;
use uuid::Uuid;

/// The status filter's choices: a status, or steps waiting on a person.
const STATUSES: [(&str, &str); 8] = [
    ("", "All statuses"),
    ("awaiting_approval", "Awaiting approval"),
    ("waiting", "Steps waiting for you"),
    ("executing", "Running"),
    ("done", "Done"),
    ("failed", "Failed"),
    ("stopped", "Stopped"),
    ("rejected", "Rejected"),
];

/// The age filter's choices, in days.
const WITHIN: [(&str, &str); 5] = [
    ("", "Any time"),
    ("1", "Last 24 hours"),
    ("7", "Last 7 days"),
    ("30", "Last 30 days"),
    ("90", "Last 90 days"),
];

#[component]
pub fn Plans() -> Element {
    let live = use_live(LiveTopic::Plans);
    // Pages after the first ("Show more"), and where the next one starts.
    let pages = use_pages::<PlanView, PlanCursor>();
    let Pages { loading, error: more_error, .. } = pages;
    // The filters. A status, or "waiting" for steps that wait on a person; the search applies
    // when the box's value changes (Enter, or leaving it: no key parsing in the client).
    let mut status = use_signal(String::new);
    let mut agent = use_signal(|| None::<Uuid>);
    let mut within = use_signal(|| None::<u32>);
    let mut typed = use_signal(String::new);
    let mut search = use_signal(String::new);
    let query = move || {
        let (st, waiting) = match status().as_str() {
            "" => (None, None),
            "waiting" => (None, Some(true)),
            other => (PlanStatus::from_text(other), None),
        };
        let q = search();
        (st, agent(), (!q.is_empty()).then_some(q), waiting, within())
    };
    let filtered = move || {
        !status().is_empty() || agent().is_some() || within().is_some() || !search().is_empty()
    };
    let agents = use_resource(crate::ai_agent::api::list_agents);
    let mut plans = use_resource(move || {
        let _ = live();
        let (st, ag, q, w, d) = query();
        pages.reset();
        list_plans(st, ag, None, None, q, w, d)
    });
    let mut open = use_signal(|| None::<Uuid>);
    let current = plans.read().clone().map(|r| {
        r.map(|page| {
            let (list, cursor) = pages.join(page.items, page.next);
            (list, page.total, cursor)
        })
    });
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Plans" } }
            div { class: "row plans-filters",
                input { id: "plans-search", r#type: "search", placeholder: "Search titles and requests", value: "{typed}",
                    oninput: move |e| typed.set(e.value()),
                    onchange: move |_| search.set(typed().trim().to_owned()),
                }
                select { id: "plans-status", "aria-label": "Status", onchange: move |e| status.set(e.value()),
                    for (v , label) in STATUSES { option { key: "{v}", value: "{v}", "{label}" } }
                }
                select { id: "plans-agent", "aria-label": "Agent", onchange: move |e| agent.set(e.value().parse().ok()),
                    option { value: "", "All agents" }
                    if let Some(Ok(list)) = agents.read().as_ref() {
                        for a in list.iter() { option { key: "{a.id}", value: "{a.id}", "{a.name}" } }
                    }
                }
                select { id: "plans-within", "aria-label": "Created", onchange: move |e| within.set(e.value().parse().ok()),
                    for (v , label) in WITHIN { option { key: "{v}", value: "{v}", "{label}" } }
                }
            }
            match current {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok((list, _, _))) if list.is_empty() && filtered() => rsx! { p { class: "muted", id: "plans-none", "No plans match these filters." } },
                Some(Ok((list, _, _))) if list.is_empty() => rsx! { p { class: "muted", "No plans yet. Agents with planning on present them here." } },
                Some(Ok((list, total, cursor))) => rsx! {
                    p { class: "muted small list-count", id: "plans-count",
                        if cursor.is_some() { "Showing {grouped(list.len() as u64)} of {grouped(total)} plans." } else if total == 1 { "1 plan." } else { "{grouped(total)} plans." }
                    }
                    table { class: "table", id: "plans-table",
                        thead { tr { th { "Plan" } th { "Agent" } th { "Status" } th { "Policy" } th { "Decision" } th { "Approved by" } th { "Created" } th { "Updated" } } }
                        tbody {
                            for p in list.iter() {
                                tr { key: "{p.id}", class: "plan-row", onclick: { let id = p.id; move |_| open.set(if open() == Some(id) { None } else { Some(id) }) },
                                    td { class: "cell-title", "{p.title}"
                                        if p.revision > 1 { span { class: "badge plan-revision", "rev {p.revision}" } }
                                    }
                                    td { "data-label": "Agent", "{p.agent_name}" }
                                    td { "data-label": "Status", span { class: "badge plan-status status-{p.status.as_str()}", {words(p.status.as_str())} } }
                                    td { "data-label": "Policy", {words(p.approval_policy.as_str())} }
                                    td { class: "small", "data-label": "Decision", {p.decision_reason.clone().unwrap_or_default()} }
                                    td { "data-label": "Approved by", {approver(p)} }
                                    td { class: "small", "data-label": "Created", "{short_time(p.created_at)}" }
                                    td { class: "small", "data-label": "Updated", "{short_time(p.updated_at)}" }
                                }
                            }
                        }
                    }
                    ErrorBanner { message: more_error() }
                    if let Some(after) = cursor {
                        ShowMore {
                            id: "plans-more",
                            loading: loading(),
                            onclick: move |_| {
                                let after = after.clone();
                                let (st, ag, q, w, d) = query();
                                pages.more(list_plans(st, ag, None, Some(after), q, w, d), |p| (p.items, p.next));
                            },
                        }
                    }
                    for p in list.iter().filter(|p| open() == Some(p.id)) {
                        if p.has_revisions() {
                            PlanRevisions { key: "{p.id}-{p.updated_at}", plan_id: p.id }
                        } else {
                            PlanCard { key: "{p.id}-{p.updated_at}", plan: p.clone(), on_changed: move |_| plans.restart() }
                        }
                        PlanAudit { plan: p.clone() }
                    }
                },
            }
        }
    }
}

/// One plan, where a notification's link lands: its card (scrolled to the first step that waits
/// for a person) and its audit.
#[component]
pub fn PlanDetail(plan_id: Uuid) -> Element {
    let live = use_live(LiveTopic::Plans);
    let mut plan = use_resource(move || {
        let _ = live();
        crate::plans::api::get_plan(plan_id)
    });
    // Where a "steps wait for you" notification leads: the first waiting step, once.
    let mut scrolled = use_signal(|| false);
    use_effect(move || {
        if matches!(&*plan.read(), Some(Ok(_))) && !*scrolled.peek() {
            scrolled.set(true);
            document::eval(
                r#"requestAnimationFrame(()=>document.querySelector('.step-box[data-status="awaiting_confirmation"]')?.scrollIntoView({block:"center"}))"#,
            );
        }
    });
    let current = plan.read().clone();
    rsx! {
        div { class: "page",
            header { class: "page-head",
                h1 { "Plan" }
                Link { to: crate::ui::app::Route::Plans {}, class: "secondary", id: "all-plans", "All plans" }
            }
            match current {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(p)) => rsx! {
                    if p.has_revisions() {
                        PlanRevisions { key: "{p.id}-{p.updated_at}", plan_id: p.id }
                    } else {
                        PlanCard { key: "{p.id}-{p.updated_at}", plan: p.clone(), on_changed: move |_| plan.restart() }
                    }
                    PlanAudit { plan: p }
                },
            }
        }
    }
}

/// A plan's line of re-plans side by side, first to last (stacked on a phone).
#[component]
fn PlanRevisions(plan_id: Uuid) -> Element {
    let live = use_live(LiveTopic::Plans);
    let mut line = use_resource(move || {
        let _ = live();
        crate::plans::api::plan_revisions(plan_id)
    });
    let current = line.read().clone();
    rsx! {
        match current {
            None => rsx! { p { class: "muted", "Loading…" } },
            Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
            Some(Ok(list)) => rsx! {
                div { class: "plan-revisions",
                    for p in list {
                        div { key: "{p.id}-{p.updated_at}", class: "plan-revision-col", "data-revision": "{p.revision}",
                            h3 { class: "small", "Revision {p.revision} · {words(p.status.as_str())}" }
                            PlanCard { plan: p.clone(), on_changed: move |_| line.restart() }
                        }
                    }
                }
            },
        }
    }
}

#[component]
fn PlanAudit(plan: crate::plans::model::PlanView) -> Element {
    rsx! {
        div { class: "card plan-audit",
            h2 { "Audit" }
            ul { class: "audit",
                for a in plan.audit.iter() {
                    li { "{short_time(a.at)} · {a.kind} by {a.actor_name.clone().unwrap_or(a.actor.clone())}"
                        if let Some(d) = a.decision.clone() { " · {d}" }
                        if let Some(r) = a.reason.clone() { " · {r}" }
                    }
                }
            }
        }
    }
}

fn words(s: &str) -> String {
    s.replace('_', " ")
}

/// Who approved: a person's name, "policy" for an automatic approval, or nobody yet.
fn approver(p: &crate::plans::model::PlanView) -> String {
    match (&p.approved_by_name, p.approved_at) {
        (Some(name), _) => name.clone(),
        (None, Some(_)) => "policy".into(),
        (None, None) => String::new(),
    }
}
