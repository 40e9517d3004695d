//! The Reports page, `/reports`: a date range (the last 30 days by default) over all numbers or
//! one; texts in and out per day as a chart, the delivery rate with the failures grouped by
//! reason in words, and the estimated cost per day. Every table exports as CSV
//! (`/reports/daily.csv`, `/reports/failures.csv`, with the same query). Any member reads it.
//! Before reading, the rollup counts whatever texts arrived since its last pass, so the page is
//! exact to the moment it is opened.
// A handler's early exit is a whole response; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::phone_numbers::entity as phone_number;
use crate::platform::AppState;
use crate::reports::answers::{is_owner, num_cells, sections, Answers, HoursForm};
use crate::reports::chart::{bars, Series};
use crate::reports::exports;
use crate::reports::figures::{read, Range, Report};
use crate::server_page::{error_page, main_html, signed_in_document, status_of, Poster, Viewer};
use axum::extract::{Form, Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use chrono::Duration;
use dioxus::prelude::*;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

/// Numbers offered in the picker, at most (the page says when there are more).
const NUMBERS_SHOWN: u64 = 200;
/// Campaigns listed with their funnels, newest first; the page says how many began in all.
const CAMPAIGNS_SHOWN: u64 = 10;
/// Rollup passes a page read runs at most before reading (each counts up to `rollup::BATCH`).
pub(crate) const CATCH_UP_PASSES: usize = 20;

pub fn routes(state: AppState) -> Router {
    Router::new()
        .route("/reports", get(show))
        .route("/reports/hours", axum::routing::post(save_hours))
        .route("/reports/daily.csv", get(exports::daily))
        .route("/reports/failures.csv", get(exports::failures))
        .route("/reports/campaigns.csv", get(exports::campaigns))
        .route("/reports/agents.csv", get(exports::agents))
        .with_state(state)
}

/// The query as typed: empty means the default.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct Asked {
    #[serde(default)]
    pub from: String,
    #[serde(default)]
    pub to: String,
    #[serde(default)]
    pub number: String,
}

impl Asked {
    pub(crate) fn query(&self, r: &Range) -> String {
        let number = r.number.map(|n| n.to_string()).unwrap_or_default();
        format!("from={}&to={}&number={number}", r.from, r.to)
    }
}

/// The range asked for, with the defaults filled in (the last 30 days to today, in the
/// organisation's zone), or why not.
pub(crate) async fn range(state: &AppState, m: &Member, q: &Asked) -> AppResult<Range> {
    let zone: chrono_tz::Tz = crate::messaging::quiet::org_zone(&state.db, m.organization_id)
        .await?
        .parse()
        .unwrap_or(chrono_tz::UTC);
    let today = state.clock.now().with_timezone(&zone).date_naive();
    let to = match q.to.trim() {
        "" => today.to_string(),
        t => t.to_owned(),
    };
    let from = match q.from.trim() {
        "" => (today - Duration::days(29)).to_string(),
        f => f.to_owned(),
    };
    let number = match q.number.trim() {
        "" => None,
        n => {
            let id: Uuid = n
                .parse()
                .map_err(|_| AppError::validation("That is not one of your numbers."))?;
            phone_number::Entity::find_by_id(id)
                .filter(phone_number::Column::OrganizationId.eq(m.organization_id))
                .one(&state.db)
                .await?
                .ok_or_else(|| AppError::validation("That is not one of your numbers."))?;
            Some(id)
        }
    };
    Range::parse(&from, &to, number)
}

/// The report for the range, after counting what arrived since the last pass.
pub(crate) async fn report(state: &AppState, m: &Member, r: Range) -> AppResult<Report> {
    crate::reports::rollup::catch_up(state, CATCH_UP_PASSES).await?;
    read(&state.db, m.organization_id, r).await
}

