//! A person steers a waiting step, and policies mean what they say (issue 29 §2).
//! - Edit before confirming: a text's body and a note's words are changed as typed, checked
//!   against the tool's schema, simulated again (an edit that would text an opted-out contact is
//!   refused, and nothing is lost or sent), re-hashed (a confirmation of the old words no longer
//!   counts), audited with what they were, told to the plan's thread, and kept as a learning
//!   signal. A member cannot edit a text, as they cannot confirm one.
//! - Auto runs every write without a confirmation except texts, which wait; a plan that texts
//!   is still approved by a person.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use herald::plans::model::{ApprovalPolicy, StepMode};
use serde_json::{json, Value};

on_both_databases!(
    a_waiting_step_is_edited_then_confirmed,
    auto_waives_every_write_but_a_text,
);

fn step_of<'a>(plan: &'a Value, id: &str) -> &'a Value {
    plan["action"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap()
}

async fn a_waiting_step_is_edited_then_confirmed(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let thread = assistant_thread(&app, &c.org).await;
    let plan = present_with(
        &app,
        c.org.org_id,
        Some(thread),
        ApprovalPolicy::HumanReview,
        StepMode::Eager,
        vec![
            step("find", "find_contacts", json!({"tag": "quote"})),
            step(
                "text",
                "send_sms",
                json!({"contact_id": c.katherine, "body": "Hi Katherine, checking in ({{find.result.count}} of you)."}),
            ),
            step(
                "note",
                "add_note",
                json!({"contact_id": c.linus, "note": "called"}),
            ),
        ],
    )
    .await
    .unwrap();
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    until(&app, &c.org, plan.id, |p| {
        status_of(p, "text") == "awaiting_confirmation"
            && status_of(p, "note") == "awaiting_confirmation"
    })
    .await;
    // The runner has paused: its last write of the steps is done before a person edits them.
    app.settle().await;
    let p = until(&app, &c.org, plan.id, |_| true).await;
    let old_hash = hash_of(&p, "text");
    let edit = |step: &str, arguments: Value, confirm: bool| json!({"kind": "edit", "step": step, "arguments": arguments, "confirm": confirm});

    // Refused, each saying why, and nothing changes: a field the tool does not take, a
    // reference, words past the schema's limit, a text to a contact who opted out.
    let refusals = [
        (
            edit("text", json!({"to": "+1"}), true),
            "takes no argument `to`",
        ),
        (
            edit("text", json!({"body": "Hi {{find.result.count}}"}), true),
            "cannot refer",
        ),
        (edit("note", json!({"note": ""}), true), "as edited"),
        (
            edit("text", json!({"contact_id": c.boris}), true),
            "would fail",
        ),
        (edit("find", json!({"query": "x"}), true), "not waiting"),
    ];
    for (action, why) in refusals {
        let (s, r) = decide(&app, &c.org, plan.id, action.clone()).await;
        assert!(s == 400 || s == 409, "{action} → {s} {r}");
        assert!(r.to_string().contains(why), "{why} in {r}");
    }
    assert_eq!(
        app.count_where("ai_agent_plan_audit", "kind = 'step_edited'")
            .await,
        0
    );
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        0
    );

    // The note's words change without confirming: the card shows them with a new hash, and a
    // confirmation of the old words is refused.
    let note_hash = hash_of(&p, "note");
    let (s, r) = decide(
        &app,
        &c.org,
        plan.id,
        edit(
            "note",
            json!({"note": "called, wants a quote by Friday"}),
            false,
        ),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(
        step_of(&r, "note")["arguments"]["note"],
        "called, wants a quote by Friday"
    );
    assert_ne!(hash_of(&r, "note"), note_hash);
    let (s, _) = decide(
        &app,
        &c.org,
        plan.id,
        json!({"kind": "confirm", "step": "note", "arguments_hash": note_hash}),
    )
    .await;
    assert_eq!(s, 409, "a confirmation of the old words");

    // The text's body is edited and confirmed in one go: it goes as edited, once.
    let (s, r) = decide(
        &app,
        &c.org,
        plan.id,
        edit(
            "text",
            json!({"body": "Hi Katherine, your quote is ready."}),
            true,
        ),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "text") == "completed"
    })
    .await;
    assert_ne!(hash_of(&p, "text"), old_hash);
    assert_eq!(
        app.count_where(
            "message",
            "direction = 'outbound' AND body LIKE '%Hi Katherine, your quote is ready.%'"
        )
        .await,
        1
    );
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        1
    );
    // The note, confirmed as edited, is written in its new words.
    let p = get(&app, &c.org, plan.id).await;
    let (s, r) = decide(
        &app,
        &c.org,
        plan.id,
        json!({"kind": "confirm", "step": "note", "arguments_hash": hash_of(&p, "note")}),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    let p = until(&app, &c.org, plan.id, |p| p["status"] == "done").await;
    assert!(
        step_of(&p, "note")["result"]
            .to_string()
            .contains("wants a quote by Friday"),
        "{p}"
    );

    // Audited with what it was, by whom.
    let audit = p["audit"].clone();
    let edits: Vec<&Value> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == "step_edited")
        .collect();
    assert_eq!(edits.len(), 2, "{audit}");
    let text_edit = edits.iter().find(|a| a["after"]["step"] == "text").unwrap();
    let was = format!(
        "Hi Katherine, checking in ({} of you).",
        step_of(&p, "find")["result"]["count"]
    );
    assert_eq!(
        text_edit["reason"].as_str().unwrap(),
        format!("body \"Hi Katherine, your quote is ready.\" (was \"{was}\")")
    );
    assert_eq!(text_edit["before"]["body"], was.as_str());
    assert_eq!(text_edit["actor"], "user", "{text_edit}");
    // Told to the thread, and kept as learning signals: the text's words as a draft edit.
    app.settle().await;
    let view: Value = app
        .ok_as(&c.org.client, "/api/assistant", Value::Null)
        .await;
    let told = view["events"].to_string();
    assert!(told.contains("edited step `text`"), "{told}");
    assert!(told.contains("your quote is ready"), "{told}");
    assert_eq!(
        app.count_where("ai_agent_learning", "kind = 'draft_edit'")
            .await,
        1
    );
    assert_eq!(
        app.count_where("ai_agent_learning", "kind = 'step_edit'")
            .await,
        1
    );
    // A member who directs their own Assistant may edit its note, but not its text: confirming
    // a text is an owner's call, and so is changing one.
    let member = app.add_member(&c.org, "Mo").await;
    let mine = member_assistant(&app, &member).await;
    let theirs = present_by(
        &app,
        &mine,
        None,
        ApprovalPolicy::HumanReview,
        StepMode::Eager,
        vec![
            step(
                "text",
                "send_sms",
                json!({"contact_id": c.linus, "body": "Hi Linus"}),
            ),
            step(
                "note",
                "add_note",
                json!({"contact_id": c.linus, "note": "texted"}),
            ),
        ],
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
            && status_of(p, "note") == "awaiting_confirmation"
    })
    .await;
    let (s, r) = decide(
        &app,
        &member,
        theirs.id,
        edit("text", json!({"body": "Hey"}), true),
    )
    .await;
    assert_eq!(s, 403, "{r}");
    let (s, r) = decide(
        &app,
        &member,
        theirs.id,
        edit("note", json!({"note": "texted twice"}), true),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    until(&app, &member, theirs.id, |p| {
        status_of(p, "note") == "completed"
    })
    .await;
    assert_eq!(
        app.count_where("message", "direction = 'outbound' AND body = 'Hey'")
            .await,
        0
    );

    // A finished step takes no edit.
    let (s, _) = decide(
        &app,
        &c.org,
        plan.id,
        edit("text", json!({"body": "again"}), true),
    )
    .await;
    assert_eq!(s, 409);
}

