//! Any agent can be asked to plan: the operator's composer on a Text Reply agent's thread sends
//! an instruction with the Plan switch; the agent presents a plan that waits, and its owner is
//! notified. Only the agent's owner or the organisation's owner may instruct it.
use crate::agent_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::plan_support::ASK;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn any_agent_can_be_asked_to_plan(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    s.app
        .add_contact(&s.org, "Grace Hopper", "+14155552672")
        .await;
    text_in(
        &s,
        "SMop000000000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "hello",
    )
    .await;
    let threads = threads_of(&s).await;
    let thread = threads[0]["id"].clone();
    let body = |text: &str, plan_mode: bool| json!({"thread_id": thread, "text": text, "plan_mode": plan_mode});

    let op: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/threads/operator",
            json!({"thread_id": thread}),
        )
        .await;
    assert_eq!(op["can_instruct"], true);
    assert_eq!(op["planning_enabled"], false);
    assert_eq!(op["agent_name"], "Text Reply");

    // A member may look, not instruct the owner's agent; another organisation sees nothing.
    let member = s.app.add_member(&s.org, "Mo").await;
    let op: Value = s
        .app
        .ok_as(
            &member.client,
            "/api/threads/operator",
            json!({"thread_id": thread}),
        )
        .await;
    assert_eq!(op["can_instruct"], false);
    let (status, reply) = s
        .app
        .call_as(&member.client, "/api/threads/post", body(ASK, true))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{reply}");
    let bravo = s.app.new_org("Bravo").await;
    let (status, _) = s
        .app
        .call_as(&bravo.client, "/api/threads/post", body(ASK, true))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, reply) = s
        .app
        .call_as(&s.org.client, "/api/threads/post", body("   ", false))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    let (status, _) = s
        .app
        .call_as(
            &s.org.client,
            "/api/threads/post",
            body(&"x".repeat(4001), false),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Planning on, the owner asks the Text Reply agent for a plan from its thread.
    let agent = &s.agent;
    let input = json!({"name": agent["name"], "persona": agent["persona"], "goals": agent["goals"], "rules": "", "send_mode": "suggest", "planning_enabled": true, "plan_approval": "human_review"});
    let _: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/agents/update",
            json!({"id": agent["id"], "input": input}),
        )
        .await;
    let _: Value = s
        .app
        .ok_as(&s.org.client, "/api/threads/post", body(ASK, true))
        .await;
    s.app.settle().await;
    let plans: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/plans/list",
            json!({"status": null, "agent_id": agent["id"]}),
        )
        .await;
    let plans = plans["items"].as_array().unwrap();
    assert_eq!(plans.len(), 1, "{plans:?}");
    assert_eq!(plans[0]["status"], "awaiting_approval");
    assert_eq!(plans[0]["thread_id"], thread);
    assert_eq!(plans[0]["agent_name"], "Text Reply");
    assert!(s.outbox.sent().is_empty(), "planning texts nobody");
    let notes: Value = s
        .app
        .ok_as(&s.org.client, "/api/notifications", json!({}))
        .await;
    let notes = notes["items"].clone();
    let awaiting: Vec<&Value> = notes
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == "plan_awaiting")
        .collect();
    assert_eq!(awaiting.len(), 1, "{notes}");
    assert_eq!(
        awaiting[0]["title"],
        "Text Reply has a plan for you to approve"
    );
    let events = events_of(&s, &threads[0]).await;
    assert!(
        events
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["kind"] == "user_message" && e["detail"] == ASK),
        "{events}"
    );
}

on_both_databases!(any_agent_can_be_asked_to_plan);
