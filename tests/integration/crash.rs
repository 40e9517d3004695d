//! Exactly once under Twilio's real contract: 1,000 campaign texts from the real server binary,
//! against a fake Twilio that never deduplicates and loses some answers after accepting the
//! text. The binary is killed with SIGKILL five times while sending (some kills land between
//! Twilio accepting a text and Herald recording it). In the end nobody has two texts, every
//! text is sent or surfaced as `unknown`, and none is silently lost.
use crate::binary::{call, eventually, free_port, healthy, sheet_items, start, Server};
use crate::helpers::*;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

const CONTACTS: usize = 1000;

pub(crate) fn env(twilio: &str, clock_offset: i64) -> Vec<(&'static str, String)> {
    vec![
        ("SMS_TRANSPORT", "twilio".into()),
        ("TWILIO_ACCOUNT_SID", "ACcrashtest".into()),
        ("TWILIO_AUTH_TOKEN", "crash-token".into()),
        ("TWILIO_API_BASE", twilio.into()),
        ("TWILIO_TIMEOUT_SECS", "1".into()),
        ("RECONCILE_AFTER_SECS", "2.5".into()),
        ("SEND_RATE_PER_SECOND", "80".into()),
        ("SWEEP_SECS", "0.5".into()),
        ("HERALD_TEST_CLOCK_OFFSET_SECS", clock_offset.to_string()),
    ]
}

async fn operation(client: &reqwest::Client, base: &str, op: &Value) -> Option<Value> {
    let r = client
        .post(format!("{base}/api/operations/get"))
        .json(&json!({"id": op}))
        .send()
        .await
        .ok()?;
    r.json::<Value>().await.ok()
}

async fn until_status(
    client: &reqwest::Client,
    base: &str,
    op: &Value,
    status: &str,
    secs: u64,
) -> Value {
    eventually(secs, status, || async {
        operation(client, base, op)
            .await
            .filter(|v| v["status"] == status)
    })
    .await
}

/// A campaign to every contact, drafted and approved: answers the operation's id.
async fn approved_campaign(client: &reqwest::Client, base: &str) -> Value {
    call(client, base, "/api/auth/sign_up", json!({"form": {"organization_name": "Crash Co", "name": "O", "email": "o@crash.test", "password": "crash-test-pass"}})).await;
    call(
        client,
        base,
        "/api/numbers/create",
        json!({"input": {"number": "+14155550100", "friendly_name": "Main", "provider_sid": ""}}),
    )
    .await;
    let mut csv = String::from("name,phone,tags,consent\n");
    for i in 0..CONTACTS {
        csv.push_str(&format!("Lead {i},+1415558{i:04},quote,web_form\n"));
    }
    let report = call(client, base, "/api/contacts/import", json!({"csv": csv})).await;
    assert_eq!(report["imported"], CONTACTS);
    call(
        client,
        base,
        "/api/assistant/ask",
        json!({"text": "follow up with quiet quote leads", "plan_mode": true}),
    )
    .await;
    let plan = eventually(60, "the campaign plan", || async {
        let list = call(
            client,
            base,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
        (list["items"][0]["status"] == "awaiting_approval").then(|| list["items"][0].clone())
    })
    .await;
    // More leads than a list may name: the plan's audience is a filter the server resolved.
    assert_eq!(plan["audience"]["members"], CONTACTS, "{plan}");
    call(
        client,
        base,
        "/api/plans/approve",
        json!({"id": plan["id"]}),
    )
    .await;
    let op = eventually(30, "the operation", || async {
        let p = call(client, base, "/api/plans/get", json!({"id": plan["id"]})).await;
        p["executed_ref"]
            .is_string()
            .then(|| p["executed_ref"].clone())
    })
    .await;
    until_status(client, base, &op, "awaiting_approval", 120).await;
    let sheet = call(client, base, "/api/operations/sheet", json!({"id": op})).await;
    call(
        client,
        base,
        "/api/operations/approve",
        json!({"id": op, "digest": sheet["digest"]}),
    )
    .await;
    op
}

async fn exactly_once_through_five_kills(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let (twilio, fake) = crate::fake_twilio::start().await;
    *fake.latency.lock().unwrap() = Duration::from_millis(25);
    // Every 97th create is accepted and its answer lost.
    *fake.lose_responses.lock().unwrap() = (0..CONTACTS).filter(|i| i % 97 == 41).collect();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    // Daytime for the server whatever the hour here; restarts keep the same time line.
    let env = env(&twilio, daytime_offset_secs());
    let mut server: Server = start(&db, port, &env);
    healthy(&base).await;
    let client = new_client();
    let op = approved_campaign(&client, &base).await;
    // Five SIGKILLs at moments spread over the sending, each after a pseudo-random number of
    // further creates reached the fake.
    let mut kills = 0;
    let mut seed: u64 = 0x9e37_79b9;
    while kills < 5 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let more = 60 + (seed >> 33) as usize % 90;
        let target = *fake.creates.lock().unwrap() + more;
        for _ in 0..600 {
            if *fake.creates.lock().unwrap() >= target {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        server.kill_nine();
        kills += 1;
        server = start(&db, port, &env);
        healthy(&base).await;
    }
    let done = until_status(&client, &base, &op, "done", 300).await;
    let items = &sheet_items(&client, &base, &op).await;
    let sent_by_phone: HashMap<String, usize> =
        fake.sent
            .lock()
            .unwrap()
            .iter()
            .fold(HashMap::new(), |mut m, s| {
                *m.entry(s.to.clone()).or_default() += 1;
                m
            });
    let duplicates = sent_by_phone.values().filter(|n| **n > 1).count();
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut lost = 0;
    for it in items {
        let status = it["status"].as_str().unwrap().to_owned();
        let phone = it["phone"].as_str().unwrap();
        let at_twilio = sent_by_phone.get(phone).copied().unwrap_or(0);
        match status.as_str() {
            "sent" => assert_eq!(at_twilio, 1, "{phone} is sent and Twilio has it once"),
            "unknown" => {}
            _ => lost += 1,
        }
        *counts.entry(status).or_default() += 1;
    }
    println!(
        "exactly-once ({backend:?}): {} items, {} kills, {} answers lost by the fake, {} creates, \
         {} lookups; sent {}, unknown {}, other {}; duplicates {duplicates}, silently lost {lost}",
        items.len(),
        kills,
        fake.lose_responses.lock().unwrap().len(),
        *fake.creates.lock().unwrap(),
        *fake.lists.lock().unwrap(),
        counts.get("sent").copied().unwrap_or(0),
        counts.get("unknown").copied().unwrap_or(0),
        items.len()
            - counts.get("sent").copied().unwrap_or(0)
            - counts.get("unknown").copied().unwrap_or(0),
    );
    assert_eq!(items.len(), CONTACTS);
    assert_eq!(duplicates, 0, "nobody got two texts");
    assert!(
        *fake.lists.lock().unwrap() >= fake.lose_responses.lock().unwrap().len(),
        "every answer the fake lost was reconciled through the message list, not resent blindly"
    );
    assert_eq!(
        lost, 0,
        "every text is sent or surfaced as unknown: {counts:?}"
    );
    assert_eq!(done["unknown"], counts.get("unknown").copied().unwrap_or(0));
    assert_eq!(
        fake.count(),
        counts.get("sent").copied().unwrap_or(0)
            + items
                .iter()
                .filter(|i| i["status"] == "unknown")
                .filter(|i| sent_by_phone.contains_key(i["phone"].as_str().unwrap()))
                .count(),
        "every text Twilio holds belongs to one item"
    );
}

crate::on_both_databases!(exactly_once_through_five_kills);
