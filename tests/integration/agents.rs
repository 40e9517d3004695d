//! Text Reply agents: routing, threads, the send-mode gate, reply numbers, the legacy suggester
//! and the safety invariants under an adversarial scripted model.
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::scripted::ScriptedModel;
use herald::ai_agent::llm::{Completion, LlmError, ToolCall};
use herald::messaging::transport::outbox::OutboxTransport;
use serde_json::{json, Value};
use std::sync::Arc;

struct Setup {
    app: TestApp,
    org: Org,
    outbox: Arc<OutboxTransport>,
    numbers: Vec<uuid::Uuid>,
    agent: Value,
}

/// An organisation with two numbers, its Text Reply clone assigned to both, in `mode`.
async fn setup(backend: Backend, mode: &str, model: Option<Arc<ScriptedModel>>) -> Option<Setup> {
    let outbox = Arc::new(OutboxTransport::default());
    let model = model.map(|m| m as Arc<dyn herald::ai_agent::llm::ChatModel>);
    let app = spawn_app_with(
        backend,
        Options {
            transport: Some(outbox.clone()),
            model,
            ..Default::default()
        },
    )
    .await?;
    let org = app.new_org("Agent Co").await;
    let n1 = app.add_number(&org, "+14155550100").await;
    let n2 = app.add_number(&org, "+14155550101").await;
    let agents: Value = app.ok_as(&org.client, "/api/agents", Value::Null).await;
    let agent = agents[0].clone();
    assert_eq!(agent["name"], "Text Reply");
    assert_eq!(
        agent["send_mode"], "suggest",
        "the clone keeps the platform agent's send_mode"
    );
    let id = agent["id"].clone();
    let input = json!({"name": "Text Reply", "persona": agent["persona"], "goals": agent["goals"], "rules": "Sign off as the Bright Smile team.", "send_mode": mode});
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/agents/update",
            json!({"id": id, "input": input}),
        )
        .await;
    let agent: Value = app
        .ok_as(
            &org.client,
            "/api/agents/assign_numbers",
            json!({"id": id, "number_ids": [n1, n2]}),
        )
        .await;
    assert_eq!(agent["number_ids"].as_array().unwrap().len(), 2);
    Some(Setup {
        app,
        org,
        outbox,
        numbers: vec![n1, n2],
        agent,
    })
}

async fn threads_of(s: &Setup) -> Value {
    s.app
        .ok_as(
            &s.org.client,
            "/api/agents/threads",
            json!({"agent_id": s.agent["id"]}),
        )
        .await
}

async fn events_of(s: &Setup, thread: &Value) -> Value {
    s.app
        .ok_as(
            &s.org.client,
            "/api/threads/events",
            json!({"thread_id": thread["id"]}),
        )
        .await
}

async fn text_in(s: &Setup, sid: &str, from: &str, to: &str, body: &str) {
    assert!(s
        .app
        .post_webhook(&sms_params(sid, from, to, body), None)
        .await
        .status()
        .is_success());
    s.app.settle().await;
}

async fn first_message(s: &Setup) -> (Value, Value) {
    let list: Value = s
        .app
        .ok_as(&s.org.client, "/api/conversations", Value::Null)
        .await;
    let conv: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/conversations/get",
            json!({"contact_id": list[0]["contact_id"]}),
        )
        .await;
    (list[0].clone(), conv["messages"][0].clone())
}

async fn suggest_mode_drafts_three_options(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    text_in(
        &s,
        "SMagent000000000000000000000000001",
        "+14155552671",
        "+14155550101",
        "Could I move my cleaning to Friday?",
    )
    .await;
    assert_eq!(s.app.count("ai_thread").await, 1);
    let (_, msg) = first_message(&s).await;
    let sets: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/suggestions",
            json!({"message_id": msg["id"]}),
        )
        .await;
    let options = sets[0]["options"].as_array().unwrap();
    assert_eq!(options.len(), 3);
    assert!(
        options[0]["body"].as_str().unwrap().contains("move"),
        "{options:?}"
    );
    assert_eq!(sets[0]["source"], "Text Reply");
    assert_eq!(sets[0]["offline"], true);
    assert!(s.outbox.sent().is_empty(), "suggest mode sends nothing");
    // A follow-up reuses the same thread.
    text_in(
        &s,
        "SMagent000000000000000000000000002",
        "+14155552671",
        "+14155550101",
        "Thanks!",
    )
    .await;
    assert_eq!(s.app.count("ai_thread").await, 1);
    let threads = threads_of(&s).await;
    assert_eq!(threads[0]["contact_name"], "+14155552671");
    let events = events_of(&s, &threads[0]).await;
    let kinds: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.iter().filter(|k| **k == "inbound_sms").count(), 2);
    assert!(kinds.contains(&"tool_result"));
}

