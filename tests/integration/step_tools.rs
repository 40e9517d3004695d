//! The tools a plan's steps call (issue 11): each answers exactly what its output schema says,
//! keyed writes happen once however often they are re-run, and another organisation's contacts
//! are out of reach.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::entity::ai_agent;
use herald::ai_agent::tools::{EffectKey, ToolCtx, ToolError, TurnScope};
use herald::auth::model::Role;
use herald::auth::session::Member;
use herald::phone_numbers::entity as phone_number;
use herald::steps::catalog::step_catalog;
use herald::tools::step_tools;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use uuid::Uuid;

fn operator_ctx(app: &TestApp, agent: &ai_agent::Model) -> ToolCtx {
    let organization_id = agent.organization_id.unwrap();
    ToolCtx {
        state: app.state.clone(),
        agent: agent.clone(),
        organization_id,
        thread_id: Uuid::new_v4(),
        member: Some(Member {
            user_id: agent.user_id.unwrap(),
            organization_id,
            role: Role::Owner,
        }),
        reply: None,
        scope: TurnScope::Operator,
        plan_id: None,
        taint: Default::default(),
        knowledge: Default::default(),
    }
}

async fn call(ctx: &ToolCtx, tool: &str, key: &str, args: Value) -> Result<Value, ToolError> {
    let tools = step_tools();
    let t = tools.iter().find(|t| t.def().name == tool).unwrap();
    t.call(ctx, &EffectKey::named(key), args).await
}

async fn contact(app: &TestApp, org: &Org, id: Uuid) -> Value {
    app.ok_as(&org.client, "/api/contacts/get", json!({"id": id}))
        .await
}

async fn every_step_tool_answers_its_output_schema(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let agent = assistant_agent(&app, c.org.org_id).await;
    let mut ctx = operator_ctx(&app, &agent);
    // A campaign starts only as a plan's step: this context runs for a plan.
    let owner_plan = crate::step_plan_support::present(
        &app,
        c.org.org_id,
        vec![crate::step_plan_support::step("t", "list_tags", json!({}))],
    )
    .await
    .unwrap();
    ctx.plan_id = Some(owner_plan.id);
    let number = phone_number::Entity::find()
        .filter(phone_number::Column::OrganizationId.eq(c.org.org_id))
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap()
        .id;
    let calls = [
        ("get_contact", json!({"contact_id": c.katherine})),
        ("search_contacts", json!({"query": "quote"})),
        ("recent_messages", json!({"contact_id": c.katherine})),
        ("check_opt_out", json!({"contact_id": c.boris})),
        ("find_quiet_contacts", json!({"days": 14})),
        (
            "find_contacts",
            json!({"tag": "quote", "no_reply_in_days": 14}),
        ),
        ("list_tags", json!({})),
        (
            "tag_contacts",
            json!({"contacts": [{"id": c.katherine}, c.linus], "add": ["follow-up"]}),
        ),
        (
            "set_custom_field",
            json!({"contact_id": c.katherine, "field": "tier", "value": "gold"}),
        ),
        (
            "add_note",
            json!({"contact_id": c.katherine, "note": "Asked about the quote"}),
        ),
        (
            "send_sms",
            json!({"contact_id": c.katherine, "body": "Checking in", "phone_number_id": number}),
        ),
        (
            "schedule_text",
            json!({"contact_id": c.linus, "body": "Following up", "in_hours": 48, "phone_number_id": number}),
        ),
        (
            "start_campaign",
            json!({"contacts": [c.katherine, {"id": c.linus}], "message_concept": "Checking in on the quote", "phone_number_id": number}),
        ),
    ];
    let catalog = step_catalog(&step_tools());
    let mut seen = BTreeSet::new();
    for (tool, args) in calls {
        let out = call(&ctx, tool, &format!("schema-{tool}"), args)
            .await
            .unwrap_or_else(|e| panic!("{tool}: {e}"));
        let schema = &catalog[tool].output;
        let v = jsonschema::validator_for(schema).unwrap();
        let errors: Vec<String> = v.iter_errors(&out).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{tool} answered {out} against {schema}: {errors:?}"
        );
        seen.insert(tool);
    }
    let all: BTreeSet<&str> = catalog.keys().map(String::as_str).collect();
    assert_eq!(seen, all, "every step tool was called");

    // What the reads found is what the writes did.
    let k = contact(&app, &c.org, c.katherine).await;
    assert!(k["tags"].as_array().unwrap().contains(&json!("follow-up")));
    assert_eq!(k["custom_fields"]["tier"], "gold");
    assert!(k["notes"]
        .as_str()
        .unwrap()
        .ends_with(": Asked about the quote"));
}

