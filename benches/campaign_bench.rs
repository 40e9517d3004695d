//! Campaign engine benchmarks: drafting throughput against a model with a fixed latency L at
//! concurrency 20 (beside the limit 20/L), engine overhead with a zero-latency model, and send
//! pacing accuracy against the configured rate.
//!
//! `cargo run --release --features server --bin campaign_bench -- [--items 400] [--latency-ms 50] [--postgres]`
#[path = "common.rs"]
mod common;

use common::*;
use herald::campaign::drafter::FixedLatencyDrafter;
use herald::plans::model::{ContactChange, PlanAction};
use std::sync::Arc;
use std::time::{Duration, Instant};

async fn campaign(
    postgres: bool,
    items: usize,
    latency: Duration,
    sends_per_second: f64,
) -> (herald::platform::AppState, uuid::Uuid) {
    let (_, state, org) = start_herald_with(postgres, &["+14155550100"], |s| {
        let drafter: Arc<dyn herald::campaign::drafter::Drafter> =
            Arc::new(FixedLatencyDrafter(latency));
        s.parts.insert(drafter);
        s.engine_mut().sends_per_second = sends_per_second;
    })
    .await;
    let mut audience = Vec::with_capacity(items);
    for i in 0..items {
        let input = herald::contacts::model::ContactInput {
            name: format!("Lead {i}"),
            phone: format!("+1415559{i:04}"),
            consent: Some(herald::compliance::model::ConsentInput {
                source: herald::compliance::model::ConsentSource::WebForm,
                note: "bench".into(),
            }),
            ..Default::default()
        };
        let c = herald::contacts::service::create(&state, org, &input)
            .await
            .unwrap();
        audience.push(ContactChange {
            contact_id: c.id,
            include: true,
            reason: "bench".into(),
            add_tags: vec![],
            remove_tags: vec![],
            kind: String::new(),
        });
    }
    let agent = herald::ai_agent::entity::ai_agent::Entity::find()
        .filter(herald::ai_agent::entity::ai_agent::Column::OrganizationId.eq(org))
        .filter(herald::ai_agent::entity::ai_agent::Column::Name.eq("Assistant"))
        .one(&state.db)
        .await
        .unwrap()
        .unwrap();
    let action = PlanAction::campaign(audience.clone(), "Hello".into(), None);
    let plan = herald::plans::service::present_plan(
        &state,
        &agent,
        herald::plans::service::Presented {
            thread_id: None,
            title: "Bench",
            summary: "bench",
            action,
            policy_override: None,
            source_key: None,
            revises: None,
        },
    )
    .await
    .unwrap();
    let op =
        herald::plans::campaign_start::create_campaign(&state, &plan, &audience, "Hello", None)
            .await
            .unwrap();
    (state, op)
}

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

async fn drafting(postgres: bool, items: usize, latency: Duration) -> f64 {
    let (state, op) = campaign(postgres, items, latency, 1.0).await;
    let t = Instant::now();
    herald::campaign::draft_engine::run_draft_engine(&state, op)
        .await
        .unwrap();
    items as f64 / t.elapsed().as_secs_f64()
}

async fn pacing(postgres: bool, items: usize, rate: f64) -> (f64, f64, f64, f64) {
    let (state, op) = campaign(postgres, items, Duration::ZERO, rate).await;
    herald::campaign::draft_engine::run_draft_engine(&state, op)
        .await
        .unwrap();
    use sea_orm::sea_query::Expr;
    herald::campaign::entity::operation::Entity::update_many()
        .col_expr(
            herald::campaign::entity::operation::Column::Status,
            Expr::value("sending"),
        )
        .filter(herald::campaign::entity::operation::Column::Id.eq(op))
        .exec(&state.db)
        .await
        .unwrap();
    herald::campaign::send_engine::run_send_engine(&state, op)
        .await
        .unwrap();
    let mut sent: Vec<chrono::DateTime<chrono::Utc>> =
        herald::campaign::create::items_of(&state, op)
            .await
            .unwrap()
            .into_iter()
            .filter_map(|i| i.sent_at)
            .collect();
    sent.sort();
    let gaps: Vec<f64> = sent
        .windows(2)
        .map(|w| (w[1] - w[0]).num_microseconds().unwrap_or(0) as f64 / 1e6)
        .collect();
    let target = 1.0 / rate;
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let mut errs: Vec<f64> = gaps.iter().map(|g| (g - target).abs() * 1e3).collect();
    errs.sort_by(f64::total_cmp);
    let p50 = errs[errs.len() / 2];
    let p99 = errs[((errs.len() as f64 * 0.99).ceil() as usize).clamp(1, errs.len()) - 1];
    let effective = (sent.len() - 1) as f64
        / (*sent.last().unwrap() - sent[0])
            .num_microseconds()
            .unwrap() as f64
        * 1e6;
    (mean, p50, p99, effective)
}

fn main() {
    let items: usize = arg("--items", 400);
    let latency_ms: u64 = arg("--latency-ms", 50);
    let postgres = flag("--postgres");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let db = if postgres { "PostgreSQL" } else { "SQLite" };
        println!("campaign_bench: {items} items, {db}, {} build, concurrency 20, batches of 50", build_kind());
        let l = Duration::from_millis(latency_ms);
        let with_latency = drafting(postgres, items, l).await;
        let limit = 20.0 / l.as_secs_f64();
        println!("  drafting, model latency {latency_ms} ms   {with_latency:>9.1} items/s   limit 20/L = {limit:.1}/s   ratio {:.3}   goal >= 0.95", with_latency / limit);
        let overhead = drafting(postgres, items, Duration::ZERO).await;
        println!("  engine overhead, zero-latency model {overhead:>9.1} items/s   goal >= 2000/s");
        let rate = 10.0;
        let (mean, p50, p99, effective) = pacing(postgres, 40, rate).await;
        println!("  send pacing at {rate}/s: mean gap {:.1} ms (target {:.1}), |error| p50 {p50:.2} ms p99 {p99:.2} ms, effective {effective:.2}/s", mean * 1e3, 1e3 / rate);
        println!("  peak RSS {:.0} MiB (the bench process, server included)", peak_rss_mib());
    });
}
