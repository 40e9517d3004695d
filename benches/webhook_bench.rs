//! Webhook acknowledgement benchmark: N signed inbound texts, C at a time, at a running Herald
//! server and, in the same run, at a bare axum handler that only inserts one row.
//!
//! `cargo run --release --features server --bin webhook_bench -- --requests 2000 --concurrency 32 [--postgres]`
use futures::StreamExt;
use herald::messaging::signature::compute_signature;
use herald::server::config::Config;
use sea_orm::{ConnectionTrait, Database, DatabaseConnection};
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-token";
const TO: &str = "+14155550100";

struct Args {
    requests: usize,
    concurrency: usize,
    postgres: bool,
}

fn args() -> Args {
    let mut a = Args {
        requests: 2000,
        concurrency: 32,
        postgres: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--requests" => {
                a.requests = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--requests N")
            }
            "--concurrency" => {
                a.concurrency = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--concurrency C")
            }
            "--postgres" => a.postgres = true,
            other => panic!("unknown flag {other}"),
        }
    }
    a
}

async fn database_url(postgres: bool, name: &str) -> String {
    if postgres {
        let admin = Database::connect("postgres://postgres@127.0.0.1:5432/postgres")
            .await
            .expect("PostgreSQL on 127.0.0.1:5432");
        let db = format!("herald_bench_{name}_{}", uuid::Uuid::new_v4().simple());
        admin
            .execute_unprepared(&format!("CREATE DATABASE \"{db}\""))
            .await
            .unwrap();
        format!("postgres://postgres@127.0.0.1:5432/{db}")
    } else {
        let path = std::env::temp_dir().join(format!(
            "herald-bench-{name}-{}.db",
            uuid::Uuid::new_v4().simple()
        ));
        format!("sqlite://{}?mode=rwc", path.display())
    }
}

/// Herald itself, with one organisation owning the number texted.
async fn start_herald(postgres: bool) -> String {
    let mut config = Config::for_database(database_url(postgres, "herald").await);
    config.webhook_auth_token = Some(TOKEN.into());
    config.public_url = "https://bench.herald.example".into();
    let running = herald::server::launch::start(config)
        .await
        .expect("herald starts");
    let (org, _) = herald::auth::service::create_organization_with_owner(
        &running.state,
        "Bench",
        "B",
        "b@bench.test",
        "benchmark-pass",
    )
    .await
    .unwrap();
    let input = herald::phone_numbers::model::PhoneNumberInput {
        number: TO.into(),
        friendly_name: "Bench".into(),
        provider_sid: String::new(),
    };
    herald::phone_numbers::service::create(&running.state, org, &input)
        .await
        .unwrap();
    format!("http://{}", running.addr)
}

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
        let stmt = sea_orm::Statement::from_sql_and_values(
            db.get_database_backend(),
            match db.get_database_backend() {
                sea_orm::DbBackend::Postgres => "INSERT INTO bare (sid, body) VALUES ($1, $2)",
                _ => "INSERT INTO bare (sid, body) VALUES (?, ?)",
            },
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

struct Figures {
    p50: Duration,
    p99: Duration,
    per_second: f64,
    errors: usize,
}

async fn fire(base: &str, a: &Args, label: &str) -> Figures {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(a.concurrency)
        .build()
        .unwrap();
    let url = format!("{base}/webhooks/twilio/sms");
    let signed_url = "https://bench.herald.example/webhooks/twilio/sms";
    let started = Instant::now();
    let results: Vec<(Duration, bool)> = futures::stream::iter(0..a.requests)
        .map(|i| {
            let client = client.clone();
            let url = url.clone();
            let params: Vec<(String, String)> = vec![
                ("MessageSid".into(), format!("SM{label}{i:024}")),
                ("From".into(), format!("+1415555{:04}", 2000 + i % 50)),
                ("To".into(), TO.into()),
                ("Body".into(), format!("Benchmark text {i}")),
                ("NumMedia".into(), "0".into()),
            ];
            let sig = compute_signature(TOKEN, signed_url, &params);
            async move {
                let t = Instant::now();
                let ok = client
                    .post(url)
                    .header("X-Twilio-Signature", sig)
                    .form(&params)
                    .send()
                    .await
                    .map(|r| r.status().is_success())
                    .unwrap_or(false);
                (t.elapsed(), ok)
            }
        })
        .buffer_unordered(a.concurrency)
        .collect()
        .await;
    let elapsed = started.elapsed();
    let mut lat: Vec<Duration> = results.iter().map(|(d, _)| *d).collect();
    lat.sort();
    let pct = |p: f64| lat[((lat.len() as f64 * p).ceil() as usize).clamp(1, lat.len()) - 1];
    Figures {
        p50: pct(0.50),
        p99: pct(0.99),
        per_second: a.requests as f64 / elapsed.as_secs_f64(),
        errors: results.iter().filter(|(_, ok)| !ok).count(),
    }
}

fn main() {
    let a = args();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let herald = start_herald(a.postgres).await;
        let bare = start_bare(a.postgres).await;
        // Warm both up so connection pools and caches are not measured.
        let warm = Args {
            requests: 50,
            concurrency: a.concurrency,
            postgres: a.postgres,
        };
        fire(&herald, &warm, "warmh").await;
        fire(&bare, &warm, "warmb").await;
        let h = fire(&herald, &a, "herald").await;
        let b = fire(&bare, &a, "bare").await;
        let db = if a.postgres { "PostgreSQL" } else { "SQLite" };
        println!(
            "webhook_bench: {} signed requests, concurrency {}, {db}, {} build",
            a.requests,
            a.concurrency,
            if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            }
        );
        println!(
            "{:<28} {:>10} {:>10} {:>12} {:>7}",
            "target", "p50 ms", "p99 ms", "req/s", "errors"
        );
        for (name, f) in [
            ("herald /webhooks/twilio/sms", &h),
            ("bare axum insert-one-row", &b),
        ] {
            println!(
                "{:<28} {:>10.2} {:>10.2} {:>12.0} {:>7}",
                name,
                f.p50.as_secs_f64() * 1e3,
                f.p99.as_secs_f64() * 1e3,
                f.per_second,
                f.errors
            );
        }
    });
}
