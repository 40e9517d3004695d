//! The draft review sheet at a campaign's size: a 250-draft campaign shows its drafts a page
//! of 100 at a time, in audience order, and says where it is; the cost, the link check and the
//! digest an approval sends back cover every draft, not the page; a reply since drafting is
//! flagged on its page; another organisation gets "not found". The Operations list pages too:
//! 45 campaigns, 20 a page, newest first, each once.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::campaign::entity::item;
use herald::campaign::segments::segments;
use herald::server::seed_scale::{seed, ScaleSpec};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};

on_both_databases!(
    the_review_sheet_pages_through_a_large_campaign,
    the_operations_list_pages_newest_first
);

const N: usize = 250;
const LINKED: &str = "Hi there, the sale ends Friday: https://shop.example/winter";
const PLAIN: &str = "Hi there, the sale ends Friday.";

async fn page(app: &TestApp, org: &Org, op: uuid::Uuid, after: Option<i64>) -> Value {
    app.ok_as(
        &org.client,
        "/api/operations/sheet",
        json!({"id": op, "after": after}),
    )
    .await
}

fn positions(sheet: &Value) -> Vec<i64> {
    sheet["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["position"].as_i64().unwrap())
        .collect()
}

async fn the_review_sheet_pages_through_a_large_campaign(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Big Campaign Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let spec = ScaleSpec {
        contacts: N,
        messages_each: 0,
        now: test_daytime(),
        unread_every: 0,
        vip_every: 0,
    };
    seed(&app.state.db, org.org_id, number, &spec)
        .await
        .unwrap();
    let ids = contact_ids(&app, org.org_id).await;
    assert_eq!(ids.len(), N);
    let agent = assistant_agent(&app, org.org_id).await;
    let op = operation_for(&app, &agent, &include_all(&ids), "Winter sale").await;
    // Drafted an hour ago: the first ten with a link.
    let drafted = app.state.clock.now() - chrono::Duration::hours(1);
    for (text, linked) in [(PLAIN, false), (LINKED, true)] {
        let mut q = item::Entity::update_many()
            .col_expr(item::Column::Status, Expr::value("drafted"))
            .col_expr(item::Column::Draft, Expr::value(Some(text)))
            .col_expr(item::Column::DraftedAt, Expr::value(Some(drafted)))
            .filter(item::Column::OperationId.eq(op));
        q = match linked {
            true => q.filter(item::Column::Position.lt(10)),
            false => q.filter(item::Column::Position.gte(10)),
        };
        q.exec(&app.state.db).await.unwrap();
    }
    // The contact at position 150 texts in after drafting.
    let late = item::Entity::find()
        .filter(item::Column::OperationId.eq(op))
        .filter(item::Column::Position.eq(150))
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    let phone = herald::contacts::entity::contact::Entity::find_by_id(late.contact_id)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap()
        .phone
        .unwrap();
    app.post_webhook(
        &sms_params(
            "SMsheet00000000000000000000000001",
            &phone,
            "+14155550100",
            "Is it still on?",
        ),
        None,
    )
    .await;
    app.settle().await;

    let first = page(&app, &org, op, None).await;
    assert_eq!(positions(&first), (0..100).collect::<Vec<_>>());
    assert_eq!(first["total_items"], N);
    assert!(first["after"].is_null());
    assert_eq!(first["next_after"], 99);
    // The cost and the link check count every draft, each link as its short link.
    let prefix = herald::links::service::prefix(&app.state.config.public_url);
    let expected: f64 = (0..N)
        .map(|i| {
            let d = if i < 10 { LINKED } else { PLAIN };
            segments(&herald::links::model::as_sent(d, Some(&prefix))).cost()
        })
        .sum();
    assert!(
        (first["cost"].as_f64().unwrap() - expected).abs() < 1e-9,
        "{}",
        first["cost"]
    );
    assert_eq!(first["linked"], true);
    let digest = herald::campaign::review_digest::current(&app.state.db, op)
        .await
        .unwrap();
    assert_eq!(
        first["digest"],
        json!(digest),
        "the digest covers every draft"
    );

    let second = page(&app, &org, op, Some(99)).await;
    assert_eq!(positions(&second), (100..200).collect::<Vec<_>>());
    assert_eq!(second["next_after"], 199);
    let flagged: Vec<i64> = second["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["replied_since_drafting"] == true)
        .map(|i| i["position"].as_i64().unwrap())
        .collect();
    assert_eq!(flagged, vec![150], "the reply since drafting, on its page");
    assert_eq!(second["digest"], json!(digest));

    let last = page(&app, &org, op, Some(199)).await;
    assert_eq!(positions(&last), (200..250).collect::<Vec<_>>());
    assert!(last["next_after"].is_null(), "the last page");

    // Another organisation reaches no page of it.
    let other = app.new_org("Other Co").await;
    let (status, _) = app
        .call_as(
            &other.client,
            "/api/operations/sheet",
            json!({"id": op, "after": 99}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::NOT_FOUND);
}

async fn the_operations_list_pages_newest_first(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let agent = assistant_agent(&app, c.org.org_id).await;
    let mut made = Vec::new();
    for i in 0..45 {
        made.push(
            operation_for(
                &app,
                &agent,
                &include_all(&[c.katherine]),
                &format!("Campaign {i}"),
            )
            .await,
        );
    }
    let mut seen: Vec<uuid::Uuid> = Vec::new();
    let mut before = Value::Null;
    let mut sizes = Vec::new();
    loop {
        let page: Value = app
            .ok_as(
                &c.org.client,
                "/api/operations",
                json!({ "before": before }),
            )
            .await;
        assert_eq!(page["total"], 45);
        let items = page["items"].as_array().unwrap();
        sizes.push(items.len());
        seen.extend(
            items
                .iter()
                .map(|o| o["id"].as_str().unwrap().parse::<uuid::Uuid>().unwrap()),
        );
        match &page["next_before"] {
            Value::Null => break,
            b => before = b.clone(),
        }
    }
    assert_eq!(sizes, vec![20, 20, 5]);
    made.reverse();
    assert_eq!(seen, made, "newest first, each once");
    // Another organisation cannot page from one of these.
    let other = app.new_org("Other Co").await;
    let (status, _) = app
        .call_as(
            &other.client,
            "/api/operations",
            json!({ "before": made[3] }),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::NOT_FOUND);
}
