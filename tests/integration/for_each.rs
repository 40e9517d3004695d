//! `for_each` steps (issue 27 §2): one step runs its tool once per item, each item under its own
//! effect key and row; a refused item blocks only its own item downstream; confirmation covers
//! the whole step (its template, item count, a rendered sample and the cost); the dry run
//! simulates every item and writes nothing. The SIGKILL run over 1,000 items is in `step_crash`.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use serde_json::{json, Value};

/// find the quote leads → text each → note each text that went.
fn plan_steps() -> Vec<herald::plans::model::PlanStep> {
    vec![
        step("find", "find_contacts", json!({"tag": "quote"})),
        step(
            "text",
            "send_sms",
            json!({"contact_id": "{{item.id}}", "body": "Hi {{item.name}}, checking in."}),
        )
        .each(json!("{{find.result.contacts}}")),
        step(
            "note",
            "add_note",
            json!({"contact_id": "{{item.id}}", "note": "Texted (message {{text.result.message_id}})."}),
        )
        .each(json!("{{text.result.items}}")),
    ]
}

fn view_of<'a>(p: &'a Value, id: &str) -> &'a Value {
    p["step_views"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap()
}

fn result_of<'a>(p: &'a Value, id: &str) -> &'a Value {
    &p["action"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap()["result"]
}

async fn a_for_each_runs_once_per_item_and_a_refused_item_blocks_only_its_own(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let plan = present(&app, c.org.org_id, plan_steps()).await.unwrap();
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "text") == "awaiting_confirmation"
    })
    .await;
    // Confirming covers the whole step: the template, the item count, a sample and the cost.
    let each = &view_of(&p, "text")["each"];
    assert_eq!(each["count"], 4, "{each}");
    assert_eq!(each["sample"].as_array().unwrap().len(), 3);
    assert_eq!(each["sample"][0]["body"], "Hi Alan Turing, checking in.");
    // The same, as a person reads it: to whom, the item's name marked where it fills in.
    let line = &each["readable"][0];
    assert_eq!(line["label"], "To Alan Turing:", "{each}");
    assert_eq!(
        line["parts"][1],
        json!({"text": "Alan Turing", "filled": true})
    );
    // The step's own lines: each contact, and where the name comes from.
    let lines = &view_of(&p, "text")["readable"];
    let line = |arg: &str| {
        lines
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["arg"] == arg)
            .unwrap_or_else(|| panic!("no {arg} in {lines}"))
            .clone()
    };
    assert_eq!(line("contact_id")["parts"][0]["text"], "each contact");
    assert_eq!(
        line("phone_number_id")["parts"][0]["text"],
        "Main · +14155550100"
    );
    assert_eq!(line("body")["parts"][1]["text"], "‹each one's name›");
    assert!(each["cost"].as_str().unwrap().contains("4 texts"), "{each}");
    assert_eq!(
        view_of(&p, "text")["resolved"]["arguments"]["body"],
        "Hi {{item.name}}, checking in."
    );
    assert_eq!(
        status_of(&p, "note"),
        "ready",
        "its items are not there yet"
    );
    assert_eq!(
        p["estimated_cost"]["texts"], 4,
        "a text per item: {}",
        p["estimated_cost"]
    );
    let (s, r) = decide(
        &app,
        &c.org,
        plan.id,
        json!({"kind": "confirm", "step": "text", "arguments_hash": hash_of(&p, "text")}),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    let p = until(&app, &c.org, plan.id, |p| {
        status_of(p, "note") == "awaiting_confirmation"
    })
    .await;
    // Boris opted out: his text was refused, the other three went.
    let text = result_of(&p, "text");
    assert_eq!(
        (&text["completed"], &text["failed"]),
        (&json!(3), &json!(1)),
        "{text}"
    );
    assert!(
        view_of(&p, "text")["each"]["progress"]
            .as_str()
            .unwrap()
            .starts_with("3 of 4 sent · 1 refused"),
        "{p}"
    );
    assert_eq!(
        view_of(&p, "note")["each"]["count"],
        3,
        "the texts that went"
    );
    let (s, r) = decide(
        &app,
        &c.org,
        plan.id,
        json!({"kind": "confirm", "step": "note", "arguments_hash": hash_of(&p, "note")}),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    let p = until(&app, &c.org, plan.id, |p| p["status"] == "done").await;
    let note = result_of(&p, "note");
    assert_eq!(
        (&note["completed"], &note["blocked"]),
        (&json!(3), &json!(1)),
        "{note}"
    );
    assert_eq!(
        app.count_where("message", "direction = 'outbound'").await,
        3
    );
    assert_eq!(
        app.count_where("plan_step_item", "step_id = 'note' AND status = 'blocked'")
            .await,
        1
    );
    // Each note names its own text, and Boris has none.
    for who in [c.katherine, c.linus] {
        let contact: Value = app
            .ok_as(&c.org.client, "/api/contacts/get", json!({"id": who}))
            .await;
        let notes = contact["notes"].as_str().unwrap();
        assert_eq!(notes.matches("Texted (message ").count(), 1, "{notes}");
    }
    let boris: Value = app
        .ok_as(&c.org.client, "/api/contacts/get", json!({"id": c.boris}))
        .await;
    assert!(!boris["notes"].as_str().unwrap().contains("Texted"));
    // Each step's state is its own row; the plan's JSON is the plan as it was approved, never
    // rewritten as the steps moved.
    assert_eq!(
        app.count_where("plan_step", "status = 'completed'").await,
        3,
        "find, text and note"
    );
    let stored = {
        use sea_orm::EntityTrait;
        herald::plans::entity::plan::Entity::find_by_id(plan.id)
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
    };
    assert_eq!(stored.action_payload, plan.action_payload);
    assert!(
        stored.action_payload["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s.get("result").is_none()),
        "no result in the plan's JSON"
    );
}

async fn the_dry_run_of_a_for_each_simulates_every_item_and_writes_nothing(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let plan = present(&app, c.org.org_id, plan_steps()).await.unwrap();
    let (effects, messages) = (app.count("tool_effect").await, app.count("message").await);
    let sim: Value = app
        .ok_as(&c.org.client, "/api/plans/simulate", json!({"id": plan.id}))
        .await;
    assert_eq!(
        (&sim["texts"], &sim["refused"]),
        (&json!(3), &json!(1)),
        "{sim}"
    );
    let text = sim["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "text")
        .unwrap();
    assert!(
        text["effect"]
            .as_str()
            .unwrap()
            .starts_with("Would be 3 of 4 sent"),
        "{text}"
    );
    assert_eq!(app.count("plan_step_item").await, 0);
    assert_eq!(app.count("plan_step").await, 0);
    assert_eq!(app.count("message").await, messages);
    assert_eq!(app.count("tool_effect").await, effects);
}

async fn a_for_each_is_refused_when_it_names_no_list(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let mut steps = plan_steps();
    steps[2] = steps[2].clone().each(json!("{{text.result.count}}"));
    steps.push(step(
        "stray",
        "add_note",
        json!({"contact_id": "{{item.id}}", "note": "x"}),
    ));
    let err = present(&app, c.org.org_id, steps)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("names an item, but the step has no for_each"),
        "{err}"
    );
    assert!(err.contains("{{text.result.items}}"), "{err}");
    assert_eq!(app.count("ai_agent_plan").await, 0);
}

on_both_databases!(
    a_for_each_runs_once_per_item_and_a_refused_item_blocks_only_its_own,
    the_dry_run_of_a_for_each_simulates_every_item_and_writes_nothing,
    a_for_each_is_refused_when_it_names_no_list
);
