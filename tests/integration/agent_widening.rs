//! Issue 49 §3: lessons go into every reply turn's prompt, so while an agent texts by itself a
//! member who owns it cannot create, change or switch on its lessons without an owner; neither
//! can they turn on planning or loosen its plan approval. An owner's widening is audited.
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::learning::entity::learning;
use reqwest::StatusCode;
use sea_orm::{ActiveModelTrait, Set};
use serde_json::{json, Value};

async fn widened(app: &TestApp, owner: &Org) -> Vec<String> {
    let page: Value = app
        .ok_as(&owner.client, "/api/audit", json!({"before": null}))
        .await;
    page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "agent_widened")
        .map(|e| e["detail"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Three drafts cut by half: enough for the "keep texts short" lesson.
async fn three_cut_drafts(app: &TestApp, org: uuid::Uuid, agent: uuid::Uuid) {
    for _ in 0..3 {
        learning::ActiveModel {
            id: Set(uuid::Uuid::new_v4()),
            organization_id: Set(org),
            agent_id: Set(agent),
            kind: Set("draft_edit".into()),
            subject_kind: Set("item".into()),
            subject_id: Set(uuid::Uuid::new_v4()),
            detail: Set(json!({"before": "x".repeat(100), "after": "x".repeat(40)})),
            actor_user_id: Set(None),
            created_at: Set(app.state.clock.now()),
        }
        .insert(&app.state.db)
        .await
        .unwrap();
    }
}

async fn a_member_cannot_widen_an_autonomous_agent_through_lessons_or_plans(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Lessons Co").await;
    let mo = app.add_member(&owner, "Mo").await;
    let agent = app.own_agent(&mo).await;
    let agent_id: uuid::Uuid = agent["id"].as_str().unwrap().parse().unwrap();
    let input = |mode: &str, planning: bool, approval: &str| {
        json!({"id": agent["id"], "input": {"name": "Text Reply", "persona": agent["persona"],
               "goals": agent["goals"], "rules": "", "send_mode": mode,
               "planning_enabled": planning, "plan_approval": approval,
               "reply_send_limit": 2, "reply_reads_org_wide": false}})
    };
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/agents/update",
            input("autonomous", false, "human_review"),
        )
        .await;

    // Planning and a looser approval are widenings now.
    for (what, body) in [
        ("planning", input("autonomous", true, "human_review")),
        ("approval", input("autonomous", false, "risk_gated")),
        ("approval", input("autonomous", false, "auto")),
    ] {
        let (status, reply) = app.call_as(&mo.client, "/api/agents/update", body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{what}: {reply}");
        assert!(reply.to_string().contains("only an owner"), "{reply}");
    }

    // Mo's review makes the lesson, switched off, and the owner is told it waits.
    three_cut_drafts(&app, owner.org_id, agent_id).await;
    let report: Value = app
        .ok_as(
            &mo.client,
            "/api/lessons/review",
            json!({"agent_id": agent_id}),
        )
        .await;
    assert_eq!(report["created"], 1, "{report}");
    let lessons: Value = app
        .ok_as(&mo.client, "/api/lessons", json!({"agent_id": agent_id}))
        .await;
    let lesson = lessons[0].clone();
    assert_eq!(lesson["enabled"], false, "held for an owner: {lesson}");
    let notes: Value = app
        .ok_as(&owner.client, "/api/notifications", json!({"after": null}))
        .await;
    assert!(notes.to_string().contains("wait for an owner"), "{notes}");

    // Mo may not switch it on or change its words; switching off and deleting narrow, and are
    // Mo's to do.
    let edit =
        |text: &str, enabled: bool| json!({"id": lesson["id"], "text": text, "enabled": enabled});
    let words = lesson["text"].as_str().unwrap();
    for body in [edit(words, true), edit("Say whatever you like.", false)] {
        let (status, reply) = app.call_as(&mo.client, "/api/lessons/update", body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{reply}");
        assert!(reply.to_string().contains("only an owner"), "{reply}");
    }
    let _: Value = app
        .ok_as(&mo.client, "/api/lessons/update", edit(words, false))
        .await;
    assert!(widened(&app, &owner).await.len() == 1, "only the autonomy");

    // The owner switches it on: audited as a widening.
    let on: Value = app
        .ok_as(&owner.client, "/api/lessons/update", edit(words, true))
        .await;
    assert_eq!(on["enabled"], true);
    let audit = widened(&app, &owner).await;
    assert!(
        audit
            .iter()
            .any(|d| d.starts_with("lesson: Keep texts short")),
        "{audit:?}"
    );

    // In suggest mode Mo edits lessons freely again, with no audit.
    let _: Value = app
        .ok_as(
            &mo.client,
            "/api/agents/update",
            input("suggest", true, "auto"),
        )
        .await;
    let _: Value = app
        .ok_as(
            &mo.client,
            "/api/lessons/update",
            edit("Keep texts under two lines.", true),
        )
        .await;
    assert_eq!(widened(&app, &owner).await.len(), audit.len());
}

on_both_databases!(a_member_cannot_widen_an_autonomous_agent_through_lessons_or_plans);
