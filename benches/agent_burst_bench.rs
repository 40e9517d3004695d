//! Inbound burst through the webhook to Text Reply agents on the offline model: K contacts × M
//! texts. Prints acknowledgement p50/p99, texts routed and turns per second, threads created
//! (must equal K), events lost (must be 0) and peak memory.
//!
//! Closed loop (C at a time) by default. `--rate R --seconds S` sends open-loop instead: R texts
//! a second for S seconds, paced by the clock, spread over the K contacts; the same load first
//! goes to a number with no agent, as the run's baseline for the acknowledgement, and the goals
//! of issue 15 print beside the figures.
//!
//! `cargo run --release --features server --bin agent_burst_bench -- --contacts 50 --texts 20 [--concurrency 32 | --rate 500 --seconds 30] [--postgres] [--autonomous]`
#[path = "common.rs"]
mod common;

use common::*;
use herald::ai_agent::entity::ai_thread_event;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect};
use std::time::Instant;

const TO: &str = "+14155550100";
/// A number with no agent: the acknowledgement baseline.
const PLAIN: &str = "+14155550101";

fn main() {
    let contacts: usize = arg("--contacts", 50);
    let per_contact: usize = arg("--texts", 20);
    let concurrency: usize = arg("--concurrency", 32);
    let postgres = flag("--postgres");
    let autonomous = flag("--autonomous");
    let rate: f64 = arg("--rate", 0.0);
    let seconds: f64 = arg("--seconds", 30.0);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (base, state, org) = start_herald(postgres, &[TO, PLAIN]).await;
        let owner = herald::auth::service::list_members(&state, &herald::auth::session::Member {
            user_id: uuid::Uuid::nil(),
            organization_id: org,
            role: herald::auth::model::Role::Owner,
        })
        .await
        .unwrap()[0]
            .user_id;
        let member = herald::auth::session::member_for(&state, owner, org).await.unwrap();
        let agent = herald::ai_agent::service::list(&state, &member).await.unwrap().remove(0);
        if autonomous {
            let input = herald::ai_agent::model::AgentInput {
                name: agent.name.clone(),
                persona: agent.persona.clone(),
                goals: agent.goals.clone(),
                rules: String::new(),
                send_mode: herald::ai_agent::model::SendMode::Autonomous,
                planning_enabled: false,
                plan_approval: herald::plans::model::ApprovalPolicy::HumanReview,
                reply_send_limit: 2,
                reply_reads_org_wide: false,
                sees_pictures: false,
                answer_only: None,
            };
            herald::ai_agent::service::update(&state, &member, agent.id, &input).await.unwrap();
        }
        let numbers = herald::phone_numbers::service::list(&state, org).await.unwrap();
        let to_id = numbers.iter().find(|n| n.number == TO).expect("the agent's number").id;
        herald::ai_agent::service::assign_numbers(&state, &member, agent.id, &[to_id]).await.unwrap();

        // Texts interleave contacts, so every thread sees bursts while it is running.
        let total = if rate > 0.0 { (rate * seconds) as usize } else { contacts * per_contact };
        let texts = |to: &str, prefix: &str| -> Vec<(String, String, String)> {
            (0..total)
                .map(|i| (format!("+1415{prefix}{:04}", i % contacts), to.to_owned(), format!("Could I move my visit? ({})", i / contacts)))
                .collect()
        };
        let baseline = if rate > 0.0 {
            // Warm-up: both pools open their connections, and the database its caches.
            let warm: Vec<_> = texts(PLAIN, "558").into_iter().take((rate * 2.0) as usize).collect();
            fire_at_rate(&base, "warm", warm, rate).await;
            herald::platform::state::wait_for_background(&state.tasks).await;
            let b = fire_at_rate(&base, "plain", texts(PLAIN, "557"), rate).await;
            herald::platform::state::wait_for_background(&state.tasks).await;
            Some(b)
        } else {
            None
        };
        let rss = RssSampler::start(std::time::Duration::from_millis(200));
        let started = Instant::now();
        let acks = if rate > 0.0 {
            fire_at_rate(&base, "burst", texts(TO, "556"), rate).await
        } else {
            fire(&base, "burst", texts(TO, "556"), concurrency).await
        };
        // Routed: every text queued on its contact's thread (the turns may still be running).
        let routed = wait_until_routed(&state, to_id, total).await;
        herald::platform::state::wait_for_background(&state.tasks).await;
        let all_done = started.elapsed();
        let threads = herald::ai_agent::entity::ai_thread::Entity::find().count(&state.db).await.unwrap();
        let peak = peak_rss_mib();
        let inputs = ai_thread_event::Entity::find().filter(ai_thread_event::Column::Kind.eq("inbound_sms")).count(&state.db).await.unwrap();
        let processed = ai_thread_event::Entity::find()
            .filter(ai_thread_event::Column::Kind.eq("inbound_sms"))
            .filter(ai_thread_event::Column::ProcessedAt.is_not_null())
            .count(&state.db)
            .await
            .unwrap();
        let turns = ai_thread_event::Entity::find().filter(ai_thread_event::Column::Kind.eq("turn_started")).count(&state.db).await.unwrap();
        let db = if postgres { "PostgreSQL" } else { "SQLite" };
        let mode = if autonomous { "autonomous" } else { "suggest" };
        let how = if rate > 0.0 { format!("open loop at {rate} texts/s for {seconds} s") } else { format!("closed loop, concurrency {concurrency}") };
        println!("agent_burst_bench: {contacts} contacts, {total} texts, {how}, {db}, {mode}, offline model, {} build", build_kind());
        let goal = if postgres { 15.0 } else { 10.0 };
        match &baseline {
            Some(b) => {
                println!("  ack p50               {:>10.2} ms   baseline (no agent, same load) {:.2} ms", ms(acks.p50), ms(b.p50));
                println!("  ack p99               {:>10.2} ms   goal <= {goal} ms   baseline (no agent, same load) {:.2} ms", ms(acks.p99), ms(b.p99));
            }
            None => {
                println!("  ack p50               {:>10.2} ms", ms(acks.p50));
                println!("  ack p99               {:>10.2} ms", ms(acks.p99));
            }
        }
        println!("  webhook errors        {:>10}", acks.errors);
        println!(
            "  texts routed / s      {:>10.1}  (first acknowledged to last queued on its thread: {total} in {:.2} s; goal >= 1000, sustained)",
            routed.per_second, routed.span
        );
        println!(
            "  slowest second        {:>10}  texts routed (of {} whole seconds; sustained 1000/s needs >= 1000 in each, so offer more than 1000/s)",
            routed.slowest_second, routed.whole_seconds
        );
        println!("  routing lag p50       {:>10.2} ms  (acknowledged -> queued on its thread)", routed.lag_p50);
        println!("  routing lag p99       {:>10.2} ms", routed.lag_p99);
        println!("  threads created       {:>10}  (must equal {contacts})", threads);
        println!("  events lost           {:>10}  (stored {inputs}, processed {processed})", total as u64 - processed);
        println!(
            "  turns                 {:>10}  ({:.1} turns / s; every text answered {:.2} s after the first was sent)",
            turns,
            turns as f64 / all_done.as_secs_f64(),
            all_done.as_secs_f64()
        );
        println!("  peak RSS              {:>10.0} MiB (the bench process: server and load generator)", peak);
        println!("  RSS over the run      {}", rss.line(std::time::Duration::from_secs_f64((seconds / 3.0).max(1.0))));
    });
}

