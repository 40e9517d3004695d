//! Webhook delivery through a crash and across instances (issue 31 §4), with the real server
//! binary. A SIGKILL while events wait (and one is in flight) loses none: after a restart every
//! event arrives, in order, and the receiver (deduplicating by `webhook-id`) holds each once;
//! at most the one in flight at the kill is posted twice (at least once, as promised). Two
//! instances over one PostgreSQL database deliver each event exactly once, in order.
use crate::binary::{call, eventually, free_port, healthy, start, Server};
use crate::helpers::*;
use crate::webhook_receiver::Receiver;
use serde_json::json;
use std::sync::atomic::Ordering;

const EVENTS: usize = 30;

fn env() -> Vec<(&'static str, String)> {
    vec![
        ("WEBHOOK_ALLOW_PRIVATE", "true".to_owned()),
        // A claim lasts twice this: a dead instance's claim lapses after 2 s.
        ("WEBHOOK_TIMEOUT_SECS", "1".to_owned()),
    ]
}

/// An owner on `base`, a subscription to contact.created at `rx`, and `EVENTS` new contacts.
async fn owner_with_events(base: &str, rx: &Receiver) -> reqwest::Client {
    let client = new_client();
    call(&client, base, "/api/auth/sign_up", json!({"form": {"organization_name": "Hook Co", "name": "O", "email": "o@hook.test", "password": "hook-test-pass"}})).await;
    let res = client
        .post(format!("{base}/developers/webhooks"))
        .form(&[("url", rx.url.as_str()), ("event", "contact.created")])
        .send()
        .await
        .unwrap();
    let html = res.text().await.unwrap();
    let secret = html
        .split("id=\"webhook-secret-value\">")
        .nth(1)
        .and_then(|s| s.split('<').next())
        .expect("the webhook's secret");
    rx.set_secret(secret);
    for i in 0..EVENTS {
        call(&client, base, "/api/contacts/create", json!({"input": {"name": format!("Guest {i:02}"), "phone": format!("+141555540{i:02}"), "email": "", "tags": []}})).await;
    }
    client
}

fn names(rx: &Receiver) -> Vec<String> {
    rx.seen
        .lock()
        .unwrap()
        .events
        .iter()
        .map(|(_, b)| b["data"]["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn all_in_order() -> Vec<String> {
    (0..EVENTS).map(|i| format!("Guest {i:02}")).collect()
}

async fn a_sigkill_loses_no_webhook(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let rx = Receiver::start().await;
    rx.delay_ms.store(150, Ordering::SeqCst);
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = start(&db, port, &env());
    healthy(&base).await;
    owner_with_events(&base, &rx).await;
    eventually(30, "the first deliveries", || {
        let rx = rx.clone();
        async move { (rx.seen.lock().unwrap().events.len() >= 8).then_some(()) }
    })
    .await;
    server.kill_nine();
    let before = rx.seen.lock().unwrap().events.len();
    assert!(
        before < EVENTS,
        "the kill came while events waited: {before}"
    );

    rx.delay_ms.store(0, Ordering::SeqCst);
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _again = start(&db, port, &env());
    healthy(&base).await;
    eventually(60, "every event after the restart", || {
        let rx = rx.clone();
        async move { (rx.seen.lock().unwrap().events.len() >= EVENTS).then_some(()) }
    })
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(names(&rx), all_in_order(), "each event once, in order");
    let seen = rx.snapshot();
    assert!(
        seen.requests <= EVENTS + 1,
        "at most the one in flight twice: {} posts",
        seen.requests
    );
    assert_eq!(seen.forged, 0);
}

crate::on_both_databases!(a_sigkill_loses_no_webhook);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_deliver_each_event_once() {
    let Some((db, _guard)) = fresh_database(Backend::Postgres).await else {
        return;
    };
    let rx = Receiver::start().await;
    rx.delay_ms.store(20, Ordering::SeqCst);
    let (pa, pb) = (free_port(), free_port());
    let (a, b) = (
        format!("http://127.0.0.1:{pa}"),
        format!("http://127.0.0.1:{pb}"),
    );
    let _one: Server = start(&db, pa, &env());
    healthy(&a).await;
    let _two: Server = start(&db, pb, &env());
    healthy(&b).await;
    owner_with_events(&a, &rx).await;
    eventually(60, "every event", || {
        let rx = rx.clone();
        async move { (rx.seen.lock().unwrap().events.len() >= EVENTS).then_some(()) }
    })
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(names(&rx), all_in_order());
    assert_eq!(
        rx.seen.lock().unwrap().requests,
        EVENTS,
        "no event posted twice"
    );
}
