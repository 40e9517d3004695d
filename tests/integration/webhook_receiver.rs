//! A webhook receiver for the tests, on loopback: it verifies each delivery's signature with
//! the Standard Webhooks library (`standardwebhooks`), can answer 500 a number of times first,
//! and keeps what it took, deduplicated by `webhook-id` as a real receiver would.
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
pub struct Seen {
    /// Each logical delivery once, in the order it first arrived: (webhook-id, body).
    pub events: Vec<(String, Value)>,
    /// Every request, duplicates included.
    pub requests: usize,
    /// Requests whose signature did not verify.
    pub forged: usize,
}

#[derive(Clone, Default)]
pub struct Receiver {
    pub url: String,
    pub secret: Arc<Mutex<Option<String>>>,
    pub seen: Arc<Mutex<Seen>>,
    /// Answer 500 this many times before taking deliveries.
    pub fail_first: Arc<AtomicUsize>,
    /// Milliseconds to take over each answer (deliveries stay in flight that long).
    pub delay_ms: Arc<AtomicUsize>,
}

impl Receiver {
    pub async fn start() -> Receiver {
        let mut r = Receiver::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        r.url = format!("http://{}/hooks", listener.local_addr().unwrap());
        let app = axum::Router::new()
            .route("/hooks", post(take))
            .with_state(r.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.ok() });
        r
    }

    /// What has arrived so far, as a copy (no lock held).
    pub fn snapshot(&self) -> Seen {
        self.seen.lock().unwrap().clone()
    }

    pub fn set_secret(&self, s: &str) {
        *self.secret.lock().unwrap() = Some(s.to_owned());
    }

    pub fn types(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .events
            .iter()
            .map(|(_, b)| b["type"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    /// Waits until `n` logical deliveries have arrived (20 s at most).
    /// Waits up to a minute (the worker's threads are of lower priority, and starve under load).
    pub async fn wait_for(&self, n: usize) {
        for _ in 0..1200 {
            if self.seen.lock().unwrap().events.len() >= n {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("only {:?} arrived, {n} expected", self.types());
    }
}

async fn take(State(r): State<Receiver>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let delay = r.delay_ms.load(Ordering::SeqCst);
    if delay > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(delay as u64)).await;
    }
    let secret = r.secret.lock().unwrap().clone().unwrap_or_default();
    let verified = standardwebhooks::Webhook::new(&secret)
        .map(|wh| wh.verify(&body, &headers).is_ok())
        .unwrap_or(false);
    let mut seen = r.seen.lock().unwrap();
    seen.requests += 1;
    if !verified {
        seen.forged += 1;
        return StatusCode::UNAUTHORIZED;
    }
    if r.fail_first
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
    {
        return StatusCode::INTERNAL_SERVER_ERROR;
    }
    let id = headers["webhook-id"].to_str().unwrap().to_owned();
    if !seen.events.iter().any(|(i, _)| *i == id) {
        seen.events
            .push((id, serde_json::from_slice(&body).unwrap_or(Value::Null)));
    }
    StatusCode::NO_CONTENT
}
