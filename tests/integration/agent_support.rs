//! Text Reply test support: an organisation with two numbers and its agent, and thread shortcuts.
#![allow(dead_code)]
use crate::helpers::*;
use herald::ai_agent::llm::scripted::ScriptedModel;
use herald::platform::sms::outbox::OutboxTransport;
use serde_json::{json, Value};
use std::sync::Arc;

pub struct Setup {
    pub app: TestApp,
    pub org: Org,
    pub outbox: Arc<OutboxTransport>,
    pub numbers: Vec<uuid::Uuid>,
    pub agent: Value,
}

/// An organisation with two numbers, its Text Reply clone assigned to both, in `mode`.
pub async fn setup(
    backend: Backend,
    mode: &str,
    model: Option<Arc<ScriptedModel>>,
) -> Option<Setup> {
    let model = model.map(|m| m as Arc<dyn herald::ai_agent::llm::ChatModel>);
    setup_with(backend, mode, model, |o| o).await
}

/// Like `setup`, with any model, and the outbox wrapped by `transport` (a slow one, say).
pub async fn setup_with(
    backend: Backend,
    mode: &str,
    model: Option<Arc<dyn herald::ai_agent::llm::ChatModel>>,
    transport: impl FnOnce(Arc<OutboxTransport>) -> Arc<dyn herald::platform::sms::SmsTransport>,
) -> Option<Setup> {
    let outbox = Arc::new(OutboxTransport::default());
    let options = Options {
        transport: Some(transport(outbox.clone())),
        model,
        ..Default::default()
    };
    setup_on(backend, mode, outbox, options).await
}

/// Like `setup`, with any model and the server's options adjusted by `adjust`.
pub async fn setup_with_options(
    backend: Backend,
    mode: &str,
    model: Arc<dyn herald::ai_agent::llm::ChatModel>,
    adjust: impl FnOnce(Options) -> Options,
) -> Option<Setup> {
    let outbox = Arc::new(OutboxTransport::default());
    let options = adjust(Options {
        transport: Some(outbox.clone()),
        model: Some(model),
        ..Default::default()
    });
    setup_on(backend, mode, outbox, options).await
}

async fn setup_on(
    backend: Backend,
    mode: &str,
    outbox: Arc<OutboxTransport>,
    options: Options,
) -> Option<Setup> {
    let app = spawn_app_with(backend, options).await?;
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
    // These agents may answer beyond the knowledge (their tests are about other things); the
    // knowledge's own tests turn "Answer only from knowledge" back on (`answer_only`).
    let input = json!({"name": "Text Reply", "persona": agent["persona"], "goals": agent["goals"], "rules": "Sign off as the Bright Smile team.", "send_mode": mode, "answer_only": false});
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

/// The first page of the agent's threads: its items.
pub async fn threads_of(s: &Setup) -> Value {
    let page: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/agents/threads",
            json!({"agent_id": s.agent["id"]}),
        )
        .await;
    page["items"].clone()
}

pub async fn events_of(s: &Setup, thread: &Value) -> Value {
    s.app
        .ok_as(
            &s.org.client,
            "/api/threads/events",
            json!({"thread_id": thread["id"]}),
        )
        .await
}

pub async fn text_in(s: &Setup, sid: &str, from: &str, to: &str, body: &str) {
    s.app.text_in(sid, from, to, body).await;
}

pub async fn first_message(s: &Setup) -> (Value, Value) {
    let (item, messages) = conversation(s).await;
    (item, messages[0].clone())
}

/// The inbox's first conversation and its messages, oldest first.
pub async fn conversation(s: &Setup) -> (Value, Vec<Value>) {
    let list: Value = s.app.inbox(&s.org.client).await;
    let conv: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/conversations/get",
            json!({"contact_id": list[0]["contact_id"]}),
        )
        .await;
    (
        list[0].clone(),
        conv["messages"].as_array().cloned().unwrap_or_default(),
    )
}

/// Turns "Answer only from knowledge" on or off for the setup's agent.
pub async fn answer_only(s: &Setup, on: bool) {
    let a = &s.agent;
    let input = json!({"name": a["name"], "persona": a["persona"], "goals": a["goals"],
        "rules": a["rules"], "send_mode": a["send_mode"], "answer_only": on});
    let view: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/agents/update",
            json!({"id": a["id"], "input": input}),
        )
        .await;
    assert_eq!(view["answer_only"], on);
}
