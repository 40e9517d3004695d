//! Step plans end to end (issue 11): a plan of tool calls is validated when presented, approved
//! as a whole, runs its reads, waits for a person to confirm each write with the arguments they
//! were shown, blocks what depends on a failed or skipped step while the rest goes on, and never
//! runs a completed step again.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use herald::plans::model::StepMode;
use serde_json::{json, Value};

async fn an_invalid_step_plan_is_refused_with_every_problem(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let err = present(
        &app,
        c.org.org_id,
        vec![
            step("find", "find_contacts", json!({"tag": "quote"})),
            step("zap", "delete_everything", json!({})),
            step(
                "tag",
                "tag_contacts",
                json!({"contacts": "{{find.result.people}}", "add": ["x"]}),
            ),
            step(
                "ghost",
                "add_note",
                json!({"contact_id": "{{nobody.result.id}}", "note": "x"}),
            ),
        ],
    )
    .await
    .unwrap_err()
    .to_string();
    for needle in [
        "`delete_everything` is not a tool",
        "result.people",
        "`nobody`",
    ] {
        assert!(err.contains(needle), "{needle} in {err}");
    }
    assert_eq!(
        app.count("ai_agent_plan").await,
        0,
        "an invalid plan is never shown"
    );
}

async fn writes_wait_for_confirmation_of_what_they_will_do(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let plan = present(
        &app,
        c.org.org_id,
        vec![
            step(
                "find",
                "find_contacts",
                json!({"tag": "quote", "no_reply_in_days": 14, "opted_out": false}),
            ),
            step(
                "tag",
                "tag_contacts",
                json!({"contacts": "{{find.result.contacts}}", "add": ["follow-up"]}),
            ),
            step(
                "note",
                "add_note",
                json!({"contact_id": "{{find.result.contacts[0].id}}", "note": "Checked in"}),
            ),
            step("tags", "list_tags", json!({})),
        ],
    )
    .await
    .unwrap();
    let p = get(&app, &c.org, plan.id).await;
    assert_eq!(p["status"], "awaiting_approval");
    assert_eq!(
        status_of(&p, "find"),
        "ready",
        "nothing runs before approval"
    );
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "tag") == "awaiting_confirmation"
            && status_of(p, "note") == "awaiting_confirmation"
            && status_of(p, "tags") == "completed"
    })
    .await;
    assert_eq!(status_of(&p, "find"), "completed");
    // The card shows the writes' arguments as they will run: Katherine and Linus, by id.
    let views = p["step_views"].as_array().unwrap();
    let tag = views.iter().find(|s| s["id"] == "tag").unwrap();
    assert_eq!(tag["mutates"], true);
    let ids: Vec<&str> = tag["resolved"]["contacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&c.katherine.to_string().as_str())
            && ids.contains(&c.linus.to_string().as_str()),
        "{ids:?}"
    );
    assert!(!ids.contains(&c.boris.to_string().as_str()), "opted out");
    // Nothing written yet.
    let k: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/get",
            json!({"id": c.katherine}),
        )
        .await;
    assert!(!k["tags"].as_array().unwrap().contains(&json!("follow-up")));

    // A confirmation for other arguments than these is refused.
    let (status, _) = decide(
        &app,
        &c.org,
        plan.id,
        json!({"kind": "confirm", "step": "tag", "arguments_hash": "0000"}),
    )
    .await;
    assert_eq!(status, 409);
    let (status, reply) = decide(
        &app,
        &c.org,
        plan.id,
        json!({"kind": "confirm", "step": "tag", "arguments_hash": hash_of(&p, "tag")}),
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "tag") == "completed"
    })
    .await;
    assert_eq!(
        status_of(&p, "note"),
        "awaiting_confirmation",
        "only the confirmed step ran"
    );
    for id in [c.katherine, c.linus] {
        let v: Value = app
            .ok_as(&c.org.client, "/api/contacts/get", json!({"id": id}))
            .await;
        assert!(
            v["tags"].as_array().unwrap().contains(&json!("follow-up")),
            "{v}"
        );
    }
    // Skipping the note ends the plan: done, with nothing failed.
    let (status, reply) = decide(
        &app,
        &c.org,
        plan.id,
        json!({"kind": "skip", "step": "note"}),
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    let p = until(&app, &c.org, plan.id, |p| p["status"] == "done").await;
    assert_eq!(status_of(&p, "note"), "skipped");
    assert_eq!(app.count_where("tool_effect", "tool = 'add_note'").await, 0);

    // Run again (a restart finds it): completed steps never run again.
    let effects = app.count("tool_effect").await;
    herald::plans::executor::execute_plan(&app.state, plan.id).await;
    assert_eq!(app.count("tool_effect").await, effects);
    let audit = p["audit"].as_array().unwrap();
    assert!(audit
        .iter()
        .any(|a| a["kind"] == "step_confirmed" && a["actor_name"].is_string()));
}

