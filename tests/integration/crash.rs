//! kill -9 during sending: the real server binary against a fake Twilio on loopback is killed
//! mid-send and restarted on the same database; every included contact gets exactly one text.
use crate::helpers::*;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use axum::{Form, Json, Router};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A fake Twilio that, like the real one, sends once per idempotency token.
#[derive(Default)]
struct FakeTwilio {
    /// token → (recipient, sid)
    accepted: Mutex<HashMap<String, (String, String)>>,
    requests: Mutex<usize>,
}

async fn messages(
    State(fake): State<Arc<FakeTwilio>>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> (axum::http::StatusCode, Json<Value>) {
    tokio::time::sleep(Duration::from_millis(60)).await;
    let token = headers
        .get("I-Twilio-Idempotency-Token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    *fake.requests.lock().unwrap() += 1;
    let to = form.get("To").cloned().unwrap_or_default();
    let mut accepted = fake.accepted.lock().unwrap();
    let n = accepted.len();
    let (_, sid) = accepted
        .entry(token)
        .or_insert_with(|| (to, format!("SMfake{n:026}")));
    (
        axum::http::StatusCode::CREATED,
        Json(json!({"sid": sid, "status": "queued"})),
    )
}

async fn start_fake() -> (String, Arc<FakeTwilio>) {
    let fake = Arc::new(FakeTwilio::default());
    let app = Router::new()
        .route("/2010-04-01/Accounts/{sid}/Messages.json", post(messages))
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), fake)
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_server(db: &str, port: u16, twilio: &str) -> Server {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_herald"));
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO") || k.starts_with("DIOXUS") {
            cmd.env_remove(k);
        }
    }
    let child = cmd
        .env("IP", "127.0.0.1")
        .env("PORT", port.to_string())
        .env("DATABASE_URL", db)
        .env("SEED_DEMO", "false")
        .env("SMS_TRANSPORT", "twilio")
        .env("TWILIO_ACCOUNT_SID", "ACcrashtest")
        .env("TWILIO_AUTH_TOKEN", "crash-token")
        .env("TWILIO_API_BASE", twilio)
        .env("SEND_RATE_PER_SECOND", "25")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server binary");
    Server(child)
}

async fn healthy(base: &str) {
    for _ in 0..300 {
        if reqwest::get(format!("{base}/healthz"))
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{base} never became healthy");
}

async fn call(client: &reqwest::Client, base: &str, path: &str, body: Value) -> Value {
    let req = if body.is_null() {
        client.get(format!("{base}{path}"))
    } else {
        client.post(format!("{base}{path}")).json(&body)
    };
    let res = req.send().await.unwrap();
    let status = res.status();
    let v: Value = res.json().await.unwrap_or(Value::Null);
    assert!(status.is_success(), "{path}: {status} {v}");
    v
}

async fn poll_operation(client: &reqwest::Client, base: &str, op: &Value, until: &str) -> Value {
    for _ in 0..600 {
        if let Ok(r) = client
            .post(format!("{base}/api/operations/get"))
            .json(&json!({"id": op}))
            .send()
            .await
        {
            if let Ok(v) = r.json::<Value>().await {
                if v["status"] == until {
                    return v;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("operation never reached {until}");
}

async fn kill_nine_during_sending(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let (twilio, fake) = start_fake().await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let server = start_server(&db, port, &twilio);
    healthy(&base).await;
    let client = new_client();
    call(&client, &base, "/api/auth/sign_up", json!({"form": {"organization_name": "Crash Co", "name": "O", "email": "o@crash.test", "password": "crash-test-pass"}})).await;
    call(
        &client,
        &base,
        "/api/numbers/create",
        json!({"input": {"number": "+14155550100", "friendly_name": "Main", "provider_sid": ""}}),
    )
    .await;
    let n = 40;
    let mut csv = String::from("name,phone,tags\n");
    for i in 0..n {
        csv.push_str(&format!("Lead {i},+1415558{i:04},quote\n"));
    }
    let report = call(&client, &base, "/api/contacts/import", json!({"csv": csv})).await;
    assert_eq!(report["imported"], n);
    call(
        &client,
        &base,
        "/api/assistant/ask",
        json!({"text": "follow up with quiet quote leads", "plan_mode": true}),
    )
    .await;
    let mut plan = Value::Null;
    for _ in 0..100 {
        let list = call(
            &client,
            &base,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
        if list[0]["status"] == "awaiting_approval" {
            plan = list[0].clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        plan["contacts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["change"]["include"] == true)
            .count(),
        n
    );
    call(
        &client,
        &base,
        "/api/plans/approve",
        json!({"id": plan["id"]}),
    )
    .await;
    let mut op = Value::Null;
    for _ in 0..100 {
        let p = call(&client, &base, "/api/plans/get", json!({"id": plan["id"]})).await;
        if p["executed_ref"].is_string() {
            op = p["executed_ref"].clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    poll_operation(&client, &base, &op, "awaiting_approval").await;
    call(&client, &base, "/api/operations/approve", json!({"id": op})).await;
    // kill -9 in the middle of sending.
    for _ in 0..200 {
        if *fake.requests.lock().unwrap() >= 12 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut server = server;
    kill_nine(&mut server.0);
    let before = fake.accepted.lock().unwrap().len();
    assert!(
        before > 0 && before < n,
        "killed mid-send: {before} of {n} accepted"
    );
    // Restart on the same database: the engine resumes.
    let _server = start_server(&db, port, &twilio);
    healthy(&base).await;
    let done = poll_operation(&client, &base, &op, "done").await;
    assert_eq!(done["sent"], n as i64, "{done}");
    let accepted = fake.accepted.lock().unwrap().clone();
    assert_eq!(
        accepted.len(),
        n,
        "Twilio sent exactly one message per contact"
    );
    let mut per_recipient: HashMap<String, usize> = HashMap::new();
    for (to, _) in accepted.values() {
        *per_recipient.entry(to.clone()).or_default() += 1;
    }
    assert_eq!(per_recipient.len(), n);
    assert!(
        per_recipient.values().all(|c| *c == 1),
        "nobody got two texts"
    );
}

/// SIGKILL: no chance to clean up, as in a real crash.
fn kill_nine(child: &mut Child) {
    let _ = Command::new("kill")
        .arg("-9")
        .arg(child.id().to_string())
        .status();
    let _ = child.wait();
}

crate::on_both_databases!(kill_nine_during_sending);