/// The newest campaigns (at most `CAMPAIGNS_SHOWN`) the member may see that began in the range
/// (on the organisation's days) from the range's number, each with its funnel; and how many
/// began in all.
pub(crate) async fn campaigns(
    state: &AppState,
    m: &Member,
    r: Range,
) -> AppResult<(Vec<Campaign>, u64)> {
    use crate::campaign::entity::operation;
    use sea_orm::PaginatorTrait;
    let zone: chrono_tz::Tz = crate::messaging::quiet::org_zone(&state.db, m.organization_id)
        .await?
        .parse()
        .unwrap_or(chrono_tz::UTC);
    let start = |d: chrono::NaiveDate| {
        use chrono::TimeZone;
        zone.from_local_datetime(&d.and_hms_opt(0, 0, 0).unwrap_or_default())
            .earliest()
            .map(|t| t.with_timezone(&chrono::Utc))
            .unwrap_or_default()
    };
    let mut q = operation::Entity::find()
        .filter(crate::campaign::review::visible_to(m))
        .filter(operation::Column::CreatedAt.gte(start(r.from)))
        .filter(operation::Column::CreatedAt.lt(start(r.to + Duration::days(1))));
    if let Some(n) = r.number {
        q = q.filter(operation::Column::PhoneNumberId.eq(n));
    }
    let total = q.clone().count(&state.db).await?;
    let ops = q
        .order_by_desc(operation::Column::CreatedAt)
        .limit(CAMPAIGNS_SHOWN)
        .all(&state.db)
        .await?;
    let mut out = Vec::with_capacity(ops.len());
    for op in ops {
        let funnel = crate::campaign::funnel::of(&state.db, &op).await?;
        out.push(Campaign {
            id: op.id,
            title: op
                .message_concept
                .lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(80)
                .collect(),
            at: op
                .created_at
                .with_timezone(&zone)
                .format("%Y-%m-%d")
                .to_string(),
            funnel,
        });
    }
    Ok((out, total))
}

/// One campaign's row.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Campaign {
    id: Uuid,
    pub(crate) title: String,
    pub(crate) at: String,
    pub(crate) funnel: crate::campaign::funnel::Funnel,
}

fn dollars(micros: i64) -> String {
    format!("${:.2}", micros as f64 / 1e6)
}

fn pct(p: Option<f64>) -> String {
    p.map_or("–".into(), |p| format!("{p:.1} %"))
}

async fn show(
    State(state): State<AppState>,
    Viewer(m): Viewer,
    Query(q): Query<Asked>,
) -> Response {
    render(&state, &m, &q, None).await
}

/// Sets the business hours (owners); a refusal shows the page again with why and the form as
/// typed.
async fn save_hours(
    State(state): State<AppState>,
    Poster(m): Poster,
    Form(f): Form<HoursForm>,
) -> Response {
    let saved = match f.hours() {
        Ok(h) => crate::reports::hours::save(&state, &m, h).await,
        Err(e) => Err(e),
    };
    match saved {
        Ok(()) => Redirect::to("/reports#report-answers").into_response(),
        Err(e) => render(&state, &m, &Asked::default(), Some((e, f))).await,
    }
}

/// The answers and AI sections' figures for the range.
pub(crate) async fn answers(state: &AppState, m: &Member, r: Range) -> AppResult<Answers> {
    let responses = crate::reports::replies::read(&state.db, m.organization_id, r).await?;
    let hours = crate::reports::hours::of(&state.db, m.organization_id).await?;
    let (agents, total) = crate::reports::ai_share::read(&state.db, m.organization_id, r).await?;
    Ok(Answers {
        responses,
        hours,
        agents,
        total,
        owner: is_owner(m.role),
        ..Default::default()
    })
}

