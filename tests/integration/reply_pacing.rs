//! How an autonomous agent paces its replies (issue 28 §2), with the real runtime and a scripted
//! model: a burst of three texts gets one reply (the agent waits until the burst is quiet), and
//! past the day's automated replies to one contact the agent escalates instead of answering.
use crate::agent_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::scripted::ScriptedModel;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

on_both_databases!(
    a_burst_of_three_texts_gets_one_reply,
    the_loop_guard_escalates_past_the_days_replies,
);

const ADA: &str = "+14155552671";
const FRONT: &str = "+14155550100";

async fn a_burst_of_three_texts_gets_one_reply(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    model.call(
        "send_sms",
        r#"{"body": "Got all three: Thursday at 10 it is."}"#,
    );
    model.say("done");
    let Some(s) = setup_with_options(backend, "autonomous", model.clone(), |o| Options {
        reply_quiet: Duration::from_millis(1500),
        ..o
    })
    .await
    else {
        return;
    };
    for (i, body) in ["hi", "can I move my visit", "to Thursday?"]
        .iter()
        .enumerate()
    {
        let sid = format!("SMburst{i:027}");
        assert!(s
            .app
            .post_webhook(&sms_params(&sid, ADA, FRONT, body), None)
            .await
            .status()
            .is_success());
    }
    s.app.settle().await;
    let out = s.outbox.sent();
    assert_eq!(out.len(), 1, "{out:?}");
    // One turn: the model was asked twice (the send, then done), and its first call saw the
    // three texts together.
    let counts = model.seen_message_counts.lock().unwrap().clone();
    assert_eq!(counts.len(), 2, "{counts:?}");
    let threads = threads_of(&s).await;
    let events = events_of(&s, &threads[0]).await;
    let inbound = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "inbound_sms")
        .count();
    assert_eq!(inbound, 3, "{events}");
}

async fn the_loop_guard_escalates_past_the_days_replies(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    for i in 0..3 {
        model.call("send_sms", &format!(r#"{{"body": "Answer {i}"}}"#));
        model.say("done");
    }
    let Some(s) = setup_with_options(backend, "autonomous", model.clone(), |o| Options {
        replies_per_contact_day: 3,
        ..o
    })
    .await
    else {
        return;
    };
    for i in 0..4 {
        text_in(
            &s,
            &format!("SMloop{i:028}"),
            ADA,
            FRONT,
            &format!("text {i}"),
        )
        .await;
    }
    // Three replies; the fourth text started no turn and went to the owner instead.
    assert_eq!(s.outbox.sent().len(), 3);
    assert_eq!(model.seen_message_counts.lock().unwrap().len(), 6);
    let notes: Value = s
        .app
        .ok_as(&s.org.client, "/api/notifications", json!({}))
        .await;
    let stopped: Vec<&Value> = notes["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| {
            n["title"]
                .as_str()
                .unwrap_or("")
                .contains("stopped answering")
        })
        .collect();
    assert_eq!(stopped.len(), 1, "{notes}");
    let ada = s.app.inbox(&s.org.client).await[0]["contact_id"].clone();
    let me: Value = s
        .app
        .ok_as(&s.org.client, "/api/auth/me", Value::Null)
        .await;
    let t: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/conversations/triage",
            json!({"contact_id": ada}),
        )
        .await;
    assert_eq!(t["assignee"]["user_id"], me["user_id"], "{t}");
    assert!(t["ai_paused_until"].is_string(), "{t}");
    // A fifth text: still no turn, and the owner is not told twice.
    text_in(
        &s,
        "SMloop0000000000000000000000000009",
        ADA,
        FRONT,
        "hello??",
    )
    .await;
    assert_eq!(s.outbox.sent().len(), 3);
    assert_eq!(
        s.app
            .count_where("notification", "title LIKE '%stopped answering%'")
            .await,
        1
    );
}
