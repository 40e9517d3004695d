//! Agents under crashes and faults: the real server binary killed with SIGKILL in the middle of a
//! turn and between storing and routing a text, and a database fault right after a send. Each
//! time the contact is answered exactly once and the thread shows what happened.
use crate::agent_support::*;
use crate::binary::{call, eventually, free_port, healthy, start, Server};
use crate::fake_llm::{self, Dialect, Step};
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::scripted::ScriptedModel;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

const TOKEN: &str = "recovery-token";
const FRONT_DESK: &str = "+14155550100";
const ADA: &str = "+14155552671";

/// An organisation on a running binary, its Text Reply agent in `mode` on the front desk.
async fn agent_org(client: &reqwest::Client, base: &str, mode: &str) -> Value {
    call(client, base, "/api/auth/sign_up", json!({"form": {"organization_name": "Recovery Co", "name": "O", "email": "o@recovery.test", "password": "recovery-pass"}})).await;
    let number = call(
        client,
        base,
        "/api/numbers/create",
        json!({"input": {"number": FRONT_DESK, "friendly_name": "Front desk", "provider_sid": ""}}),
    )
    .await;
    let agent = call(client, base, "/api/agents", Value::Null).await[0].clone();
    let input = json!({"name": "Text Reply", "persona": agent["persona"], "goals": agent["goals"], "rules": "", "send_mode": mode, "answer_only": false});
    call(
        client,
        base,
        "/api/agents/update",
        json!({"id": agent["id"], "input": input}),
    )
    .await;
    call(
        client,
        base,
        "/api/agents/assign_numbers",
        json!({"id": agent["id"], "number_ids": [number["id"]]}),
    )
    .await
}