struct Routed {
    per_second: f64,
    span: f64,
    lag_p50: f64,
    lag_p99: f64,
    /// The fewest texts routed in any whole second of the run.
    slowest_second: usize,
    whole_seconds: usize,
}

/// Waits until every text to `number` is routed, then reads, from the texts' own timestamps,
/// how fast they were routed and how long each waited.
async fn wait_until_routed(
    state: &herald::platform::AppState,
    number: uuid::Uuid,
    total: usize,
) -> Routed {
    use herald::messaging::entity as message;
    let deadline = Instant::now() + std::time::Duration::from_secs(600);
    loop {
        let n = message::Entity::find()
            .filter(message::Column::PhoneNumberId.eq(number))
            .filter(message::Column::RoutedAt.is_not_null())
            .count(&state.db)
            .await
            .unwrap();
        if n as usize >= total || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let rows: Vec<(
        chrono::DateTime<chrono::Utc>,
        Option<chrono::DateTime<chrono::Utc>>,
    )> = message::Entity::find()
        .select_only()
        .column(message::Column::CreatedAt)
        .column(message::Column::RoutedAt)
        .filter(message::Column::PhoneNumberId.eq(number))
        .into_tuple()
        .all(&state.db)
        .await
        .unwrap();
    let first = rows.iter().map(|r| r.0).min().unwrap();
    let last = rows.iter().filter_map(|r| r.1).max().unwrap();
    let mut lags: Vec<f64> = rows
        .iter()
        .filter_map(|(c, r)| r.map(|r| (r - *c).num_microseconds().unwrap_or(0) as f64 / 1e3))
        .collect();
    lags.sort_by(f64::total_cmp);
    let pct = |p: f64| lags[((lags.len() as f64 * p).ceil() as usize).clamp(1, lags.len()) - 1];
    let span = (last - first).num_microseconds().unwrap_or(1) as f64 / 1e6;
    // Texts routed in each whole second of the run, from the first text's arrival: sustained
    // means every second, not the average.
    let mut seconds = vec![0usize; span.floor() as usize];
    for r in rows.iter().filter_map(|r| r.1) {
        let at = (r - first).num_milliseconds().max(0) as usize / 1000;
        if let Some(n) = seconds.get_mut(at) {
            *n += 1;
        }
    }
    Routed {
        per_second: lags.len() as f64 / span,
        span,
        lag_p50: pct(0.5),
        lag_p99: pct(0.99),
        slowest_second: seconds.iter().copied().min().unwrap_or(0),
        whole_seconds: seconds.len(),
    }
}
