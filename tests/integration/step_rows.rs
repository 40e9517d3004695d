//! A step plan's state in rows of its own (issue 27 §2, `plans/steps/store.rs`): a runner
//! writes only the steps that moved, and only while it holds the plan's claim; the plan's JSON
//! stays the plan as approved, and the card reads the rows.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use herald::plans::entity::plan;
use herald::plans::model::{PlanAction, PlanStep};
use herald::plans::steps::run::run_written_through;
use herald::steps::graph::Graph;
use herald::steps::model::StepMode;
use sea_orm::{ActiveModelTrait, EntityTrait, Set};
use serde_json::{json, Value};

/// Runs the plan's steps as `owner`, each answering a count; the run's error, if any.
async fn run_as(app: &TestApp, p: &plan::Model, owner: &str) -> Result<(), String> {
    let Ok(PlanAction::Steps { mut steps, .. }) =
        herald::plans::steps::store::action(&app.state.db, p).await
    else {
        panic!("a step plan");
    };
    let graph = Graph::of(&steps).unwrap();
    run_written_through(
        &app.state,
        p,
        owner,
        StepMode::Eager,
        &mut steps,
        &graph,
        &|_: &PlanStep, _: &Value| false,
        &|| false,
        |_, _| async { Ok(json!({"count": 1})) },
    )
    .await
    .map(|_| ())
    .map_err(|e| e.to_string())
}

async fn a_runner_writes_its_steps_rows_only_while_it_holds_the_plan(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let presented = present(
        &app,
        c.org.org_id,
        vec![
            step("quotes", "find_contacts", json!({"tag": "quote"})),
            step("vips", "find_contacts", json!({"tag": "vip"})),
        ],
    )
    .await
    .unwrap();
    // Another instance holds it, for the next minute.
    let mut row: plan::ActiveModel = presented.clone().into();
    row.status = Set(herald::plans::model::PlanStatus::Executing);
    row.lease_owner = Set(Some("another".into()));
    row.lease_expires_at = Set(Some(app.state.clock.now() + chrono::Duration::minutes(1)));
    let held = row.update(&app.state.db).await.unwrap();

    let err = run_as(&app, &held, "this-runner").await.unwrap_err();
    assert!(err.contains("Another worker"), "{err}");
    assert_eq!(
        app.count("plan_step").await,
        0,
        "a runner without the claim wrote"
    );

    run_as(&app, &held, "another").await.unwrap();
    assert_eq!(
        app.count_where("plan_step", "status = 'completed'").await,
        2,
        "a row per step"
    );
    let stored = plan::Entity::find_by_id(held.id)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        stored.action_payload, presented.action_payload,
        "the plan's JSON is the plan as presented"
    );
    let card = get(&app, &c.org, held.id).await;
    for id in ["quotes", "vips"] {
        assert_eq!(status_of(&card, id), "completed", "{card}");
    }
}

on_both_databases!(a_runner_writes_its_steps_rows_only_while_it_holds_the_plan);
