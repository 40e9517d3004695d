//! A plan whose stored action no longer reads (an older or damaged payload) is shown as such: the
//! Plans list, the plan and the Assistant page still load for the whole organisation, the plan
//! cannot be edited or approved (409, saying why), and it can be rejected.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::plans::entity::plan;
use reqwest::StatusCode;
use sea_orm::{ActiveModelTrait, EntityTrait, Set};
use serde_json::{json, Value};

async fn an_unreadable_plan_breaks_nothing(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let helper = assistant_agent(&app, c.org.org_id).await;
    let good = campaign_plan(&app, &helper, &include_all(&[c.katherine]), "Readable").await;
    let bad = campaign_plan(&app, &helper, &include_all(&[c.linus]), "Damaged").await;
    let mut row: plan::ActiveModel = plan::Entity::find_by_id(bad.id)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap()
        .into();
    row.action_payload = Set(json!({"type": "retired_action", "whatever": [1, 2]}));
    row.update(&app.state.db).await.unwrap();

    let list: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
    let find = |title: &str| {
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["title"] == title)
            .cloned()
            .unwrap_or_else(|| panic!("{title} listed: {list}"))
    };
    assert!(find("Readable").get("unreadable").is_none());
    assert_eq!(find("Readable")["contacts"].as_array().unwrap().len(), 1);
    let damaged = find("Damaged");
    assert!(
        damaged["unreadable"]
            .as_str()
            .unwrap()
            .contains("can no longer be read"),
        "{damaged}"
    );
    assert_eq!(damaged["contacts"], json!([]));
    let _: Value = app
        .ok_as(&c.org.client, "/api/assistant", Value::Null)
        .await;
    let one: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": bad.id}))
        .await;
    assert!(one["unreadable"].is_string());

    for (path, body) in [
        ("/api/plans/approve", json!({"id": bad.id})),
        (
            "/api/plans/edit",
            json!({"id": bad.id, "edit": {"title": "x", "summary": null, "include": [], "message_concept": null}}),
        ),
    ] {
        let (status, reply) = app.call_as(&c.org.client, path, body).await;
        assert_eq!(status, StatusCode::CONFLICT, "{path}: {reply}");
        let text = reply.to_string();
        assert!(text.contains("can no longer be read"), "{path}: {text}");
        assert!(
            !text.contains("unknown variant"),
            "no decoder's words: {text}"
        );
    }
    let still: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": bad.id}))
        .await;
    assert_eq!(still["status"], "awaiting_approval");
    assert_eq!(app.count("assistant_operation").await, 0, "nothing ran");

    let rejected: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/reject",
            json!({"id": bad.id, "reason": "it is damaged"}),
        )
        .await;
    assert_eq!(rejected["status"], "rejected");
    // The readable plan is untouched and still approvable.
    let approved: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": good.id}))
        .await;
    assert_ne!(approved["status"], "awaiting_approval");
}

on_both_databases!(an_unreadable_plan_breaks_nothing);
