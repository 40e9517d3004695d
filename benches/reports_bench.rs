//! The Reports page at a real business's size (issue 30 §5): an organisation of 100,000
//! contacts with 10 texts each (1,000,000 texts over 90 days), on SQLite or PostgreSQL. It
//! says how far the rollup's background passes fell behind the bulk seed (and times the rest),
//! then times the page as a
//! person opens it (`GET /reports`, signed in: the rollup's catch-up, the read and the HTML with
//! its two SVG charts, the median first response over the range's answered texts and the AI's
//! share) for 30 and 90 days, p50 and p95 beside the goal (ready within 1 s) and,
//! in the same run, beside the old way: grouping the message table by day for the same range.
//! The range holds one campaign to every contact: its funnel is timed on its own too, beside
//! the old way of counting it when read (`reports_campaign`).
//!
//! `cargo run --release --features server --bin reports_bench -- [--contacts 100000] [--runs 20] [--postgres]`
#[path = "common.rs"]
mod common;
#[path = "reports_campaign.rs"]
mod reports_campaign;

use common::*;
use herald::server::seed_scale::{seed, ScaleSpec};
use sea_orm::ConnectionTrait;
use std::time::{Duration, Instant};

const GOAL: Duration = Duration::from_secs(1);

#[tokio::main]
async fn main() {
    let postgres = flag("--postgres");
    let contacts: usize = arg("--contacts", 100_000);
    let runs: usize = arg("--runs", 20);
    let (base, state, org) = start_herald(postgres, &["+14155550100"]).await;
    let number = herald::phone_numbers::service::list(&state, org)
        .await
        .unwrap()[0]
        .id;
    let spec = ScaleSpec {
        contacts,
        messages_each: 10,
        now: daytime(),
        unread_every: 7,
        vip_every: 10,
    };
    let db = if postgres { "PostgreSQL" } else { "SQLite" };
    println!(
        "reports_bench on {db} ({}), {runs} runs a read",
        build_kind()
    );
    let start = Instant::now();
    seed(&state.db, org, number, &spec).await.unwrap();
    println!(
        "{contacts} contacts, {} texts: seeded in {:.1} s",
        contacts * 10,
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let mut counted = 0;
    loop {
        match herald::reports::rollup::catch_up(&state, 100)
            .await
            .unwrap()
        {
            0 => break,
            n => counted += n,
        }
    }
    // The background passes run while the seed writes: what is left is what they had not
    // reached yet.
    println!(
        "rollup: the background passes kept pace with the seed; {counted} counts (arrivals and \
         outcomes) were left, counted in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    if flag("--analyze") {
        let sql = if postgres {
            "VACUUM ANALYZE"
        } else {
            "ANALYZE"
        };
        state.db.execute_unprepared(sql).await.unwrap();
    }

    // One campaign to every contact, from before the counters: the migration's backfill counts
    // it, then the funnel is read from its counters and, as the baseline, the old way.
    let start = Instant::now();
    let op =
        reports_campaign::seed(&state.db, org, number, reports_campaign::began(daytime())).await;
    println!(
        "one campaign of {} texts: seeded in {:.1} s",
        op.total,
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    migration::m20261129_000054_campaign_funnels::backfill(&migration::SchemaManager::new(
        &state.db,
    ))
    .await
    .unwrap();
    herald::reports::rollup::catch_up(&state, 1000)
        .await
        .unwrap();
    println!(
        "its funnel counted (the migration's backfill, then the passes) in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    let kept = herald::campaign::funnel::of(&state.db, &op).await.unwrap();
    let old = reports_campaign::the_old_way(&state.db, &op).await;
    assert_eq!(kept, old, "the counters say what the old count says");
    println!("its funnel: {kept:?}");
    let funnel = percentiles(runs, || {
        let (db, op) = (state.db.clone(), op.clone());
        async move {
            herald::campaign::funnel::of(&db, &op).await.unwrap();
        }
    })
    .await;
    let old = percentiles(runs.min(5), || {
        let (db, op) = (state.db.clone(), op.clone());
        async move {
            reports_campaign::the_old_way(&db, &op).await;
        }
    })
    .await;

    let client = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let res = client
        .post(format!("{base}/api/auth/sign_in"))
        .json(&serde_json::json!({"form": {"email": "b@bench.test", "password": "benchmark-pass"}}))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "sign in: {}", res.status());
    let today = daytime().date_naive();
    println!(
        "\n{:<44} {:>10} {:>10} {:>8}   {:>22}",
        "read", "p50 ms", "p95 ms", "goal", "old way p50 / p95 ms"
    );
    println!(
        "{:<44} {:>10.1} {:>10.1} {:>8}   {:>10.1} / {:>9.1}",
        format!("Funnel of a {}-text campaign", op.total),
        ms(funnel.0),
        ms(funnel.1),
        "-",
        ms(old.0),
        ms(old.1)
    );
    for days in [30, 90] {
        let from = today - chrono::Duration::days(days - 1);
        let url = format!("{base}/reports?from={from}&to={today}");
        let page = percentiles(runs, || {
            let (client, url) = (client.clone(), url.clone());
            async move {
                let res = client.get(url).send().await.unwrap();
                assert!(res.status().is_success());
                let html = res.text().await.unwrap();
                assert!(html.contains("id=\"total-out\""));
                assert!(html.contains("id=\"response-median\""));
            }
        })
        .await;
        // The old way: every text of the range grouped by day.
        let since = from.and_hms_opt(0, 0, 0).unwrap().and_utc();
        let (day, p1, p2) = match postgres {
            true => ("date(created_at)", "$1", "$2"),
            false => ("substr(created_at, 1, 10)", "?", "?"),
        };
        let sql = format!(
            "SELECT {day} AS d, direction, count(*) FROM message \
             WHERE organization_id = {p1} AND created_at >= {p2} GROUP BY d, direction"
        );
        let old = percentiles(runs.min(5), || {
            let (db, sql) = (state.db.clone(), sql.clone());
            async move {
                let rows = db
                    .query_all_raw(sea_orm::Statement::from_sql_and_values(
                        db.get_database_backend(),
                        sql,
                        [org.into(), since.into()],
                    ))
                    .await
                    .unwrap();
                assert!(!rows.is_empty(), "the old way reads the texts");
            }
        })
        .await;
        let verdict = if page.1 <= GOAL { "met" } else { "MISSED" };
        println!(
            "{:<44} {:>10.1} {:>10.1} {:>8}   {:>10.1} / {:>9.1}",
            format!("Reports page, {days} days ({verdict})"),
            ms(page.0),
            ms(page.1),
            "1000",
            ms(old.0),
            ms(old.1)
        );
    }
}