/// A signed inbound text, as Twilio would post it to the binary.
async fn text_binary(base: &str, sid: &str, body: &str) {
    let params: Vec<(String, String)> = sms_params(sid, ADA, FRONT_DESK, body)
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

async fn thread_events(client: &reqwest::Client, base: &str, agent: &Value) -> Vec<Value> {
    let threads = call(
        client,
        base,
        "/api/agents/threads",
        json!({"agent_id": agent["id"]}),
    )
    .await;
    let Some(t) = threads["items"].as_array().and_then(|t| t.first()) else {
        return vec![];
    };
    call(
        client,
        base,
        "/api/threads/events",
        json!({"thread_id": t["id"]}),
    )
    .await
    .as_array()
    .cloned()
    .unwrap_or_default()
}

/// SIGKILL while the model is thinking; after the restart the lease expires, the sweeper picks
/// the turn up where it was, and the contact gets one reply.
async fn sigkill_mid_turn_answers_once(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let llm = fake_llm::start(Dialect::OpenAi).await;
    llm.push(Step::Stall(Duration::from_secs(3600)));
    llm.push(Step::call(
        "send_sms",
        json!({"body": "We open at 9 on Saturdays."}),
    ));
    llm.push(Step::text("Replied."));
    let (twilio, fake_twilio) = crate::fake_twilio::start().await;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let env = vec![
        ("SMS_TRANSPORT", "twilio".to_owned()),
        ("TWILIO_ACCOUNT_SID", "ACrecovery".into()),
        ("TWILIO_AUTH_TOKEN", TOKEN.into()),
        ("TWILIO_API_BASE", twilio),
        ("LLM_PROVIDER", "openai-compatible".into()),
        ("LLM_MODEL", "fake-model".into()),
        ("LLM_API_KEY", "sk-test".into()),
        ("LLM_BASE_URL", format!("{}/v1", llm.base)),
        ("LLM_TIMEOUT_SECS", "600".into()),
        ("THREAD_LEASE_SECS", "2".into()),
        ("SWEEP_SECS", "0.5".into()),
        (
            "HERALD_TEST_CLOCK_OFFSET_SECS",
            daytime_offset_secs().to_string(),
        ),
    ];
    let mut server: Server = start(&db, port, &env);
    healthy(&base).await;
    let client = new_client();
    let agent = agent_org(&client, &base, "autonomous").await;
    text_binary(
        &base,
        "SMkill0000000000000000000000000001",
        "Are you open Saturday?",
    )
    .await;
    // The model is thinking (stalled): kill -9 now.
    eventually(20, "the model call", || async {
        (llm.request_count() == 1).then_some(())
    })
    .await;
    server.kill_nine();
    assert_eq!(fake_twilio.count(), 0, "nothing was sent before the crash");
    let _server = start(&db, port, &env);
    healthy(&base).await;
    eventually(30, "the reply", || async {
        (fake_twilio.to(ADA) == 1).then_some(())
    })
    .await;
    // Time for any duplicate to show up.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(fake_twilio.count(), 1, "answered exactly once");
    assert_eq!(fake_twilio.sent.lock().unwrap()[0].from, FRONT_DESK);
    let events = thread_events(&client, &base, &agent).await;
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert!(kinds.contains(&"turn_resumed"), "{kinds:?}");
    assert!(events.iter().all(|e| e["processed"] == true), "{events:?}");
    assert!(llm.refused.lock().unwrap().is_empty());
}

/// SIGKILL after the text is stored and before it is routed: after the restart the sweep routes
/// it, and the agent gets it once.
async fn sigkill_between_storing_and_routing(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let env = |delay: bool| {
        let mut e = vec![
            ("TWILIO_AUTH_TOKEN", TOKEN.to_owned()),
            (
                "HERALD_TEST_CLOCK_OFFSET_SECS",
                daytime_offset_secs().to_string(),
            ),
        ];
        if delay {
            e.push(("HERALD_TEST_ROUTE_DELAY_MS", "600000".into()));
        }
        e
    };
    let mut server = start(&db, port, &env(true));
    healthy(&base).await;
    let client = new_client();
    let agent = agent_org(&client, &base, "suggest").await;
    text_binary(
        &base,
        "SMroute000000000000000000000000001",
        "Could I move my cleaning?",
    )
    .await;
    let inbox = call(
        &client,
        &base,
        "/api/conversations",
        json!({"filter": "all", "after": null}),
    )
    .await;
    assert_eq!(
        inbox["items"].as_array().unwrap().len(),
        1,
        "the text was stored"
    );
    assert_eq!(inbox["total"], 1);
    assert!(
        thread_events(&client, &base, &agent).await.is_empty(),
        "and not routed yet"
    );
    server.kill_nine();
    let _server = start(&db, port, &env(false));
    healthy(&base).await;
    let events = eventually(20, "the routed text's turn", || {
        let (client, base, agent) = (&client, &base, &agent);
        async move {
            let e = thread_events(client, base, agent).await;
            e.iter().any(|e| e["kind"] == "assistant").then_some(e)
        }
    })
    .await;
    let inbound = events.iter().filter(|e| e["kind"] == "inbound_sms").count();
    assert_eq!(inbound, 1, "the text reached its agent once");
    let contact = inbox["items"][0]["contact_id"].clone();
    let convo = call(
        &client,
        &base,
        "/api/conversations/get",
        json!({"contact_id": contact}),
    )
    .await;
    let message = convo["messages"][0]["id"].clone();
    let sets = eventually(20, "the suggestions", || {
        let (client, base, message) = (&client, &base, &message);
        async move {
            let s = call(
                client,
                base,
                "/api/suggestions",
                json!({"message_id": message}),
            )
            .await;
            (!s.as_array().unwrap().is_empty()).then_some(s)
        }
    })
    .await;
    assert_eq!(sets.as_array().unwrap().len(), 1, "one set of suggestions");
}

/// Ada asks "Open Saturday?" with the turn's next tool-result write armed to fail once.
async fn text_in_failing_once(s: &Setup, sid: &str) {
    s.app
        .state
        .faults
        .arm(herald::platform::faults::TOOL_RESULT_WRITE, 1);
    text_in(s, sid, ADA, FRONT_DESK, "Open Saturday?").await;
}

/// The tool-result write fails once, right after a send: the turn backs off, resumes from its
/// log, finds the send under its key, and the contact receives one text.
async fn a_fault_after_a_send_sends_once(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    model.call("send_sms", r#"{"body": "Yes, Saturday 9 to 1."}"#);
    model.say("done");
    let Some(s) = setup(backend, "autonomous", Some(model.clone())).await else {
        return;
    };
    text_in_failing_once(&s, "SMfault00000000000000000000000001").await;
    assert_eq!(s.outbox.sent().len(), 1, "one text, not two");
    let outbound = {
        use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
        herald::messaging::entity::Entity::find()
            .filter(herald::messaging::entity::Column::Direction.eq("outbound"))
            .count(&s.app.state.db)
            .await
            .unwrap()
    };
    assert_eq!(outbound, 1);
    let threads = threads_of(&s).await;
    assert_eq!(threads[0]["state"], "idle");
    let events = events_of(&s, &threads[0]).await;
    let kinds: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert!(
        kinds.contains(&"turn_retrying") && kinds.contains(&"turn_resumed"),
        "{kinds:?}"
    );
    let results = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["summary"] == "send_sms result")
        .count();
    assert_eq!(results, 1, "the call has one result, recorded on the retry");
    assert_eq!(
        model.remaining(),
        0,
        "the model was not asked to send again"
    );
}

/// The tool-result write fails once, right after drafting: the retried turn finds the drafts
/// under their key, so the owner has one suggestion set and one "drafted" notification.
async fn a_fault_after_drafting_notifies_once(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    model.call(
        "propose_sms_replies",
        r#"{"options": ["Yes, 9 to 1.", "We open at 9 on Saturday."]}"#,
    );
    model.say("drafted");
    let Some(s) = setup(backend, "suggest", Some(model.clone())).await else {
        return;
    };
    text_in_failing_once(&s, "SMfault00000000000000000000000002").await;
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    let db = &s.app.state.db;
    let sets = herald::ai_agent::entity::text_agent_suggestion::Entity::find()
        .count(db)
        .await
        .unwrap();
    assert_eq!(sets, 1, "one suggestion set");
    let notices = herald::notifications::entity::Entity::find()
        .filter(herald::notifications::entity::Column::Kind.eq("drafts"))
        .all(db)
        .await
        .unwrap();
    assert_eq!(notices.len(), 1, "one notification: {notices:?}");
    assert!(
        notices[0].title.contains("drafted 2 replies"),
        "{}",
        notices[0].title
    );
    let threads = threads_of(&s).await;
    let events = events_of(&s, &threads[0]).await;
    let kinds: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert!(
        kinds.contains(&"turn_retrying"),
        "the turn failed once: {kinds:?}"
    );
    assert!(s.outbox.sent().is_empty(), "suggest mode sends nothing");
}

on_both_databases!(
    sigkill_mid_turn_answers_once,
    sigkill_between_storing_and_routing,
    a_fault_after_a_send_sends_once,
    a_fault_after_drafting_notifies_once,
);