async fn a_failed_step_blocks_its_dependents_and_the_rest_go_on(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    // A contact with no phone: the text to them fails when it runs.
    let v: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/create",
            json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": "Nora Nophone", "phone": "", "email": "nora@example.com", "tags": []}}),
        )
        .await;
    let nora = v["id"].as_str().unwrap();
    let plan = present(
        &app,
        c.org.org_id,
        vec![
            step(
                "who",
                "send_sms",
                json!({"contact_id": nora, "body": "Hello"}),
            ),
            step(
                "note",
                "add_note",
                json!({"contact_id": nora, "note": "Texted ({{who.result.message_id}})"}),
            ),
            step("tags", "list_tags", json!({})),
        ],
    )
    .await
    .unwrap();
    // A contact the organisation does not have is refused when presented.
    let stranger = present(
        &app,
        c.org.org_id,
        vec![step(
            "x",
            "get_contact",
            json!({"contact_id": uuid::Uuid::new_v4()}),
        )],
    )
    .await;
    assert!(stranger.is_err());
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "who") == "awaiting_confirmation"
    })
    .await;
    let (status, reply) = decide(
        &app,
        &c.org,
        plan.id,
        json!({"kind": "confirm", "step": "who", "arguments_hash": hash_of(&p, "who")}),
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    let p = until(&app, &c.org, plan.id, |p| p["status"] == "failed").await;
    assert_eq!(status_of(&p, "who"), "failed");
    assert_eq!(status_of(&p, "note"), "blocked");
    assert_eq!(status_of(&p, "tags"), "completed");
    let steps = p["action"]["steps"].as_array().unwrap();
    let note = steps.iter().find(|s| s["id"] == "note").unwrap();
    assert_eq!(note["error"], "depends on failed step who");
    assert!(
        p["error"].as_str().unwrap().contains("1 step(s) failed"),
        "{p}"
    );
}

async fn confirming_a_text_is_an_owners_call(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let member = app.add_member(&c.org, "Mo").await;
    let number = app.add_number(&c.org, "+14155550109").await;
    // The member's own Assistant plans the text: they see it and approve it, but a text is an
    // owner's call.
    let plan = present_by(
        &app,
        &member_assistant(&app, &member).await,
        None,
        herald::plans::model::ApprovalPolicy::HumanReview,
        herald::plans::model::StepMode::Eager,
        vec![step(
            "text",
            "send_sms",
            json!({"contact_id": c.katherine, "body": "Checking in", "phone_number_id": number}),
        )],
    )
    .await
    .unwrap();
    let p = get(&app, &c.org, plan.id).await;
    assert_eq!(
        p["estimated_cost"]["texts"], 1,
        "a text's cost shows before approval"
    );
    let _: Value = app
        .ok_as(&member.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "text") == "awaiting_confirmation"
    })
    .await;
    let confirm = json!({"kind": "confirm", "step": "text", "arguments_hash": hash_of(&p, "text")});
    let (status, _) = decide(&app, &member, plan.id, confirm.clone()).await;
    assert_eq!(status, 403);
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        0
    );
    let (status, reply) = decide(&app, &c.org, plan.id, confirm).await;
    assert_eq!(status, 200, "{reply}");
    until(&app, &c.org, plan.id, |p| p["status"] == "done").await;
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        1
    );
}