async fn render(
    state: &AppState,
    m: &Member,
    q: &Asked,
    hours_refused: Option<(AppError, HoursForm)>,
) -> Response {
    let (state, m) = (state.clone(), m.clone());
    // Each number by its label, as the rest of Herald names them ("Front desk (+1415…)").
    let numbers: Vec<(Uuid, String)> = match phone_number::Entity::find()
        .select_only()
        .column(phone_number::Column::Id)
        .column(phone_number::Column::FriendlyName)
        .column(phone_number::Column::Number)
        .filter(phone_number::Column::OrganizationId.eq(m.organization_id))
        .order_by_asc(phone_number::Column::FriendlyName)
        .order_by_asc(phone_number::Column::Number)
        .limit(NUMBERS_SHOWN + 1)
        .into_tuple::<(Uuid, String, String)>()
        .all(&state.db)
        .await
    {
        Ok(n) => n
            .into_iter()
            .map(|(id, label, number)| match label.trim() {
                "" => (id, number),
                label => (id, format!("{label} ({number})")),
            })
            .collect(),
        Err(e) => return error_page(&state, "Reports", ("/", "Home"), &e.into()),
    };
    let asked = range(&state, &m, q).await;
    let (r, refused) = match asked {
        Ok(r) => (r, None),
        // What was typed stays in the form; the default range shows meanwhile.
        Err(e) => match range(&state, &m, &Asked::default()).await {
            Ok(r) => (r, Some(e)),
            Err(e) => return error_page(&state, "Reports", ("/", "Home"), &e),
        },
    };
    let rep = match report(&state, &m, r).await {
        Ok(rep) => rep,
        Err(e) => return error_page(&state, "Reports", ("/", "Home"), &e),
    };
    let camps = match campaigns(&state, &m, r).await {
        Ok(c) => c,
        Err(e) => return error_page(&state, "Reports", ("/", "Home"), &e),
    };
    let mut ans = match answers(&state, &m, r).await {
        Ok(a) => a,
        Err(e) => return error_page(&state, "Reports", ("/", "Home"), &e),
    };
    ans.replies = rep.total.replies;
    let status = refused
        .as_ref()
        .or(hours_refused.as_ref().map(|(e, _)| e))
        .map_or(axum::http::StatusCode::OK, status_of);
    ans.refused = hours_refused.map(|(e, f)| (e.to_string(), f));
    let body = page(
        q,
        r,
        (&rep, &ans),
        &camps,
        &numbers,
        refused.map(|e| e.to_string()),
    );
    let html = signed_in_document(&state, &m, "Reports", "/reports", main_html(body)).await;
    (status, Html(html)).into_response()
}

