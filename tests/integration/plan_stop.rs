//! Steering a plan after approval (issue 29 §2). A plan waiting on a person is paused: the
//! sweeper leaves it alone (twelve sweeps, a minute's worth, write nothing), the agent's owner is
//! told which steps wait, and the attention counts carry them; a decision wakes it. Stop, by an
//! owner or the member who directs the agent: steps already running finish, nothing new starts
//! (the fake provider's creates are counted while a `for_each` is in flight), the plan's
//! scheduled texts are cancelled and its campaign paused with its review sheet kept; an owner
//! may resume the campaign. The stop is audited with its reason.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use herald::platform::sms::outbox::OutboxTransport;
use herald::platform::sms::{FoundSms, Lookup, OutboundSms, SentSms, SmsTransport, TransportError};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

on_both_databases!(
    a_waiting_plan_is_paused_seen_and_left_alone,
    a_stop_mid_run_lets_nothing_new_out,
);

/// find the quote leads → text each → note Katherine.
fn texting_plan() -> Vec<herald::plans::model::PlanStep> {
    vec![
        step("find", "find_contacts", json!({"tag": "quote"})),
        step(
            "text",
            "send_sms",
            json!({"contact_id": "{{item.id}}", "body": "Hi {{item.name}}, checking in."}),
        )
        .each(json!("{{find.result.contacts}}")),
    ]
}

async fn attention(app: &TestApp, org: &Org) -> Value {
    app.ok_as(&org.client, "/api/attention", Value::Null).await
}

async fn a_waiting_plan_is_paused_seen_and_left_alone(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let plan = present(&app, c.org.org_id, texting_plan()).await.unwrap();
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "text") == "awaiting_confirmation"
    })
    .await;
    // Paused, with nobody holding it, until a person decides.
    let row = || async {
        use sea_orm::EntityTrait;
        herald::plans::entity::plan::Entity::find_by_id(plan.id)
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
    };
    // Its steps' rows, as they stand.
    let steps = || async {
        use herald::plans::steps::store::plan_step;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
        plan_step::Entity::find()
            .filter(plan_step::Column::PlanId.eq(plan.id))
            .order_by_asc(plan_step::Column::StepId)
            .all(&app.state.db)
            .await
            .unwrap()
    };
    let mut paused = row().await;
    for _ in 0..50 {
        if paused.paused_at.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        paused = row().await;
    }
    assert!(paused.paused_at.is_some(), "paused");
    // The owner is told just after the pause is written: wait for the runner to finish.
    app.settle().await;
    assert_eq!(paused.waiting_steps, 1);
    assert_eq!(paused.lease_owner, None);
    // Seen: the owner is told, and the counts carry the waiting step.
    let notes: Value = app
        .ok_as(&c.org.client, "/api/notifications", json!({"cursor": null}))
        .await;
    assert!(
        notes
            .to_string()
            .contains("1 step waits for you in \\\"Follow up\\\""),
        "{notes}"
    );
    assert_eq!(attention(&app, &c.org).await["steps_waiting"], 1);
    // A minute of sweeps (one every 5 s) writes nothing to it.
    for _ in 0..12 {
        assert_eq!(
            herald::plans::executor::resume_pending(&app.state)
                .await
                .unwrap(),
            0,
            "the sweeper takes no paused plan"
        );
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = row().await;
    assert_eq!(after.updated_at, paused.updated_at, "not written to");
    assert_eq!(after.action_payload, paused.action_payload);
    let rows = steps().await;
    assert!(!rows.is_empty(), "the find step's row");
    assert!(
        rows.iter().all(|r| r.updated_at <= paused.updated_at),
        "no step written since it paused: {rows:?}"
    );
    // A decision wakes it: the texts go, and the plan is done.
    let (s, r) = decide(
        &app,
        &c.org,
        plan.id,
        json!({"kind": "confirm", "step": "text", "arguments_hash": hash_of(&p, "text")}),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    until(&app, &c.org, plan.id, |p| p["status"] == "done").await;
    let done = row().await;
    assert_eq!((done.paused_at, done.waiting_steps), (None, 0));
    assert_eq!(attention(&app, &c.org).await["steps_waiting"], 0);
    // A finished plan cannot be stopped.
    let (s, _) = app
        .call_as(
            &c.org.client,
            "/api/plans/stop",
            json!({"id": plan.id, "reason": ""}),
        )
        .await;
    assert_eq!(s.as_u16(), 409);

    // The member who directs an agent stops its plan without being an owner.
    let member = app.add_member(&c.org, "Mo").await;
    let mine = member_assistant(&app, &member).await;
    let theirs = present_by(
        &app,
        &mine,
        None,
        herald::plans::model::ApprovalPolicy::HumanReview,
        herald::plans::model::StepMode::Eager,
        texting_plan(),
    )
    .await
    .unwrap();
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/approve",
            json!({"id": theirs.id}),
        )
        .await;
    until(&app, &member, theirs.id, |p| {
        status_of(p, "text") == "awaiting_confirmation"
    })
    .await;
    // The step waits before the plan is paused and counted: let the runner finish.
    app.settle().await;
    assert_eq!(attention(&app, &c.org).await["steps_waiting"], 1);
    let stopped: Value = app
        .ok_as(
            &member.client,
            "/api/plans/stop",
            json!({"id": theirs.id, "reason": ""}),
        )
        .await;
    assert_eq!(stopped["status"], "stopped");
    // Nobody was running it: the stop itself skips the waiting step.
    assert_eq!(status_of(&stopped, "text"), "skipped");
    assert_eq!(
        attention(&app, &c.org).await["steps_waiting"],
        0,
        "a stopped plan waits on nobody"
    );
    let p = until(&app, &member, theirs.id, |p| {
        status_of(p, "text") == "skipped"
    })
    .await;
    assert_eq!(p["status"], "stopped");
}