async fn autonomous_replies_from_the_texted_number(backend: Backend) {
    let Some(s) = setup(backend, "autonomous", None).await else {
        return;
    };
    for i in 0..50u32 {
        let to = if i.is_multiple_of(2) {
            "+14155550100"
        } else {
            "+14155550101"
        };
        let from = format!("+1415555{:04}", 2700 + i);
        text_in(
            &s,
            &format!("SMreply{i:027}"),
            &from,
            to,
            "How much would whitening cost?",
        )
        .await;
    }
    let sent = s.outbox.sent();
    assert_eq!(sent.len(), 50, "one reply per text");
    for sms in &sent {
        let n: u32 = sms.to[8..].parse().unwrap();
        let expected = if (n - 2700).is_multiple_of(2) {
            "+14155550100"
        } else {
            "+14155550101"
        };
        assert_eq!(
            sms.from, expected,
            "the reply to {} left from the number it texted",
            sms.to
        );
    }
    let (_, msg) = first_message(&s).await;
    assert_eq!(msg["direction"], "inbound");
    let list: Value = s
        .app
        .ok_as(&s.org.client, "/api/conversations", Value::Null)
        .await;
    let conv: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/conversations/get",
            json!({"contact_id": list[0]["contact_id"]}),
        )
        .await;
    assert_eq!(conv["messages"][1]["ai_origin"], "agent (offline model)");
    let _ = &s.numbers;
}

async fn adversarial_send_in_suggest_mode_is_refused(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    model.call("send_sms", r#"{"body": "I am sending anyway"}"#);
    model.call(
        "send_sms",
        r#"{"body": "and again", "phone_number_id": "00000000-0000-0000-0000-000000000000"}"#,
    );
    model.call("propose_sms_replies", r#"{"options": ["One", "Two"]}"#);
    model.say("done");
    let Some(s) = setup(backend, "suggest", Some(model.clone())).await else {
        return;
    };
    text_in(
        &s,
        "SMadv0000000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "hello",
    )
    .await;
    assert!(s.outbox.sent().is_empty(), "no send in suggest mode");
    assert_eq!(s.app.count("message").await, 1, "only the inbound text");
    let offered = model.seen_tools.lock().unwrap()[0].clone();
    assert!(
        !offered.contains(&"send_sms".to_string()),
        "send_sms is not even offered: {offered:?}"
    );
    let threads = threads_of(&s).await;
    let events = events_of(&s, &threads[0]).await;
    let refused: Vec<&Value> = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["summary"] == "send_sms refused")
        .collect();
    assert_eq!(refused.len(), 2);
    assert!(refused[0]["detail"]
        .as_str()
        .unwrap()
        .contains("not available to you"));
    let (_, msg) = first_message(&s).await;
    let sets: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/suggestions",
            json!({"message_id": msg["id"]}),
        )
        .await;
    assert_eq!(sets[0]["options"].as_array().unwrap().len(), 2);
}

