//! What the webhook's speed-ups must not change (issue 15). Group commit: a burst in which Twilio
//! delivers some texts two and three times at once stores each MessageSid once, acknowledges every
//! delivery, and still records an opt-out keyword. The number cache: assigning an agent to a
//! number takes effect on the very next text. SQLite's log: a checkpoint starts a long log over,
//! and gives way to a reader of the old log instead of blocking writers.
//! No timings are asserted: only what happened.
use crate::agent_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use serde_json::{json, Value};

async fn a_burst_with_redeliveries_stores_each_text_once(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Burst Co").await;
    app.add_number(&org, "+14155550100").await;
    // 20 texts from 10 contacts, each delivered three times, all at once; one of them is STOP.
    let mut deliveries = Vec::new();
    for copy in 0..3 {
        for i in 0..20 {
            deliveries.push((copy, i));
        }
    }
    let sends = deliveries.into_iter().map(|(_, i)| {
        let app = &app;
        async move {
            let sid = format!("SMburst{i:026}");
            let from = format!("+1415556{:04}", i % 10);
            let body = if i == 7 {
                "STOP".to_owned()
            } else {
                format!("Text {i}")
            };
            app.post_webhook(&sms_params(&sid, &from, "+14155550100", &body), None)
                .await
                .status()
        }
    });
    let statuses = futures::future::join_all(sends).await;
    assert!(
        statuses.iter().all(|s| s.is_success()),
        "every delivery acknowledged: {statuses:?}"
    );
    app.settle().await;
    assert_eq!(
        app.count_where("message", "direction = 'inbound'").await,
        20,
        "each MessageSid stored once"
    );
    assert_eq!(
        app.count_where("message", &format!("provider_sid = 'SMburst{:026}'", 7))
            .await,
        1,
        "the STOP text too"
    );
    assert_eq!(
        app.count("suppression").await,
        1,
        "the STOP in the burst opted its sender out once"
    );
    assert_eq!(
        app.count_where("message", "direction = 'inbound' AND routed_at IS NULL")
            .await,
        0,
        "every stored text was routed"
    );
    assert_eq!(app.count("contact").await, 10, "one contact per sender");
}

async fn assigning_an_agent_takes_effect_on_the_next_text(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    let id = s.agent["id"].clone();
    // The number is looked up (and remembered) while it has no agent.
    let _: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/agents/assign_numbers",
            json!({"id": id, "number_ids": [s.numbers[1]]}),
        )
        .await;
    text_in(
        &s,
        "SMcache0000000000000000000000001",
        "+14155557001",
        "+14155550100",
        "Hello?",
    )
    .await;
    s.app.settle().await;
    assert_eq!(
        s.app.count("ai_thread").await,
        0,
        "no agent answers the number yet"
    );
    // Assigned again, and texted at once: the remembered number must not be used.
    let _: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/agents/assign_numbers",
            json!({"id": id, "number_ids": [s.numbers[0], s.numbers[1]]}),
        )
        .await;
    text_in(
        &s,
        "SMcache0000000000000000000000002",
        "+14155557001",
        "+14155550100",
        "Anyone?",
    )
    .await;
    s.app.settle().await;
    assert_eq!(s.app.count("ai_thread").await, 1, "the agent took the text");
    assert_eq!(
        s.app
            .count_where("ai_thread_event", "kind = 'inbound_sms'")
            .await,
        1,
        "only the text after the assignment"
    );
}

on_both_databases!(
    a_burst_with_redeliveries_stores_each_text_once,
    assigning_an_agent_takes_effect_on_the_next_text,
);

/// SQLite only (PostgreSQL manages its own log): a log longer than the limit is started over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_sqlite_log_is_started_over() {
    use herald::platform::sqlite_wal::{checkpoint, Checkpoint};
    use sea_orm::ConnectionTrait;
    let Some(app) = spawn_app(Backend::Sqlite).await else {
        return;
    };
    let org = app.new_org("Log Co").await;
    for i in 0..40 {
        app.add_contact(&org, &format!("Contact {i}"), &format!("+1415555{i:04}"))
            .await;
    }
    let db = &app.state.db;
    // A restart waits for no reader: one of the server's own background reads (the sweeper's)
    // may be open at that moment, and then the log is started over on a later pass, as the
    // server's own checkpoints do.
    let mut outcome = checkpoint(db, 0).await.unwrap();
    for _ in 0..20 {
        if matches!(outcome, Checkpoint::Restarted { .. }) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        outcome = checkpoint(db, 0).await.unwrap();
    }
    match outcome {
        Checkpoint::Restarted { frames } => assert!(frames > 0, "the writes are in the log"),
        other => panic!("a log over the limit is started over, not {other:?}"),
    }
    // Started over: the next write goes to the log's beginning, so the log is short again.
    db.execute_unprepared("UPDATE contact SET notes = 'n' WHERE name = 'Contact 1'")
        .await
        .unwrap();
    match checkpoint(db, 1_000_000).await.unwrap() {
        Checkpoint::Passive { frames } => assert!(frames < 40, "a short log, got {frames} frames"),
        other => panic!("a short log is left alone, not {other:?}"),
    }
}