async fn keyed_writes_happen_once(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let ctx = operator_ctx(&app, &assistant_agent(&app, c.org.org_id).await);
    let note = json!({"contact_id": c.linus, "note": "Prefers mornings"});
    let first = call(&ctx, "add_note", "plan:1:note:h1", note.clone())
        .await
        .unwrap();
    // The same step re-run (a crash, a retry), twice, and at once with itself.
    let again = call(&ctx, "add_note", "plan:1:note:h1", note.clone())
        .await
        .unwrap();
    let (a, b) = tokio::join!(
        call(&ctx, "add_note", "plan:1:note:h1", note.clone()),
        call(&ctx, "add_note", "plan:1:note:h1", note.clone())
    );
    assert_eq!(first, again);
    for r in [a, b] {
        assert_eq!(r.unwrap(), first);
    }
    let notes = contact(&app, &c.org, c.linus).await["notes"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(notes.matches("Prefers mornings").count(), 1, "{notes}");
    // Another key is another note.
    call(&ctx, "add_note", "plan:2:note:h1", note)
        .await
        .unwrap();
    let notes = contact(&app, &c.org, c.linus).await["notes"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(notes.matches("Prefers mornings").count(), 2, "{notes}");
    assert_eq!(app.count("tool_effect").await, 2);
}

async fn another_organisations_contacts_are_out_of_reach(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let other = app.new_org("Other Co").await;
    let theirs = app
        .add_contact(&other, "Their Contact", "+14155559999")
        .await;
    let ctx = operator_ctx(&app, &assistant_agent(&app, c.org.org_id).await);
    for (tool, args) in [
        (
            "tag_contacts",
            json!({"contacts": [c.katherine, theirs], "add": ["mine"]}),
        ),
        (
            "set_custom_field",
            json!({"contact_id": theirs, "field": "x", "value": "y"}),
        ),
        ("add_note", json!({"contact_id": theirs, "note": "hello"})),
        ("get_contact", json!({"contact_id": theirs})),
    ] {
        let err = call(&ctx, tool, &format!("x-{tool}"), args)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("not found"), "{tool}: {err}");
    }
    // The refused batch changed nobody, not even the organisation's own contact in it.
    let k = contact(&app, &c.org, c.katherine).await;
    assert!(!k["tags"].as_array().unwrap().contains(&json!("mine")));
    let t = contact(&app, &other, theirs).await;
    assert_eq!(t["notes"], "");
    assert!(t["custom_fields"].as_object().unwrap().is_empty());
    assert_eq!(app.count("tool_effect").await, 0);
    // Malformed arguments are refused with a reason, never a crash.
    for args in [
        json!({"contacts": "everyone", "add": ["x"]}),
        json!({"contacts": [c.katherine]}),
    ] {
        let err = call(&ctx, "tag_contacts", "bad", args).await.unwrap_err();
        assert!(matches!(err, ToolError::BadArguments(_)), "{err:?}");
    }
}

on_both_databases!(
    every_step_tool_answers_its_output_schema,
    keyed_writes_happen_once,
    another_organisations_contacts_are_out_of_reach,
);
