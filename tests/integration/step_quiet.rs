//! A step plan's text that meets the recipient's quiet hours waits for their window, as a
//! campaign's does (issue 51 §3): the dry run says when it would go, the run schedules it once
//! (through the same send check when due) and the step says when in words; the plan ends done,
//! not failed and revised. A text to someone in their daytime goes at once.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use herald::plans::model::SEND_TOOL;
use serde_json::{json, Value};

async fn a_plans_text_in_quiet_hours_waits_for_the_window(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    // The test clock's afternoon (UTC) is the middle of the night in Tokyo.
    let yuki = yuki_in_tokyo(&app, &c.org, &[]).await;
    let numbers: Value = app.ok_as(&c.org.client, "/api/numbers", Value::Null).await;
    let number = numbers[0]["id"].clone();
    let text = |id: &str, to: uuid::Uuid| {
        step(
            id,
            SEND_TOOL,
            json!({"contact_id": to, "phone_number_id": number, "body": "Your order is ready."}),
        )
    };
    let plan = present(
        &app,
        c.org.org_id,
        vec![text("yuki", yuki), text("kat", c.katherine)],
    )
    .await
    .unwrap();
    let sim: Value = app
        .ok_as(&c.org.client, "/api/plans/simulate", json!({"id": plan.id}))
        .await;
    let effect = sim["steps"][0]["effect"].as_str().unwrap_or_default();
    assert!(
        effect.contains("Would text Yuki") && effect.contains("quiet hours"),
        "{sim}"
    );
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    until(&app, &c.org, plan.id, |p| {
        status_of(p, "yuki") == "awaiting_confirmation"
    })
    .await;
    let (status, reply) = decide(&app, &c.org, plan.id, json!({"kind": "confirm_all"})).await;
    assert_eq!(status, 200, "{reply}");
    let done = until(&app, &c.org, plan.id, |p| p["status"] == "done").await;
    let result = &done["action"]["steps"][0]["result"];
    assert_eq!(result["status"], "scheduled", "{done}");
    assert!(
        result["waits"]
            .as_str()
            .unwrap()
            .contains("texts may go from"),
        "{result}"
    );
    assert_eq!(
        herald::plans::result_words::result_in_words(result),
        result["waits"].as_str().unwrap(),
        "the card says when it will go"
    );
    assert_eq!(
        app.count_where("scheduled_text", "plan_id IS NOT NULL")
            .await,
        1,
        "scheduled once, for the window"
    );
    assert_eq!(app.count("ai_agent_plan").await, 1, "no revised plan");
    // Katherine's daytime: her text went at once; Yuki's did not.
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        1
    );
}

on_both_databases!(a_plans_text_in_quiet_hours_waits_for_the_window);
