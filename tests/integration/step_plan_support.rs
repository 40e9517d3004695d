//! Step plan test support: presenting a plan of steps, reading it back, waiting for the
//! runner, and a person's decisions.
use crate::campaign_support::*;
use crate::helpers::*;
use herald::plans::model::{ApprovalPolicy, PlanAction, PlanStep, StepMode};
use herald::plans::service::{present_plan, Presented};
use serde_json::{json, Value};

pub fn step(id: &str, tool: &str, args: Value) -> PlanStep {
    PlanStep::new(id, &format!("do {id}"), tool, args)
}

pub async fn present(
    app: &TestApp,
    org: uuid::Uuid,
    steps: Vec<PlanStep>,
) -> Result<herald::plans::entity::plan::Model, herald::error::AppError> {
    present_in(app, org, StepMode::Eager, steps).await
}

pub async fn present_in(
    app: &TestApp,
    org: uuid::Uuid,
    mode: StepMode,
    steps: Vec<PlanStep>,
) -> Result<herald::plans::entity::plan::Model, herald::error::AppError> {
    present_with(app, org, None, ApprovalPolicy::HumanReview, mode, steps).await
}

/// A plan presented from a thread (its authoring thread) under a policy.
pub async fn present_with(
    app: &TestApp,
    org: uuid::Uuid,
    thread_id: Option<uuid::Uuid>,
    policy: ApprovalPolicy,
    mode: StepMode,
    steps: Vec<PlanStep>,
) -> Result<herald::plans::entity::plan::Model, herald::error::AppError> {
    let agent = assistant_agent(app, org).await;
    present_by(app, &agent, thread_id, policy, mode, steps).await
}

/// A plan presented by this agent (a member's own Assistant, say).
pub async fn present_by(
    app: &TestApp,
    agent: &herald::ai_agent::entity::ai_agent::Model,
    thread_id: Option<uuid::Uuid>,
    policy: ApprovalPolicy,
    mode: StepMode,
    steps: Vec<PlanStep>,
) -> Result<herald::plans::entity::plan::Model, herald::error::AppError> {
    present_plan(
        &app.state,
        agent,
        Presented {
            thread_id,
            title: "Follow up",
            summary: "Find, tag and note",
            action: PlanAction::Steps { mode, steps },
            policy_override: Some(policy),
            source_key: None,
            revises: None,
        },
    )
    .await
}

pub async fn get(app: &TestApp, org: &Org, id: uuid::Uuid) -> Value {
    app.ok_as(&org.client, "/api/plans/get", json!({"id": id}))
        .await
}

pub fn status_of(plan: &Value, id: &str) -> String {
    plan["action"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .map(|s| s["status"].as_str().unwrap_or("ready").to_owned())
        .unwrap_or_default()
}

/// Waits until the plan satisfies `done`, for up to two minutes. The runner works in the
/// background on threads of lower priority (nice 10, `server::work`): with the whole sending
/// suite running at once on two cores (the pinned-clock run), a confirmed step has waited over
/// 30 s for a turn on them. Only a failing test waits the whole time.
pub async fn until(
    app: &TestApp,
    org: &Org,
    id: uuid::Uuid,
    done: impl Fn(&Value) -> bool,
) -> Value {
    crate::helpers::eventually(120, "the plan's state", || async {
        let p = get(app, org, id).await;
        done(&p).then_some(p)
    })
    .await
}

pub async fn decide(app: &TestApp, org: &Org, id: uuid::Uuid, action: Value) -> (u16, Value) {
    let (s, v) = app
        .call_as(
            &org.client,
            "/api/plans/steps",
            json!({"id": id, "action": action}),
        )
        .await;
    (s.as_u16(), v)
}

pub fn hash_of(plan: &Value, id: &str) -> String {
    plan["step_views"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .and_then(|s| s["arguments_hash"].as_str())
        .unwrap()
        .to_owned()
}

/// The owner's Assistant thread, started with a first message.
pub async fn assistant_thread(app: &TestApp, org: &Org) -> uuid::Uuid {
    crate::plan_support::ask(app, org, "hello", false).await;
    let view: Value = app.ok_as(&org.client, "/api/assistant", Value::Null).await;
    view["thread_id"].as_str().unwrap().parse().unwrap()
}

/// What plans told the owner's Assistant thread, oldest first.
pub async fn thread_notes(app: &TestApp, org: &Org) -> Vec<String> {
    let view: Value = app.ok_as(&org.client, "/api/assistant", Value::Null).await;
    view["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "plan_progress")
        .map(|e| e["summary"].as_str().unwrap().to_owned())
        .collect()
}
