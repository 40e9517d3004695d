//! A fake Twilio on loopback that does only what Twilio's own OpenAPI description promises for
//! `Messages.json`: every create is a new message (no deduplication, whatever headers come
//! with it), and the list filters `To`, `From` and `DateSent>` work. It can also be told to
//! accept a message and then lose the response, as a dropped connection does. Told to, it posts
//! each message's final status to the create's `StatusCallback`, signed with the account's
//! token as Twilio signs it, a moment after answering the create.
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
    /// The account the create was made on (the path's Account SID).
    pub account: String,
    /// `MediaUrl` values (an MMS), in order.
    pub media_urls: Vec<String>,
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
    /// Several accounts, as Twilio keeps them: each Account SID with the (username, password)
    /// pairs it accepts (its Auth Token, its API keys) and its own numbers. Empty: one account,
    /// and any credentials pass.
    pub accounts: Mutex<HashMap<String, Account>>,
    /// Media Twilio keeps for inbound texts, by Media SID: (content type, bytes).
    pub media: Mutex<HashMap<String, (String, Vec<u8>)>>,
    /// Media requests to answer 500 before answering properly.
    pub media_failures: Mutex<usize>,
    /// Media requests seen (the API's URL, before its redirect).
    pub media_requests: Mutex<usize>,
    /// Posts delivery callbacks when set.
    pub callbacks: Mutex<Option<Callbacks>>,
}

/// How the fake calls back: where the `StatusCallback` host really is (the server on
/// loopback, standing in for the public address's DNS), the token that signs, and which
/// messages a carrier filters.
#[derive(Clone)]
pub struct Callbacks {
    pub server: String,
    pub token: String,
    /// Every `filter_every`-th create (the 10th, 20th, …) is undelivered with 30007; the
    /// others are delivered.
    pub filter_every: usize,
}

#[derive(Clone, Default)]
pub struct Account {
    pub credentials: Vec<(String, String)>,
    pub numbers: Vec<String>,
}

impl FakeTwilio {
    /// Adds an account that accepts `token` (and optionally an API key) and holds `numbers`.
    pub fn add_account(&self, sid: &str, credentials: &[(&str, &str)], numbers: &[&str]) {
        self.accounts.lock().unwrap().insert(
            sid.to_owned(),
            Account {
                credentials: credentials
                    .iter()
                    .map(|(u, p)| (u.to_string(), p.to_string()))
                    .collect(),
                numbers: numbers.iter().map(|n| n.to_string()).collect(),
            },
        );
    }

    /// Whether the request's Basic credentials open `sid` (always, with no accounts set up).
    fn authorised(&self, sid: &str, headers: &axum::http::HeaderMap) -> bool {
        use base64::Engine;
        let accounts = self.accounts.lock().unwrap();
        if accounts.is_empty() {
            return true;
        }
        let Some(account) = accounts.get(sid) else {
            return false;
        };
        let given = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Basic "))
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
            .and_then(|b| String::from_utf8(b).ok());
        given.is_some_and(|g| {
            account
                .credentials
                .iter()
                .any(|(u, p)| g == format!("{u}:{p}"))
        })
    }
}

fn unauthorised() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        Json(json!({"code": 20003, "message": "Authenticate", "status": 401})),
    )
        .into_response()
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
        .route("/2010-04-01/Accounts/{file}", axum::routing::get(account))
        .route(
            "/2010-04-01/Accounts/{sid}/Messages/{message}/Media/{media}",
            axum::routing::get(media_resource),
        )
        .route("/media-host/{media}", axum::routing::get(media_content))
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

/// `GET /Accounts/{Sid}.json`: the account, for credentials that open it.
async fn account(
    State(fake): State<Arc<FakeTwilio>>,
    axum::extract::Path(file): axum::extract::Path<String>,
    headers: axum::http::HeaderMap,
) -> Response {
    let Some(sid) = file.strip_suffix(".json") else {
        return StatusCode::NOT_FOUND.into_response();
    };
    if !fake.authorised(sid, &headers) {
        return unauthorised();
    }
    Json(json!({"sid": sid, "friendly_name": "Test account", "status": "active", "type": "Full"}))
        .into_response()
}

