//! A campaign as one step of a plan (issue 11 §2): the plan finds the quote leads and starts a
//! campaign to them. The step waits for an owner's confirmation like a text; running it starts
//! the bulk engine's drafting, and nothing is sent until an owner approves the review sheet.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use serde_json::{json, Value};

async fn a_plan_step_starts_a_campaign_that_still_waits_for_its_review(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let campaign = || {
        step(
            "campaign",
            "start_campaign",
            json!({"contacts": "{{find.result.contacts}}", "message_concept": "Checking in on your quote"}),
        )
    };
    // Two campaigns in one plan are refused when presented.
    let err = present(
        &app,
        c.org.org_id,
        vec![
            step("find", "find_contacts", json!({"tag": "quote"})),
            campaign(),
            {
                let mut again = campaign();
                again.id = "again".into();
                again
            },
        ],
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("at most one campaign"), "{err}");
    let plan = present(
        &app,
        c.org.org_id,
        vec![
            step("find", "find_contacts", json!({"tag": "quote"})),
            campaign(),
        ],
    )
    .await
    .unwrap();
    let p = get(&app, &c.org, plan.id).await;
    assert_eq!(p["status"], "awaiting_approval", "a campaign texts people");
    assert!(p["estimated_cost"].is_object(), "{p}");
    assert!(
        p["action"]["steps"][1]["arguments"]["phone_number_id"].is_string(),
        "the agent's number is named"
    );
    // The dry run: whom it would text, the opted-out lead left out.
    let sim: Value = app
        .ok_as(&c.org.client, "/api/plans/simulate", json!({"id": plan.id}))
        .await;
    let step_sim = &sim["steps"][1];
    assert_eq!(step_sim["result"]["texts"], 3, "{sim}");
    assert_eq!(step_sim["result"]["left_out"], 1);
    assert!(step_sim["effect"]
        .as_str()
        .unwrap()
        .starts_with("Would start a campaign from +14155550100: 3 text(s)"));
    assert_eq!(sim["texts"], 3);
    // Approved, the campaign step waits for an owner.
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "campaign") == "awaiting_confirmation"
    })
    .await;
    let confirm =
        json!({"kind": "confirm", "step": "campaign", "arguments_hash": hash_of(&p, "campaign")});
    let member = app.add_member(&c.org, "Mo").await;
    let (status, _) = decide(&app, &member, plan.id, confirm.clone()).await;
    assert_eq!(
        status, 404,
        "the owner's Assistant plan is private to the owner"
    );
    let (status, reply) = decide(&app, &c.org, plan.id, confirm).await;
    assert_eq!(status, 200, "{reply}");
    // The plan waits on its campaign: done only when the campaign ends.
    let done = until(&app, &c.org, plan.id, |p| {
        status_of(p, "campaign") == "completed" && p["executed_ref"].is_string()
    })
    .await;
    assert_eq!(done["status"], "executing", "{done}");
    let op = done["executed_ref"].clone();
    assert!(op.is_string(), "the plan names its campaign: {done}");
    let result = &done["action"]["steps"][1]["result"];
    assert_eq!(result["operation_id"], op);
    assert_eq!(result["contacts"], 4);
    // The campaign drafts, then waits for its review sheet: nothing has been sent.
    app.settle().await;
    let o: Value = app
        .ok_as(&c.org.client, "/api/operations/get", json!({"id": op}))
        .await;
    assert_eq!(o["total"], 4, "{o}");
    assert_eq!(o["skipped"], 1, "Boris opted out");
    assert_ne!(o["status"], "sending");
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        0
    );
}

/// A campaign step over an audience the server resolves (issue 27 §1): the model writes a filter
/// or a segment's name, never the list.
async fn a_campaign_step_over_a_segment_is_resolved_by_the_server(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/segments/save",
            json!({"name": "Quote leads", "filter": {"tags_any": ["quote"]}}),
        )
        .await;
    let campaign = |audience: Value| {
        step(
            "campaign",
            "start_campaign",
            json!({"audience": audience, "message_concept": "Checking in on your quote"}),
        )
    };
    // A segment that does not exist: the dry run says so, naming the ones that do.
    let wrong = present(
        &app,
        c.org.org_id,
        vec![campaign(json!({"segment": "Nope"}))],
    )
    .await
    .unwrap();
    let sim: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/simulate",
            json!({"id": wrong.id}),
        )
        .await;
    let err = sim["steps"][0]["error"].as_str().unwrap_or_default();
    assert!(err.contains("Quote leads"), "{sim}");
    let plan = present(
        &app,
        c.org.org_id,
        vec![campaign(json!({"segment": "Quote leads"}))],
    )
    .await
    .unwrap();
    let sim: Value = app
        .ok_as(&c.org.client, "/api/plans/simulate", json!({"id": plan.id}))
        .await;
    assert_eq!(sim["steps"][0]["result"]["texts"], 3, "{sim}");
    assert_eq!(sim["steps"][0]["result"]["left_out"], 1, "Boris opted out");
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "campaign") == "awaiting_confirmation"
    })
    .await;
    let confirm =
        json!({"kind": "confirm", "step": "campaign", "arguments_hash": hash_of(&p, "campaign")});
    let (status, reply) = decide(&app, &c.org, plan.id, confirm).await;
    assert_eq!(status, 200, "{reply}");
    // The plan waits on its campaign: done only when the campaign ends.
    let done = until(&app, &c.org, plan.id, |p| {
        status_of(p, "campaign") == "completed" && p["executed_ref"].is_string()
    })
    .await;
    assert_eq!(done["status"], "executing", "{done}");
    assert_eq!(
        done["action"]["steps"][0]["result"]["contacts"], 4,
        "{done}"
    );
    app.settle().await;
    let o: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/get",
            json!({"id": done["executed_ref"]}),
        )
        .await;
    assert_eq!((&o["total"], &o["skipped"]), (&json!(4), &json!(1)), "{o}");
}

on_both_databases!(
    a_plan_step_starts_a_campaign_that_still_waits_for_its_review,
    a_campaign_step_over_a_segment_is_resolved_by_the_server
);
