//! A step plan through a SIGKILL of the real server binary mid-run (issues 11 §6 and 27 §2): the
//! offline model plans `for_each` steps over 1,000 quote leads (the server resolves their filter),
//! the texts go out through a fake Twilio that never deduplicates, the binary is killed while
//! texts are in flight, and after the restart no completed step runs again, no item runs twice
//! (nobody has two texts or two notes) and none is lost (everyone has one of each).
use crate::binary::{call, eventually, free_port, healthy, start};
use crate::helpers::*;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

const LEADS: usize = 1000;

/// The crash test's settings, with the provider's answers given time to arrive: this test is
/// about steps and items never running twice. (With a 1 s timeout, two compilers sharing the
/// cores made answers late; texts then went in doubt while still in flight, which `crash.rs`
/// covers with answers the fake loses on purpose.)
fn env(twilio: &str, offset: i64) -> Vec<(&'static str, String)> {
    let mut env = crate::crash::env(twilio, offset);
    for (k, v) in env.iter_mut() {
        match *k {
            "TWILIO_TIMEOUT_SECS" => *v = "10".into(),
            "RECONCILE_AFTER_SECS" => *v = "25".into(),
            _ => {}
        }
    }
    env
}

async fn plan(client: &reqwest::Client, base: &str, id: &Value) -> Value {
    call(client, base, "/api/plans/get", json!({"id": id})).await
}

fn steps(p: &Value) -> Vec<Value> {
    p["action"]["steps"].as_array().cloned().unwrap_or_default()
}

