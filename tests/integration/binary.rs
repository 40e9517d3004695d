//! The real server binary, as a crash test needs it: started with its environment, polled until
//! healthy, and killed with SIGKILL (no chance to clean up, as in a real crash).
#![allow(dead_code)]
use serde_json::Value;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A server process, killed when dropped.
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Server {
    /// SIGKILL, then reap.
    pub fn kill_nine(&mut self) {
        let _ = Command::new("kill")
            .arg("-9")
            .arg(self.0.id().to_string())
            .status();
        let _ = self.0.wait();
    }
}

pub use crate::helpers::free_port;

/// Starts `target/…/herald` on `port` over `db`, with `env` on top of a quiet default.
pub fn start(db: &str, port: u16, env: &[(&str, String)]) -> Server {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_herald"));
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO") || k.starts_with("DIOXUS") {
            cmd.env_remove(k);
        }
    }
    cmd.env("IP", "127.0.0.1")
        .env("PORT", port.to_string())
        .env("DATABASE_URL", db)
        .env("SEED_DEMO", "false")
        // Agents answer at once: the burst debounce has its own test.
        .env("REPLY_QUIET_SECS", "0")
        .env("RUST_LOG", "warn");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server binary");
    Server(child)
}

pub async fn healthy(base: &str) {
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

/// Calls a server function and expects success.
pub async fn call(client: &reqwest::Client, base: &str, path: &str, body: Value) -> Value {
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

/// Every item of an operation's review sheet, page after page.
pub async fn sheet_items(client: &reqwest::Client, base: &str, op: &Value) -> Vec<Value> {
    let mut items = Vec::new();
    let mut after = Value::Null;
    loop {
        let page = call(
            client,
            base,
            "/api/operations/sheet",
            serde_json::json!({"id": op, "after": after}),
        )
        .await;
        items.extend(page["items"].as_array().cloned().unwrap_or_default());
        match &page["next_after"] {
            Value::Null => return items,
            next => after = next.clone(),
        }
    }
}

pub use crate::helpers::eventually;

/// Signs in and answers the status and reply (for tests that expect a refusal).
pub async fn sign_in_status(base: &str, email: &str, password: &str) -> (u16, Value) {
    let res = reqwest::Client::new()
        .post(format!("{base}/api/auth/sign_in"))
        .json(&serde_json::json!({"form": {"email": email, "password": password}}))
        .send()
        .await
        .unwrap();
    (
        res.status().as_u16(),
        res.json().await.unwrap_or(Value::Null),
    )
}