/// Sends pass until `pass` have been tried; later ones wait at the gate until it opens.
struct Gate {
    inner: Arc<OutboxTransport>,
    tried: AtomicUsize,
    pass: usize,
    open: AtomicBool,
}

#[async_trait::async_trait]
impl SmsTransport for Gate {
    fn name(&self) -> &'static str {
        "gate"
    }
    async fn send(&self, sms: &OutboundSms) -> Result<SentSms, TransportError> {
        if self.tried.fetch_add(1, Ordering::SeqCst) >= self.pass {
            while !self.open.load(Ordering::SeqCst) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
        self.inner.send(sms).await
    }
    async fn find(&self, lookup: &Lookup) -> Result<Vec<FoundSms>, TransportError> {
        self.inner.find(lookup).await
    }
}

async fn a_stop_mid_run_lets_nothing_new_out(backend: Backend) {
    let outbox = Arc::new(OutboxTransport::default());
    let gate = Arc::new(Gate {
        inner: outbox.clone(),
        tried: AtomicUsize::new(0),
        pass: 2,
        open: AtomicBool::new(false),
    });
    let Some(app) = spawn_app_with(
        backend,
        Options {
            transport: Some(gate.clone()),
            ..Default::default()
        },
    )
    .await
    else {
        return;
    };
    let c = crm(&app).await;
    for i in 0..30 {
        let _: Value = app
            .ok_as(
                &c.org.client,
                "/api/contacts/create",
                json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": format!("Lead {i}"),
                    "phone": format!("+1415556{i:04}"), "email": "", "tags": ["quote"]}}),
            )
            .await;
    }
    let number: Value = app.ok_as(&c.org.client, "/api/numbers", Value::Null).await;
    let mut steps = texting_plan();
    steps.push(step(
        "later",
        "schedule_text",
        json!({"contact_id": c.linus, "body": "Following up", "in_hours": 48, "phone_number_id": number[0]["id"]}),
    ));
    steps.push(step(
        "campaign",
        "start_campaign",
        json!({"contacts": [c.katherine], "message_concept": "Checking in on the quote"}),
    ));
    steps.push(step(
        "note",
        "add_note",
        json!({"contact_id": c.katherine, "note": "Texted ({{text.result.completed}})."}),
    ));
    let plan = present(&app, c.org.org_id, steps).await.unwrap();
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    until(&app, &c.org, plan.id, |p| {
        status_of(p, "text") == "awaiting_confirmation"
    })
    .await;
    let (s, r) = decide(&app, &c.org, plan.id, json!({"kind": "confirm_all"})).await;
    assert_eq!(s, 200, "{r}");
    // The for_each is in flight: two texts went, more wait at the gate.
    for _ in 0..400 {
        if gate.tried.load(Ordering::SeqCst) > 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(gate.tried.load(Ordering::SeqCst) > 2, "the texts started");
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "later") == "completed" && status_of(p, "campaign") == "completed"
    })
    .await;
    assert_eq!(p["status"], "executing");

    // A member who neither owns the organisation nor directs the agent cannot stop it (the
    // owner's Assistant's plans are not even theirs to see).
    let member = app.add_member(&c.org, "Mo").await;
    let (s, _) = app
        .call_as(
            &member.client,
            "/api/plans/stop",
            json!({"id": plan.id, "reason": "no"}),
        )
        .await;
    assert_eq!(s.as_u16(), 404);
    let stopped: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/stop",
            json!({"id": plan.id, "reason": "Wrong list"}),
        )
        .await;
    assert_eq!(stopped["status"], "stopped");
    // What was in flight finishes; nothing new starts. While the gate stays shut no send ends,
    // so no item's turn can come: what reaches the gate meanwhile had started before the stop
    // (on a busy machine an item started before it may reach the gate only after the stop
    // answered). Counted once the runner has surely seen the stop (it looks every 250 ms).
    tokio::time::sleep(Duration::from_millis(600)).await;
    let tried_at_stop = gate.tried.load(Ordering::SeqCst);
    gate.open.store(true, Ordering::SeqCst);
    let p = until(&app, &c.org, plan.id, |p| {
        // The note needed the texts: blocked, never run.
        status_of(p, "text") == "failed"
            && ["blocked", "skipped"].contains(&status_of(p, "note").as_str())
    })
    .await;
    app.settle().await;
    let sent = outbox.sent().len();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(outbox.sent().len(), sent, "nothing more goes out");
    assert_eq!(
        gate.tried.load(Ordering::SeqCst),
        tried_at_stop,
        "no send started after the stop"
    );
    assert!(sent < 20, "the stop cut the run short: {sent} of 33");
    let text = p["action"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "text")
        .unwrap()
        .clone();
    assert!(
        text["error"]
            .as_str()
            .unwrap()
            .starts_with("stopped by a person after"),
        "{text}"
    );
    assert_eq!(
        p["status"], "stopped",
        "the runner leaves a stopped plan stopped"
    );
    // Its scheduled text is cancelled; its campaign is paused, with the sheet kept.
    {
        use herald::messaging::scheduled::entity as scheduled;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        let rows = scheduled::Entity::find()
            .filter(scheduled::Column::PlanId.eq(plan.id))
            .all(&app.state.db)
            .await
            .unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].status, "canceled");
    }
    let ops: Value = app
        .ok_as(&c.org.client, "/api/operations", json!({"before": null}))
        .await;
    let op = ops["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["plan_id"] == json!(plan.id))
        .unwrap()
        .clone();
    assert_eq!(op["status"], "paused", "{op}");
    let sheet_kept = sheet(&app, &c.org, &op["id"]).await;
    assert_eq!(sheet_kept["items"].as_array().unwrap().len(), 1);
    let (s, _) = app
        .call_as(
            &c.org.client,
            "/api/operations/approve",
            json!({"id": op["id"], "digest": sheet_kept["digest"]}),
        )
        .await;
    assert_eq!(s.as_u16(), 409, "a paused campaign is not approved");
    let (s, _) = app
        .call_as(
            &member.client,
            "/api/operations/resume",
            json!({"id": op["id"]}),
        )
        .await;
    assert!([403, 404].contains(&s.as_u16()), "an owner resumes: {s}");
    let resumed: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/resume",
            json!({"id": op["id"]}),
        )
        .await;
    assert!(
        ["drafting", "awaiting_approval"].contains(&resumed["status"].as_str().unwrap()),
        "{resumed}"
    );
    // The stop is audited with its reason, and a stopped plan takes no decisions.
    let audit = p["audit"].as_array().unwrap();
    let entry = audit.iter().find(|a| a["kind"] == "plan_stopped").unwrap();
    assert_eq!(entry["reason"], "Wrong list");
    assert_eq!(entry["after"]["scheduled_cancelled"], 1);
    assert_eq!(entry["after"]["campaigns_paused"], 1);
    let (s, _) = decide(&app, &c.org, plan.id, json!({"kind": "continue"})).await;
    assert_eq!(s, 409);
    let (s, _) = app
        .call_as(
            &c.org.client,
            "/api/plans/stop",
            json!({"id": plan.id, "reason": ""}),
        )
        .await;
    assert_eq!(s.as_u16(), 409, "already stopped");
}
