//! The Reports page's answers and AI sections: how fast texts were answered in business hours
//! (the median and the share within 5 minutes), the business hours themselves (owners change
//! them here, `POST /reports/hours`), and the AI's share agent by agent, with its CSV
//! (`/reports/agents.csv`).
use crate::auth::model::Role;
use crate::error::AppError;
use crate::reports::ai_share::AgentRow;
use crate::reports::hours::Hours;
use crate::reports::replies::{span, Responses, FAST_SECS};
use dioxus::prelude::*;

/// What the sections show.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answers {
    pub responses: Responses,
    pub hours: Hours,
    pub agents: Vec<AgentRow>,
    pub total: AgentRow,
    /// Texts out that answered a contact, by anyone.
    pub replies: i64,
    pub owner: bool,
    /// A refused change of the hours: why, and the form as it was typed.
    pub refused: Option<(String, HoursForm)>,
}

/// The business-hours form as posted: the weekdays ticked ("on") and the two times.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
pub struct HoursForm {
    pub d1: Option<String>,
    pub d2: Option<String>,
    pub d3: Option<String>,
    pub d4: Option<String>,
    pub d5: Option<String>,
    pub d6: Option<String>,
    pub d7: Option<String>,
    #[serde(default)]
    pub open: String,
    #[serde(default)]
    pub close: String,
}

impl HoursForm {
    fn ticked(&self) -> [bool; 7] {
        [
            &self.d1, &self.d2, &self.d3, &self.d4, &self.d5, &self.d6, &self.d7,
        ]
        .map(|d| d.is_some())
    }

    pub fn hours(&self) -> Result<Hours, AppError> {
        let days: Vec<u32> = (1..=7)
            .filter(|d| self.ticked()[*d - 1])
            .map(|d| d as u32)
            .collect();
        Hours::parse(&days, &self.open, &self.close)
    }

    fn of(h: &Hours) -> Self {
        let on = |i: usize| h.days[i].then(|| "on".to_owned());
        Self {
            d1: on(0),
            d2: on(1),
            d3: on(2),
            d4: on(3),
            d5: on(4),
            d6: on(5),
            d7: on(6),
            open: Hours::clock(h.open),
            close: Hours::clock(h.close),
        }
    }
}

/// Whether a member may change the hours.
pub fn is_owner(role: Role) -> bool {
    role == Role::Owner
}

fn pct(p: Option<f64>) -> String {
    p.map_or("–".into(), |p| format!("{p:.1} %"))
}

/// The answers card and the AI card.
pub fn sections(a: &Answers, query: &str) -> Element {
    let g = |n: i64| crate::format::grouped(n.max(0) as u64);
    let r = a.responses;
    let median = r.median.map_or("–".into(), span);
    let form = a
        .refused
        .as_ref()
        .map_or_else(|| HoursForm::of(&a.hours), |(_, f)| f.clone());
    let ticked = form.ticked();
    let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let t = &a.total;
    let by_ai = t.auto_replies + t.as_written + t.edited;
    let ai_pct = (a.replies > 0).then(|| by_ai as f64 * 100.0 / a.replies as f64);
    let fast_mins = FAST_SECS / 60;
    rsx! {
        section { class: "card", id: "report-answers",
            h2 { "How fast texts were answered" }
            section { class: "tiles",
                div { class: "tile", span { class: "muted small", "Median first response" } strong { id: "response-median", "{median}" } }
                div { class: "tile", span { class: "muted small", "Answered within {fast_mins} minutes" } strong { id: "response-fast", "{pct(r.fast_pct())}" } }
                div { class: "tile", span { class: "muted small", "Texts answered" } strong { id: "response-count", "{g(r.answered as i64)}" } }
            }
            p { class: "muted small", id: "business-hours",
                "Counted in business hours, {a.hours.describe()}, from a contact's first unanswered text to the reply, on the day the text came in. STOP and HELP are answered by Herald and not counted."
            }
            if a.owner {
                details { open: a.refused.is_some(),
                    summary { "Change business hours" }
                    form { method: "post", action: "/reports/hours", class: "row wrap hours-form", id: "hours-form",
                        for (i, name) in names.iter().enumerate() {
                            label { class: "check", input { r#type: "checkbox", name: "d{i + 1}", checked: ticked[i] } "{name}" }
                        }
                        label { "Open " input { r#type: "time", name: "open", id: "hours-open", value: "{form.open}" } }
                        label { "Close " input { r#type: "time", name: "close", id: "hours-close", value: "{form.close}" } }
                        button { r#type: "submit", "Save hours" }
                    }
                    p { class: "muted small", "New hours count from the next reply on; replies already counted keep theirs." }
                }
            }
            if let Some((e, _)) = &a.refused { p { class: "error", role: "alert", id: "hours-error", "{e}" } }
        }
        section { class: "card", id: "report-ai",
            h2 { "The AI's share" }
            if a.replies > 0 {
                p { id: "ai-share",
                    "Agents wrote {pct(ai_pct)} of the {g(a.replies)} replies: {g(t.auto_replies)} sent on their own, {g(t.as_written + t.edited)} suggested and sent by a person."
                }
            } else {
                p { id: "ai-share", "No text was answered in these days." }
            }
            if a.agents.is_empty() {
                p { class: "muted", "No agent suggested, replied or escalated in these days." }
            } else {
                div { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Agents",
                    table { class: "table",
                        thead { tr { th { "Agent" } th { class: "num", "Suggestions offered" } th { class: "num", "Used as written" } th { class: "num", "Edited" } th { class: "num", "Not used" } th { class: "num", "Autonomous replies" } th { class: "num", "Escalations" } th { class: "num", "Handoffs" } } }
                        tbody {
                            for row in a.agents.iter().chain(std::iter::once(t)) {
                                tr { class: if row.agent.is_none() { "agent-row total" } else { "agent-row" },
                                    td { class: "cell-title", "{row.name}" }
                                    {num_cells(&[("Offered", row.offered), ("As written", row.as_written), ("Edited", row.edited),
                                        ("Not used", row.not_used()), ("Own replies", row.auto_replies),
                                        ("Escalations", row.escalations), ("Handoffs", row.handoffs)])}
                                }
                            }
                        }
                    }
                }
                p { class: "muted small", "A handoff is a person's reply right after an agent's own. Escalations belong to no number: with one number chosen they are not shown." }
            }
            p { class: "small", a { href: "/reports/agents.csv?{query}", id: "agents-csv", "Download as CSV" } }
        }
    }
}

/// A table row's figures, each labelled for a phone's stacked rows.
pub fn num_cells(cells: &[(&'static str, i64)]) -> Element {
    let g = |n: i64| crate::format::grouped(n.max(0) as u64);
    rsx! {
        for (label, n) in cells.iter() {
            td { class: "num", "data-label": *label, "{g(*n)}" }
        }
    }
}

/// The AI table as CSV rows, with the totals last.
pub fn agents_csv(agents: &[AgentRow], total: &AgentRow) -> Vec<Vec<String>> {
    let mut rows = vec![[
        "agent",
        "offered",
        "used_as_written",
        "edited",
        "not_used",
        "autonomous_replies",
        "escalations",
        "handoffs",
    ]
    .map(String::from)
    .to_vec()];
    for r in agents.iter().chain(std::iter::once(total)) {
        rows.push(vec![
            r.name.clone(),
            r.offered.to_string(),
            r.as_written.to_string(),
            r.edited.to_string(),
            r.not_used().to_string(),
            r.auto_replies.to_string(),
            r.escalations.to_string(),
            r.handoffs.to_string(),
        ]);
    }
    rows
}
