//! The agents page: list and create agents; edit persona, goals, rules and send mode; assign the
//! organisation's numbers; see each agent's threads.
use crate::ai_agent::api::{
    assign_agent_numbers, create_agent, get_agent, list_agent_threads, list_agents, update_agent,
};
use crate::ai_agent::model::{AgentInput, AgentView, SendMode};
use crate::ui::app::Route;
use crate::ui::components::use_live;
use crate::ui::components::{use_pages, Pages, ShowMore, grouped, short_time, use_is_owner, ErrorBanner};
use crate::messaging::model::LiveTopic;
use crate::phone_numbers::api::list_phone_numbers;
use crate::plans::model::ApprovalPolicy;
use dioxus::prelude::*;
use uuid::Uuid;

fn blank() -> AgentInput {
    AgentInput {
        name: String::new(),
        persona: String::new(),
        goals: String::new(),
        rules: String::new(),
        send_mode: SendMode::Suggest,
        planning_enabled: false,
        plan_approval: ApprovalPolicy::HumanReview,
        reply_send_limit: 2,
        reply_reads_org_wide: false,
        sees_pictures: false,
        answer_only: Some(true),
    }
}

#[component]
pub fn Agents() -> Element {
    let mut agents = use_resource(list_agents);
    let mut form = use_signal(blank);
    let mut error = use_signal(|| None::<String>);
    let create = move |e: FormEvent| async move {
        e.prevent_default();
        match create_agent(form()).await {
            Ok(a) => {
                form.set(blank());
                error.set(None);
                agents.restart();
                navigator().push(Route::AgentDetail { agent_id: a.id });
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let list = agents.read().clone();
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Agents" } }
            p { class: "muted", "Agents answer texts to the numbers they are assigned. In suggest mode they draft replies for you to pick; in autonomous mode they send." }
            match list {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(rows)) => rsx! {
                    table { class: "table", id: "agents-table",
                        thead { tr { th { "Agent" } th { "Owner" } th { "Mode" } th { "Numbers" } } }
                        tbody {
                            for a in rows {
                                tr { key: "{a.id}",
                                    td { class: "cell-title", Link { to: Route::AgentDetail { agent_id: a.id }, class: "agent-link", "{a.name}" } }
                                    td { "data-label": "Owner", "{a.owner_name.clone().unwrap_or_default()}" }
                                    td { "data-label": "Mode", span { class: "badge", "{a.send_mode.as_str()}" } }
                                    td { "data-label": "Numbers", "{a.number_ids.len()}" }
                                }
                            }
                        }
                    }
                },
            }
            form { class: "card inline-form", onsubmit: create,
                h2 { "New agent" }
                ErrorBanner { message: error() }
                input { placeholder: "Name", value: "{form.read().name}", oninput: move |e| form.write().name = e.value() }
                input { placeholder: "Persona (optional)", value: "{form.read().persona}", oninput: move |e| form.write().persona = e.value() }
                button { class: "primary", r#type: "submit", "Create agent" }
            }
            super::suggesters::Suggesters {}
        }
    }
}

#[component]
pub fn AgentDetail(agent_id: Uuid) -> Element {
    let live = use_live(LiveTopic::Threads);
    let mut agent = use_resource(move || get_agent(agent_id));
    let numbers = use_resource(list_phone_numbers);
    // Pages after the first ("Show more"), and where the next one starts.
    let pages = use_pages::<crate::ai_agent::model::ThreadSummary, crate::ai_agent::model::ThreadCursor>();
    let Pages { loading, error: more_error, .. } = pages;
    let threads = use_resource(move || {
        let _ = live();
        pages.reset();
        list_agent_threads(agent_id, None)
    });
    let data = agent.read().clone();
    let thread_list = threads.read().clone().map(|r| {
        r.map(|page| {
            let (list, cursor) = pages.join(page.items, page.next);
            (list, page.total, cursor)
        })
    });
    rsx! {
        div { class: "page",
            header { class: "page-head",
                Link { to: Route::Agents {}, class: "back", "← Agents" }
                h1 { "Agent" }
            }
            match data {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(a)) => rsx! {
                    AgentForm { key: "{a.id}", agent: a.clone(), on_saved: move |_| agent.restart() }
                    NumberAssignment {
                        agent: a.clone(),
                        numbers: numbers.read().clone().and_then(Result::ok).unwrap_or_default(),
                        on_saved: move |_| agent.restart(),
                    }
                    super::agent_sources::AgentSources { agent: a.clone(), on_saved: move |_| agent.restart() }
                    crate::ui::components::LessonsCard { agent_id: a.id }
                },
            }
            div { class: "card",
                h2 { "Threads" }
                match thread_list {
                    None => rsx! { p { class: "muted", "Loading…" } },
                    Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                    Some(Ok((list, _, _))) if list.is_empty() => rsx! { p { class: "muted", "No threads yet: they start when a contact texts an assigned number." } },
                    Some(Ok((list, total, cursor))) => rsx! {
                        p { class: "muted small list-count", id: "threads-count",
                            if cursor.is_some() { "Showing {grouped(list.len() as u64)} of {grouped(total)} threads." } else { "{grouped(total)} threads." }
                        }
                        ul { class: "thread-list",
                            for t in list {
                                li { key: "{t.id}",
                                    Link { to: Route::AgentThread { thread_id: t.id }, class: "thread-link", "{t.contact_name.clone().unwrap_or_else(|| \"Thread\".into())}" }
                                    span { class: "muted small", " · {t.state} · {short_time(t.updated_at)}" }
                                    if let Some(err) = t.last_error { span { class: "message-error small", " · {err}" } }
                                }
                            }
                        }
                        ErrorBanner { message: more_error() }
                        if let Some(after) = cursor {
                            ShowMore {
                                id: "threads-more",
                                loading: loading(),
                                onclick: move |_| {
                                    let after = after.clone();
                                    pages.more(list_agent_threads(agent_id, Some(after)), |p| (p.items, p.next));
                                },
                            }
                        }
                    },
                }
            }
        }
    }
}

