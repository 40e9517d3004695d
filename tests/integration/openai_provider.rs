//! The hosted-model path (rig-core, OpenAI-compatible Chat Completions) against a fake server on
//! loopback: a tool-call round trip, a 500 retried, a timeout, and malformed tool-call JSON.
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::rig::{RigModel, RigSettings};
use herald::platform::sms::outbox::OutboxTransport;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const CHAT: &str = "/v1/chat/completions";

fn reply(tool: Option<(&str, &str)>, text: Option<&str>) -> ResponseTemplate {
    let tool_calls = tool.map(|(name, args)| json!([{"id": "call_1", "type": "function", "function": {"name": name, "arguments": args}}]));
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "fake-model",
        "choices": [{"index": 0, "finish_reason": if tool.is_some() { "tool_calls" } else { "stop" },
            "message": {"role": "assistant", "content": text, "tool_calls": tool_calls}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    }))
}

async fn then(fake: &MockServer, template: ResponseTemplate) {
    Mock::given(method("POST"))
        .and(path(CHAT))
        .respond_with(template)
        .up_to_n_times(1)
        .mount(fake)
        .await;
}

struct Rig {
    app: TestApp,
    org: Org,
    outbox: Arc<OutboxTransport>,
}

async fn setup(backend: Backend, fake: &MockServer, timeout: Duration) -> Option<Rig> {
    let settings = RigSettings {
        provider: "openai-compatible".into(),
        model: "fake-model".into(),
        api_key: "sk-test".into(),
        base_url: Some(format!("{}/v1", fake.uri())),
        timeout,
    };
    let model = Arc::new(RigModel::new(&settings).expect("model"));
    let outbox = Arc::new(OutboxTransport::default());
    let opts = Options {
        model: Some(model),
        transport: Some(outbox.clone()),
        ..Default::default()
    };
    let app = spawn_app_with(backend, opts).await?;
    let org = app.new_org("Rig Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let agents: Value = app.ok_as(&org.client, "/api/agents", Value::Null).await;
    let a = &agents[0];
    let input = json!({"name": a["name"], "persona": a["persona"], "goals": a["goals"], "rules": "", "send_mode": "autonomous", "answer_only": false});
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/agents/update",
            json!({"id": a["id"], "input": input}),
        )
        .await;
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/agents/assign_numbers",
            json!({"id": a["id"], "number_ids": [number]}),
        )
        .await;
    Some(Rig { app, org, outbox })
}

async fn text_in(r: &Rig, sid: &str) {
    let (from, to) = ("+14155552671", "+14155550100");
    r.app.text_in(sid, from, to, "Are you open Saturday?").await;
}

async fn requests(fake: &MockServer) -> Vec<Value> {
    fake.received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

async fn tool_call_round_trip(backend: Backend) {
    let fake = MockServer::start().await;
    then(
        &fake,
        reply(
            Some(("send_sms", r#"{"body": "Yes, 9 to 1 on Saturdays."}"#)),
            None,
        ),
    )
    .await;
    then(&fake, reply(None, Some("Replied."))).await;
    let Some(r) = setup(backend, &fake, Duration::from_secs(10)).await else {
        return;
    };
    text_in(&r, "SMrig00000000000000000000000000001").await;
    let sent = r.outbox.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].body,
        "(Automated reply from Rig Co's AI assistant.) Yes, 9 to 1 on Saturdays."
    );
    assert_eq!(sent[0].from, "+14155550100");
    let reqs = requests(&fake).await;
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0]["model"], "fake-model");
    let tools: Vec<&str> = reqs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"send_sms") && tools.contains(&"get_contact"),
        "{tools:?}"
    );
    let body = reqs[1].to_string();
    assert!(
        body.contains("\"role\":\"tool\"")
            && body.contains("call_1")
            && body.contains("\\\"sent\\\":true"),
        "{body}"
    );
    let _ = &r.org;
}

async fn server_error_is_retried(backend: Backend) {
    let fake = MockServer::start().await;
    then(
        &fake,
        ResponseTemplate::new(500).set_body_string("upstream exploded"),
    )
    .await;
    then(
        &fake,
        reply(Some(("send_sms", r#"{"body": "Back online."}"#)), None),
    )
    .await;
    then(&fake, reply(None, Some("ok"))).await;
    let Some(r) = setup(backend, &fake, Duration::from_secs(10)).await else {
        return;
    };
    text_in(&r, "SMrig00000000000000000000000000002").await;
    assert_eq!(requests(&fake).await.len(), 3, "the 500 was retried");
    assert_eq!(r.outbox.sent().len(), 1);
}

async fn timeout_fails_the_turn_and_escalates(backend: Backend) {
    let fake = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(CHAT))
        .respond_with(reply(None, Some("late")).set_delay(Duration::from_secs(3)))
        .mount(&fake)
        .await;
    let Some(r) = setup(backend, &fake, Duration::from_millis(300)).await else {
        return;
    };
    text_in(&r, "SMrig00000000000000000000000000003").await;
    let rt = &r.app.state.runtime();
    assert_eq!(
        requests(&fake).await.len(),
        (rt.model_attempts * rt.turn_attempts) as usize,
        "every try of every attempt timed out, then the text was set aside"
    );
    let notes: Value = r
        .app
        .ok_as(&r.org.client, "/api/notifications", json!({}))
        .await;
    let notes = notes["items"].clone();
    assert!(
        notes[0]["body"].as_str().unwrap().contains("timed out"),
        "{notes}"
    );
    assert!(r.outbox.sent().is_empty());
}

async fn malformed_tool_json_goes_back_to_the_model(backend: Backend) {
    let fake = MockServer::start().await;
    then(
        &fake,
        reply(Some(("send_sms", "{\"body\": \"unterminated")), None),
    )
    .await;
    then(&fake, reply(None, Some("Sorry, I will escalate."))).await;
    let Some(r) = setup(backend, &fake, Duration::from_secs(10)).await else {
        return;
    };
    text_in(&r, "SMrig00000000000000000000000000004").await;
    assert!(
        r.outbox.sent().is_empty(),
        "nothing was sent from a malformed call"
    );
    let reqs = requests(&fake).await;
    assert_eq!(reqs.len(), 2, "the turn went on after the bad call");
    let tool_msg = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("a tool message")
        .to_string();
    assert!(tool_msg.contains("not valid JSON"), "{tool_msg}");
}

on_both_databases!(
    tool_call_round_trip,
    server_error_is_retried,
    timeout_fails_the_turn_and_escalates,
    malformed_tool_json_goes_back_to_the_model,
);
