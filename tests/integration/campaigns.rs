//! Bulk SMS campaigns from approved plans: the audience's deterministic skips, the durable
//! drafting engine, the review sheet, and compliant, paced, exactly-once sending.
use crate::helpers::*;
use crate::on_both_databases;
use herald::bulk_operation::clock::ManualClock;
use herald::bulk_operation::drafter::{DraftRequest, Drafter, FixedLatencyDrafter};
use herald::bulk_operation::entity::item;
use herald::messaging::transport::outbox::OutboxTransport;
use reqwest::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

const FOLLOW_UP: &str = "follow up with quiet quote leads";

struct Crm {
    org: Org,
    katherine: uuid::Uuid,
    linus: uuid::Uuid,
    boris: uuid::Uuid,
}

/// Alan (quote) texted today; Katherine and Linus are quiet quote leads; Boris (quote) opted out;
/// Grace is quiet but not a quote lead.
async fn crm(app: &TestApp) -> Crm {
    let org = app.new_org("Campaign Co").await;
    app.add_number(&org, "+14155550100").await;
    let mk = |name: &'static str, phone: &'static str, tags: &'static str| {
        let client = org.client.clone();
        async move {
            let v: Value = app
                .ok_as(
                    &client,
                    "/api/contacts/create",
                    json!({"input": {"name": name, "phone": phone, "email": "", "tags": [tags]}}),
                )
                .await;
            v["id"].as_str().unwrap().parse::<uuid::Uuid>().unwrap()
        }
    };
    mk("Alan Turing", "+14155552673", "lead, quote").await;
    let katherine = mk("Katherine Johnson", "+14155552674", "lead, quote").await;
    let linus = mk("Linus Torvalds", "+14155552676", "lead, quote").await;
    let boris = mk("Boris Becker", "+14155552675", "lead, quote").await;
    mk("Grace Hopper", "+14155552672", "patient").await;
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/opt_out",
            json!({"id": boris, "opted_out": true}),
        )
        .await;
    app.post_webhook(
        &sms_params(
            "SMcamp0000000000000000000000000001",
            "+14155552673",
            "+14155550100",
            "thanks for the quote",
        ),
        None,
    )
    .await;
    app.settle().await;
    Crm {
        org,
        katherine,
        linus,
        boris,
    }
}

async fn ask(app: &TestApp, org: &Org, text: &str) {
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/assistant/ask",
            json!({"text": text, "plan_mode": true}),
        )
        .await;
    app.settle().await;
}

