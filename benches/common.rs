//! Shared by the bench binaries: database set-up, a Herald server with one organisation, and a
//! load generator that fires signed inbound webhooks and reports latency percentiles.
#![allow(dead_code)]
use futures::StreamExt;
use herald::messaging::signature::compute_signature;
use herald::platform::config::Config;
use sea_orm::{ConnectionTrait, Database};
use std::time::{Duration, Instant};

pub const TOKEN: &str = "bench-token";

/// A Wednesday at 16:00 UTC: inside the sending window in every US and European zone.
pub fn daytime() -> chrono::DateTime<chrono::Utc> {
    use chrono::TimeZone;
    chrono::Utc.with_ymd_and_hms(2026, 6, 17, 16, 0, 0).unwrap()
}
pub const PUBLIC_URL: &str = "https://bench.herald.example";

pub async fn database_url(postgres: bool, name: &str) -> String {
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

/// Herald with webhook signatures on and one organisation owning `numbers`.
pub async fn start_herald(
    postgres: bool,
    numbers: &[&str],
) -> (String, herald::platform::AppState, uuid::Uuid) {
    start_herald_with(postgres, numbers, |_| {}).await
}

/// Like `start_herald`, with the outside services adjusted first (drafter, engine settings).
pub async fn start_herald_with(
    postgres: bool,
    numbers: &[&str],
    adjust: impl FnOnce(&mut herald::platform::state::Services),
) -> (String, herald::platform::AppState, uuid::Uuid) {
    start_herald_configured(postgres, numbers, |_| {}, adjust).await
}

/// Like `start_herald_with`, with the settings adjusted first (private addresses allowed).
pub async fn start_herald_configured(
    postgres: bool,
    numbers: &[&str],
    configure: impl FnOnce(&mut Config),
    adjust: impl FnOnce(&mut herald::platform::state::Services),
) -> (String, herald::platform::AppState, uuid::Uuid) {
    let mut config = Config::for_database(database_url(postgres, "herald").await);
    configure(&mut config);
    config.webhook_auth_token = Some(TOKEN.into());
    config.public_url = PUBLIC_URL.into();
    config.turn_concurrency = arg("--turns", config.turn_concurrency);
    let mut services = herald::platform::state::Services::from_config(&config).expect("services");
    // Daytime for the server whatever the hour here: quiet hours must not stall the send bench.
    services.clock =
        std::sync::Arc::new(herald::platform::clock::ShiftedClock::starting_at(daytime()));
    adjust(&mut services);
    let running = herald::server::launch::start_with(config, services)
        .await
        .expect("herald starts");
    let (org, _) = herald::team::sign_up::create_organization_with_owner(
        &running.state,
        "Bench",
        "B",
        "b@bench.test",
        "benchmark-pass",
        None,
    )
    .await
    .unwrap();
    for n in numbers {
        let input = herald::phone_numbers::model::PhoneNumberInput {
            number: (*n).into(),
            friendly_name: "Bench".into(),
            provider_sid: String::new(),
            auto_assign: false,
        };
        herald::phone_numbers::service::create(&running.state, org, &input)
            .await
            .unwrap();
    }
    (format!("http://{}", running.addr), running.state, org)
}

pub struct Figures {
    pub p50: Duration,
    pub p99: Duration,
    pub per_second: f64,
    pub errors: usize,
    pub elapsed: Duration,
}

/// One signed inbound webhook: the URL to post to, its form and its signature.
fn signed(
    base: &str,
    label: &str,
    i: usize,
    text: (String, String, String),
) -> (String, Vec<(String, String)>, String) {
    let (from, to, body) = text;
    let params: Vec<(String, String)> = vec![
        ("MessageSid".into(), format!("SM{label}{i:024}")),
        ("From".into(), from),
        ("To".into(), to),
        ("Body".into(), body),
        ("NumMedia".into(), "0".into()),
    ];
    let sig = compute_signature(TOKEN, &format!("{PUBLIC_URL}/webhooks/twilio/sms"), &params);
    (format!("{base}/webhooks/twilio/sms"), params, sig)
}

async fn post(
    client: &reqwest::Client,
    (url, params, sig): (String, Vec<(String, String)>, String),
) -> bool {
    client
        .post(url)
        .header("X-Twilio-Signature", sig)
        .form(&params)
        .send()
        .await
        .map(|r| r.status().is_success())
        .unwrap_or(false)
}

fn figures(results: Vec<(Duration, bool)>, elapsed: Duration) -> Figures {
    let n = results.len();
    let mut lat: Vec<Duration> = results.iter().map(|(d, _)| *d).collect();
    lat.sort();
    let pct = |p: f64| lat[((lat.len() as f64 * p).ceil() as usize).clamp(1, lat.len()) - 1];
    Figures {
        p50: pct(0.50),
        p99: pct(0.99),
        per_second: n as f64 / elapsed.as_secs_f64(),
        errors: results.iter().filter(|(_, ok)| !ok).count(),
        elapsed,
    }
}

/// Closed loop: fires `texts` (from, to, body) as signed webhooks at `base`, `concurrency` at a
/// time (the next request waits for a reply).
pub async fn fire(
    base: &str,
    label: &str,
    texts: Vec<(String, String, String)>,
    concurrency: usize,
) -> Figures {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()
        .unwrap();
    let started = Instant::now();
    let results: Vec<(Duration, bool)> = futures::stream::iter(texts.into_iter().enumerate())
        .map(|(i, text)| {
            let client = client.clone();
            let request = signed(base, label, i, text);
            async move {
                let t = Instant::now();
                let ok = post(&client, request).await;
                (t.elapsed(), ok)
            }
        })
        .buffer_unordered(concurrency)
        .collect()
        .await;
    figures(results, started.elapsed())
}

/// Open loop: request `i` leaves at `i / rate` seconds, whether or not earlier ones were
/// answered, and its latency counts from that scheduled moment (a server that falls behind is
/// charged for the wait, not forgiven by a slower sender).
///
/// The sender runs on a thread and runtime of its own, as a carrier would on another machine:
/// the server's runtime schedules only the server's work, and a busy server cannot delay the
/// moment a request leaves.
pub async fn fire_at_rate(
    base: &str,
    label: &str,
    texts: Vec<(String, String, String)>,
    rate: f64,
) -> Figures {
    let (base, label) = (base.to_owned(), label.to_owned());
    let (done, figures) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("load-generator".into())
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let _ = done.send(rt.block_on(send_paced(&base, &label, texts, rate)));
        })
        .unwrap();
    figures.await.expect("the load generator finished")
}