async fn a_step_plan_survives_a_sigkill_mid_run(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let (twilio, fake) = crate::fake_twilio::start().await;
    *fake.latency.lock().unwrap() = Duration::from_millis(20);
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let offset = daytime_offset_secs();
    let mut server = start(&db, port, &env(&twilio, offset));
    healthy(&base).await;
    let client = new_client();
    call(&client, &base, "/api/auth/sign_up", json!({"form": {"organization_name": "Steps Co", "name": "O", "email": "o@steps.test", "password": "steps-test-pass"}})).await;
    call(
        &client,
        &base,
        "/api/numbers/create",
        json!({"input": {"number": "+14155550100", "friendly_name": "Main", "provider_sid": ""}}),
    )
    .await;
    let mut csv = String::from("name,phone,tags,consent\n");
    for i in 0..LEADS {
        csv.push_str(&format!("Lead {i:02},+1415558{i:04},quote,web_form\n"));
    }
    call(&client, &base, "/api/contacts/import", json!({"csv": csv})).await;
    call(
        &client,
        &base,
        "/api/assistant/ask",
        json!({"text": "find the quote leads, tag them follow-up and text each a check-in", "plan_mode": true}),
    )
    .await;
    let first = eventually(60, "the step plan", || async {
        let list = call(
            &client,
            &base,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
        (list["items"][0]["status"] == "awaiting_approval").then(|| list["items"][0].clone())
    })
    .await;
    let id = first["id"].clone();
    // find, then tag, text and note once per lead: four steps, whatever the number of leads.
    assert_eq!(steps(&first).len(), 4, "{first}");
    assert!(
        steps(&first)[2]["for_each"]["filter"].is_object(),
        "{first}"
    );
    call(&client, &base, "/api/plans/approve", json!({"id": id})).await;
    eventually(30, "the writes to wait", || async {
        let p = plan(&client, &base, &id).await;
        steps(&p)
            .iter()
            .any(|s| s["status"] == "awaiting_confirmation")
            .then_some(())
    })
    .await;
    call(
        &client,
        &base,
        "/api/plans/steps",
        json!({"id": id, "action": {"kind": "confirm_all"}}),
    )
    .await;
    // Kill while texts are in flight at the provider.
    for _ in 0..30_000 {
        if *fake.creates.lock().unwrap() >= LEADS / 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let before = plan(&client, &base, &id).await;
    server.kill_nine();
    let creates_at_kill = *fake.creates.lock().unwrap();
    assert!(creates_at_kill < LEADS, "killed mid-run: {creates_at_kill}");
    // Restarted two minutes later on its clock: the dead runner's claim has expired.
    let _server = start(&db, port, &env(&twilio, offset + 120));
    healthy(&base).await;
    let after = eventually(300, "the plan to finish", || async {
        let p = plan(&client, &base, &id).await;
        (p["status"] == "done").then_some(p)
    })
    .await;
    // No step that had completed ran again: same start, same result.
    let after_steps: HashMap<String, Value> = steps(&after)
        .into_iter()
        .map(|s| (s["id"].as_str().unwrap().to_owned(), s))
        .collect();
    let mut kept = 0;
    for s in steps(&before).iter().filter(|s| s["status"] == "completed") {
        let a = &after_steps[s["id"].as_str().unwrap()];
        assert_eq!(a["started_at"], s["started_at"], "{} ran again", s["id"]);
        assert_eq!(a["result"], s["result"]);
        kept += 1;
    }
    assert!(kept >= 1, "find had completed before the kill");
    for id in ["tag", "text", "note"] {
        let r = &after_steps[id]["result"];
        assert_eq!(r["completed"], LEADS, "{id}: {r}");
    }
    // Everyone has exactly one text, and exactly one note of it.
    let mut page = call(
        &client,
        &base,
        "/api/contacts/list",
        json!({"filter": {"tags_any": ["quote"]}, "after": null}),
    )
    .await;
    let mut seen = 0;
    loop {
        for c in page["items"].as_array().unwrap() {
            let phone = c["phone"].as_str().unwrap();
            if fake.to(phone) != 1 {
                let sent: Vec<String> = fake
                    .sent
                    .lock()
                    .unwrap()
                    .iter()
                    .filter(|s| s.to == phone)
                    .map(|s| format!("{} at {}", s.sid, s.at))
                    .collect();
                let conn = sea_orm::Database::connect(&db).await.unwrap();
                use sea_orm::ConnectionTrait;
                let rows = conn
                    .query_all_raw(sea_orm::Statement::from_string(
                        conn.get_database_backend(),
                        format!(
                            "SELECT m.id, m.send_state, m.provider_sid, m.send_attempts FROM message m \
                             JOIN contact c ON c.id = m.contact_id \
                             WHERE c.phone = '{phone}' AND m.direction = 'outbound'"
                        ),
                    ))
                    .await
                    .unwrap();
                let rows: Vec<String> = rows
                    .iter()
                    .map(|r| {
                        format!(
                            "{:?} {:?} {:?}",
                            r.try_get::<String>("", "send_state").ok(),
                            r.try_get::<Option<String>>("", "provider_sid").ok(),
                            r.try_get::<i32>("", "send_attempts").ok()
                        )
                    })
                    .collect();
                panic!(
                    "{phone} has {} texts at Twilio: {sent:?}; Herald's rows: {rows:?}",
                    fake.to(phone)
                );
            }
            let contact = call(&client, &base, "/api/contacts/get", json!({"id": c["id"]})).await;
            let notes = contact["notes"].as_str().unwrap();
            assert_eq!(notes.matches("Texted a check-in").count(), 1, "{notes}");
            seen += 1;
        }
        if page["next"].is_null() {
            break;
        }
        page = call(
            &client,
            &base,
            "/api/contacts/list",
            json!({"filter": {"tags_any": ["quote"]}, "after": page["next"]}),
        )
        .await;
    }
    assert_eq!(seen, LEADS);
    assert_eq!(fake.count(), LEADS, "no text went twice");
    println!(
        "step plan through a SIGKILL ({backend:?}): {kept} steps completed before the kill kept, \
         {creates_at_kill} creates at the kill, {} in all",
        fake.count()
    );
}

crate::on_both_databases!(a_step_plan_survives_a_sigkill_mid_run);