async fn create(
    State(fake): State<Arc<FakeTwilio>>,
    axum::extract::Path(sid): axum::extract::Path<String>,
    headers: axum::http::HeaderMap,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    if !fake.authorised(&sid, &headers) {
        return unauthorised();
    }
    // `MediaUrl` may repeat; every other parameter is single.
    let media_urls: Vec<String> = pairs
        .iter()
        .filter(|(k, _)| k == "MediaUrl")
        .map(|(_, v)| v.clone())
        .collect();
    let form: HashMap<String, String> = pairs.into_iter().collect();
    let latency = *fake.latency.lock().unwrap();
    tokio::time::sleep(latency).await;
    let index = {
        let mut n = fake.creates.lock().unwrap();
        *n += 1;
        *n - 1
    };
    let Some(to) = form.get("To") else {
        return (StatusCode::BAD_REQUEST, Json(json!({"code": 21604, "message": "A 'To' phone number is required.", "status": 400}))).into_response();
    };
    let body = form.get("Body").cloned().unwrap_or_default();
    if body.is_empty() && media_urls.is_empty() {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"code": 21602, "message": "Message body is required.", "status": 400})),
        )
            .into_response();
    }
    let m = {
        let mut sent = fake.sent.lock().unwrap();
        let m = Sent {
            sid: format!("SM{:032x}", sent.len() + 1),
            to: to.clone(),
            from: form.get("From").cloned().unwrap_or_default(),
            body: body.clone(),
            at: chrono::Utc::now(),
            account: sid.clone(),
            media_urls: media_urls.clone(),
        };
        sent.push(m.clone());
        m
    };
    let callbacks = fake.callbacks.lock().unwrap().clone();
    if let (Some(cb), Some(url)) = (callbacks, form.get("StatusCallback").cloned()) {
        tokio::spawn(call_back(cb, url, m.clone(), index + 1));
    }
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
    axum::extract::Path(sid): axum::extract::Path<String>,
    headers: axum::http::HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    if !fake.authorised(&sid, &headers) {
        return unauthorised();
    }
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
        .filter(|m| m.account == sid || fake.accounts.lock().unwrap().is_empty())
        .rev()
        .map(resource)
        .collect();
    Json(
        json!({"messages": found, "page": 0, "page_size": 50, "first_page_uri": "", "next_page_uri": null, "previous_page_uri": null, "uri": ""}),
    )
    .into_response()
}

/// `IncomingPhoneNumbers.json`: `PhoneNumber` matches partially, as Twilio's does (a number
/// that contains the digits asked for), so a client must compare the answer exactly.
async fn incoming_numbers(
    State(fake): State<Arc<FakeTwilio>>,
    axum::extract::Path(sid): axum::extract::Path<String>,
    headers: axum::http::HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    if !fake.authorised(&sid, &headers) {
        return unauthorised();
    }
    let asked = q.get("PhoneNumber").cloned().unwrap_or_default();
    let digits: String = asked.chars().filter(char::is_ascii_digit).collect();
    let owned = match fake.accounts.lock().unwrap().get(&sid) {
        Some(a) => Some(a.numbers.clone()),
        None => fake.owned.lock().unwrap().clone(),
    };
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
    .into_response()
}

/// A media URL as Twilio puts it in an inbound webhook (`MediaUrl{i}`), for `media_sid`.
pub fn media_url(base: &str, account: &str, media_sid: &str) -> String {
    format!("{base}/2010-04-01/Accounts/{account}/Messages/MM{media_sid}/Media/{media_sid}")
}

/// Twilio's media URL: with HTTP authentication on media, the account's credentials are needed;
/// it answers with a redirect to where the file is kept.
async fn media_resource(
    State(fake): State<Arc<FakeTwilio>>,
    axum::extract::Path((sid, _message, media)): axum::extract::Path<(String, String, String)>,
    headers: axum::http::HeaderMap,
) -> Response {
    *fake.media_requests.lock().unwrap() += 1;
    if !fake.authorised(&sid, &headers) {
        return unauthorised();
    }
    {
        let mut failures = fake.media_failures.lock().unwrap();
        if *failures > 0 {
            *failures -= 1;
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    }
    if !fake.media.lock().unwrap().contains_key(&media) {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"code": 20404, "status": 404})),
        )
            .into_response();
    }
    (
        StatusCode::TEMPORARY_REDIRECT,
        [(axum::http::header::LOCATION, format!("/media-host/{media}"))],
    )
        .into_response()
}

async fn media_content(
    State(fake): State<Arc<FakeTwilio>>,
    axum::extract::Path(media): axum::extract::Path<String>,
) -> Response {
    match fake.media.lock().unwrap().get(&media) {
        Some((ct, bytes)) => (
            [(axum::http::header::CONTENT_TYPE, ct.clone())],
            bytes.clone(),
        )
            .into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Posts the message's final status to `url`'s path on the server, signed for `url`.
async fn call_back(cb: Callbacks, url: String, m: Sent, ordinal: usize) {
    tokio::time::sleep(Duration::from_millis(20)).await;
    let filtered = cb.filter_every > 0 && ordinal.is_multiple_of(cb.filter_every);
    let mut params: Vec<(String, String)> = vec![
        ("MessageSid".into(), m.sid.clone()),
        ("AccountSid".into(), m.account.clone()),
        ("From".into(), m.from.clone()),
        ("To".into(), m.to.clone()),
        (
            "MessageStatus".into(),
            if filtered { "undelivered" } else { "delivered" }.into(),
        ),
    ];
    if filtered {
        params.push(("ErrorCode".into(), "30007".into()));
    }
    let sig = herald::messaging::signature::compute_signature(&cb.token, &url, &params);
    let path = url
        .split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|i| rest[i..].to_owned()))
        .unwrap_or_default();
    let _ = reqwest::Client::new()
        .post(format!("{}{path}", cb.server))
        .header("X-Twilio-Signature", sig)
        .form(&params)
        .send()
        .await;
}