/// SQLite only: a RESTART checkpoint holds SQLite's writer lock while it waits for the old log's
/// readers, so the checkpointer's own connection gives up instead of waiting (and blocking every
/// write meanwhile); once the reader is gone, the next look starts the log over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_checkpointer_gives_way_to_a_reader_of_the_old_log() {
    use herald::platform::db::{connect, Role};
    use herald::platform::sqlite_wal::{checkpoint, Checkpoint};
    use sea_orm::{ConnectionTrait, DatabaseConnection, TransactionTrait};
    // A database of its own, with no server and so no other checkpointer: every step is ours.
    let Some((url, _guard)) = fresh_database(Backend::Sqlite).await else {
        return;
    };
    let writer = connect(&url, 1, Role::Acknowledgement).await.unwrap();
    let reader = connect(&url, 1, Role::Background).await.unwrap();
    let checkpointer = connect(&url, 1, Role::Checkpoint).await.unwrap();
    let write = |db: &DatabaseConnection, sql: &'static str| {
        let db = db.clone();
        async move { db.execute_unprepared(sql).await.unwrap() }
    };
    write(&writer, "CREATE TABLE note (body TEXT)").await;
    write(&writer, "INSERT INTO note VALUES ('one')").await;
    // A read transaction that began on the log as it is now, still open.
    let snapshot = reader.begin().await.unwrap();
    snapshot
        .execute_unprepared("SELECT COUNT(*) FROM note")
        .await
        .unwrap();
    write(&writer, "INSERT INTO note VALUES ('two')").await;
    match checkpoint(&checkpointer, 0).await.unwrap() {
        Checkpoint::Busy { frames } => assert!(frames > 0),
        other => panic!("the old log's reader is waited for briefly, not out: {other:?}"),
    }
    // Writers were not held up: another row goes in while the reader still holds its view.
    write(&writer, "INSERT INTO note VALUES ('three')").await;
    snapshot.rollback().await.unwrap();
    match checkpoint(&checkpointer, 0).await.unwrap() {
        Checkpoint::Restarted { frames } => assert!(frames > 0),
        other => panic!("with the reader gone the log starts over, not {other:?}"),
    }
}

/// PostgreSQL only (several instances share one database there): a number reassigned through
/// one instance is answered by its new agent on another instance within the cache's TTL, though
/// that instance was never told.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_instance_sees_a_reassigned_number_within_the_ttl() {
    let Some(s) = setup(Backend::Postgres, "suggest", None).await else {
        return;
    };
    let config =
        herald::platform::config::Config::for_database(s.app.state.config.database_url.clone());
    let mut services = herald::platform::state::Services::from_config(&config).expect("services");
    services.clock = std::sync::Arc::new(herald::platform::clock::ShiftedClock::starting_at(
        test_daytime(),
    ));
    let b = herald::server::launch::start_with(config, services)
        .await
        .expect("a second instance starts");
    let text_b = |sid: &'static str, body: &'static str| {
        let url = format!("http://{}/webhooks/twilio/sms", b.addr);
        async move {
            let reply = new_client()
                .post(url)
                .form(&sms_params(sid, "+14155557002", "+14155550100", body))
                .send()
                .await
                .expect("webhook request");
            assert!(reply.status().is_success());
        }
    };
    let id = s.agent["id"].clone();
    let assign = |numbers: Vec<uuid::Uuid>| {
        let (app, client, id) = (&s.app, &s.org.client, id.clone());
        async move {
            let _: Value = app
                .ok_as(
                    client,
                    "/api/agents/assign_numbers",
                    json!({"id": id, "number_ids": numbers}),
                )
                .await;
        }
    };
    assign(vec![s.numbers[1]]).await;
    // Instance B looks the number up (and remembers it) while it has no agent.
    text_b("SMsecond000000000000000000000001", "Hello?").await;
    herald::platform::state::wait_for_background(&b.state.tasks).await;
    assert_eq!(
        s.app.count("ai_thread").await,
        0,
        "no agent answers the number yet"
    );
    // Reassigned through instance A; B is not told, and forgets within the TTL.
    assign(vec![s.numbers[0], s.numbers[1]]).await;
    tokio::time::sleep(herald::phone_numbers::cache::TTL + std::time::Duration::from_millis(200))
        .await;
    text_b("SMsecond000000000000000000000002", "Anyone?").await;
    herald::platform::state::wait_for_background(&b.state.tasks).await;
    assert_eq!(
        s.app
            .count_where("ai_thread_event", "kind = 'inbound_sms'")
            .await,
        1,
        "the agent took the text sent after the TTL"
    );
    b.state.shutdown.cancel();
}
