//! Re-planning a step plan (issue 11 §7): a plan that ends with a failed step asks its agent for
//! a revision with the whiteboard; the offline model presents one; the revision keeps the
//! completed steps frozen (never run again), asks again only for what changed, and the line of
//! revisions is capped and shown side by side.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use herald::plans::model::{ApprovalPolicy, StepMode};
use sea_orm::EntityTrait;
use serde_json::{json, Value};

fn step_of<'a>(p: &'a Value, id: &str) -> Option<&'a Value> {
    p["action"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
}

async fn a_failed_plan_is_revised_with_its_completed_steps_frozen(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    crate::plan_support::ask(
        &app,
        &c.org,
        "find the quote leads, tag them follow-up and text each a check-in",
        true,
    )
    .await;
    let first = crate::plan_support::plans(&app, &c.org).await[0].clone();
    let id: uuid::Uuid = first["id"].as_str().unwrap().parse().unwrap();
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": id}))
        .await;
    until(&app, &c.org, id, |p| {
        status_of(p, "tag") == "awaiting_confirmation"
    })
    .await;
    let (status, reply) = decide(&app, &c.org, id, json!({"kind": "confirm_all"})).await;
    assert_eq!(status, 200, "{reply}");
    let old = until(&app, &c.org, id, |p| p["status"] == "failed").await;
    assert_eq!(status_of(&old, "text_1"), "failed", "Boris opted out");
    // The failure asked the agent for a revision; the offline model presented one.
    app.settle().await;
    let plans = crate::plan_support::plans(&app, &c.org).await;
    let new = plans
        .iter()
        .find(|p| p["revision_of"] == json!(id))
        .unwrap_or_else(|| panic!("a revision: {plans:?}"))
        .clone();
    let new_id: uuid::Uuid = new["id"].as_str().unwrap().parse().unwrap();
    assert_eq!(new["revision"], 2);
    // The plan's metadata: the request in the requester's words, start and end, the counts.
    let request = "find the quote leads, tag them follow-up and text each a check-in";
    let meta = &old["step_meta"];
    assert_eq!(meta["original_request"], request, "{meta}");
    assert!(meta["started_at"].is_string() && meta["completed_at"].is_string());
    assert_eq!(
        (
            &meta["counts"]["completed"],
            &meta["counts"]["failed"],
            &meta["counts"]["blocked"]
        ),
        (&json!(8), &json!(1), &json!(1))
    );
    assert_eq!(
        new["step_meta"]["original_request"], request,
        "a revision keeps it"
    );
    assert!(new["step_meta"]["completed_at"].is_null(), "not ended yet");
    // Completed steps are frozen: same ids, same results, same start; the failed text is gone
    // and the note it blocked now records why.
    let mut frozen = 0;
    for s in old["action"]["steps"].as_array().unwrap() {
        if s["status"] == "completed" {
            let kept = step_of(&new, s["id"].as_str().unwrap()).expect("frozen step kept");
            assert_eq!(kept, s, "frozen as it was");
            frozen += 1;
        }
    }
    assert_eq!(frozen, 8, "find, tag, three texts and their notes");
    assert!(step_of(&new, "text_1").is_none());
    let note = step_of(&new, "note_1").unwrap();
    assert_eq!(note["status"], "ready");
    assert!(note["confirmation"].is_null(), "changed: asks again");
    assert!(note["arguments"]["note"]
        .as_str()
        .unwrap()
        .starts_with("Not done:"));
    assert!(
        new["estimated_cost"].is_null(),
        "the frozen texts went already: nothing to spend"
    );
    // The old plan was revised: it is not offered again, and names its revision.
    let old = get(&app, &c.org, id).await;
    assert_eq!(old["revised_by"], json!(new_id));
    assert_eq!(old["replannable"], false);
    let line: Vec<Value> = app
        .ok_as(&c.org.client, "/api/plans/revisions", json!({"id": new_id}))
        .await;
    let ids: Vec<&Value> = line.iter().map(|p| &p["id"]).collect();
    assert_eq!(ids, vec![&json!(id), &json!(new_id)]);
    // Approve the revision: only the changed note waits for a confirmation, and it runs.
    if new["status"] == "awaiting_approval" {
        let _: Value = app
            .ok_as(&c.org.client, "/api/plans/approve", json!({"id": new_id}))
            .await;
    }
    let p = until(&app, &c.org, new_id, |p| {
        status_of(p, "note_1") == "awaiting_confirmation"
    })
    .await;
    let waiting: Vec<&str> = p["action"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["status"] == "awaiting_confirmation")
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(waiting, vec!["note_1"]);
    let (status, reply) = decide(
        &app,
        &c.org,
        new_id,
        json!({"kind": "confirm", "step": "note_1", "arguments_hash": hash_of(&p, "note_1")}),
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    let done = until(&app, &c.org, new_id, |p| p["status"] == "done").await;
    // Nothing frozen ran again: no new text, the same starts.
    for s in old["action"]["steps"].as_array().unwrap() {
        if s["status"] == "completed" {
            assert_eq!(step_of(&done, s["id"].as_str().unwrap()).unwrap(), s);
        }
    }
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        3
    );
    let boris: Value = app
        .ok_as(&c.org.client, "/api/contacts/get", json!({"id": c.boris}))
        .await;
    assert!(
        boris["notes"].as_str().unwrap().contains("Not done:"),
        "{boris}"
    );
}

