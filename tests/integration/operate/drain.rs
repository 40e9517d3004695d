//! SIGTERM drains: `/readyz` answers 503 at once while a webhook is still in flight, the webhook
//! is acknowledged, and the process exits 0 within `SHUTDOWN_GRACE_SECS`; an agent's turn and its
//! send in flight at SIGTERM finish, and nothing is left `running` or `sending`, nor sent twice
//! after a restart.
use super::{count, setup, sid, FRONT_DESK};
use crate::binary::{call, eventually, free_port, healthy, start, Server};
use crate::fake_llm::{self, Dialect, Step};
use crate::helpers::*;
use crate::on_both_databases;
use serde_json::{json, Value};
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn sigterm(server: &Server) {
    Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
}

/// Waits for the process to exit, at most `within`.
async fn exit(server: &mut Server, within: Duration) -> (ExitStatus, Duration) {
    let t0 = Instant::now();
    loop {
        if let Some(s) = server.0.try_wait().unwrap() {
            return (s, t0.elapsed());
        }
        assert!(t0.elapsed() < within, "exited within {within:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A webhook whose body arrives in two parts, `pause` apart: in flight all that time.
async fn slow_webhook(port: u16, i: usize, pause: Duration) -> String {
    let sid = sid(i);
    let params = sms_params(&sid, "+14155552671", FRONT_DESK, "Still there?");
    let body = serde_urlencoded::to_string(&params).unwrap();
    let mut conn = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let head = format!(
        "POST /webhooks/twilio/sms HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: \
         application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let (first, rest) = body.split_at(body.len() / 2);
    conn.write_all(head.as_bytes()).await.unwrap();
    conn.write_all(first.as_bytes()).await.unwrap();
    tokio::time::sleep(pause).await;
    conn.write_all(rest.as_bytes()).await.unwrap();
    let mut answer = vec![0; 1024];
    let n = conn.read(&mut answer).await.unwrap();
    String::from_utf8_lossy(&answer[..n]).into_owned()
}

async fn readyz_503_while_draining(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    // A quarter of the grace (2 s) is the notice during which requests are still taken.
    let grace = Duration::from_secs(8);
    let mut server = start(&db, port, &[("SHUTDOWN_GRACE_SECS", "8".into())]);
    healthy(&base).await;
    let _client = setup(&base).await;
    let in_flight = tokio::spawn(slow_webhook(port, 1, Duration::from_secs(4)));
    tokio::time::sleep(Duration::from_millis(300)).await;
    sigterm(&server);
    let t0 = Instant::now();
    let not_ready: Value = eventually(2, "/readyz turning 503", || async {
        let r = reqwest::Client::new()
            .get(format!("{base}/readyz"))
            .send()
            .await
            .ok()?;
        (r.status() == 503).then_some(())?;
        r.json().await.ok()
    })
    .await;
    assert_eq!(not_ready["reason"], "shutting down", "{not_ready}");
    assert!(
        t0.elapsed() < Duration::from_secs(2),
        "503 within the notice"
    );
    // After the notice, new connections are not taken; the one in flight is answered.
    tokio::time::sleep(
        Duration::from_secs(2).saturating_sub(t0.elapsed()) + Duration::from_millis(500),
    )
    .await;
    assert!(
        reqwest::get(format!("{base}/readyz")).await.is_err(),
        "no new connection after the notice"
    );
    let answer = in_flight.await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let (status, took) = exit(&mut server, grace + Duration::from_secs(2)).await;
    assert_eq!(status.code(), Some(0), "a drained server exits 0");
    assert!(t0.elapsed() <= grace + Duration::from_secs(1), "{took:?}");
    assert_eq!(
        count(
            &db,
            &format!(
                "SELECT count(*) FROM message WHERE provider_sid = '{}'",
                sid(1)
            )
        )
        .await,
        1,
        "the webhook in flight at SIGTERM was stored"
    );
}

const TOKEN: &str = "drain-token";
const CONTACTS: [&str; 3] = ["+14155552671", "+14155552672", "+14155552673"];

/// A signed inbound text, as Twilio would post it.
async fn signed_text(base: &str, sid: &str, from: &str) {
    let params: Vec<(String, String)> = sms_params(sid, from, FRONT_DESK, "Open Saturday?")
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let url = format!("{base}/webhooks/twilio/sms");
    let sig = herald::messaging::signature::compute_signature(TOKEN, &url, &params);
    let res = reqwest::Client::new()
        .post(&url)
        .header("X-Twilio-Signature", sig)
        .form(&params)
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
}

/// Threads left running, texts left queued or sending.
async fn unfinished(db: &str) -> (i64, i64) {
    let running = count(db, "SELECT count(*) FROM ai_thread WHERE state = 'running'").await;
    let sending = count(
        db,
        "SELECT count(*) FROM message WHERE send_state IN ('queued', 'sending')",
    )
    .await;
    (running, sending)
}

/// SIGTERM while autonomous agents' replies are with (a slow) Twilio: the turns and sends in
/// flight finish within the grace, the process exits 0, every contact has one reply, and after
/// a restart nothing is running, sending, or sent again.
async fn sigterm_drains(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let llm = fake_llm::start(Dialect::OpenAi).await;
    // Every turn: one reply, then done.
    llm.otherwise(Box::new(|seen| match seen.last_result() {
        None => Step::call("send_sms", json!({"body": "We open at 9 on Saturdays."})),
        Some(_) => Step::text("Replied."),
    }));
    let (twilio, fake) = crate::fake_twilio::start().await;
    *fake.latency.lock().unwrap() = Duration::from_millis(2500);
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let env = vec![
        ("SMS_TRANSPORT", "twilio".to_owned()),
        ("TWILIO_ACCOUNT_SID", "ACdrain".into()),
        ("TWILIO_AUTH_TOKEN", TOKEN.into()),
        ("TWILIO_API_BASE", twilio),
        ("LLM_PROVIDER", "openai-compatible".into()),
        ("LLM_MODEL", "fake-model".into()),
        ("LLM_API_KEY", "sk-test".into()),
        ("LLM_BASE_URL", format!("{}/v1", llm.base)),
        ("SHUTDOWN_GRACE_SECS", "12".into()),
        ("THREAD_LEASE_SECS", "3".into()),
        ("SWEEP_SECS", "0.5".into()),
        (
            "HERALD_TEST_CLOCK_OFFSET_SECS",
            daytime_offset_secs().to_string(),
        ),
    ];
    let mut server = start(&db, port, &env);
    healthy(&base).await;
    let client = setup(&base).await;
    let agent = call(&client, &base, "/api/agents", Value::Null).await[0].clone();
    let input = json!({"name": "Text Reply", "persona": agent["persona"], "goals": agent["goals"], "rules": "", "send_mode": "autonomous", "answer_only": false});
    call(
        &client,
        &base,
        "/api/agents/update",
        json!({"id": agent["id"], "input": input}),
    )
    .await;
    let numbers = call(&client, &base, "/api/numbers", Value::Null).await;
    call(
        &client,
        &base,
        "/api/agents/assign_numbers",
        json!({"id": agent["id"], "number_ids": [numbers[0]["id"]]}),
    )
    .await;
    for (i, from) in CONTACTS.iter().enumerate() {
        signed_text(&base, &sid(100 + i), from).await;
    }
    // A reply is with Twilio (accepted there only after the latency): SIGTERM now.
    eventually(30, "a reply being sent", || async {
        (count(
            &db,
            "SELECT count(*) FROM message WHERE send_state = 'sending'",
        )
        .await
            > 0)
        .then_some(())
    })
    .await;
    assert_eq!(fake.count(), 0, "nothing was with Twilio yet");
    sigterm(&server);
    let (status, took) = exit(&mut server, Duration::from_secs(14)).await;
    assert_eq!(status.code(), Some(0), "a drained server exits 0");
    println!("drained in {took:?} with {} replies sent", fake.count());
    for c in CONTACTS {
        assert_eq!(fake.to(c), 1, "{c} was answered once, during the drain");
    }
    assert_eq!(
        unfinished(&db).await,
        (0, 0),
        "nothing left running or sending"
    );
    // Restarted: nothing to pick up, nothing sent twice.
    let _server = start(&db, port, &env);
    healthy(&base).await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(fake.count(), CONTACTS.len(), "no reply sent twice");
    assert_eq!(unfinished(&db).await, (0, 0));
    assert!(llm.refused.lock().unwrap().is_empty());
}

on_both_databases!(readyz_503_while_draining, sigterm_drains);
