//! Issue 49 §7: the legacy suggester asks its model off the routing path. One task routes every
//! number's texts in turn; the suggester's model call used to run inside it, so a slow model held
//! other numbers' texts until it answered. Here the model never answers a suggester until the test
//! lets it: meanwhile a text to another number is routed at once, and once the model answers the
//! suggester's text gets its suggestions and is routed.
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::{ChatMessage, ChatModel, Completion, LlmError, ToolDef};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// Holds every suggester request until released; answers three options.
pub(crate) struct HeldModel(pub(crate) Arc<Notify>);

#[async_trait::async_trait]
impl ChatModel for HeldModel {
    fn label(&self) -> String {
        "held".into()
    }
    async fn complete(
        &self,
        _system: &str,
        _messages: &[ChatMessage],
        tools: &[ToolDef],
    ) -> Result<Completion, LlmError> {
        self.0.notified().await;
        let call = herald::ai_agent::llm::ToolCall {
            id: "c1".into(),
            name: tools.first().map(|t| t.name.clone()).unwrap_or_default(),
            arguments: json!({"options": [{"body": "We open at 9.", "confidence": 0.5},
                {"body": "9 am.", "confidence": 0.4}, {"body": "From nine.", "confidence": 0.3}]})
            .to_string(),
        };
        Ok(Completion {
            text: None,
            tool_calls: vec![call],
        })
    }
}

async fn routed(app: &TestApp, body: &str) -> bool {
    app.count_where(
        "message",
        &format!("body = '{body}' AND routed_at IS NOT NULL"),
    )
    .await
        == 1
}

async fn a_slow_suggester_never_holds_other_numbers_texts(backend: Backend) {
    let gate = Arc::new(Notify::new());
    let opts = Options {
        model: Some(Arc::new(HeldModel(gate.clone()))),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Slow Co").await;
    let slow_line = app.add_number(&org, "+14155550101").await;
    app.add_number(&org, "+14155550102").await;
    let s: Value = app
        .ok_as(
            &org.client,
            "/api/text_agents/create",
            json!({"input": {"name": "Slow", "persona": "", "auto_reply": false, "confidence_threshold": 0.9}}),
        )
        .await;
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/text_agents/bind",
            json!({"id": s["id"], "number_ids": [slow_line], "contact_ids": []}),
        )
        .await;
    for (sid, to, body) in [
        (
            "SMslow000000000000000000000000001",
            "+14155550101",
            "When do you open?",
        ),
        (
            "SMslow000000000000000000000000002",
            "+14155550102",
            "Other line",
        ),
    ] {
        let params = sms_params(sid, "+14155552671", to, body);
        assert!(app.post_webhook(&params, None).await.status().is_success());
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let mut other = false;
    for _ in 0..40 {
        if routed(&app, "Other line").await {
            other = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        other,
        "the other number's text was routed while the model was held"
    );
    assert!(
        !routed(&app, "When do you open?").await,
        "still waiting for the model"
    );
    gate.notify_waiters();
    gate.notify_one();
    app.settle().await;
    assert!(routed(&app, "When do you open?").await);
    assert_eq!(app.count("text_agent_suggestion").await, 1);
}

on_both_databases!(a_slow_suggester_never_holds_other_numbers_texts);
