//! The Reports page's tables as CSV, for the same query as the page: `daily.csv`,
//! `failures.csv`, `campaigns.csv` and `agents.csv`. No cell is ever a formula in a spreadsheet.
// A handler's early exit is a whole response; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
use crate::auth::session::Member;
use crate::error::AppError;
use crate::platform::AppState;
use crate::reports::figures::Range;
use crate::reports::page::{answers, campaigns as newest, range, report, Asked, CATCH_UP_PASSES};
use crate::server_page::{status_of, Viewer};
use axum::extract::{Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};

fn refused(e: AppError) -> Response {
    (status_of(&e), e.to_string()).into_response()
}

/// A CSV download named `<what>-<from>-<to>.csv`.
fn csv(what: &str, r: Range, rows: Vec<Vec<String>>) -> Response {
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        // A campaign's title or an agent's name is anyone's words: never a formula.
        let _ = w.write_record(row.iter().map(|c| crate::contacts::export::cell(c)));
    }
    let bytes = w.into_inner().unwrap_or_default();
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{what}-{}-{}.csv\"", r.from, r.to),
            ),
        ],
        bytes,
    )
        .into_response()
}

fn head(names: &[&str]) -> Vec<Vec<String>> {
    vec![names.iter().map(|n| n.to_string()).collect()]
}

/// The range asked for, or the response that refuses it.
async fn asked(state: &AppState, m: &Member, q: &Asked) -> Result<Range, Response> {
    range(state, m, q).await.map_err(refused)
}

/// The range asked for and its report, after the rollup counted what arrived; or the refusal.
async fn counted(
    state: &AppState,
    m: &Member,
    q: &Asked,
) -> Result<(Range, crate::reports::figures::Report), Response> {
    let r = asked(state, m, q).await?;
    let rep = report(state, m, r).await.map_err(refused)?;
    Ok((r, rep))
}

pub async fn daily(
    State(state): State<AppState>,
    Viewer(m): Viewer,
    Query(q): Query<Asked>,
) -> Response {
    let (r, rep) = match counted(&state, &m, &q).await {
        Ok(x) => x,
        Err(res) => return res,
    };
    let mut rows = head(&[
        "day",
        "texts_in",
        "texts_out",
        "replies",
        "segments",
        "mms",
        "delivered",
        "undelivered",
        "failed",
        "cost_usd",
    ]);
    for (d, f) in &rep.days {
        rows.push(vec![
            d.to_string(),
            f.texts_in.to_string(),
            f.texts_out.to_string(),
            f.replies.to_string(),
            f.segments.to_string(),
            f.mms.to_string(),
            f.delivered.to_string(),
            f.undelivered.to_string(),
            f.failed.to_string(),
            format!("{:.4}", f.cost_micros as f64 / 1e6),
        ]);
    }
    csv("texts", r, rows)
}

pub async fn failures(
    State(state): State<AppState>,
    Viewer(m): Viewer,
    Query(q): Query<Asked>,
) -> Response {
    let (r, rep) = match counted(&state, &m, &q).await {
        Ok(x) => x,
        Err(res) => return res,
    };
    let mut rows = head(&["reason", "code", "texts"]);
    for (words, code, n) in rep.failures {
        rows.push(vec![words, code, n.to_string()]);
    }
    csv("failures", r, rows)
}

pub async fn campaigns(
    State(state): State<AppState>,
    Viewer(m): Viewer,
    Query(q): Query<Asked>,
) -> Response {
    let r = match asked(&state, &m, &q).await {
        Ok(r) => r,
        Err(res) => return res,
    };
    // The funnels are counters the passes keep: count what arrived since the last one first.
    if let Err(e) = crate::reports::rollup::catch_up(&state, CATCH_UP_PASSES).await {
        return refused(e);
    }
    let (camps, _) = match newest(&state, &m, r).await {
        Ok(c) => c,
        Err(e) => return refused(e),
    };
    let mut rows = head(&[
        "campaign",
        "began",
        "audience",
        "drafted",
        "approved",
        "sent",
        "delivered",
        "clicked",
        "replied_72h",
        "opted_out_72h",
    ]);
    for c in camps {
        let f = c.funnel;
        rows.push(vec![
            c.title,
            c.at,
            f.audience.to_string(),
            f.drafted.to_string(),
            f.approved.to_string(),
            f.sent.to_string(),
            f.delivered.to_string(),
            f.clicked.to_string(),
            f.replied.to_string(),
            f.opted_out.to_string(),
        ]);
    }
    csv("campaigns", r, rows)
}

pub async fn agents(
    State(state): State<AppState>,
    Viewer(m): Viewer,
    Query(q): Query<Asked>,
) -> Response {
    let (r, _) = match counted(&state, &m, &q).await {
        Ok(x) => x,
        Err(res) => return res,
    };
    match answers(&state, &m, r).await {
        Ok(a) => csv(
            "agents",
            r,
            crate::reports::answers::agents_csv(&a.agents, &a.total),
        ),
        Err(e) => refused(e),
    }
}