fn page(
    q: &Asked,
    r: Range,
    (rep, ans): (&Report, &Answers),
    (camps, camps_total): &(Vec<Campaign>, u64),
    numbers: &[(Uuid, String)],
    error: Option<String>,
) -> Element {
    let t = rep.total;
    let texts = bars(
        "Texts in and out per day",
        &[
            Series {
                name: "in",
                class: "bar-in",
            },
            Series {
                name: "out",
                class: "bar-out",
            },
        ],
        &rep.days
            .iter()
            .map(|(d, f)| (*d, vec![f.texts_in as f64, f.texts_out as f64]))
            .collect::<Vec<_>>(),
        1.0,
        |v| crate::format::grouped(v.round() as u64),
    );
    let cost = bars(
        "Estimated cost per day",
        &[Series {
            name: "cost",
            class: "bar-cost",
        }],
        &rep.days
            .iter()
            .map(|(d, f)| (*d, vec![f.cost_micros as f64 / 1e6]))
            .collect::<Vec<_>>(),
        0.01,
        |v| format!("${v:.2}"),
    );
    let query = Asked::default().query(&r);
    let (from, to) = match error {
        Some(_) => (q.from.clone(), q.to.clone()),
        None => (r.from.to_string(), r.to.to_string()),
    };
    let chosen = r.number.map(|n| n.to_string()).unwrap_or_default();
    let more = numbers.len() as u64 > NUMBERS_SHOWN;
    let g = |n: i64| crate::format::grouped(n.max(0) as u64);
    rsx! {
        main { class: "page reports",
            p { a { href: "/messaging", id: "reports-back", "← Inbox" } }
            header { class: "page-head", h1 { "Reports" } }
            form { method: "get", action: "/reports", class: "row report-range", id: "report-range",
                label { "From " input { r#type: "date", name: "from", id: "report-from", value: "{from}" } }
                label { "To " input { r#type: "date", name: "to", id: "report-to", value: "{to}" } }
                label { "Number "
                    select { name: "number", id: "report-number",
                        option { value: "", selected: chosen.is_empty(), "All numbers" }
                        for (id, n) in numbers.iter().take(NUMBERS_SHOWN as usize) {
                            option { value: "{id}", selected: chosen == id.to_string(), "{n}" }
                        }
                    }
                }
                button { r#type: "submit", "Show" }
            }
            if more { p { class: "muted small", "The first {NUMBERS_SHOWN} numbers are offered; open a number's report from its own link to see another." } }
            if let Some(e) = &error { p { class: "error", role: "alert", id: "report-error", "{e} The last 30 days are shown." } }
            section { class: "tiles", id: "report-totals",
                div { class: "tile", span { class: "muted small", "Texts in" } strong { id: "total-in", "{g(t.texts_in)}" } }
                div { class: "tile", span { class: "muted small", "Texts out" } strong { id: "total-out", "{g(t.texts_out)}" } }
                div { class: "tile", span { class: "muted small", "Delivered" }
                    strong { id: "delivery-rate", "{pct(t.delivery_pct())}" }
                    span { class: "muted small", " of {g(t.outcomes())} with a delivery report" }
                }
                div { class: "tile", span { class: "muted small", "Estimated cost" } strong { id: "total-cost", "{dollars(t.cost_micros)}" } }
            }
            section { class: "card", id: "report-texts",
                h2 { "Texts per day" }
                p { class: "legend small", span { class: "swatch bar-in" } " in " span { class: "swatch bar-out" } " out" }
                div { class: "chart-box", dangerous_inner_html: "{texts}" }
            }
            {sections(ans, &query)}
            section { class: "card", id: "report-failures",
                h2 { "Why texts failed" }
                if rep.failures.is_empty() {
                    p { class: "muted", "No text failed in these days." }
                } else {
                    table { class: "table",
                        thead { tr { th { "Reason" } th { "Code" } th { class: "num", "Texts" } } }
                        tbody {
                            for (words, code, n) in rep.failures.iter() {
                                tr { td { class: "cell-title", "{words}" } td { "data-label": "Code", "{code}" } td { class: "num", "data-label": "Texts", "{g(*n)}" } }
                            }
                        }
                    }
                }
                p { class: "small", a { href: "/reports/failures.csv?{query}", id: "failures-csv", "Download as CSV" } }
            }
            section { class: "card", id: "report-cost",
                h2 { "Cost per day" }
                p { class: "muted small", "Estimated at the carriers' list price a segment or an MMS; your provider's invoice is the final word." }
                div { class: "chart-box", dangerous_inner_html: "{cost}" }
            }
            section { class: "card", id: "report-campaigns",
                h2 { "Campaigns" }
                if camps.is_empty() {
                    p { class: "muted", "No campaign began in these days." }
                } else {
                    p { class: "muted small",
                        if (camps.len() as u64) < *camps_total { "The newest {camps.len()} of {g(*camps_total as i64)} that began in these days; narrow the range for older ones." } else { "Replies and opt-outs count within 72 hours of each text." }
                    }
                    div { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Campaign funnels",
                        table { class: "table",
                            thead { tr { th { "Campaign" } th { class: "num", "Audience" } th { class: "num", "Drafted" } th { class: "num", "Approved" } th { class: "num", "Sent" } th { class: "num", "Delivered" } th { class: "num", "Clicked" } th { class: "num", "Replied" } th { class: "num", "Opted out" } } }
                            tbody {
                                for c in camps.iter() {
                                    tr { class: "campaign-row",
                                        td { class: "cell-title", a { href: "/operations/{c.id}", "{c.title}" } span { class: "muted small", " {c.at}" } }
                                        {num_cells(&[("Audience", c.funnel.audience), ("Drafted", c.funnel.drafted),
                                            ("Approved", c.funnel.approved), ("Sent", c.funnel.sent),
                                            ("Delivered", c.funnel.delivered), ("Clicked", c.funnel.clicked),
                                            ("Replied", c.funnel.replied), ("Opted out", c.funnel.opted_out)])}
                                    }
                                }
                            }
                        }
                    }
                }
                p { class: "small", a { href: "/reports/campaigns.csv?{query}", id: "campaigns-csv", "Download as CSV" } }
            }
            section { class: "card", id: "report-daily",
                h2 { "Day by day" }
                div { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Texts day by day",
                    table { class: "table",
                        thead { tr { th { "Day" } th { class: "num", "In" } th { class: "num", "Out" } th { class: "num", "Delivered" } th { class: "num", "Failed" } th { class: "num", "Cost" } } }
                        tbody {
                            for (d, f) in rep.days.iter().rev() {
                                tr { td { class: "cell-title", "{d}" }
                                    {num_cells(&[("In", f.texts_in), ("Out", f.texts_out), ("Delivered", f.delivered),
                                        ("Failed", f.undelivered + f.failed)])}
                                    td { class: "num", "data-label": "Cost", "{dollars(f.cost_micros)}" } }
                            }
                        }
                    }
                }
                p { class: "small", a { href: "/reports/daily.csv?{query}", id: "daily-csv", "Download as CSV" } }
            }
        }
    }
}