async fn send_paced(
    base: &str,
    label: &str,
    texts: Vec<(String, String, String)>,
    rate: f64,
) -> Figures {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .build()
        .unwrap();
    let started = tokio::time::Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    let mut results = Vec::with_capacity(texts.len());
    for (i, text) in texts.into_iter().enumerate() {
        let at = started + Duration::from_secs_f64(i as f64 / rate);
        tokio::time::sleep_until(at).await;
        let request = signed(base, label, i, text);
        let client = client.clone();
        tasks.spawn(async move {
            let ok = post(&client, request).await;
            (at.elapsed(), ok)
        });
        // Finished requests are collected as they finish: the load generator's own memory must
        // not grow with the run, or it would be read as the server's.
        while let Some(r) = tasks.try_join_next() {
            results.push(r.unwrap_or((Duration::MAX, false)));
        }
    }
    while let Some(r) = tasks.join_next().await {
        results.push(r.unwrap_or((Duration::MAX, false)));
    }
    figures(results, started.elapsed())
}

/// Samples the process's resident memory every `every` until dropped, to show that it levels
/// off under a sustained load instead of growing with it.
pub struct RssSampler {
    samples: std::sync::Arc<std::sync::Mutex<Vec<(Duration, f64)>>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl RssSampler {
    pub fn start(every: Duration) -> Self {
        let samples = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (s, st) = (samples.clone(), stop.clone());
        std::thread::spawn(move || {
            let t = Instant::now();
            while !st.load(std::sync::atomic::Ordering::Relaxed) {
                s.lock().unwrap().push((t.elapsed(), rss_mib()));
                std::thread::sleep(every);
            }
        });
        Self { samples, stop }
    }

    /// "10 s 41 MiB · 20 s 42 MiB · …": one figure per `step` of the run.
    pub fn line(&self, step: Duration) -> String {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let samples = self.samples.lock().unwrap();
        let mut out = Vec::new();
        let mut next = step;
        for (at, mib) in samples.iter() {
            if *at >= next {
                out.push(format!("{:.0} s {mib:.0} MiB", at.as_secs_f64()));
                next += step;
            }
        }
        if let Some((at, mib)) = samples.last() {
            out.push(format!("end ({:.0} s) {mib:.0} MiB", at.as_secs_f64()));
        }
        out.join(" · ")
    }
}

fn status_mib(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map(|kib| kib / 1024.0)
        .unwrap_or(f64::NAN)
}

/// The process's resident memory now.
pub fn rss_mib() -> f64 {
    status_mib("VmRSS:")
}

/// The process's peak resident memory (the bench runs the server in-process).
pub fn peak_rss_mib() -> f64 {
    status_mib("VmHWM:")
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub fn build_kind() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

/// `--flag value` from the command line, parsed, or the default.
pub fn arg<T: std::str::FromStr>(flag: &str, default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{flag} takes a value")))
        .unwrap_or(default)
}

pub fn flag(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}

/// p50 and p95 of `runs` calls of `read`, after one call to warm.
pub async fn percentiles<F, Fut>(runs: usize, mut read: F) -> (Duration, Duration)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    read().await;
    let mut t: Vec<Duration> = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        read().await;
        t.push(start.elapsed());
    }
    t.sort();
    let pct = |p: f64| t[((t.len() as f64 * p).ceil() as usize).clamp(1, t.len()) - 1];
    (pct(0.5), pct(0.95))
}
