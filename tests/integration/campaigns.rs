//! Bulk SMS campaigns from approved plans: the audience's deterministic skips, the review sheet,
//! sending end to end, cancel, and cross-organisation access.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::platform::sms::outbox::OutboxTransport;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;

async fn campaign_end_to_end(backend: Backend) {
    let outbox = Arc::new(OutboxTransport::default());
    let Some(app) = spawn_app_sending_to(backend, outbox.clone()).await else {
        return;
    };
    let c = crm(&app).await;
    // Even an agent that auto-approves cannot auto-send a campaign.
    let view: Value = app
        .ok_as(&c.org.client, "/api/assistant", Value::Null)
        .await;
    let agent: Value = app
        .ok_as(
            &c.org.client,
            "/api/agents/get",
            json!({"id": view["agent_id"]}),
        )
        .await;
    let input = json!({"name": agent["name"], "persona": agent["persona"], "goals": agent["goals"], "rules": "", "send_mode": "suggest", "planning_enabled": true, "plan_approval": "auto"});
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/agents/update",
            json!({"id": agent["id"], "input": input}),
        )
        .await;
    ask(&app, &c.org, FOLLOW_UP).await;
    let plan = first_plan(&app, &c.org).await;
    assert_eq!(plan["action"]["type"], "bulk_sms_campaign");
    assert_eq!(
        plan["approval_policy"], "human_review",
        "campaigns always gate"
    );
    assert_eq!(plan["status"], "awaiting_approval");
    let reasons: Vec<(String, bool)> = plan["contacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["name"].as_str().unwrap().to_owned(),
                x["change"]["include"].as_bool().unwrap(),
            )
        })
        .collect();
    assert!(
        reasons.contains(&("Katherine Johnson".into(), true))
            && reasons.contains(&("Linus Torvalds".into(), true)),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&("Alan Turing".into(), false))
            && reasons.contains(&("Boris Becker".into(), false))
            && reasons.contains(&("Grace Hopper".into(), false))
    );
    assert!(outbox.sent().is_empty());

    let approved: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/approve",
            json!({"id": plan["id"]}),
        )
        .await;
    assert!(approved["status"].is_string());
    app.settle().await;
    let plan: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": plan["id"]}))
        .await;
    assert_eq!(
        plan["status"], "executing",
        "a campaign plan ends with its campaign, not before"
    );
    let op = plan["executed_ref"].clone();
    let s = sheet(&app, &c.org, &op).await;
    assert_eq!(s["operation"]["status"], "awaiting_approval");
    assert_eq!(
        s["operation"]["total"], 2,
        "items for included contacts only"
    );
    assert_eq!(s["operation"]["drafted"], 2);
    let items = s["items"].as_array().unwrap();
    assert!(items
        .iter()
        .all(|i| i["draft"].as_str().unwrap().contains("quote")));
    let notes: Value = app
        .ok_as(&c.org.client, "/api/notifications", json!({}))
        .await;
    let notes = notes["items"].clone();
    assert_eq!(notes[0]["title"], "Drafts are ready for review");
    assert!(
        outbox.sent().is_empty(),
        "nothing is sent before the drafts are approved"
    );

    // Edit one draft, then approve all.
    let kid = items
        .iter()
        .find(|i| i["contact_name"] == "Katherine Johnson")
        .unwrap()["id"]
        .clone();
    let edited: Value = app.ok_as(&c.org.client, "/api/operations/items/edit", json!({"item_id": kid, "text": "Hi Katherine! Any questions about your quote? We can book a time this week."})).await;
    assert!(edited["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["edited"] == true));
    let (status, _) = app
        .call_as(
            &c.org.client,
            "/api/operations/items/edit",
            json!({"item_id": kid, "text": "  "}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Approval binds to what was seen: a sheet loaded before another edit is refused.
    let seen = app.approve_body(&c.org.client, &json!(op)).await;
    let _: Value = app.ok_as(&c.org.client, "/api/operations/items/edit", json!({"item_id": kid, "text": "Hi Katherine! Any questions about your quote? Reply with a good time."})).await;
    let (status, reply) = app
        .call_as(&c.org.client, "/api/operations/approve", seen)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{reply}");
    assert!(reply.to_string().contains("review again"), "{reply}");
    assert!(outbox.sent().is_empty());
    assert_eq!(
        drafted_notice_read(&app, &op).await,
        Some(false),
        "the owner is asked to review the drafts"
    );
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/approve",
            app.approve_body(&c.org.client, &json!(op)).await,
        )
        .await;
    assert_eq!(
        drafted_notice_read(&app, &op).await,
        Some(true),
        "approved: what the notice asked is done"
    );
    // Once approved, no draft changes.
    let (status, _) = app
        .call_as(
            &c.org.client,
            "/api/operations/items/edit",
            json!({"item_id": kid, "text": "Too late"}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "an edit after approval is refused"
    );
    app.settle().await;
    let s = sheet(&app, &c.org, &op).await;
    assert_eq!(s["operation"]["status"], "done");
    assert_eq!(s["operation"]["sent"], 2);
    let plan: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": plan["id"]}))
        .await;
    assert_eq!(plan["status"], "done", "{plan}");
    let sent = outbox.sent();
    assert_eq!(sent.len(), 2, "one text per included contact");
    assert!(sent.iter().all(|m| m.from == "+14155550100"));
    assert!(sent
        .iter()
        .any(|m| m.body.starts_with("Hi Katherine! Any questions")));
    let (status, _) = app
        .call_as(
            &c.org.client,
            "/api/operations/approve",
            app.approve_body(&c.org.client, &json!(op)).await,
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    let _ = (c.katherine, c.linus, c.boris);
}

/// Whatever the plan says: no phone, opted out and a duplicate are skipped with their reasons.
async fn audience_skips(backend: Backend) {
    use herald::plans::model::{ContactChange, PlanAction};
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let nophone: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/create",
            json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": "No Phone", "phone": "", "email": "np@x.test", "tags": []}}),
        )
        .await;
    let nophone: uuid::Uuid = nophone["id"].as_str().unwrap().parse().unwrap();
    let d = |id: uuid::Uuid| ContactChange {
        contact_id: id,
        include: true,
        reason: "test".into(),
        add_tags: vec![],
        remove_tags: vec![],
        kind: "quote_lead".into(),
    };
    let agent = assistant_agent(&app, c.org.org_id).await;
    // The plan itself refuses an opted-out contact, so build the operation straight from a plan row.
    let action = PlanAction::campaign(
        vec![d(c.katherine), d(nophone), d(c.linus), d(c.katherine)],
        "Hello".into(),
        None,
    );
    let plan = herald::plans::service::present_plan(
        &app.state,
        &agent,
        herald::plans::service::Presented {
            thread_id: None,
            title: "Skips",
            summary: "test",
            action,
            policy_override: None,
            source_key: None,
            revises: None,
        },
    )
    .await
    .unwrap();
    let mut audience = vec![
        d(c.katherine),
        d(nophone),
        d(c.boris),
        d(c.linus),
        d(c.katherine),
    ];
    audience[2].include = true;
    let op =
        herald::plans::campaign_start::create_campaign(&app.state, &plan, &audience, "Hello", None)
            .await
            .unwrap();
    let again =
        herald::plans::campaign_start::create_campaign(&app.state, &plan, &audience, "Hello", None)
            .await
            .unwrap();
    assert_eq!(op, again, "idempotent per plan");
    let items = herald::campaign::create::items_of(&app.state, op)
        .await
        .unwrap();
    let reasons: Vec<Option<&str>> = items.iter().map(|i| i.skip_reason.as_deref()).collect();
    assert_eq!(
        reasons,
        vec![
            None,
            Some("no phone number"),
            Some("opted out"),
            None,
            Some("duplicate phone number")
        ]
    );
}

async fn cancel_and_scoping(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    ask(&app, &c.org, FOLLOW_UP).await;
    let plan = first_plan(&app, &c.org).await;
    let op = approve_and_draft(&app, &c.org, &plan["id"]).await;
    let other = app.new_org("Other").await;
    let item_id = sheet(&app, &c.org, &op).await["items"][0]["id"].clone();
    for (path, body) in [
        ("/api/operations/get", json!({"id": op})),
        ("/api/operations/sheet", json!({"id": op})),
        ("/api/operations/approve", json!({"id": op, "digest": ""})),
        ("/api/operations/cancel", json!({"id": op})),
        (
            "/api/operations/items/edit",
            json!({"item_id": item_id, "text": "x"}),
        ),
        ("/api/operations/items/skip", json!({"item_id": item_id})),
        (
            "/api/operations/items/regenerate",
            json!({"item_id": item_id}),
        ),
    ] {
        let (status, reply) = app.call_as(&other.client, path, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {reply}");
    }
    let list: Value = app
        .ok_as(&other.client, "/api/operations", json!({"before": null}))
        .await;
    assert!(list["items"].as_array().unwrap().is_empty());
    assert_eq!(list["total"], 0);
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/items/regenerate",
            json!({"item_id": item_id}),
        )
        .await;
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/items/skip",
            json!({"item_id": item_id}),
        )
        .await;
    let s: Value = app
        .ok_as(&c.org.client, "/api/operations/cancel", json!({"id": op}))
        .await;
    assert_eq!(s["operation"]["status"], "cancelled");
    assert_eq!(
        drafted_notice_read(&app, &op).await,
        Some(true),
        "cancelled: nothing is left to review"
    );
    assert!(s["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["status"] == "cancelled" || i["status"] == "skipped"));
    assert_eq!(app.count("message").await, 1, "nothing was sent");
}

on_both_databases!(campaign_end_to_end, audience_skips, cancel_and_scoping);

/// Whether the campaign's "Drafts are ready for review" notice was marked done (None: there is
/// no such notice).
async fn drafted_notice_read(app: &TestApp, op: &Value) -> Option<bool> {
    use herald::notifications::entity as notification;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    let id = op.as_str().unwrap().parse().unwrap();
    let key = herald::campaign::draft_engine::drafted_notice(id);
    notification::Entity::find()
        .filter(notification::Column::SourceKey.eq(key))
        .one(&app.state.db)
        .await
        .unwrap()
        .map(|n| n.read_at.is_some())
}