#[component]
fn AgentForm(agent: AgentView, on_saved: EventHandler<()>) -> Element {
    let id = agent.id;
    let is_owner = use_is_owner();
    let mut form = use_signal(|| AgentInput {
        name: agent.name.clone(),
        persona: agent.persona.clone(),
        goals: agent.goals.clone(),
        rules: agent.rules.clone(),
        send_mode: agent.send_mode,
        planning_enabled: agent.planning_enabled,
        plan_approval: agent.plan_approval,
        reply_send_limit: agent.reply_send_limit,
        reply_reads_org_wide: agent.reply_reads_org_wide,
        sees_pictures: agent.sees_pictures,
        answer_only: Some(agent.answer_only),
    });
    let mut error = use_signal(|| None::<String>);
    let mut saved = use_signal(|| false);
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        match update_agent(id, form()).await {
            Ok(_) => {
                error.set(None);
                saved.set(true);
                on_saved.call(());
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    rsx! {
        form { class: "card agent-form", id: "agent-form", onsubmit: save,
            ErrorBanner { message: error() }
            label { "Name" input { id: "agent-name", value: "{form.read().name}", oninput: move |e| form.write().name = e.value() } }
            label { "Send mode"
                select { id: "agent-send-mode", onchange: move |e| form.write().send_mode = SendMode::parse(&e.value()),
                    option { value: "suggest", selected: form.read().send_mode == SendMode::Suggest, "Suggest: draft 2–3 replies for a person to pick" }
                    option { value: "autonomous", selected: form.read().send_mode == SendMode::Autonomous,
                        // Only an owner turns autonomy on; an agent that already has it keeps it.
                        disabled: !is_owner && agent.send_mode != SendMode::Autonomous,
                        if is_owner { "Autonomous: send replies itself" } else { "Autonomous: send replies itself (owners only)" }
                    }
                }
            }
            if form.read().send_mode == SendMode::Autonomous {
                Disclosure {}
            }
            div { class: "planning-box",
                label { class: "check",
                    input {
                        id: "agent-planning",
                        r#type: "checkbox",
                        checked: form.read().planning_enabled,
                        onchange: move |e| form.write().planning_enabled = e.checked(),
                    }
                    " Planning: let this agent plan complex or high-impact work"
                }
                label { "Plan approval"
                    select {
                        id: "agent-plan-approval",
                        disabled: !form.read().planning_enabled,
                        onchange: move |e| form.write().plan_approval = ApprovalPolicy::parse(&e.value()).unwrap_or(ApprovalPolicy::HumanReview),
                        for p in [ApprovalPolicy::HumanReview, ApprovalPolicy::RiskGated, ApprovalPolicy::Auto] {
                            option { value: "{p.as_str()}", selected: form.read().plan_approval == p, "{p.label()}" }
                        }
                    }
                }
            }
            div { class: "reply-box",
                h3 { "When a contact texts" }
                p { class: "muted small", "A contact's text is untrusted: in a reply, the agent can text only that contact, from the number they texted, and reads only their record and conversation." }
                label { "Texts per reply, at most"
                    input {
                        id: "agent-reply-send-limit",
                        r#type: "number",
                        min: "1",
                        max: "5",
                        value: "{form.read().reply_send_limit}",
                        oninput: move |e| form.write().reply_send_limit = e.value().parse().unwrap_or(1).clamp(1, 5),
                    }
                }
                label { class: "check",
                    input {
                        id: "agent-reply-org-reads",
                        r#type: "checkbox",
                        checked: form.read().reply_reads_org_wide,
                        onchange: move |e| form.write().reply_reads_org_wide = e.checked(),
                    }
                    " Let replies read every contact in the organisation"
                }
                if form.read().reply_reads_org_wide {
                    p { class: "warning", id: "agent-reply-org-reads-warning",
                        "Warning: a contact's text could then ask the agent about other people. Their names, numbers and conversations become readable in every reply; sending stays limited to the contact who texted."
                    }
                }
                label { class: "check",
                    input {
                        id: "agent-answer-only",
                        r#type: "checkbox",
                        checked: form.read().answer_only.unwrap_or(true),
                        onchange: move |e| form.write().answer_only = Some(e.checked()),
                    }
                    " Answer only from knowledge"
                }
                p { class: "hint", id: "agent-answer-only-hint",
                    if form.read().answer_only.unwrap_or(true) {
                        "A question the Knowledge page does not answer gets the holding reply and goes to the agent's owner; a reply may give only prices, times, numbers and links found there or in the contact's own texts."
                    } else {
                        "Off: the agent may answer from elsewhere, and a hosted model can make up a price or an hour."
                    }
                }
                label { class: "check",
                    input {
                        id: "agent-sees-pictures",
                        r#type: "checkbox",
                        checked: form.read().sees_pictures,
                        onchange: move |e| form.write().sees_pictures = e.checked(),
                    }
                    " Let the model see pictures contacts send"
                }
                p { class: "hint",
                    if form.read().sees_pictures {
                        "A hosted model with vision gets each new picture (made smaller) with its text, so customers' photos go to the model's provider. The offline model still reads them as \"[photo]\" lines."
                    } else {
                        "Off: the model reads a picture as a line such as \"[photo: image/jpeg]\" with its caption, and no photo leaves Herald."
                    }
                }
            }
            label { "Persona" textarea { id: "agent-persona", rows: "2", value: "{form.read().persona}", oninput: move |e| form.write().persona = e.value() } }
            label { "Goals" textarea { id: "agent-goals", rows: "3", value: "{form.read().goals}", oninput: move |e| form.write().goals = e.value() } }
            label { "Rules" textarea { id: "agent-rules", rows: "3", placeholder: "Never quote prices; sign off as the front desk…", value: "{form.read().rules}", oninput: move |e| form.write().rules = e.value() } }
            div { class: "row",
                button { id: "agent-save", class: "primary", r#type: "submit", "Save agent" }
                if saved() { span { class: "ok", "Saved." } }
            }
        }
    }
}

#[component]
fn NumberAssignment(
    agent: AgentView,
    numbers: Vec<crate::phone_numbers::model::PhoneNumberView>,
    on_saved: EventHandler<()>,
) -> Element {
    let id = agent.id;
    let is_owner = use_is_owner();
    let mut chosen = use_signal(|| agent.number_ids.clone());
    let mut error = use_signal(|| None::<String>);
    let save = move |_| async move {
        match assign_agent_numbers(id, chosen()).await {
            Ok(_) => {
                error.set(None);
                on_saved.call(());
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    rsx! {
        div { class: "card", id: "agent-numbers",
            h2 { "Numbers this agent answers" }
            ErrorBanner { message: error() }
            if numbers.is_empty() { p { class: "muted", "Add a phone number first." } }
            for n in numbers {
                label { class: "check", key: "{n.id}",
                    input {
                        r#type: "checkbox",
                        class: "assign-number",
                        "data-number": "{n.number}",
                        disabled: !is_owner,
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
                    if agent.number_ids.contains(&n.id) { span { class: "badge", "assigned" } }
                }
            }
            if is_owner {
                button { id: "agent-assign", class: "secondary", onclick: save, "Save numbers" }
            } else {
                p { class: "muted small", "An organisation owner decides which agent answers a number." }
            }
        }
    }
}

/// What an autonomous agent's first reply in a conversation starts with (Settings → Texting law).
#[component]
fn Disclosure() -> Element {
    let settings = use_resource(crate::compliance::api::compliance_settings);
    let Some(Ok(v)) = settings.read().clone() else {
        return rsx! {};
    };
    let text = if v.settings.ai_disclosure_text.trim().is_empty() {
        v.default_ai_disclosure_text.clone()
    } else {
        v.settings.ai_disclosure_text.clone()
    };
    rsx! {
        p { class: "muted small", id: "agent-disclosure",
            if v.settings.ai_disclosure {
                "Its first reply in a conversation (and the first after 30 days) starts with: \u{201c}{text}\u{201d} Change the wording in Settings → Texting law."
            } else {
                "AI disclosure is off for this organisation (Settings → Texting law). California, Utah and Colorado require it."
            }
        }
    }
}
