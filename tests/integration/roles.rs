//! Owner-only powers, checked in the service layer: numbers to agents, autonomous mode, clearing
//! an opt-out, and approving a campaign's review sheet. A member gets 403 and changes nothing;
//! an owner goes through. START clears only an opt-out the contact made by keyword.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

fn agent_input(a: &Value, send_mode: &str) -> Value {
    json!({"name": a["name"], "persona": a["persona"], "goals": a["goals"], "rules": a["rules"],
           "send_mode": send_mode, "planning_enabled": a["planning_enabled"],
           "plan_approval": a["plan_approval"], "reply_send_limit": a["reply_send_limit"],
           "reply_reads_org_wide": a["reply_reads_org_wide"]})
}

async fn owner_only_powers(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let owner = &c.org;
    let member = app.add_member(owner, "Mo").await;
    let number: Value = app.ok_as(&owner.client, "/api/numbers", Value::Null).await;
    let number_id = number[0]["id"].clone();
    let mine = app.own_agent(&member).await;

    let forbidden = |path: &'static str, body: Value| {
        let app = &app;
        let client = member.client.clone();
        async move {
            let (status, reply) = app.call_as(&client, path, body).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {reply}");
            assert!(reply.to_string().contains("owner"), "{reply}");
        }
    };
    // Numbers to agents.
    forbidden(
        "/api/agents/assign_numbers",
        json!({"id": mine["id"], "number_ids": [number_id]}),
    )
    .await;
    // Autonomous mode, on an agent of one's own or a new one; other edits are fine.
    forbidden(
        "/api/agents/update",
        json!({"id": mine["id"], "input": agent_input(&mine, "autonomous")}),
    )
    .await;
    forbidden(
        "/api/agents/create",
        json!({"input": agent_input(&json!({"name": "Rogue", "persona": "", "goals": "", "rules": "", "planning_enabled": false, "plan_approval": "human_review", "reply_send_limit": 2, "reply_reads_org_wide": false}), "autonomous")}),
    )
    .await;
    let kept: Value = app
        .ok_as(
            &member.client,
            "/api/agents/update",
            json!({"id": mine["id"], "input": agent_input(&mine, "suggest")}),
        )
        .await;
    assert_eq!(kept["send_mode"], "suggest");
    // Opt-outs: a member may opt someone out, never back in.
    let _: Value = app
        .ok_as(
            &member.client,
            "/api/contacts/opt_out",
            json!({"id": c.katherine, "opted_out": true}),
        )
        .await;
    forbidden(
        "/api/contacts/opt_out",
        json!({"id": c.katherine, "opted_out": false}),
    )
    .await;
    forbidden(
        "/api/contacts/opt_out",
        json!({"id": c.boris, "opted_out": false}),
    )
    .await;
    // A campaign's review sheet (from the member's own Assistant: they see it, not approve it).
    let agent = member_assistant(&app, &member).await;
    let audience = include_all(&[c.linus]);
    let op = operation_for(&app, &agent, &audience, "Roles").await;
    herald::campaign::engines::resume(&app.state).await.unwrap();
    app.settle().await;
    forbidden("/api/operations/approve", json!({"id": op, "digest": ""})).await;
    let sheet: Value = app
        .ok_as(&member.client, "/api/operations/sheet", json!({"id": op}))
        .await;
    assert_eq!(
        sheet["operation"]["status"], "awaiting_approval",
        "nothing was sent"
    );
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        0
    );

    // Nothing above changed; the owner does each of them.
    let after: Value = app
        .ok_as(&owner.client, "/api/agents/get", json!({"id": mine["id"]}))
        .await;
    assert_eq!(after["send_mode"], "suggest");
    assert_eq!(after["number_ids"], json!([]));
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/agents/assign_numbers",
            json!({"id": mine["id"], "number_ids": [number_id]}),
        )
        .await;
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/agents/update",
            json!({"id": mine["id"], "input": agent_input(&mine, "autonomous")}),
        )
        .await;
    let back: Value = app
        .ok_as(
            &owner.client,
            "/api/contacts/opt_out",
            json!({"id": c.katherine, "opted_out": false, "reason": "a new consent form"}),
        )
        .await;
    assert_eq!(back["opted_out"], false);
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/operations/approve",
            app.approve_body(&owner.client, &json!(op)).await,
        )
        .await;
}

/// START clears a keyword opt-out, and leaves a manual one in place.
async fn start_clears_only_a_keyword_opt_out(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let opted_out = |id: uuid::Uuid| {
        let app = &app;
        let client = c.org.client.clone();
        async move {
            let v: Value = app
                .ok_as(&client, "/api/contacts/get", json!({"id": id}))
                .await;
            v["opted_out"].as_bool().unwrap()
        }
    };
    // Boris was opted out by hand (the CRM's set-up); START from him changes nothing.
    app.post_webhook(
        &sms_params(
            "SMstart00000000000000000000000001",
            "+14155552675",
            "+14155550100",
            "START",
        ),
        None,
    )
    .await;
    app.settle().await;
    assert!(opted_out(c.boris).await, "a manual opt-out needs an owner");
    // Linus texts STOP, then START: his own opt-out, his own opt-in.
    for (sid, word) in [
        ("SMstart00000000000000000000000002", "STOP"),
        ("SMstart00000000000000000000000003", "START"),
    ] {
        app.post_webhook(&sms_params(sid, "+14155552676", "+14155550100", word), None)
            .await;
        app.settle().await;
        assert_eq!(opted_out(c.linus).await, word == "STOP", "after {word}");
    }
}

/// A member's Assistant chat is private: another member of the organisation, even an owner,
/// neither lists it nor reads it.
async fn an_assistant_thread_is_private(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let member = app.add_member(&c.org, "Mo").await;
    let _: Value = app
        .ok_as(
            &member.client,
            "/api/assistant/ask",
            json!({"text": "who has opted out?", "plan_mode": false}),
        )
        .await;
    app.settle().await;
    let mine: Value = app
        .ok_as(&member.client, "/api/assistant", Value::Null)
        .await;
    let thread = mine["thread_id"].clone();
    assert!(thread.is_string(), "{mine}");
    let own: Value = app
        .ok_as(
            &member.client,
            "/api/threads/events",
            json!({"thread_id": thread}),
        )
        .await;
    assert!(!own.as_array().unwrap().is_empty());
    let (status, _) = app
        .call_as(
            &c.org.client,
            "/api/threads/events",
            json!({"thread_id": thread}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "the owner cannot read it");
    let listed: Value = app
        .ok_as(
            &c.org.client,
            "/api/agents/threads",
            json!({"agent_id": mine["agent_id"]}),
        )
        .await;
    assert!(
        !listed.to_string().contains(thread.as_str().unwrap()),
        "nor list it: {listed}"
    );
}

on_both_databases!(
    owner_only_powers,
    start_clears_only_a_keyword_opt_out,
    an_assistant_thread_is_private
);
