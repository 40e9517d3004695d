//! Two Herald processes on one PostgreSQL database, started at the same moment (migrations take
//! turns under an advisory lock). A 2,000-text campaign is drafted and sent by both, exactly once
//! in total, paced per number across both; one instance is killed mid-send and the other
//! finishes its work; the reports' rollup, passing on both, counts every text once. SQLite is
//! Herald's single-instance default, so this runs on PostgreSQL.
use crate::binary::{call, eventually, free_port, healthy, start, Server};
use crate::helpers::*;
use serde_json::json;
use std::collections::HashMap;
use std::time::Duration;

const CONTACTS: usize = 2000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_send_a_campaign_exactly_once() {
    let Some((db, _guard)) = fresh_database(Backend::Postgres).await else {
        return;
    };
    let (twilio, fake) = crate::fake_twilio::start().await;
    *fake.latency.lock().unwrap() = Duration::from_millis(5);
    let offset = daytime_offset_secs();
    let env = vec![
        ("SMS_TRANSPORT", "twilio".to_owned()),
        ("TWILIO_ACCOUNT_SID", "ACtwo".into()),
        ("TWILIO_AUTH_TOKEN", "two-token".into()),
        ("TWILIO_API_BASE", twilio),
        ("TWILIO_TIMEOUT_SECS", "2".into()),
        ("RECONCILE_AFTER_SECS", "3".into()),
        ("SEND_RATE_PER_SECOND", "150".into()),
        ("SWEEP_SECS", "0.5".into()),
        ("CLAIM_STALE_SECS", "3".into()),
        ("HERALD_TEST_CLOCK_OFFSET_SECS", offset.to_string()),
    ];
    let (pa, pb) = (free_port(), free_port());
    let (a_base, b_base) = (
        format!("http://127.0.0.1:{pa}"),
        format!("http://127.0.0.1:{pb}"),
    );
    // Both at once, on an empty database.
    let mut a: Server = start(&db, pa, &env);
    let _b: Server = start(&db, pb, &env);
    healthy(&a_base).await;
    healthy(&b_base).await;
    let client = new_client();
    let t0 = std::time::Instant::now();
    call(&client, &a_base, "/api/auth/sign_up", json!({"form": {"organization_name": "Two Co", "name": "O", "email": "o@two.test", "password": "two-instances"}})).await;
    call(
        &client,
        &a_base,
        "/api/numbers/create",
        json!({"input": {"number": "+14155550100", "friendly_name": "Main", "provider_sid": ""}}),
    )
    .await;
    let mut csv = String::from("name,phone,tags,consent\n");
    for i in 0..CONTACTS {
        csv.push_str(&format!("Lead {i},+1415557{i:04},quote,web_form\n"));
    }
    call(
        &client,
        &a_base,
        "/api/contacts/import",
        json!({"csv": csv}),
    )
    .await;
    call(
        &client,
        &a_base,
        "/api/assistant/ask",
        json!({"text": "follow up with quiet quote leads", "plan_mode": true}),
    )
    .await;
    // The session cookie works on either instance: the same database holds it.
    let plan = eventually(90, "the plan", || async {
        let l = call(
            &client,
            &b_base,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
        (l["items"][0]["status"] == "awaiting_approval").then(|| l["items"][0].clone())
    })
    .await;
    call(
        &client,
        &b_base,
        "/api/plans/approve",
        json!({"id": plan["id"]}),
    )
    .await;
    let op = eventually(30, "the operation", || async {
        let p = call(
            &client,
            &a_base,
            "/api/plans/get",
            json!({"id": plan["id"]}),
        )
        .await;
        p["executed_ref"]
            .is_string()
            .then(|| p["executed_ref"].clone())
    })
    .await;
    eventually(180, "the drafts", || async {
        let o = call(&client, &b_base, "/api/operations/get", json!({"id": op})).await;
        (o["status"] == "awaiting_approval").then_some(())
    })
    .await;
    let sheet = call(&client, &b_base, "/api/operations/sheet", json!({"id": op})).await;
    call(
        &client,
        &b_base,
        "/api/operations/approve",
        json!({"id": op, "digest": sheet["digest"]}),
    )
    .await;
    // Kill A in the middle of sending; B finishes.
    eventually(120, "a third of the texts", || async {
        (fake.count() >= CONTACTS / 3).then_some(())
    })
    .await;
    eprintln!("third sent after {:?}", t0.elapsed());
    a.kill_nine();
    let done = eventually(300, "the campaign's end", || async {
        let o = call(&client, &b_base, "/api/operations/get", json!({"id": op})).await;
        (o["status"] == "done").then_some(o)
    })
    .await;
    let per_phone =
        fake.sent
            .lock()
            .unwrap()
            .iter()
            .fold(HashMap::<String, usize>::new(), |mut m, s| {
                *m.entry(s.to.clone()).or_default() += 1;
                m
            });
    let duplicates = per_phone.values().filter(|n| **n > 1).count();
    // The split, read from the database both instances share.
    let conn = sea_orm::Database::connect(db.as_str()).await.unwrap();
    let state_split: Vec<(Option<String>, i64)> = {
        use herald::campaign::entity::item;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
        item::Entity::find()
            .select_only()
            .column(item::Column::SentBy)
            .column_as(item::Column::Id.count(), "n")
            .filter(
                item::Column::OperationId.eq(op.as_str().unwrap().parse::<uuid::Uuid>().unwrap()),
            )
            .filter(item::Column::Status.eq("sent"))
            .group_by(item::Column::SentBy)
            .into_tuple()
            .all(&conn)
            .await
            .unwrap()
    };
    println!(
        "two instances: {CONTACTS} texts, {} at the fake, {duplicates} duplicates, sent {}, unknown {}; split by instance: {:?}",
        fake.count(),
        done["sent"],
        done["unknown"],
        state_split
    );
    assert_eq!(duplicates, 0, "nobody got two texts");
    assert_eq!(
        done["sent"].as_i64().unwrap() + done["unknown"].as_i64().unwrap(),
        CONTACTS as i64,
        "every text sent or surfaced"
    );
    assert_eq!(per_phone.len(), fake.count());
    assert!(
        state_split.len() >= 2 && state_split.iter().all(|(_, n)| *n > 0),
        "both instances sent: {state_split:?}"
    );

    // The reports' rollup ran on both (one killed mid-pass, perhaps): every text counted once.
    let one = |sql: &'static str| {
        let conn = conn.clone();
        async move {
            use sea_orm::ConnectionTrait;
            conn.query_one_raw(sea_orm::Statement::from_string(
                sea_orm::DbBackend::Postgres,
                sql,
            ))
            .await
            .unwrap()
            .unwrap()
            .try_get_by_index::<i64>(0)
            .unwrap()
        }
    };
    eventually(60, "the rollup's passes", || async {
        (one("SELECT count(*) FROM message WHERE rolled_up = false").await == 0).then_some(())
    })
    .await;
    for dir in ["inbound", "outbound"] {
        let (texts, counted) = match dir {
            "inbound" => (
                one("SELECT count(*) FROM message WHERE direction = 'inbound'").await,
                one("SELECT CAST(COALESCE(SUM(value), 0) AS BIGINT) FROM report_daily WHERE metric = 'in'").await,
            ),
            _ => (
                one("SELECT count(*) FROM message WHERE direction = 'outbound'").await,
                one("SELECT CAST(COALESCE(SUM(value), 0) AS BIGINT) FROM report_daily WHERE metric = 'out'").await,
            ),
        };
        assert_eq!(counted, texts, "{dir} texts counted once");
    }
}
