//! The AI↔human handoff (issue 28 §2) with the real runtime. An autonomous agent's turn is in
//! flight, its model held back, when a person texts the contact by hand: the model then tries to
//! send, the runtime refuses it, and exactly one text leaves, the person's. While the pause
//! lasts the contact's next text starts no turn at all; Resume gives the conversation back. An
//! agent's escalation assigns the conversation to its owner and pauses the agents there.
use crate::agent_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::scripted::ScriptedModel;
use herald::ai_agent::llm::{ChatMessage, ChatModel, Completion, LlmError, ToolDef};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Notify, Semaphore};

on_both_databases!(
    a_person_takes_over_mid_turn_and_only_their_text_leaves,
    an_escalation_hands_the_conversation_to_the_owner,
);

/// A scripted model that waits at a gate before each answer, and says when it got there.
struct Gated {
    script: ScriptedModel,
    gate: Semaphore,
    entered: Notify,
}

#[async_trait::async_trait]
impl ChatModel for Gated {
    fn label(&self) -> String {
        "gated script".into()
    }
    async fn complete(
        &self,
        system: &str,
        messages: &[ChatMessage],
        tools: &[ToolDef],
    ) -> Result<Completion, LlmError> {
        self.entered.notify_one();
        self.gate.acquire().await.expect("gate").forget();
        self.script.complete(system, messages, tools).await
    }
}

const ADA: &str = "+14155552671";
const FRONT: &str = "+14155550100";

async fn triage(s: &Setup, contact: &Value) -> Value {
    s.app
        .ok_as(
            &s.org.client,
            "/api/conversations/triage",
            json!({"contact_id": contact}),
        )
        .await
}

async fn refusals(s: &Setup) -> Vec<String> {
    let threads = threads_of(s).await;
    let events = events_of(s, &threads[0]).await;
    events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["summary"] == "send_sms refused")
        .map(|e| e["detail"].as_str().unwrap_or("").to_owned())
        .collect()
}

async fn a_person_takes_over_mid_turn_and_only_their_text_leaves(backend: Backend) {
    let model = Arc::new(Gated {
        script: ScriptedModel::new(),
        gate: Semaphore::new(0),
        entered: Notify::new(),
    });
    model
        .script
        .call("send_sms", r#"{"body": "The agent answers too"}"#);
    model.script.say("done");
    let Some(s) = setup_with(backend, "autonomous", Some(model.clone()), |o| o).await else {
        return;
    };
    // Ada texts; the agent's turn starts and its model is held at the gate.
    s.app
        .post_webhook(
            &sms_params(
                "SMhand00000000000000000000000000001",
                ADA,
                FRONT,
                "can I move my visit?",
            ),
            None,
        )
        .await;
    tokio::time::timeout(Duration::from_secs(30), model.entered.notified())
        .await
        .expect("the agent's turn reached its model");
    let list = s.app.inbox(&s.org.client).await;
    let ada = list[0]["contact_id"].clone();

    // A person answers by hand meanwhile: the agents in this conversation pause first.
    let sent: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/messages/send",
            json!({"request": {"contact_id": ada, "phone_number_id": s.numbers[0], "body": "Hi Ada, Dana here. Thursday works."}}),
        )
        .await;
    assert_eq!(sent["status"], "sent", "{sent}");
    let t = triage(&s, &ada).await;
    assert!(t["ai_paused_until"].is_string(), "{t}");
    assert!(t["ai_paused_by"].is_string(), "{t}");

    // The model goes on and tries to send: the runtime refuses, and only the person's text left.
    model.gate.add_permits(100);
    s.app.settle().await;
    let out = s.outbox.sent();
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].body.contains("Dana here"), "{out:?}");
    let refused = refusals(&s).await;
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].contains("handling this conversation"),
        "{refused:?}"
    );

    // While the pause lasts, Ada's next text starts no turn: the model is not asked again.
    let asked = model.script.seen_message_counts.lock().unwrap().len();
    text_in(
        &s,
        "SMhand00000000000000000000000000002",
        ADA,
        FRONT,
        "thanks!",
    )
    .await;
    assert_eq!(
        model.script.seen_message_counts.lock().unwrap().len(),
        asked
    );
    assert_eq!(s.outbox.sent().len(), 1);

    // Resume: the agent answers Ada's next text again.
    let t: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/conversations/resume_ai",
            json!({"contact_id": ada}),
        )
        .await;
    assert!(t["ai_paused_until"].is_null(), "{t}");
    model
        .script
        .call("send_sms", r#"{"body": "See you Thursday!"}"#);
    model.script.say("done");
    text_in(
        &s,
        "SMhand00000000000000000000000000003",
        ADA,
        FRONT,
        "one more thing",
    )
    .await;
    let out = s.outbox.sent();
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out[1].body.contains("See you Thursday"), "{out:?}");
}

async fn an_escalation_hands_the_conversation_to_the_owner(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    model.call(
        "escalate_to_user",
        r#"{"reason": "Ada asks about a refund", "draft": "Let me check with the team."}"#,
    );
    model.say("done");
    let Some(s) = setup(backend, "autonomous", Some(model.clone())).await else {
        return;
    };
    text_in(
        &s,
        "SMhand00000000000000000000000000011",
        ADA,
        FRONT,
        "I want a refund",
    )
    .await;
    let list = s.app.inbox(&s.org.client).await;
    let ada = list[0]["contact_id"].clone();
    let me: Value = s
        .app
        .ok_as(&s.org.client, "/api/auth/me", Value::Null)
        .await;
    let t = triage(&s, &ada).await;
    assert_eq!(t["assignee"]["user_id"], me["user_id"], "{t}");
    assert!(t["ai_paused_until"].is_string(), "{t}");
    // The owner is told, and the conversation is theirs.
    let views: Value = s
        .app
        .ok_as(&s.org.client, "/api/inbox/counts", json!({}))
        .await;
    assert_eq!(views["mine"], 1, "{views}");
    // The agent's next turn does not start while the owner has it.
    let asked = model.seen_message_counts.lock().unwrap().len();
    text_in(
        &s,
        "SMhand00000000000000000000000000012",
        ADA,
        FRONT,
        "hello?",
    )
    .await;
    assert_eq!(model.seen_message_counts.lock().unwrap().len(), asked);
    assert!(s.outbox.sent().is_empty());
}
