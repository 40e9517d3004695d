//! The Plans page, the notifications list and an agent's threads page through everything,
//! newest first: exact
//! totals, pages that join without a gap or a repeat (even when rows share a timestamp), and no
//! silent cut at 100 or 200.
use crate::campaign_support::assistant_agent;
use crate::helpers::*;
use crate::on_both_databases;
use herald::notifications::entity as notification;
use herald::plans::model::{ContactChange, PlanAction};
use herald::plans::service::{present_plan, Presented};
use sea_orm::{EntityTrait, Set};
use serde_json::{json, Value};
use std::collections::HashSet;

on_both_databases!(
    plans_page_through_every_plan,
    notifications_page_through_every_notification,
    an_agents_threads_page_and_hide_other_members_assistants,
);

/// Walks every page of `path`, answering each page's item ids in order.
async fn walk(app: &TestApp, org: &Org, path: &str, body: Value, total: u64) -> Vec<String> {
    let mut after = Value::Null;
    let mut ids = Vec::new();
    loop {
        let mut b = body.clone();
        b["after"] = after;
        let page: Value = app.ok_as(&org.client, path, b).await;
        assert_eq!(
            page["total"], total,
            "{path}: the exact total on every page"
        );
        let items = page["items"].as_array().unwrap();
        assert!(items.len() <= 50, "{path}: a page at a time");
        ids.extend(items.iter().map(|i| i["id"].as_str().unwrap().to_owned()));
        if page["next"].is_null() {
            return ids;
        }
        assert_eq!(items.len(), 50, "{path}: only the last page is short");
        after = page["next"].clone();
    }
}

async fn plans_page_through_every_plan(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Many Plans").await;
    let contact = app.add_contact(&org, "Ada", "+14155550101").await;
    let agent = assistant_agent(&app, org.org_id).await;
    for i in 0..230 {
        present_plan(
            &app.state,
            &agent,
            Presented {
                thread_id: None,
                title: &format!("Plan {i}"),
                summary: "s",
                action: PlanAction::tagging(vec![ContactChange {
                    contact_id: contact,
                    include: true,
                    reason: "r".into(),
                    add_tags: vec![format!("t{i}")],
                    remove_tags: vec![],
                    kind: String::new(),
                }]),
                policy_override: Some(herald::plans::model::ApprovalPolicy::HumanReview),
                source_key: None,
                revises: None,
            },
        )
        .await
        .unwrap();
    }
    let ids = walk(
        &app,
        &org,
        "/api/plans/list",
        json!({"status": null, "agent_id": null}),
        230,
    )
    .await;
    assert_eq!(ids.len(), 230, "past the 200 the list once stopped at");
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 230, "no repeats");
    let first: Value = app
        .ok_as(
            &org.client,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
    assert_eq!(first["items"][0]["title"], "Plan 229", "newest first");

    // Filters (issue 29 §5), each with its exact total, paged like the whole list.
    let count = |body: Value| {
        let client = org.client.clone();
        let app = &app;
        async move {
            let page: Value = app.ok_as(&client, "/api/plans/list", body).await;
            page["total"].as_u64().unwrap()
        }
    };
    // Words in the title, any case; wildcards are words too.
    assert_eq!(
        count(json!({"search": "plan 22"})).await,
        11,
        "22 and 220–229"
    );
    assert_eq!(count(json!({"search": "PLAN 1"})).await, 111);
    assert_eq!(
        count(json!({"search": "%"})).await,
        230,
        "a wildcard alone finds all"
    );
    assert_eq!(count(json!({"search": "nothing like it"})).await, 0);
    let ids = walk(
        &app,
        &org,
        "/api/plans/list",
        json!({"search": "plan 1"}),
        111,
    )
    .await;
    assert_eq!(ids.len(), 111);
    // By status, and steps waiting on a person.
    assert_eq!(count(json!({"status": "awaiting_approval"})).await, 230);
    assert_eq!(count(json!({"status": "stopped"})).await, 0);
    assert_eq!(count(json!({"waiting": true})).await, 0);
    {
        use herald::plans::entity::plan;
        use sea_orm::{sea_query::Expr, ColumnTrait, QueryFilter};
        plan::Entity::update_many()
            .col_expr(plan::Column::Status, Expr::value("executing"))
            .col_expr(plan::Column::WaitingSteps, Expr::value(2))
            .filter(plan::Column::Title.eq("Plan 7"))
            .exec(&app.state.db)
            .await
            .unwrap();
        // Thirty plans from ten days ago.
        let old: Vec<uuid::Uuid> = ids_titled(&app, &org, 0..30).await;
        plan::Entity::update_many()
            .col_expr(
                plan::Column::CreatedAt,
                Expr::value(app.state.clock.now() - chrono::Duration::days(10)),
            )
            .filter(plan::Column::Id.is_in(old))
            .exec(&app.state.db)
            .await
            .unwrap();
    }
    let waiting: Value = app
        .ok_as(&org.client, "/api/plans/list", json!({"waiting": true}))
        .await;
    assert_eq!(waiting["total"], 1);
    assert_eq!(waiting["items"][0]["title"], "Plan 7");
    // By age and agent.
    assert_eq!(count(json!({"within_days": 7})).await, 200);
    assert_eq!(count(json!({"within_days": 30})).await, 230);
    assert_eq!(
        count(json!({"within_days": 7, "search": "plan 2"})).await,
        30,
        "Plan 200–229; Plan 2 and 20–29 are ten days old"
    );
    assert_eq!(count(json!({"agent_id": agent.id})).await, 230);
    assert_eq!(count(json!({"agent_id": uuid::Uuid::new_v4()})).await, 0);
}

