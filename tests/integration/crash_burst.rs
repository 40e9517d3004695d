//! The webhook's group commit under SIGKILL (issue 15): the real server binary is killed while a
//! burst of texts to an agent's number is in flight, many of them waiting in one group commit.
//! An acknowledgement means "stored": every text acknowledged before the kill is in the database
//! after it. Twilio then delivers everything again (it retries what it saw fail; here it repeats
//! the acknowledged ones too), and each MessageSid ends up stored once, routed once onto its
//! contact's one thread, and answered.
use crate::binary::{call, eventually, free_port, healthy, start};
use crate::helpers::*;
use crate::on_both_databases;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const TOKEN: &str = "burst-token";
const FRONT_DESK: &str = "+14155550100";
const SENDERS: usize = 30;
const TEXTS: usize = 600;
/// Deliveries in flight at once: enough that the writer's batches hold many texts.
const IN_FLIGHT: usize = 48;
/// The kill comes once this many texts were acknowledged (the burst is still going).
const KILL_AFTER: usize = 150;

fn sid(i: usize) -> String {
    format!("SMburstkill{i:023}")
}

/// One signed delivery; true when the server acknowledged it (any 2xx).
async fn deliver(client: &reqwest::Client, base: &str, i: usize) -> bool {
    let from = format!("+1415557{:04}", i % SENDERS);
    let body = format!("Text {i} from {from}");
    let params: Vec<(String, String)> = sms_params(&sid(i), &from, FRONT_DESK, &body)
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let url = format!("{base}/webhooks/twilio/sms");
    let sig = herald::messaging::signature::compute_signature(TOKEN, &url, &params);
    client
        .post(&url)
        .header("X-Twilio-Signature", sig)
        .form(&params)
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
}

async fn count(db: &sea_orm::DatabaseConnection, sql: &str) -> i64 {
    let row = db
        .query_one_raw(Statement::from_string(db.get_database_backend(), sql))
        .await
        .unwrap()
        .unwrap();
    row.try_get_by_index::<i64>(0).unwrap()
}

async fn stored_sids(db: &sea_orm::DatabaseConnection) -> Vec<String> {
    db.query_all_raw(Statement::from_string(
        db.get_database_backend(),
        "SELECT provider_sid FROM message WHERE direction = 'inbound'",
    ))
    .await
    .unwrap()
    .into_iter()
    .map(|r| r.try_get_by_index::<String>(0).unwrap())
    .collect()
}

async fn sigkill_mid_group_commit_keeps_every_acknowledged_text(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let env = vec![
        ("TWILIO_AUTH_TOKEN", TOKEN.to_owned()),
        (
            "HERALD_TEST_CLOCK_OFFSET_SECS",
            daytime_offset_secs().to_string(),
        ),
        ("SWEEP_SECS", "0.5".to_owned()),
    ];
    let mut server = start(&db, port, &env);
    healthy(&base).await;
    let client = new_client();
    call(&client, &base, "/api/auth/sign_up", json!({"form": {"organization_name": "Burst Co", "name": "O", "email": "o@burst.test", "password": "burst-test-pass"}})).await;
    let number = call(
        &client,
        &base,
        "/api/numbers/create",
        json!({"input": {"number": FRONT_DESK, "friendly_name": "Front desk", "provider_sid": ""}}),
    )
    .await;
    let agent = call(&client, &base, "/api/agents", Value::Null).await[0].clone();
    call(
        &client,
        &base,
        "/api/agents/assign_numbers",
        json!({"id": agent["id"], "number_ids": [number["id"]]}),
    )
    .await;

    // The burst, IN_FLIGHT at a time; SIGKILL once KILL_AFTER texts are acknowledged.
    let acked: Arc<Mutex<HashSet<usize>>> = Arc::default();
    let next = Arc::new(AtomicUsize::new(0));
    let hooks = reqwest::Client::builder().no_proxy().build().unwrap();
    let senders: Vec<_> = (0..IN_FLIGHT)
        .map(|_| {
            let (acked, next, hooks, base) =
                (acked.clone(), next.clone(), hooks.clone(), base.clone());
            tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= TEXTS {
                        return;
                    }
                    if deliver(&hooks, &base, i).await {
                        acked.lock().unwrap().insert(i);
                    }
                }
            })
        })
        .collect();
    eventually(60, "the first acknowledgements", || {
        let acked = acked.clone();
        async move { (acked.lock().unwrap().len() >= KILL_AFTER).then_some(()) }
    })
    .await;
    server.kill_nine();
    for s in senders {
        s.await.unwrap();
    }
    let acked: HashSet<usize> = acked.lock().unwrap().clone();
    assert!(
        acked.len() >= KILL_AFTER && acked.len() < TEXTS,
        "the kill landed mid-burst: {} of {TEXTS} acknowledged",
        acked.len()
    );

    // Acknowledged means stored: every one of them survived the kill.
    let conn = sea_orm::Database::connect(db.as_str()).await.unwrap();
    let stored: HashSet<String> = stored_sids(&conn).await.into_iter().collect();
    let lost: Vec<String> = acked
        .iter()
        .map(|i| sid(*i))
        .filter(|s| !stored.contains(s))
        .collect();
    assert!(lost.is_empty(), "acknowledged but not stored: {lost:?}");

    // Restarted, and every text delivered again.
    let _server = start(&db, port, &env);
    healthy(&base).await;
    let again = futures::future::join_all((0..TEXTS).map(|i| {
        let (hooks, base) = (&hooks, &base);
        async move { deliver(hooks, base, i).await }
    }))
    .await;
    assert!(again.iter().all(|ok| *ok), "every redelivery acknowledged");
    let sids = stored_sids(&conn).await;
    let unique: HashSet<&String> = sids.iter().collect();
    assert_eq!(sids.len(), TEXTS, "each text stored once");
    assert_eq!(unique.len(), TEXTS);

    // Each text reaches its contact's one thread once, and every thread's turns finish.
    eventually(60, "every text routed and answered", || {
        let conn = &conn;
        async move {
            let unrouted = count(
                conn,
                "SELECT COUNT(*) FROM message WHERE direction = 'inbound' AND routed_at IS NULL",
            )
            .await;
            let pending = count(
                conn,
                "SELECT COUNT(*) FROM ai_thread_event WHERE processed_at IS NULL",
            )
            .await;
            (unrouted == 0 && pending == 0).then_some(())
        }
    })
    .await;
    assert_eq!(
        count(&conn, "SELECT COUNT(*) FROM ai_thread").await,
        SENDERS as i64,
        "one thread per contact"
    );
    assert_eq!(
        count(&conn, "SELECT COUNT(*) FROM contact").await,
        SENDERS as i64,
        "one contact per sender"
    );
    assert_eq!(
        count(
            &conn,
            "SELECT COUNT(*) FROM ai_thread_event WHERE kind = 'inbound_sms'"
        )
        .await,
        TEXTS as i64,
        "each text queued on its thread once"
    );
    assert_eq!(
        count(
            &conn,
            "SELECT COUNT(DISTINCT dedupe_key) FROM ai_thread_event WHERE kind = 'inbound_sms'"
        )
        .await,
        TEXTS as i64,
    );
}

on_both_databases!(sigkill_mid_group_commit_keeps_every_acknowledged_text);
