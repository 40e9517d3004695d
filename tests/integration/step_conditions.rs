//! Seed 004's conditions in a real run, on both databases (issue 29 §3): a step whose `when`
//! holds runs; one whose `when` does not is skipped with its reason; a text refused (the contact
//! opted out) takes the other branch, an `on: failure` note that names the error, while the
//! receipt that needed the text never runs, and the plan ends done: the failure was handled.
//! The dry run shows the same branches before anything is approved.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use herald::steps::model::StepOn;
use serde_json::{json, Value};

fn find<'a>(plan: &'a Value, key: &str, id: &str) -> &'a Value {
    plan[key]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("{id} in {plan}"))
}

async fn conditions_and_failure_branches(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let mut tag = step(
        "tag",
        "tag_contacts",
        json!({"contacts": "{{leads.result.contacts}}", "add": ["follow-up"]}),
    );
    tag.when = Some("{{leads.result.count}} > 0".into());
    let mut ghost = step(
        "ghost",
        "tag_contacts",
        json!({"contacts": "{{nobody.result.contacts}}", "add": ["ghost"]}),
    );
    ghost.when = Some("{{nobody.result.count}} > 0".into());
    let mut note = step(
        "note",
        "add_note",
        json!({"contact_id": c.boris, "note": "Could not text: {{text.error}}"}),
    );
    note.on = Some(StepOn::Failure);
    let steps = vec![
        step(
            "leads",
            "find_contacts",
            json!({"tag": "quote", "opted_out": false}),
        ),
        step("nobody", "find_contacts", json!({"tag": "nobody-has-this"})),
        tag,
        ghost,
        step(
            "text",
            "send_sms",
            json!({"contact_id": c.boris, "body": "Hi Boris, any questions?"}),
        ),
        note,
        step(
            "receipt",
            "add_note",
            json!({"contact_id": c.boris, "note": "Texted ({{text.result.message_id}})."}),
        ),
    ];
    let plan = present(&app, c.org.org_id, steps).await.unwrap();

    // The dry run takes the same branches and writes nothing.
    let sim: Value = app
        .ok_as(&c.org.client, "/api/plans/simulate", json!({"id": plan.id}))
        .await;
    assert_eq!(find(&sim, "steps", "tag")["status"], "completed", "{sim}");
    assert_eq!(find(&sim, "steps", "ghost")["status"], "skipped", "{sim}");
    assert_eq!(find(&sim, "steps", "text")["status"], "failed", "{sim}");
    assert_eq!(find(&sim, "steps", "note")["status"], "completed", "{sim}");
    assert_eq!(find(&sim, "steps", "receipt")["status"], "blocked", "{sim}");

    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    until(&app, &c.org, plan.id, |p| {
        status_of(p, "tag") == "awaiting_confirmation"
            && status_of(p, "text") == "awaiting_confirmation"
    })
    .await;
    // `nobody` and `leads` run side by side: the runner has paused once both have run.
    app.settle().await;
    let p = until(&app, &c.org, plan.id, |_| true).await;
    // The condition that did not hold skipped its step at once, saying why.
    assert_eq!(status_of(&p, "ghost"), "skipped");
    let ghost = find(&p["action"], "steps", "ghost");
    assert_eq!(
        ghost["error"],
        "not run: its condition {{nobody.result.count}} > 0 did not hold ({{nobody.result.count}} was 0)"
    );
    assert_eq!(
        status_of(&p, "note"),
        "ready",
        "it waits for the text's outcome"
    );
    for id in ["tag", "text"] {
        let (s, body) = decide(
            &app,
            &c.org,
            plan.id,
            json!({"kind": "confirm", "step": id, "arguments_hash": hash_of(&p, id)}),
        )
        .await;
        assert_eq!(s, 200, "{body}");
    }
    // The text is refused: Boris opted out. The failure handler waits for its own confirmation.
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "note") == "awaiting_confirmation"
    })
    .await;
    assert_eq!(status_of(&p, "text"), "failed");
    assert_eq!(status_of(&p, "receipt"), "blocked");
    let views = p["step_views"].as_array().unwrap();
    let note_view = views.iter().find(|v| v["id"] == "note").unwrap();
    let written = note_view["resolved"]["note"].as_str().unwrap();
    assert!(written.starts_with("Could not text: "), "{written}");
    assert!(
        written.len() > "Could not text: ".len(),
        "the error is named: {written}"
    );
    let (s, body) = decide(
        &app,
        &c.org,
        plan.id,
        json!({"kind": "confirm", "step": "note", "arguments_hash": hash_of(&p, "note")}),
    )
    .await;
    assert_eq!(s, 200, "{body}");
    let p = until(&app, &c.org, plan.id, |p| {
        ["done", "failed"].contains(&p["status"].as_str().unwrap_or_default())
    })
    .await;
    assert_eq!(
        p["status"], "done",
        "the failure was handled: {}",
        p["error"]
    );
    assert_eq!(status_of(&p, "tag"), "completed");
    assert_eq!(status_of(&p, "note"), "completed");
    let boris: Value = app
        .ok_as(&c.org.client, "/api/contacts/get", json!({"id": c.boris}))
        .await;
    assert!(boris.to_string().contains("Could not text: "), "{boris}");
    let k: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/get",
            json!({"id": c.katherine}),
        )
        .await;
    assert!(k["tags"].as_array().unwrap().contains(&json!("follow-up")));
    assert!(!k["tags"].as_array().unwrap().contains(&json!("ghost")));
}

/// A plan whose failure nothing handles still fails; a handler not needed is skipped.
async fn an_unhandled_failure_still_fails_the_plan(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let mut note = step(
        "note",
        "add_note",
        json!({"contact_id": c.katherine, "note": "Could not tag: {{tag.error}}"}),
    );
    note.on = Some(StepOn::Failure);
    let steps = vec![
        step(
            "tag",
            "tag_contacts",
            json!({"contacts": [c.katherine], "add": ["follow-up"]}),
        ),
        note,
        step(
            "text",
            "send_sms",
            json!({"contact_id": c.boris, "body": "Hi Boris"}),
        ),
    ];
    let plan = present(&app, c.org.org_id, steps).await.unwrap();
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let (s, body) = decide(&app, &c.org, plan.id, json!({"kind": "confirm_all"})).await;
    assert_eq!(s, 200, "{body}");
    let p = until(&app, &c.org, plan.id, |p| {
        ["done", "failed"].contains(&p["status"].as_str().unwrap_or_default())
    })
    .await;
    assert_eq!(status_of(&p, "tag"), "completed");
    assert_eq!(status_of(&p, "note"), "skipped");
    assert_eq!(
        find(&p["action"], "steps", "note")["error"],
        "not run: it runs only if tag fails"
    );
    assert_eq!(status_of(&p, "text"), "failed");
    assert_eq!(p["status"], "failed", "{p}");
}

on_both_databases!(
    conditions_and_failure_branches,
    an_unhandled_failure_still_fails_the_plan
);
