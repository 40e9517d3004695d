//! Campaign test support: a small CRM of quote leads, and shortcuts to plans and operations.
#![allow(dead_code)]
use crate::helpers::*;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Value};

pub const FOLLOW_UP: &str = "follow up with quiet quote leads";

pub struct Crm {
    pub org: Org,
    pub katherine: uuid::Uuid,
    pub linus: uuid::Uuid,
    pub boris: uuid::Uuid,
}

/// Alan (quote) texted today; Katherine and Linus are quiet quote leads; Boris (quote) opted out;
/// Grace is quiet but not a quote lead.
pub async fn crm(app: &TestApp) -> Crm {
    let org = app.new_org("Campaign Co").await;
    app.add_number(&org, "+14155550100").await;
    let mk = |name: &'static str, phone: &'static str, tags: &'static str| {
        let client = org.client.clone();
        async move {
            let v: Value = app
                .ok_as(
                    &client,
                    "/api/contacts/create",
                    json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": name, "phone": phone, "email": "", "tags": [tags]}}),
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

pub fn include_all(ids: &[uuid::Uuid]) -> Vec<herald::plans::model::ContactChange> {
    ids.iter()
        .map(|id| herald::plans::model::ContactChange {
            contact_id: *id,
            include: true,
            reason: "x".into(),
            add_tags: vec![],
            remove_tags: vec![],
            kind: String::new(),
        })
        .collect()
}

pub async fn assistant_agent(
    app: &TestApp,
    org: uuid::Uuid,
) -> herald::ai_agent::entity::ai_agent::Model {
    use herald::ai_agent::entity::ai_agent;
    ai_agent::Entity::find()
        .filter(ai_agent::Column::OrganizationId.eq(org))
        .filter(ai_agent::Column::Name.eq("Assistant"))
        .order_by_asc(ai_agent::Column::CreatedAt)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap()
}

/// The signed-in member's own Assistant.
pub async fn member_assistant(
    app: &TestApp,
    member: &Org,
) -> herald::ai_agent::entity::ai_agent::Model {
    use herald::ai_agent::entity::ai_agent;
    let me: Value = app.ok_as(&member.client, "/api/auth/me", Value::Null).await;
    let id: uuid::Uuid = me["user_id"].as_str().unwrap().parse().unwrap();
    ai_agent::Entity::find()
        .filter(ai_agent::Column::UserId.eq(id))
        .filter(ai_agent::Column::Name.eq("Assistant"))
        .one(&app.state.db)
        .await
        .unwrap()
        .expect("the member's Assistant")
}

/// A campaign plan for `audience`, presented by the assistant; it waits for a person.
pub async fn campaign_plan(
    app: &TestApp,
    agent: &herald::ai_agent::entity::ai_agent::Model,
    audience: &[herald::plans::model::ContactChange],
    title: &str,
) -> herald::plans::entity::plan::Model {
    let action = herald::plans::model::PlanAction::campaign(audience.to_vec(), "Hi".into(), None);
    herald::plans::service::present_plan(
        &app.state,
        agent,
        herald::plans::service::Presented {
            thread_id: None,
            title,
            summary: "t",
            action,
            policy_override: None,
            source_key: None,
            revises: None,
        },
    )
    .await
    .unwrap()
}

/// The operation such a plan creates, without running its engines.
pub async fn operation_for(
    app: &TestApp,
    agent: &herald::ai_agent::entity::ai_agent::Model,
    audience: &[herald::plans::model::ContactChange],
    title: &str,
) -> uuid::Uuid {
    let plan = campaign_plan(app, agent, audience, title).await;
    herald::plans::campaign_start::create_campaign(&app.state, &plan, audience, "Hi", None)
        .await
        .unwrap()
}

pub async fn ask(app: &TestApp, org: &Org, text: &str) {
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/assistant/ask",
            json!({"text": text, "plan_mode": true}),
        )
        .await;
    app.settle().await;
}

pub async fn first_plan(app: &TestApp, org: &Org) -> Value {
    let v: Value = app
        .ok_as(
            &org.client,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
    v["items"][0].clone()
}

/// The review sheet with every item, its pages joined.
pub async fn sheet(app: &TestApp, org: &Org, op: &Value) -> Value {
    let mut sheet: Value = app
        .ok_as(&org.client, "/api/operations/sheet", json!({"id": op}))
        .await;
    let mut next = sheet["next_after"].clone();
    while !next.is_null() {
        let page: Value = app
            .ok_as(
                &org.client,
                "/api/operations/sheet",
                json!({"id": op, "after": next}),
            )
            .await;
        let more = page["items"].as_array().cloned().unwrap_or_default();
        sheet["items"].as_array_mut().unwrap().extend(more);
        next = page["next_after"].clone();
    }
    sheet
}

/// Approves the plan, lets its campaign draft, and answers the campaign's id.
pub async fn approve_and_draft(app: &TestApp, org: &Org, plan_id: &Value) -> Value {
    let _: Value = app
        .ok_as(&org.client, "/api/plans/approve", json!({"id": plan_id}))
        .await;
    app.settle().await;
    app.ok_as::<Value>(&org.client, "/api/plans/get", json!({"id": plan_id}))
        .await["executed_ref"]
        .clone()
}

/// When each of the operation's texts went, as wall-clock times in `tz`, earliest first.
pub async fn sent_local(
    app: &TestApp,
    op: &Value,
    tz: chrono_tz::Tz,
) -> Vec<chrono::NaiveDateTime> {
    let id = op.as_str().unwrap().parse().unwrap();
    let items = herald::campaign::create::items_of(&app.state, id)
        .await
        .unwrap();
    let mut local: Vec<chrono::NaiveDateTime> = items
        .iter()
        .map(|i| i.sent_at.expect("sent").with_timezone(&tz).naive_local())
        .collect();
    local.sort();
    local
}

/// 2026-01-`d` at `h`:`m`:`s`, wall-clock.
pub fn january(d: u32, h: u32, m: u32, s: u32) -> chrono::NaiveDateTime {
    chrono::NaiveDate::from_ymd_opt(2026, 1, d)
        .unwrap()
        .and_hms_opt(h, m, s)
        .unwrap()
}

/// The owner approves the operation's drafts as shown, and everything it sets going settles.
pub async fn approve_and_settle(app: &TestApp, org: &Org, op: &Value) {
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/operations/approve",
            app.approve_body(&org.client, op).await,
        )
        .await;
    app.settle().await;
}

/// The owner rewrites one draft on the review sheet; answers the sheet.
pub async fn edit_item(app: &TestApp, org: &Org, item: &Value, text: &str) -> Value {
    app.ok_as(
        &org.client,
        "/api/operations/items/edit",
        json!({"item_id": item, "text": text}),
    )
    .await
}

/// Every contact of the organisation, by id.
pub async fn contact_ids(app: &TestApp, org: uuid::Uuid) -> Vec<uuid::Uuid> {
    use herald::contacts::entity::contact;
    use sea_orm::QuerySelect;
    contact::Entity::find()
        .select_only()
        .column(contact::Column::Id)
        .filter(contact::Column::OrganizationId.eq(org))
        .into_tuple()
        .all(&app.state.db)
        .await
        .unwrap()
}

/// Yuki Tanaka, with written consent, in Tokyo: the test clock's 16:00 UTC is 01:00 there, so a
/// text the business starts meets her quiet hours. Tagged `tags`.
pub async fn yuki_in_tokyo(app: &TestApp, org: &Org, tags: &[&str]) -> uuid::Uuid {
    let v: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/create",
            json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": "Yuki Tanaka",
                "phone": "+14155552690", "email": "", "tags": tags, "time_zone": "Asia/Tokyo"}}),
        )
        .await;
    v["id"].as_str().unwrap().parse().unwrap()
}
