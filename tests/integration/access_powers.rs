//! Powers bound to their owner (issue 26): security headers, the metrics token, private
//! Assistant plans (and the operations made from them) seen and steered only by who directs
//! their agent, and autonomy only an owner widens.
use crate::access::{audit, me_id};
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn security_headers_on_every_response(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    for (method, path) in [
        ("GET", "/healthz"),
        ("GET", "/api/auth/me"),
        ("POST", "/webhooks/twilio/sms"),
        ("GET", "/metrics"),
    ] {
        let req = if method == "GET" {
            app.client.get(app.url(path))
        } else {
            app.client.post(app.url(path)).body("not a form")
        };
        let res = req.send().await.unwrap();
        let h = res.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("default-src 'self'"), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["referrer-policy"], "same-origin", "{path}");
        // The test server's public address is https.
        assert!(h.contains_key("strict-transport-security"), "{path}");
    }
}

async fn metrics_need_the_token(backend: Backend) {
    let opts = Options {
        metrics_token: Some("metrics-secret".into()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let get = |auth: Option<&str>| {
        let mut req = app.client.get(app.url("/metrics"));
        if let Some(a) = auth {
            req = req.header("authorization", a);
        }
        req.send()
    };
    assert_eq!(get(None).await.unwrap().status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        get(Some("Bearer wrong")).await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    let ok = get(Some("Bearer metrics-secret")).await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    assert!(ok.text().await.unwrap().contains("http_requests"));
    // Without a token: loopback callers only; a proxy's client is not loopback.
    let opts = Options {
        trusted_proxy_header: Some("x-forwarded-for".into()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let direct = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(direct.status(), StatusCode::OK);
    let proxied = app
        .client
        .get(app.url("/metrics"))
        .header("x-forwarded-for", "203.0.113.9")
        .send()
        .await
        .unwrap();
    assert_eq!(proxied.status(), StatusCode::UNAUTHORIZED);
}

async fn assistant_plans_are_private(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let mo = app.add_member(&c.org, "Mo").await;
    let zoe = app.add_member(&c.org, "Zoe").await;
    let mo_id = me_id(&app, &mo).await;
    let helper = {
        use herald::ai_agent::entity::ai_agent;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        ai_agent::Entity::find()
            .filter(ai_agent::Column::UserId.eq(mo_id))
            .filter(ai_agent::Column::Name.eq("Assistant"))
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
    };
    let plan = campaign_plan(
        &app,
        &helper,
        &include_all(&[c.katherine]),
        "Mo's private plan",
    )
    .await;
    let listed = |who: &Org| {
        let client = who.client.clone();
        let app = &app;
        async move {
            let v: Value = app
                .ok_as(
                    &client,
                    "/api/plans/list",
                    json!({"status": null, "agent_id": null}),
                )
                .await;
            v.to_string().contains("Mo's private plan")
        }
    };
    assert!(listed(&mo).await);
    assert!(listed(&c.org).await, "owners see every plan");
    assert!(!listed(&zoe).await, "another member does not");
    for (path, body) in [
        ("/api/plans/get", json!({"id": plan.id})),
        ("/api/plans/reject", json!({"id": plan.id, "reason": "no"})),
    ] {
        let (status, reply) = app.call_as(&zoe.client, path, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {reply}");
        assert!(!reply.to_string().contains("private plan"));
    }
    let _: Value = app
        .ok_as(&mo.client, "/api/plans/get", json!({"id": plan.id}))
        .await;
    // A plan of Mo's Text Reply is seen by the team, but only Mo (or an owner) steers it: a
    // rejection writes into that agent's thread.
    let text_reply = {
        use herald::ai_agent::entity::ai_agent;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        ai_agent::Entity::find()
            .filter(ai_agent::Column::UserId.eq(mo_id))
            .filter(ai_agent::Column::Name.eq("Text Reply"))
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
    };
    let shared = campaign_plan(
        &app,
        &text_reply,
        &include_all(&[c.linus]),
        "Mo's reply plan",
    )
    .await;
    let _: Value = app
        .ok_as(&zoe.client, "/api/plans/get", json!({"id": shared.id}))
        .await;
    for (path, body) in [
        (
            "/api/plans/reject",
            json!({"id": shared.id, "reason": "not yours"}),
        ),
        (
            "/api/plans/replan",
            json!({"id": shared.id, "note": "not yours"}),
        ),
    ] {
        let (status, reply) = app.call_as(&zoe.client, path, body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {reply}");
    }
    let _: Value = app
        .ok_as(
            &mo.client,
            "/api/plans/reject",
            json!({"id": shared.id, "reason": "mine to reject"}),
        )
        .await;
}

/// An operation made from a member's private Assistant plan is as private as the plan: its
/// concept and drafts are seen by that member and by owners only.
async fn operations_of_private_plans_are_private(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let mo = app.add_member(&c.org, "Mo").await;
    let zoe = app.add_member(&c.org, "Zoe").await;
    let helper = member_assistant(&app, &mo).await;
    let private = operation_for(&app, &helper, &include_all(&[c.katherine]), "Mo's plan").await;
    {
        // A draft with words of Mo's own, as the engine would write it.
        use herald::campaign::entity::item;
        use sea_orm::sea_query::Expr;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        item::Entity::update_many()
            .col_expr(item::Column::Draft, Expr::value(Some("Mo's secret draft")))
            .filter(item::Column::OperationId.eq(private))
            .exec(&app.state.db)
            .await
            .unwrap();
    }
    let text_reply = app.own_agent(&mo).await;
    let text_reply = {
        use herald::ai_agent::entity::ai_agent;
        use sea_orm::EntityTrait;
        let id: uuid::Uuid = text_reply["id"].as_str().unwrap().parse().unwrap();
        ai_agent::Entity::find_by_id(id)
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
    };
    let shared = operation_for(
        &app,
        &text_reply,
        &include_all(&[c.linus]),
        "Mo's reply plan",
    )
    .await;
    let listed = |who: &Org| {
        let client = who.client.clone();
        let app = &app;
        async move {
            let v: Value = app
                .ok_as(&client, "/api/operations", json!({"before": null}))
                .await;
            v["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["id"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    let (private_s, shared_s) = (private.to_string(), shared.to_string());
    for who in [&mo, &c.org] {
        let ids = listed(who).await;
        assert!(
            ids.contains(&private_s) && ids.contains(&shared_s),
            "{ids:?}"
        );
        let sheet: Value = app
            .ok_as(&who.client, "/api/operations/sheet", json!({"id": private}))
            .await;
        assert!(sheet.to_string().contains("Mo's secret draft"));
    }
    assert_eq!(
        listed(&zoe).await,
        vec![shared_s],
        "another member sees the shared one only"
    );
    let item_id = {
        let sheet: Value = app
            .ok_as(&mo.client, "/api/operations/sheet", json!({"id": private}))
            .await;
        sheet["items"][0]["id"].clone()
    };
    for (path, body) in [
        ("/api/operations/get", json!({"id": private})),
        ("/api/operations/sheet", json!({"id": private})),
        ("/api/operations/cancel", json!({"id": private})),
        (
            "/api/operations/items/edit",
            json!({"item_id": item_id, "text": "mine now"}),
        ),
        ("/api/operations/items/skip", json!({"item_id": item_id})),
    ] {
        let (status, reply) = app.call_as(&zoe.client, path, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {reply}");
        assert!(!reply.to_string().contains("secret"), "{reply}");
    }
    let _: Value = app
        .ok_as(&zoe.client, "/api/operations/sheet", json!({"id": shared}))
        .await;
}

async fn only_owners_widen_an_autonomous_agent(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Widen Co").await;
    let mo = app.add_member(&owner, "Mo").await;
    let agent = app.own_agent(&mo).await;
    let input = |mode: &str, persona: &str, org_wide: bool, limit: u32| {
        json!({"id": agent["id"], "input": {"name": "Text Reply", "persona": persona, "goals": agent["goals"], "rules": "", "send_mode": mode,
               "planning_enabled": false, "plan_approval": "human_review", "reply_send_limit": limit, "reply_reads_org_wide": org_wide}})
    };
    let persona = agent["persona"].as_str().unwrap().to_owned();
    let (status, _) = app
        .call_as(
            &mo.client,
            "/api/agents/update",
            input("autonomous", &persona, false, 2),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a member cannot make it autonomous"
    );
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/agents/update",
            input("autonomous", &persona, false, 2),
        )
        .await;
    for (what, body) in [
        (
            "persona",
            input("autonomous", "Say anything at all.", false, 2),
        ),
        ("org-wide reads", input("autonomous", &persona, true, 2)),
        ("send limit", input("autonomous", &persona, false, 5)),
    ] {
        let (status, reply) = app.call_as(&mo.client, "/api/agents/update", body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{what}: {reply}");
        assert!(reply.to_string().contains("only an owner"), "{reply}");
    }
    // Back to suggest mode, the member edits freely; an owner widens it again, audited.
    let _: Value = app
        .ok_as(
            &mo.client,
            "/api/agents/update",
            input("suggest", "Warmer.", false, 2),
        )
        .await;
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/agents/update",
            input("autonomous", "Warmer.", true, 3),
        )
        .await;
    let widened: Vec<Value> = audit(&app, &owner)
        .await
        .into_iter()
        .filter(|e| e["action"] == "agent_widened")
        .collect();
    assert_eq!(widened.len(), 2, "{widened:?}");
}

on_both_databases!(
    security_headers_on_every_response,
    metrics_need_the_token,
    assistant_plans_are_private,
    operations_of_private_plans_are_private,
    only_owners_widen_an_autonomous_agent,
);
