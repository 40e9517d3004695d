//! The dry run of a step plan (issue 11 §4): reads run for real, each write goes through its
//! simulator (the send's own checks: opt-out; quiet hours, which a plan's text waits out), the card gets each step's predicted
//! effect and the totals, and nothing at all is written: the whole database is compared.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::*;
use serde_json::{json, Value};

fn predicted<'a>(sim: &'a Value, id: &str) -> &'a Value {
    sim["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("{id} in {sim}"))
}

async fn a_dry_run_predicts_every_step_and_writes_nothing(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    // 16:00 UTC is 01:00 in Tokyo: a text to Yuki would be held by her quiet hours.
    let yuki = yuki_in_tokyo(&app, &c.org, &["quote"]).await.to_string();
    let plan = present(
        &app,
        c.org.org_id,
        vec![
            step("find", "find_contacts", json!({"tag": "quote"})),
            step(
                "tag",
                "tag_contacts",
                json!({"contacts": "{{find.result.contacts}}", "add": ["follow-up"]}),
            ),
            step(
                "kat",
                "send_sms",
                json!({"contact_id": c.katherine, "body": "Hi Katherine, any questions about the quote?"}),
            ),
            step(
                "boris",
                "send_sms",
                json!({"contact_id": c.boris, "body": "Hi Boris"}),
            ),
            step(
                "boris_note",
                "add_note",
                json!({"contact_id": c.boris, "note": "Texted ({{boris.result.message_id}})"}),
            ),
            step(
                "yuki",
                "send_sms",
                json!({"contact_id": yuki, "body": "Hi Yuki"}),
            ),
            step(
                "stage",
                "set_custom_field",
                json!({"contact_id": c.linus, "field": "stage", "value": "{{find.result.count}} leads"}),
            ),
        ],
    )
    .await
    .unwrap();
    app.settle().await;
    let before = app.snapshot().await;
    let sent_before = app.count("message").await;
    let sim: Value = app
        .ok_as(&c.org.client, "/api/plans/simulate", json!({"id": plan.id}))
        .await;
    app.settle().await;
    // Reads ran for real: the tag step's preview lists every quote lead the find returned.
    let find = predicted(&sim, "find");
    assert_eq!(find["status"], "completed", "{sim}");
    let found = find["result"]["count"].as_u64().unwrap();
    assert!(found >= 4, "{find}");
    let tag = predicted(&sim, "tag");
    assert_eq!(tag["result"]["changed"].as_u64(), Some(found), "{tag}");
    assert!(tag["result"]["contacts"][0]["tags"]
        .as_array()
        .unwrap()
        .contains(&json!("follow-up")));
    // The text that may go: recipient, from-number, segments and cost.
    let kat = predicted(&sim, "kat");
    assert_eq!(kat["status"], "completed", "{kat}");
    assert_eq!(kat["result"]["to"], "+14155552674");
    assert_eq!(kat["result"]["from"], "+14155550100");
    assert_eq!(kat["result"]["segments"], 1);
    assert_eq!(kat["result"]["sent"], false);
    assert!(kat["effect"]
        .as_str()
        .unwrap()
        .starts_with("Would text Katherine Johnson (+14155552674) from +14155550100"));
    // Refused as a send would be: the opt-out, and quiet hours in the recipient's zone.
    let boris = predicted(&sim, "boris");
    assert_eq!(boris["status"], "failed");
    assert!(
        boris["error"].as_str().unwrap().contains("opted out"),
        "{boris}"
    );
    assert_eq!(predicted(&sim, "boris_note")["status"], "blocked");
    // Quiet hours hold a plan's text for the window, as a campaign's: it would go then.
    let yuki_p = predicted(&sim, "yuki");
    assert_eq!(yuki_p["status"], "completed", "{yuki_p}");
    let effect = yuki_p["effect"].as_str().unwrap();
    assert!(
        effect.starts_with("Would text Yuki") && effect.contains("quiet hours"),
        "{yuki_p}"
    );
    // References resolve through the simulation: the field's value carries the find's count.
    let stage = predicted(&sim, "stage");
    assert_eq!(stage["result"]["value"], format!("{found} leads"));
    assert_eq!(
        (sim["texts"].as_u64(), sim["segments"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(sim["refused"], 1);
    assert_eq!(sim["blocked"], 1);
    assert_eq!(
        sim["writes"], 4,
        "tag, the texts to Katherine and (in her window) Yuki, the field"
    );
    // Nothing was written anywhere, and nothing was sent.
    assert_eq!(app.snapshot().await, before, "the dry run wrote nothing");
    assert_eq!(app.count("message").await, sent_before);
    // The plan is still waiting for approval, its steps untouched.
    let p = get(&app, &c.org, plan.id).await;
    assert_eq!(p["status"], "awaiting_approval");
    assert_eq!(status_of(&p, "find"), "ready");
    // Another organisation's plan is not found.
    let other = app.new_org("Other Co").await;
    let (status, _) = app
        .call_as(&other.client, "/api/plans/simulate", json!({"id": plan.id}))
        .await;
    assert_eq!(status.as_u16(), 404);
}

async fn a_simulation_mid_run_keeps_what_already_ran(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let plan = present(
        &app,
        c.org.org_id,
        vec![
            step("tags", "list_tags", json!({})),
            step(
                "note",
                "add_note",
                json!({"contact_id": c.linus, "note": "Has {{tags.result.tags[0].tag}}"}),
            ),
        ],
    )
    .await
    .unwrap();
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    until(&app, &c.org, plan.id, |p| {
        status_of(p, "note") == "awaiting_confirmation"
    })
    .await;
    app.settle().await;
    let before = app.snapshot().await;
    let sim: Value = app
        .ok_as(&c.org.client, "/api/plans/simulate", json!({"id": plan.id}))
        .await;
    let tags = predicted(&sim, "tags");
    assert_eq!(tags["already"], true, "{sim}");
    let first = tags["result"]["tags"][0]["tag"].as_str().unwrap();
    let note = predicted(&sim, "note");
    assert_eq!(note["already"], false);
    let notes = note["result"]["notes"].as_str().unwrap();
    assert!(notes.ends_with(&format!(": Has {first}")), "{note}");
    assert_eq!(app.snapshot().await, before, "the dry run wrote nothing");
}

on_both_databases!(
    a_dry_run_predicts_every_step_and_writes_nothing,
    a_simulation_mid_run_keeps_what_already_ran,
);