async fn revisions_are_checked_capped_and_single(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    crate::plan_support::ask(&app, &c.org, "hello", false).await;
    let view: Value = app
        .ok_as(&c.org.client, "/api/assistant", Value::Null)
        .await;
    let thread: uuid::Uuid = view["thread_id"].as_str().unwrap().parse().unwrap();
    let steps = || {
        vec![
            step("tags", "list_tags", json!({})),
            step(
                "note",
                "add_note",
                json!({"contact_id": c.linus, "note": "hi"}),
            ),
        ]
    };
    let first = present_with(
        &app,
        c.org.org_id,
        Some(thread),
        ApprovalPolicy::HumanReview,
        StepMode::Eager,
        steps(),
    )
    .await
    .unwrap();
    // A person asks for a re-plan of a plan still awaiting approval: the agent is asked.
    let before = app.count("ai_thread_event").await;
    let v: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/replan",
            json!({"id": first.id, "note": "note Katherine too"}),
        )
        .await;
    assert_eq!(v["id"], json!(first.id));
    assert!(app.count("ai_thread_event").await > before);
    app.settle().await;
    // The agent presented a revision; it replaced the plan that was waiting for approval.
    let plans = crate::plan_support::plans(&app, &c.org).await;
    let second = plans
        .iter()
        .find(|p| p["revision_of"] == json!(first.id))
        .unwrap_or_else(|| panic!("a revision: {plans:?}"));
    assert_eq!(second["revision"], 2);
    let second: uuid::Uuid = second["id"].as_str().unwrap().parse().unwrap();
    let old = get(&app, &c.org, first.id).await;
    assert_eq!(old["status"], "rejected", "replaced: {old}");
    assert!(old["decision_reason"]
        .as_str()
        .unwrap()
        .contains("Replaced by revision 2"));
    // One revision per plan.
    let err = revise(&app, &c, thread, first.id, steps())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("cannot be revised now"), "{err}");
    // Run the second to its end, then a change to a completed step is refused.
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": second}))
        .await;
    until(&app, &c.org, second, |p| {
        status_of(p, "note") == "awaiting_confirmation"
    })
    .await;
    // The runner has stopped at the confirmation: the step waits first, then the lease goes.
    for _ in 0..200 {
        let row = herald::plans::entity::plan::Entity::find_by_id(second)
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap();
        if row.lease_owner.is_none() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let mut changed = steps();
    changed[0].arguments = json!({});
    changed[0].tool = "find_contacts".into();
    let err = revise(&app, &c, thread, second, changed).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("`tags` has completed and is frozen"),
        "{err}"
    );
    // The cap: a plan at revision 4 is not revised again.
    let third = revise(&app, &c, thread, second, steps()).await.unwrap();
    assert_eq!(third.revision, 3);
    use herald::plans::entity::plan;
    use sea_orm::{sea_query::Expr, ColumnTrait, QueryFilter};
    plan::Entity::update_many()
        .col_expr(plan::Column::Revision, Expr::value(4))
        .filter(plan::Column::Id.eq(third.id))
        .exec(&app.state.db)
        .await
        .unwrap();
    let err = revise(&app, &c, thread, third.id, steps())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("re-planned 3 times"), "{err}");
    let (status, _) = app
        .call_as(
            &c.org.client,
            "/api/plans/replan",
            json!({"id": third.id, "note": ""}),
        )
        .await;
    assert_eq!(status.as_u16(), 409, "the card does not offer it either");
}

async fn revise(
    app: &TestApp,
    c: &Crm,
    thread: uuid::Uuid,
    old: uuid::Uuid,
    steps: Vec<herald::plans::model::PlanStep>,
) -> Result<herald::plans::entity::plan::Model, herald::error::AppError> {
    let agent = assistant_agent(app, c.org.org_id).await;
    herald::plans::service::present_plan(
        &app.state,
        &agent,
        herald::plans::service::Presented {
            thread_id: Some(thread),
            title: "Revised",
            summary: "Again",
            action: herald::plans::model::PlanAction::Steps {
                mode: StepMode::Eager,
                steps,
            },
            policy_override: Some(ApprovalPolicy::HumanReview),
            source_key: None,
            revises: Some(old),
        },
    )
    .await
}

on_both_databases!(
    a_failed_plan_is_revised_with_its_completed_steps_frozen,
    revisions_are_checked_capped_and_single,
);
