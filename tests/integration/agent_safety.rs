//! Text Reply safety under an adversarial scripted model: no send in suggest mode, no foreign
//! number, malformed calls refused, no turn for opted-out or empty texts (a picture alone is
//! answered), failures escalated.

use crate::agent_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::scripted::ScriptedModel;
use herald::ai_agent::llm::{Completion, LlmError, ToolCall};
use serde_json::{json, Value};
use std::sync::Arc;

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
    // A reply leaves from the number the contact texted: not even another of ours.
    model.call(
        "send_sms",
        &json!({"body": "from the other line", "phone_number_id": s.numbers[1]}).to_string(),
    );
    model.call(
        "send_sms",
        &json!({"body": "Hello from the front desk"}).to_string(),
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
    assert_eq!(sent[0].from, "+14155550100", "from the texted number");
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
    assert_eq!(details.len(), 5, "{details:?}");
    assert!(details[0].contains("not one of this organisation's numbers"));
    assert!(details[1].contains("not valid JSON"));
    assert!(details[2].contains("must be a JSON object"));
    assert!(details[3].contains("not available"));
    assert!(details[4].contains("the number the contact texted"));
}

async fn opted_out_and_empty_start_no_turn(backend: Backend) {
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
    // An empty text (no words, no picture) starts nothing either.
    let empty = vec![
        ("MessageSid", "SMoo00000000000000000000000000003"),
        ("From", "+14155552672"),
        ("To", "+14155550100"),
        ("Body", "  "),
        ("NumMedia", "0"),
    ];
    s.app.post_webhook(&empty, None).await;
    s.app.settle().await;
    assert_eq!(s.app.count("ai_thread").await, 0, "no thread, no turn");
    // The opt-out's one confirmation, and nothing from the agent.
    let sent = s.outbox.sent();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(sent[0].body.contains("unsubscribed"), "{sent:?}");
}

/// A picture with no words reaches the agent as "[photo: image/jpeg]", and the agent answers it.
async fn a_picture_alone_reaches_the_agent(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    model.call(
        "send_sms",
        r#"{"body": "Thanks for the photo! We'll take a look."}"#,
    );
    model.say("done");
    let Some(s) = setup(backend, "autonomous", Some(model.clone())).await else {
        return;
    };
    let media = vec![
        ("MessageSid", "SMpic00000000000000000000000000001"),
        ("AccountSid", "AC00000000000000000000000000000000"),
        ("From", "+14155552672"),
        ("To", "+14155550100"),
        ("Body", ""),
        ("NumMedia", "1"),
        (
            "MediaUrl0",
            "https://api.twilio.com/2010-04-01/Accounts/AC0/Messages/MM0/Media/ME0",
        ),
        ("MediaContentType0", "image/jpeg"),
    ];
    s.app.post_webhook(&media, None).await;
    s.app.settle().await;
    let threads = threads_of(&s).await;
    let events = events_of(&s, &threads[0]).await;
    assert!(
        events.to_string().contains("[photo: image/jpeg]"),
        "{events}"
    );
    let sent = s.outbox.sent();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(sent[0].body.contains("Thanks for the photo"), "{sent:?}");
}

/// A provider that fails for one turn: the turn backs off and runs again, and the contact is
/// answered once.
async fn a_failed_turn_backs_off_and_recovers(backend: Backend) {
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
    assert_eq!(model.remaining(), 0, "three failed calls, then the retry");
    assert_eq!(s.outbox.sent().len(), 1, "answered once, on the retry");
    let threads = threads_of(&s).await;
    assert_eq!(threads[0]["state"], "idle");
    let events = events_of(&s, &threads[0]).await;
    let retrying: Vec<&Value> = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "turn_retrying")
        .collect();
    assert_eq!(retrying.len(), 1, "{events}");
    assert!(retrying[0]["summary"]
        .as_str()
        .unwrap()
        .contains("attempt 1"));
    assert!(events
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["kind"] == "turn_resumed"));
    let notes: Value = s
        .app
        .ok_as(&s.org.client, "/api/notifications", json!({}))
        .await;
    let notes = notes["items"].clone();
    assert!(notes.as_array().unwrap().is_empty(), "nobody was bothered");
}

/// A provider that keeps failing: after the last attempt the text is set aside and escalated
/// with the error, nothing is lost, and the next text is answered normally.
async fn provider_failure_escalates_and_loses_nothing(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    let Some(s) = setup(backend, "autonomous", Some(model.clone())).await else {
        return;
    };
    let rt = &s.app.state.runtime();
    let calls = (rt.model_attempts * rt.turn_attempts) as usize;
    for _ in 0..calls {
        model.push(Err(LlmError::Unavailable("HTTP 500".into())));
    }
    model.call(
        "send_sms",
        r#"{"body": "Sorry for the wait! How can we help?"}"#,
    );
    model.say("done");
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
        "every attempt of every turn, then the input was set aside"
    );
    let threads = threads_of(&s).await;
    assert_eq!(threads[0]["state"], "idle");
    assert!(threads[0]["last_error"]
        .as_str()
        .unwrap()
        .contains("HTTP 500"));
    let notes: Value = s
        .app
        .ok_as(&s.org.client, "/api/notifications", json!({}))
        .await;
    let notes = notes["items"].clone();
    assert_eq!(notes[0]["title"], "Text Reply could not answer");
    assert!(notes[0]["body"].as_str().unwrap().contains("hello?"));
    assert!(notes[0]["body"].as_str().unwrap().contains("set aside"));
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

on_both_databases!(
    adversarial_send_in_suggest_mode_is_refused,
    wrong_number_and_malformed_calls_are_refused,
    opted_out_and_empty_start_no_turn,
    a_picture_alone_reaches_the_agent,
    a_failed_turn_backs_off_and_recovers,
    provider_failure_escalates_and_loses_nothing,
);