/// The ids of the plans titled "Plan {i}" for each i.
async fn ids_titled(app: &TestApp, org: &Org, range: std::ops::Range<usize>) -> Vec<uuid::Uuid> {
    use herald::plans::entity::plan;
    use sea_orm::{ColumnTrait, QueryFilter};
    plan::Entity::find()
        .filter(plan::Column::OrganizationId.eq(org.org_id))
        .filter(plan::Column::Title.is_in(range.map(|i| format!("Plan {i}"))))
        .all(&app.state.db)
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.id)
        .collect()
}

async fn notifications_page_through_every_notification(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Many Notes").await;
    let me: Value = app.ok_as(&org.client, "/api/auth/me", Value::Null).await;
    let user: uuid::Uuid = me["user_id"]
        .as_str()
        .or(me["id"].as_str())
        .expect("the member's id")
        .parse()
        .unwrap();
    // Pairs share a timestamp: the id orders them.
    let rows = (0..130).map(|i| notification::ActiveModel {
        id: Set(uuid::Uuid::new_v4()),
        organization_id: Set(org.org_id),
        user_id: Set(user),
        kind: Set("escalation".into()),
        title: Set(format!("Note {i}")),
        body: Set(String::new()),
        link: Set(None),
        read_at: Set(None),
        created_at: Set(test_daytime() - chrono::Duration::minutes(i / 2)),
        source_key: Set(None),
        agent_id: Set(None),
        rolled_up: Set(false),
    });
    notification::Entity::insert_many(rows)
        .exec(&app.state.db)
        .await
        .unwrap();
    let ids = walk(&app, &org, "/api/notifications", json!({}), 130).await;
    assert_eq!(ids.len(), 130, "past the 100 the list once stopped at");
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 130, "no repeats");
}

async fn an_agents_threads_page_and_hide_other_members_assistants(backend: Backend) {
    use herald::ai_agent::entity::ai_thread;
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Many Threads").await;
    let agent = assistant_agent(&app, org.org_id).await;
    let me: Value = app.ok_as(&org.client, "/api/auth/me", Value::Null).await;
    let mine = format!("assistant:{}", me["user_id"].as_str().unwrap());
    // 120 contact threads (pairs share a time), one of mine, and 5 of other members'.
    let keys = (0..120)
        .map(|i| (format!("contact:{}", uuid::Uuid::new_v4()), i / 2))
        .chain(std::iter::once((mine, 200)))
        .chain((0..5).map(|i| (format!("assistant:{}", uuid::Uuid::new_v4()), 300 + i)));
    let rows = keys.map(|(key, minutes)| ai_thread::ActiveModel {
        id: Set(uuid::Uuid::new_v4()),
        agent_id: Set(agent.id),
        organization_id: Set(org.org_id),
        correlation_key: Set(Some(key)),
        state: Set("idle".into()),
        last_error: Set(None),
        created_at: Set(test_daytime()),
        updated_at: Set(test_daytime() - chrono::Duration::minutes(minutes)),
        lease_owner: Set(None),
        lease_expires_at: Set(None),
        retry_at: Set(None),
        summary: Set(None),
    });
    ai_thread::Entity::insert_many(rows)
        .exec(&app.state.db)
        .await
        .unwrap();
    let ids = walk(
        &app,
        &org,
        "/api/agents/threads",
        json!({"agent_id": agent.id}),
        121,
    )
    .await;
    assert_eq!(
        ids.len(),
        121,
        "every thread the member may see, another member's Assistant threads not counted"
    );
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 121, "no repeats");
}