async fn wrong_number_and_malformed_calls_are_refused(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    let Some(s) = setup(backend, "autonomous", Some(model.clone())).await else {
        return;
    };
    let other = s.app.new_org("Other").await;
    let foreign = s.app.add_number(&other, "+14155550999").await;
    model.call(
        "send_sms",
        &json!({"body": "from a foreign number", "phone_number_id": foreign}).to_string(),
    );
    model.call("send_sms", "{not json");
    model.call("get_contact", r#"["not", "an", "object"]"#);
    model.push(Ok(Completion {
        text: None,
        tool_calls: vec![ToolCall {
            id: "x".into(),
            name: "drop_database".into(),
            arguments: "{}".into(),
        }],
    }));
    model.call(
        "send_sms",
        &json!({"body": "from the other line", "phone_number_id": s.numbers[1]}).to_string(),
    );
    model.say("done");
    text_in(
        &s,
        "SMwrong000000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "hi",
    )
    .await;
    let sent = s.outbox.sent();
    assert_eq!(sent.len(), 1, "only the valid send went out");
    assert_eq!(
        sent[0].from, "+14155550101",
        "the model may name another of the organisation's numbers"
    );
    let threads = threads_of(&s).await;
    assert_eq!(threads[0]["state"], "idle");
    let events = events_of(&s, &threads[0]).await;
    let details: Vec<String> = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["summary"].as_str().unwrap().ends_with("refused"))
        .map(|e| e["detail"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(details.len(), 4, "{details:?}");
    assert!(details[0].contains("not one of this organisation's numbers"));
    assert!(details[1].contains("not valid JSON"));
    assert!(details[2].contains("must be a JSON object"));
    assert!(details[3].contains("not available"));
}

async fn opted_out_and_media_only_start_no_turn(backend: Backend) {
    let Some(s) = setup(backend, "autonomous", None).await else {
        return;
    };
    text_in(
        &s,
        "SMoo00000000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "STOP",
    )
    .await;
    text_in(
        &s,
        "SMoo00000000000000000000000000002",
        "+14155552671",
        "+14155550100",
        "are you there?",
    )
    .await;
    let media = vec![
        ("MessageSid", "SMoo00000000000000000000000000003"),
        ("From", "+14155552672"),
        ("To", "+14155550100"),
        ("Body", ""),
        ("NumMedia", "1"),
        ("MediaUrl0", "https://x.test/m.jpg"),
    ];
    s.app.post_webhook(&media, None).await;
    s.app.settle().await;
    assert_eq!(s.app.count("ai_thread").await, 0, "no thread, no turn");
    assert!(
        s.outbox.sent().is_empty(),
        "no contact to an opted-out person"
    );
}

async fn provider_failure_escalates_and_loses_nothing(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    for _ in 0..3 {
        model.push(Err(LlmError::Unavailable("HTTP 500".into())));
    }
    model.call(
        "send_sms",
        r#"{"body": "Sorry for the wait! How can we help?"}"#,
    );
    model.say("done");
    let Some(s) = setup(backend, "autonomous", Some(model.clone())).await else {
        return;
    };
    text_in(
        &s,
        "SMfail000000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "hello?",
    )
    .await;
    assert_eq!(
        model.remaining(),
        2,
        "three attempts, then the turn gave up"
    );
    let threads = threads_of(&s).await;
    assert_eq!(threads[0]["state"], "idle");
    assert!(threads[0]["last_error"]
        .as_str()
        .unwrap()
        .contains("HTTP 500"));
    let notes: Value = s
        .app
        .ok_as(&s.org.client, "/api/notifications", Value::Null)
        .await;
    assert_eq!(notes[0]["title"], "Text Reply could not answer");
    assert!(notes[0]["body"].as_str().unwrap().contains("hello?"));
    let events = events_of(&s, &threads[0]).await;
    assert!(
        events
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["processed"] == true),
        "the input is handled once, not lost"
    );
    // The next text is answered normally.
    text_in(
        &s,
        "SMfail000000000000000000000000002",
        "+14155552671",
        "+14155550100",
        "anyone?",
    )
    .await;
    assert_eq!(s.outbox.sent().len(), 1);
}

async fn legacy_suggester_for_numbers_without_an_agent(backend: Backend) {
    use sea_orm::{ActiveModelTrait, Set};
    let outbox = Arc::new(OutboxTransport::default());
    let Some(app) = spawn_app_with(
        backend,
        Options {
            transport: Some(outbox.clone()),
            ..Default::default()
        },
    )
    .await
    else {
        return;
    };
    let org = app.new_org("Legacy Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let ta = uuid::Uuid::new_v4();
    herald::ai_agent::entity::text_agent::ActiveModel {
        id: Set(ta),
        organization_id: Set(org.org_id),
        name: Set("Front desk suggester".into()),
        instructions: Set(String::new()),
        auto_reply: Set(true),
        confidence_threshold: Set(0.85),
        created_at: Set(chrono::Utc::now()),
    }
    .insert(&app.state.db)
    .await
    .unwrap();
    let mut phone: herald::phone_numbers::entity::ActiveModel =
        herald::phone_numbers::service::find_in_org(&app.state.db, org.org_id, number)
            .await
            .unwrap()
            .into();
    phone.text_agent_id = Set(Some(ta));
    phone.update(&app.state.db).await.unwrap();
    app.post_webhook(
        &sms_params(
            "SMlegacy0000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "Could I reschedule?",
        ),
        None,
    )
    .await;
    app.settle().await;
    assert_eq!(
        app.count("ai_thread").await,
        0,
        "the legacy path has no thread"
    );
    let list: Value = app
        .ok_as(&org.client, "/api/conversations", Value::Null)
        .await;
    let conv: Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": list[0]["contact_id"]}),
        )
        .await;
    let sets: Value = app
        .ok_as(
            &org.client,
            "/api/suggestions",
            json!({"message_id": conv["messages"][0]["id"]}),
        )
        .await;
    assert_eq!(sets[0]["source"], "Front desk suggester");
    let opts = sets[0]["options"].as_array().unwrap();
    assert_eq!(opts.len(), 3);
    assert!(opts[0]["confidence"].as_f64().unwrap() >= opts[1]["confidence"].as_f64().unwrap());
    let sent = outbox.sent();
    assert_eq!(
        sent.len(),
        1,
        "auto_reply sent the best option, which cleared the threshold"
    );
    assert_eq!(sent[0].body, opts[0]["body"].as_str().unwrap());
}

async fn two_hundred_concurrent_texts_one_thread(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    let sends = (0..200).map(|i| {
        let sid = format!("SMburst{i:027}");
        let app = &s.app;
        async move {
            let params = sms_params(
                &sid,
                "+14155552671",
                "+14155550100",
                "Are you open on Saturday?",
            );
            app.post_webhook(&params, None).await.status()
        }
    });
    for st in futures::future::join_all(sends).await {
        assert!(st.is_success());
    }
    s.app.settle().await;
    assert_eq!(s.app.count("ai_thread").await, 1, "exactly one thread");
    let threads = threads_of(&s).await;
    let thread_id: uuid::Uuid = threads[0]["id"].as_str().unwrap().parse().unwrap();
    use herald::ai_agent::entity::ai_thread_event;
    use herald::ai_agent::events::AiThreadEventPayload;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    let events = ai_thread_event::Entity::find()
        .filter(ai_thread_event::Column::ThreadId.eq(thread_id))
        .all(&s.app.state.db)
        .await
        .unwrap();
    let inputs: Vec<uuid::Uuid> = events
        .iter()
        .filter(|e| e.kind == "inbound_sms")
        .map(|e| e.id)
        .collect();
    assert_eq!(inputs.len(), 200);
    assert!(
        events
            .iter()
            .filter(|e| e.kind == "inbound_sms")
            .all(|e| e.processed_at.is_some()),
        "all 200 processed"
    );
    let mut covered = Vec::new();
    for e in &events {
        if let Ok(AiThreadEventPayload::TurnStarted { inputs }) =
            serde_json::from_value(e.payload.clone())
        {
            covered.extend(inputs);
        }
    }
    covered.sort();
    let before = covered.len();
    covered.dedup();
    assert_eq!(before, covered.len(), "no input was in two turns");
    assert_eq!(covered.len(), 200, "every input was in a turn");
}

on_both_databases!(
    suggest_mode_drafts_three_options,
    autonomous_replies_from_the_texted_number,
    adversarial_send_in_suggest_mode_is_refused,
    wrong_number_and_malformed_calls_are_refused,
    opted_out_and_media_only_start_no_turn,
    provider_failure_escalates_and_loses_nothing,
    legacy_suggester_for_numbers_without_an_agent,
    two_hundred_concurrent_texts_one_thread,
);
