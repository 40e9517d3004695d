//! Webhook acknowledgement benchmark: N signed inbound texts at a running Herald server and, in
//! the same run, at a bare axum handler that only inserts one row. Closed loop (C at a time) by
//! default; `--rate R` sends open-loop at R requests a second, paced by the clock.
//!
//! `cargo run --release --features server --bin webhook_bench -- --requests 2000 [--concurrency 32 | --rate 500] [--postgres]`
#[path = "common.rs"]
mod common;

use common::*;
use sea_orm::{ConnectionTrait, Database, DatabaseConnection};

const TO: &str = "+14155550100";

/// The baseline: parse the form, insert one row, answer empty TwiML.
async fn start_bare(postgres: bool) -> String {
    use axum::{extract::State, routing::post, Form, Router};
    let db: DatabaseConnection = Database::connect(database_url(postgres, "bare").await)
        .await
        .unwrap();
    db.execute_unprepared("CREATE TABLE bare (sid TEXT PRIMARY KEY, body TEXT NOT NULL)")
        .await
        .unwrap();
    async fn handler(
        State(db): State<DatabaseConnection>,
        Form(f): Form<Vec<(String, String)>>,
    ) -> &'static str {
        let get = |k: &str| {
            f.iter()
                .find(|(a, _)| a == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let sql = match db.get_database_backend() {
            sea_orm::DbBackend::Postgres => "INSERT INTO bare (sid, body) VALUES ($1, $2)",
            _ => "INSERT INTO bare (sid, body) VALUES (?, ?)",
        };
        let stmt = sea_orm::Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            [get("MessageSid").into(), get("Body").into()],
        );
        db.execute_raw(stmt).await.unwrap();
        "<Response></Response>"
    }
    let app = Router::new()
        .route("/webhooks/twilio/sms", post(handler))
        .with_state(db);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

fn texts(n: usize) -> Vec<(String, String, String)> {
    (0..n)
        .map(|i| {
            (
                format!("+1415555{:04}", 2000 + i % 50),
                TO.to_owned(),
                format!("Benchmark text {i}"),
            )
        })
        .collect()
}

fn main() {
    let requests: usize = arg("--requests", 2000);
    let concurrency: usize = arg("--concurrency", 32);
    let postgres = flag("--postgres");
    let rate: f64 = arg("--rate", 0.0);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (herald, _, _) = start_herald(postgres, &[TO]).await;
        let bare = start_bare(postgres).await;
        // Warm both up so connection pools and caches are not measured.
        fire(&herald, "warmh", texts(50), concurrency).await;
        fire(&bare, "warmb", texts(50), concurrency).await;
        let (h, b, how) = if rate > 0.0 {
            (
                fire_at_rate(&herald, "herald", texts(requests), rate).await,
                fire_at_rate(&bare, "bare", texts(requests), rate).await,
                format!("open loop at {rate} req/s"),
            )
        } else {
            (
                fire(&herald, "herald", texts(requests), concurrency).await,
                fire(&bare, "bare", texts(requests), concurrency).await,
                format!("closed loop, concurrency {concurrency}"),
            )
        };
        let db = if postgres { "PostgreSQL" } else { "SQLite" };
        println!(
            "webhook_bench: {requests} signed requests, {how}, {db}, {} build, peak RSS {:.0} MiB",
            build_kind(),
            peak_rss_mib()
        );
        println!(
            "{:<28} {:>10} {:>10} {:>12} {:>7}",
            "target", "p50 ms", "p99 ms", "req/s", "errors"
        );
        if rate > 0.0 {
            let goal = if postgres { 15.0 } else { 10.0 };
            println!("goal: Herald's p99 <= {goal} ms open loop (issue 15; agent_burst_bench --rate measures it with agents busy)");
        }
        for (name, f) in [
            ("herald /webhooks/twilio/sms", &h),
            ("bare axum insert-one-row", &b),
        ] {
            println!(
                "{:<28} {:>10.2} {:>10.2} {:>12.0} {:>7}",
                name,
                ms(f.p50),
                ms(f.p99),
                f.per_second,
                f.errors
            );
        }
    });
}