/// The offline model plans a fan-out from what it found; the runtime refuses the text to Boris
/// (he opted out), which blocks the note that depends on it while everyone else's go on.
async fn the_offline_model_plans_a_fan_out_and_a_refused_text_blocks_its_note(backend: Backend) {
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
    let plans = crate::plan_support::plans(&app, &c.org).await;
    assert_eq!(plans.len(), 1, "{plans:?}");
    let id: uuid::Uuid = plans[0]["id"].as_str().unwrap().parse().unwrap();
    let steps = plans[0]["action"]["steps"].as_array().unwrap();
    // find, tag, then a text and a note for each of the four quote leads.
    assert_eq!(steps.len(), 2 + 4 * 2, "{steps:?}");
    assert_eq!(
        steps[2]["arguments"]["contact_id"],
        "{{find.result.contacts[0].id}}"
    );
    assert!(
        steps[2]["arguments"]["phone_number_id"].is_string(),
        "the default number is named"
    );
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": id}))
        .await;
    let p = until(&app, &c.org, id, |p| {
        status_of(p, "tag") == "awaiting_confirmation"
    })
    .await;
    assert_eq!(status_of(&p, "text_0"), "awaiting_confirmation");
    assert_eq!(
        status_of(&p, "note_0"),
        "ready",
        "its input is not there yet"
    );
    // Another member may not confirm the steps: the owner's Assistant plan is private.
    let member = app.add_member(&c.org, "Mo").await;
    let (status, _) = decide(&app, &member, id, json!({"kind": "confirm_all"})).await;
    assert_eq!(status, 404);
    // Confirm all remaining: the tag and the texts now, the notes as their inputs arrive.
    let (status, reply) = decide(&app, &c.org, id, json!({"kind": "confirm_all"})).await;
    assert_eq!(status, 200, "{reply}");
    let p2 = until(&app, &c.org, id, |p| p["status"] == "failed").await;
    let p = &p2;
    // Boris Becker is the second quote lead by name: his text is refused, his note blocked.
    assert_eq!(status_of(&p2, "text_1"), "failed", "{p}");
    assert_eq!(status_of(&p2, "note_1"), "blocked");
    for i in [0, 2, 3] {
        assert_eq!(status_of(&p2, &format!("note_{i}")), "completed");
    }
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        3
    );
    assert!(crate::plan_support::tags_of(&app, &c.org, c.katherine)
        .await
        .contains(&"follow-up".to_owned()));
}

/// Lazy mode: approval runs nothing, and each Continue runs exactly one step.
async fn lazy_runs_one_step_per_continue(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let plan = present_in(
        &app,
        c.org.org_id,
        StepMode::Lazy,
        vec![
            step("tags", "list_tags", json!({})),
            step("find", "find_contacts", json!({"tag": "quote"})),
            step("count", "find_quiet_contacts", json!({"days": 30})),
        ],
    )
    .await
    .unwrap();
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let done = |p: &Value| {
        p["action"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["status"] == "completed")
            .count()
    };
    let p = until(&app, &c.org, plan.id, |p| p["status"] == "executing").await;
    app.settle().await;
    assert_eq!(
        done(&get(&app, &c.org, plan.id).await),
        0,
        "approval runs no step: {p}"
    );
    for n in 1..=3 {
        let (status, reply) = decide(&app, &c.org, plan.id, json!({"kind": "continue"})).await;
        assert_eq!(status, 200, "{reply}");
        let p = until(&app, &c.org, plan.id, |p| done(p) >= n).await;
        app.settle().await;
        assert_eq!(
            done(&get(&app, &c.org, plan.id).await),
            n,
            "one step per Continue: {p}"
        );
    }
    until(&app, &c.org, plan.id, |p| p["status"] == "done").await;
}

on_both_databases!(
    lazy_runs_one_step_per_continue,
    the_offline_model_plans_a_fan_out_and_a_refused_text_blocks_its_note,
    an_invalid_step_plan_is_refused_with_every_problem,
    writes_wait_for_confirmation_of_what_they_will_do,
    a_failed_step_blocks_its_dependents_and_the_rest_go_on,
    confirming_a_text_is_an_owners_call,
);
