//! What a step plan leaves in its authoring thread (issue 11 §7), and RiskGated waiving the
//! per-step confirmation of a low-risk write but never of a text (§5).
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use herald::plans::model::{ApprovalPolicy, StepMode};
use serde_json::{json, Value};

async fn a_plan_tells_its_thread_what_happened_and_risk_gated_waives_small_writes(
    backend: Backend,
) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let thread = assistant_thread(&app, &c.org).await;
    let plan = present_with(
        &app,
        c.org.org_id,
        Some(thread),
        ApprovalPolicy::RiskGated,
        StepMode::Eager,
        vec![
            step("tags", "list_tags", json!({})),
            step(
                "note",
                "add_note",
                json!({"contact_id": c.linus, "note": "{{tags.result.tags[0].tag}} lead"}),
            ),
            step("gone", "get_contact", json!({"contact_id": c.katherine})),
        ],
    )
    .await
    .unwrap();
    // Low risk by the policy: approved without a person, and the note (one contact, no text)
    // runs without a confirmation.
    let p = until(&app, &c.org, plan.id, |p| p["status"] == "done").await;
    assert_eq!(status_of(&p, "note"), "completed", "{p}");
    assert!(p["action"]["steps"][1]["confirmation"].is_null());
    app.settle().await;
    let notes = thread_notes(&app, &c.org).await;
    assert!(notes[0].contains("approved automatically"), "{notes:?}");
    for needle in [
        "Step `tags` (list_tags) completed",
        "Step `note` (add_note) completed",
        "Step `gone` (get_contact) completed",
        "is done: 3 of 3 steps completed",
    ] {
        assert!(
            notes.iter().any(|n| n.contains(needle)),
            "{needle} in {notes:?}"
        );
    }
    assert_eq!(notes.len(), 5, "each told once: {notes:?}");

    // Under RiskGated a text still waits for a person, and a failure reaches the thread too.
    let plan = present_with(
        &app,
        c.org.org_id,
        Some(thread),
        ApprovalPolicy::RiskGated,
        StepMode::Eager,
        vec![step(
            "text",
            "send_sms",
            json!({"contact_id": c.boris, "body": "Hi Boris"}),
        )],
    )
    .await
    .unwrap();
    let p = get(&app, &c.org, plan.id).await;
    assert_eq!(p["status"], "awaiting_approval", "a text is never low-risk");
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "text") == "awaiting_confirmation"
    })
    .await;
    let (status, reply) = decide(
        &app,
        &c.org,
        plan.id,
        json!({"kind": "confirm", "step": "text", "arguments_hash": hash_of(&p, "text")}),
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    until(&app, &c.org, plan.id, |p| p["status"] == "failed").await;
    app.settle().await;
    let notes = thread_notes(&app, &c.org).await;
    assert!(
        notes.iter().any(|n| n.contains("was approved by a person")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("Step `text` (send_sms) failed") && n.contains("opted out")),
        "{notes:?}"
    );
    assert!(
        notes.last().unwrap().contains("failed: 1 step(s) failed"),
        "{notes:?}"
    );
}

on_both_databases!(a_plan_tells_its_thread_what_happened_and_risk_gated_waives_small_writes);
