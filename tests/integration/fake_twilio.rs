//! A fake Twilio on loopback that does only what Twilio's own OpenAPI description promises for
//! `Messages.json`: every create is a new message (no deduplication, whatever headers come
//! with it), and the list filters `To`, `From` and `DateSent>` work. It can also be told to
//! accept a message and then lose the response, as a dropped connection does.
#![allow(dead_code)]
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Form, Json, Router};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct Sent {
    pub sid: String,
    pub to: String,
    pub from: String,
    pub body: String,
    pub at: chrono::DateTime<chrono::Utc>,
}

#[derive(Default)]
pub struct FakeTwilio {
    pub sent: Mutex<Vec<Sent>>,
    /// Create requests seen (accepted or not).
    pub creates: Mutex<usize>,
    /// Accept, then drop the response, for each create whose index is in here.
    pub lose_responses: Mutex<Vec<usize>>,
    /// How long a create takes.
    pub latency: Mutex<Duration>,
    /// List requests seen (lookups of texts in doubt).
    pub lists: Mutex<usize>,
    /// The account's numbers. `None`: the account was set up with every number the test adds.
    pub owned: Mutex<Option<Vec<String>>>,
}

impl FakeTwilio {
    pub fn to(&self, number: &str) -> usize {
        self.sent
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.to == number)
            .count()
    }
    pub fn count(&self) -> usize {
        self.sent.lock().unwrap().len()
    }
}

pub async fn start() -> (String, Arc<FakeTwilio>) {
    let fake = Arc::new(FakeTwilio::default());
    let app = Router::new()
        .route(
            "/2010-04-01/Accounts/{sid}/Messages.json",
            post(create).get(list),
        )
        .route(
            "/2010-04-01/Accounts/{sid}/IncomingPhoneNumbers.json",
            axum::routing::get(incoming_numbers),
        )
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), fake)
}

fn resource(m: &Sent) -> Value {
    json!({
        "sid": m.sid, "account_sid": "ACtest", "to": m.to, "from": m.from, "body": m.body,
        "status": "queued", "direction": "outbound-api", "num_segments": "1",
        "date_created": m.at.to_rfc2822(), "date_sent": m.at.to_rfc2822(), "date_updated": m.at.to_rfc2822(),
    })
}

async fn create(
    State(fake): State<Arc<FakeTwilio>>,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let latency = *fake.latency.lock().unwrap();
    tokio::time::sleep(latency).await;
    let index = {
        let mut n = fake.creates.lock().unwrap();
        *n += 1;
        *n - 1
    };
    let (Some(to), Some(body)) = (form.get("To"), form.get("Body")) else {
        return (StatusCode::BAD_REQUEST, Json(json!({"code": 21604, "message": "A 'To' phone number is required.", "status": 400}))).into_response();
    };
    let m = {
        let mut sent = fake.sent.lock().unwrap();
        let m = Sent {
            sid: format!("SM{:032x}", sent.len() + 1),
            to: to.clone(),
            from: form.get("From").cloned().unwrap_or_default(),
            body: body.clone(),
            at: chrono::Utc::now(),
        };
        sent.push(m.clone());
        m
    };
    // Accepted before answering: a caller that dies meanwhile never hears of it.
    tokio::time::sleep(latency).await;
    if fake.lose_responses.lock().unwrap().contains(&index) {
        // Accepted, and the answer never arrives: the caller's request times out.
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    (StatusCode::CREATED, Json(resource(&m))).into_response()
}

async fn list(
    State(fake): State<Arc<FakeTwilio>>,
    Query(q): Query<HashMap<String, String>>,
) -> Json<Value> {
    *fake.lists.lock().unwrap() += 1;
    let since = q
        .get("DateSent>")
        .and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
    let found: Vec<Value> = fake
        .sent
        .lock()
        .unwrap()
        .iter()
        .filter(|m| q.get("To").is_none_or(|t| *t == m.to))
        .filter(|m| q.get("From").is_none_or(|f| *f == m.from))
        .filter(|m| since.is_none_or(|d| m.at.date_naive() >= d))
        .rev()
        .map(resource)
        .collect();
    Json(
        json!({"messages": found, "page": 0, "page_size": 50, "first_page_uri": "", "next_page_uri": null, "previous_page_uri": null, "uri": ""}),
    )
}

/// `IncomingPhoneNumbers.json`: `PhoneNumber` matches partially, as Twilio's does (a number
/// that contains the digits asked for), so a client must compare the answer exactly.
async fn incoming_numbers(
    State(fake): State<Arc<FakeTwilio>>,
    Query(q): Query<HashMap<String, String>>,
) -> Json<Value> {
    let asked = q.get("PhoneNumber").cloned().unwrap_or_default();
    let digits: String = asked.chars().filter(char::is_ascii_digit).collect();
    let owned = fake.owned.lock().unwrap().clone();
    let numbers: Vec<String> = match owned {
        None => vec![asked.clone()],
        Some(list) => list.into_iter().filter(|n| n.contains(&digits)).collect(),
    };
    let found: Vec<Value> = numbers
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"sid": format!("PN{:032x}", i + 1), "phone_number": n, "friendly_name": n}))
        .collect();
    Json(
        json!({"incoming_phone_numbers": found, "page": 0, "page_size": 50, "first_page_uri": "", "next_page_uri": null, "previous_page_uri": null, "uri": ""}),
    )
}