async fn auto_waives_every_write_but_a_text(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    // No text: approved without a person, and every write runs unconfirmed, a tag per item too.
    let plan = present_with(
        &app,
        c.org.org_id,
        None,
        ApprovalPolicy::Auto,
        StepMode::Eager,
        vec![
            step("find", "find_contacts", json!({"tag": "quote"})),
            step(
                "tag",
                "tag_contacts",
                json!({"contacts": ["{{item.id}}"], "add": ["followed-up"]}),
            )
            .each(json!("{{find.result.contacts}}")),
            step(
                "note",
                "add_note",
                json!({"contact_id": c.linus, "note": "followed up"}),
            ),
        ],
    )
    .await
    .unwrap();
    let p = until(&app, &c.org, plan.id, |p| p["status"] == "done").await;
    for id in ["tag", "note"] {
        assert_eq!(status_of(&p, id), "completed", "{p}");
        assert!(step_of(&p, id)["confirmation"].is_null(), "{p}");
    }
    // With a text: a person approves the plan; the note runs, and the text waits.
    let plan = present_with(
        &app,
        c.org.org_id,
        None,
        ApprovalPolicy::Auto,
        StepMode::Eager,
        vec![
            step(
                "note",
                "add_note",
                json!({"contact_id": c.linus, "note": "texting"}),
            ),
            step(
                "text",
                "send_sms",
                json!({"contact_id": c.linus, "body": "Hi Linus"}),
            ),
        ],
    )
    .await
    .unwrap();
    assert_eq!(
        get(&app, &c.org, plan.id).await["status"],
        "awaiting_approval"
    );
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "note") == "completed" && status_of(p, "text") == "awaiting_confirmation"
    })
    .await;
    assert!(step_of(&p, "note")["confirmation"].is_null());
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        0
    );
}