async fn first_plan(app: &TestApp, org: &Org) -> Value {
    let v: Value = app
        .ok_as(
            &org.client,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
    v[0].clone()
}

async fn sheet(app: &TestApp, org: &Org, op: &Value) -> Value {
    app.ok_as(&org.client, "/api/operations/sheet", json!({"id": op}))
        .await
}

async fn campaign_end_to_end(backend: Backend) {
    let outbox = Arc::new(OutboxTransport::default());
    let Some(app) = spawn_app_with(
        backend,
        Options {
            transport: Some(outbox.clone()),
            ..Default::default()
        },
    )
    .await
    else {
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
    assert_eq!(plan["status"], "done");
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
        .ok_as(&c.org.client, "/api/notifications", Value::Null)
        .await;
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
    let _: Value = app
        .ok_as(&c.org.client, "/api/operations/approve", json!({"id": op}))
        .await;
    app.settle().await;
    let s = sheet(&app, &c.org, &op).await;
    assert_eq!(s["operation"]["status"], "done");
    assert_eq!(s["operation"]["sent"], 2);
    let sent = outbox.sent();
    assert_eq!(sent.len(), 2, "one text per included contact");
    assert!(sent.iter().all(|m| m.from == "+14155550100"));
    assert!(sent
        .iter()
        .any(|m| m.body.starts_with("Hi Katherine! Any questions")));
    let (status, _) = app
        .call_as(&c.org.client, "/api/operations/approve", json!({"id": op}))
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
            json!({"input": {"name": "No Phone", "phone": "", "email": "np@x.test", "tags": []}}),
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
    let agent = herald::ai_agent::entity::ai_agent::Entity::find()
        .filter(herald::ai_agent::entity::ai_agent::Column::OrganizationId.eq(c.org.org_id))
        .filter(herald::ai_agent::entity::ai_agent::Column::Name.eq("Assistant"))
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    // The plan itself refuses an opted-out contact, so build the operation straight from a plan row.
    let action = PlanAction::BulkSmsCampaign {
        audience: vec![d(c.katherine), d(nophone), d(c.linus), d(c.katherine)],
        message_concept: "Hello".into(),
    };
    let plan = herald::plans::service::present_plan(
        &app.state, &agent, None, "Skips", "test", action, None,
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
    let op = herald::bulk_operation::create::create_bulk_operation(
        &app.state, &plan, &audience, "Hello",
    )
    .await
    .unwrap();
    let again = herald::bulk_operation::create::create_bulk_operation(
        &app.state, &plan, &audience, "Hello",
    )
    .await
    .unwrap();
    assert_eq!(op, again, "idempotent per plan");
    let items = herald::bulk_operation::create::items_of(&app.state, op)
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

/// Four claimers at once never share an item.
async fn claims_never_overlap(backend: Backend) {
    use herald::plans::model::{ContactChange, PlanAction};
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let mut ids = Vec::new();
    for i in 0..200 {
        ids.push(
            app.add_contact(&c.org, &format!("Lead {i}"), &format!("+1415556{i:04}"))
                .await,
        );
    }
    let audience: Vec<ContactChange> = ids
        .iter()
        .map(|id| ContactChange {
            contact_id: *id,
            include: true,
            reason: "x".into(),
            add_tags: vec![],
            remove_tags: vec![],
            kind: String::new(),
        })
        .collect();
    let agent = herald::ai_agent::entity::ai_agent::Entity::find()
        .filter(herald::ai_agent::entity::ai_agent::Column::OrganizationId.eq(c.org.org_id))
        .filter(herald::ai_agent::entity::ai_agent::Column::Name.eq("Assistant"))
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    let plan = herald::plans::service::present_plan(
        &app.state,
        &agent,
        None,
        "Claims",
        "t",
        PlanAction::BulkSmsCampaign {
            audience: audience.clone(),
            message_concept: "Hi".into(),
        },
        None,
    )
    .await
    .unwrap();
    let op =
        herald::bulk_operation::create::create_bulk_operation(&app.state, &plan, &audience, "Hi")
            .await
            .unwrap();
    let claimers = (0..4).map(|w| {
        let state = app.state.clone();
        tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let batch = herald::bulk_operation::draft_engine::claim_batch(
                    &state,
                    op,
                    &format!("w{w}"),
                    7,
                )
                .await
                .unwrap();
                if batch.is_empty() {
                    break;
                }
                mine.extend(batch.into_iter().map(|(id, _)| id));
            }
            mine
        })
    });
    let mut all: Vec<uuid::Uuid> = Vec::new();
    for h in claimers {
        all.extend(h.await.unwrap());
    }
    let n = all.len();
    all.sort();
    all.dedup();
    assert_eq!(n, all.len(), "no item was claimed twice");
    assert_eq!(n, 200);
}

struct CountingDrafter(AtomicUsize);

#[async_trait::async_trait]
impl Drafter for CountingDrafter {
    async fn draft(&self, req: &DraftRequest) -> Result<String, herald::ai_agent::llm::LlmError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(format!("Hi {}", req.first_name))
    }
}

/// A restart mid-drafting resumes without redrafting finished items.
async fn restart_mid_drafting(backend: Backend) {
    use herald::plans::model::{ContactChange, PlanAction};
    let drafter = Arc::new(CountingDrafter(AtomicUsize::new(0)));
    let opts = Options {
        drafter: Some(drafter.clone()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let c = crm(&app).await;
    let mut ids = Vec::new();
    for i in 0..10 {
        ids.push(
            app.add_contact(&c.org, &format!("Lead {i}"), &format!("+1415557{i:04}"))
                .await,
        );
    }
    let audience: Vec<ContactChange> = ids
        .iter()
        .map(|id| ContactChange {
            contact_id: *id,
            include: true,
            reason: "x".into(),
            add_tags: vec![],
            remove_tags: vec![],
            kind: String::new(),
        })
        .collect();
    let agent = herald::ai_agent::entity::ai_agent::Entity::find()
        .filter(herald::ai_agent::entity::ai_agent::Column::OrganizationId.eq(c.org.org_id))
        .filter(herald::ai_agent::entity::ai_agent::Column::Name.eq("Assistant"))
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    let plan = herald::plans::service::present_plan(
        &app.state,
        &agent,
        None,
        "Restart",
        "t",
        PlanAction::BulkSmsCampaign {
            audience: audience.clone(),
            message_concept: "Hi".into(),
        },
        None,
    )
    .await
    .unwrap();
    let op =
        herald::bulk_operation::create::create_bulk_operation(&app.state, &plan, &audience, "Hi")
            .await
            .unwrap();
    // A first worker drafted four and died holding three more.
    let first = herald::bulk_operation::draft_engine::claim_batch(&app.state, op, "dead", 7)
        .await
        .unwrap();
    use sea_orm::sea_query::Expr;
    for (id, _) in first.iter().take(4) {
        item::Entity::update_many()
            .col_expr(item::Column::Status, Expr::value("drafted"))
            .col_expr(item::Column::Draft, Expr::value(Some("FIRST RUN")))
            .col_expr(
                item::Column::DraftedAt,
                Expr::value(Some(chrono::Utc::now())),
            )
            .filter(item::Column::Id.eq(*id))
            .exec(&app.state.db)
            .await
            .unwrap();
    }
    item::Entity::update_many()
        .col_expr(
            item::Column::HeartbeatAt,
            Expr::value(Some(chrono::Utc::now() - chrono::Duration::hours(1))),
        )
        .filter(item::Column::Status.eq("drafting"))
        .exec(&app.state.db)
        .await
        .unwrap();
    // The restart: the engines resume.
    herald::bulk_operation::review::resume_engines(&app.state)
        .await
        .unwrap();
    app.settle().await;
    assert_eq!(
        drafter.0.load(Ordering::SeqCst),
        6,
        "only the six unfinished items were drafted"
    );
    let items = herald::bulk_operation::create::items_of(&app.state, op)
        .await
        .unwrap();
    assert!(items.iter().all(|i| i.status == "drafted"));
    assert_eq!(
        items
            .iter()
            .filter(|i| i.draft.as_deref() == Some("FIRST RUN"))
            .count(),
        4
    );
    let s = sheet(&app, &c.org, &json!(op)).await;
    assert_eq!(s["operation"]["status"], "awaiting_approval");
}

/// Pacing (1 a second) and quiet hours, with an injectable clock; a STOP before sending skips.
async fn pacing_quiet_hours_and_late_opt_outs(backend: Backend) {
    use chrono::TimeZone;
    // 03:00 in New York: quiet until 08:00.
    let clock = Arc::new(ManualClock::at(
        chrono::Utc.with_ymd_and_hms(2026, 1, 15, 8, 0, 0).unwrap(),
    ));
    let outbox = Arc::new(OutboxTransport::default());
    let opts = Options {
        clock: Some(clock.clone()),
        transport: Some(outbox.clone()),
        sends_per_second: 1.0,
        drafter: Some(Arc::new(FixedLatencyDrafter(Duration::ZERO))),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let c = crm(&app).await;
    let mut ids = Vec::new();
    for i in 0..4 {
        let v: Value = app
            .ok_as(&c.org.client, "/api/contacts/create", json!({"input": {"name": format!("NY {i}"), "phone": format!("+1212555{:04}", 100 + i), "email": "", "tags": ["quote"], "time_zone": "America/New_York"}}))
            .await;
        ids.push(v["id"].as_str().unwrap().parse::<uuid::Uuid>().unwrap());
    }
    use herald::plans::model::{ContactChange, PlanAction};
    let audience: Vec<ContactChange> = ids
        .iter()
        .map(|id| ContactChange {
            contact_id: *id,
            include: true,
            reason: "x".into(),
            add_tags: vec![],
            remove_tags: vec![],
            kind: String::new(),
        })
        .collect();
    let agent = herald::ai_agent::entity::ai_agent::Entity::find()
        .filter(herald::ai_agent::entity::ai_agent::Column::OrganizationId.eq(c.org.org_id))
        .filter(herald::ai_agent::entity::ai_agent::Column::Name.eq("Assistant"))
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    let plan = herald::plans::service::present_plan(
        &app.state,
        &agent,
        None,
        "Pacing",
        "t",
        PlanAction::BulkSmsCampaign {
            audience: audience.clone(),
            message_concept: "Hi".into(),
        },
        None,
    )
    .await
    .unwrap();
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    app.settle().await;
    let op = app
        .ok_as::<Value>(&c.org.client, "/api/plans/get", json!({"id": plan.id}))
        .await["executed_ref"]
        .clone();
    // A STOP arrives after drafting, before sending.
    app.post_webhook(
        &sms_params(
            "SMstoplate000000000000000000000001",
            "+12125550103",
            "+14155550100",
            "STOP",
        ),
        None,
    )
    .await;
    app.settle().await;
    let s = sheet(&app, &c.org, &op).await;
    let flagged = s["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["contact_name"] == "NY 3")
        .unwrap()
        .clone();
    assert_eq!(
        flagged["replied_since_drafting"], true,
        "the sheet flags a reply since drafting"
    );
    let _: Value = app
        .ok_as(&c.org.client, "/api/operations/approve", json!({"id": op}))
        .await;
    app.settle().await;
    let sent = outbox.sent();
    assert_eq!(
        sent.len(),
        3,
        "the contact who said STOP is skipped at send time"
    );
    let slept = clock.slept.lock().unwrap().clone();
    assert_eq!(
        slept[0],
        Duration::from_secs(5 * 3600),
        "waited for 08:00 in New York"
    );
    let gaps: Vec<Duration> = slept[1..].to_vec();
    assert_eq!(
        gaps,
        vec![Duration::from_secs(1), Duration::from_secs(1)],
        "one a second"
    );
    let s = sheet(&app, &c.org, &op).await;
    let skipped = s["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["contact_name"] == "NY 3")
        .unwrap()
        .clone();
    assert_eq!(skipped["skip_reason"], "opted out before sending");
    assert_eq!(s["operation"]["status"], "done");
}

/// The same idempotency key never sends twice, even after a crash left the message unrecorded.
async fn idempotent_sends(backend: Backend) {
    let outbox = Arc::new(OutboxTransport::default());
    let Some(app) = spawn_app_with(
        backend,
        Options {
            transport: Some(outbox.clone()),
            ..Default::default()
        },
    )
    .await
    else {
        return;
    };
    let c = crm(&app).await;
    let number = herald::phone_numbers::service::list(&app.state, c.org.org_id)
        .await
        .unwrap()[0]
        .id;
    let key = uuid::Uuid::new_v4();
    let send = || {
        herald::messaging::outbound::send_sms_keyed(
            &app.state,
            c.org.org_id,
            c.linus,
            number,
            "Hello",
            Some("campaign"),
            Some(key),
        )
    };
    let a = send().await.unwrap();
    let b = send().await.unwrap();
    assert_eq!(a.id, b.id);
    assert_eq!(outbox.sent().len(), 1);
    // A crash between the provider accepting and the database recording: the row is still queued.
    use sea_orm::ConnectionTrait;
    app.state
        .db
        .execute_unprepared("UPDATE message SET status = 'queued'")
        .await
        .unwrap();
    let again = send().await.unwrap();
    assert_eq!(again.status, "sent");
    assert_eq!(
        outbox.sent().len(),
        1,
        "the retry reused the key, so the provider sent it once"
    );
    assert_eq!(
        app.count("message").await,
        2,
        "the inbound from setup and one outbound"
    );
}

async fn cancel_and_scoping(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    ask(&app, &c.org, FOLLOW_UP).await;
    let plan = first_plan(&app, &c.org).await;
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/approve",
            json!({"id": plan["id"]}),
        )
        .await;
    app.settle().await;
    let op = app
        .ok_as::<Value>(&c.org.client, "/api/plans/get", json!({"id": plan["id"]}))
        .await["executed_ref"]
        .clone();
    let other = app.new_org("Other").await;
    let item_id = sheet(&app, &c.org, &op).await["items"][0]["id"].clone();
    for (path, body) in [
        ("/api/operations/get", json!({"id": op})),
        ("/api/operations/sheet", json!({"id": op})),
        ("/api/operations/approve", json!({"id": op})),
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
        .ok_as(&other.client, "/api/operations", Value::Null)
        .await;
    assert!(list.as_array().unwrap().is_empty());
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
    assert!(s["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["status"] == "cancelled" || i["status"] == "skipped"));
    assert_eq!(app.count("message").await, 1, "nothing was sent");
}

on_both_databases!(
    campaign_end_to_end,
    audience_skips,
    claims_never_overlap,
    restart_mid_drafting,
    pacing_quiet_hours_and_late_opt_outs,
    idempotent_sends,
    cancel_and_scoping,
);
