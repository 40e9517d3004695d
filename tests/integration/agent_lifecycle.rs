//! Agent lifecycle: clones keep send_mode, an owner who left keeps only escalation, the history
//! window, ON DELETE SET NULL, and another organisation's agent ids.
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::scripted::ScriptedModel;
use migration::{Migrator, MigratorTrait};
use reqwest::StatusCode;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use std::sync::Arc;

async fn clones_keep_suggest_mode_everywhere(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Clone Co").await;
    app.invite(&org, "Mo", "mo@clone.test", "member-pass", "member")
        .await;
    let agents: Value = app.ok_as(&org.client, "/api/agents", Value::Null).await;
    let text_reply: Vec<&Value> = agents
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["name"] == "Text Reply")
        .collect();
    assert_eq!(
        text_reply.len(),
        2,
        "one Text Reply clone per member: {agents}"
    );
    assert!(text_reply.iter().all(|a| a["send_mode"] == "suggest"));
    // The migration's backfill: roll back to before the Text Reply seed, then forward again.
    let all_migrations = Migrator::migrations();
    let seed_at = all_migrations
        .iter()
        .position(|m| m.name().contains("seed_text_reply_agent"))
        .unwrap();
    Migrator::down(&app.state.db, Some((all_migrations.len() - seed_at) as u32))
        .await
        .unwrap();
    assert_eq!(app.count("ai_agent").await, 0);
    Migrator::up(&app.state.db, None).await.unwrap();
    use herald::ai_agent::entity::ai_agent;
    let all: Vec<_> = ai_agent::Entity::find()
        .all(&app.state.db)
        .await
        .unwrap()
        .into_iter()
        .filter(|a| a.name == "Text Reply")
        .collect();
    assert_eq!(
        all.len(),
        3,
        "the platform agent and a clone for each of the two members"
    );
    assert!(
        all.iter().all(|a| a.send_mode == "suggest"),
        "the backfill copies send_mode"
    );
    let clones: Vec<_> = all.iter().filter(|a| a.user_id.is_some()).collect();
    assert_eq!(clones.len(), 2);
    assert!(clones
        .iter()
        .all(|a| a.system_source_id == Some(herald::ai_agent::model::TEXT_REPLY_AGENT_ID)));
}

async fn an_owner_who_left_keeps_only_escalation(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    model.call(
        "escalate_to_user",
        r#"{"reason": "I have no CRM tools", "draft": "Hello!"}"#,
    );
    model.say("done");
    let opts = Options {
        model: Some(model.clone()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Leave Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    app.invite(&org, "Mo", "mo@leave.test", "member-pass", "member")
        .await;
    let agents: Value = app.ok_as(&org.client, "/api/agents", Value::Null).await;
    let mo_agent = agents
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["owner_name"] == "Mo" && a["name"] == "Text Reply")
        .unwrap()
        .clone();
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/agents/assign_numbers",
            json!({"id": mo_agent["id"], "number_ids": [number]}),
        )
        .await;
    // Mo leaves the organisation.
    app.state
        .db
        .execute_unprepared("DELETE FROM membership WHERE role = 'member'")
        .await
        .unwrap();
    app.post_webhook(
        &sms_params(
            "SMleft0000000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "hi",
        ),
        None,
    )
    .await;
    app.settle().await;
    assert_eq!(
        model.seen_tools.lock().unwrap()[0],
        vec!["escalate_to_user".to_string()]
    );
    assert_eq!(app.count("notification").await, 1, "escalation still works");
}

async fn history_is_a_window_of_one_hundred(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    let opts = Options {
        model: Some(model.clone()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Window Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let agents: Value = app.ok_as(&org.client, "/api/agents", Value::Null).await;
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/agents/assign_numbers",
            json!({"id": agents[0]["id"], "number_ids": [number]}),
        )
        .await;
    // Each text makes three events: the input, the turn start and the (script-finished) reply.
    for i in 0..60 {
        app.post_webhook(
            &sms_params(
                &format!("SMwin{i:029}"),
                "+14155552671",
                "+14155550100",
                &format!("text {i}"),
            ),
            None,
        )
        .await;
        app.settle().await;
    }
    assert!(app.count("ai_thread_event").await > 100);
    let most = *model
        .seen_message_counts
        .lock()
        .unwrap()
        .iter()
        .max()
        .unwrap();
    assert!(
        most <= 100,
        "a turn sees at most the last 100 events, saw {most}"
    );
    assert!(most >= 50, "and does see history, saw {most}");
}

async fn deleting_an_agent_unassigns_its_numbers(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Delete Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let agents: Value = app.ok_as(&org.client, "/api/agents", Value::Null).await;
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/agents/assign_numbers",
            json!({"id": agents[0]["id"], "number_ids": [number]}),
        )
        .await;
    use herald::ai_agent::entity::ai_agent;
    let id: uuid::Uuid = agents[0]["id"].as_str().unwrap().parse().unwrap();
    ai_agent::Entity::delete_many()
        .filter(ai_agent::Column::Id.eq(id))
        .exec(&app.state.db)
        .await
        .unwrap();
    let phone = herald::phone_numbers::service::find_in_org(&app.state.db, org.org_id, number)
        .await
        .unwrap();
    assert_eq!(phone.ai_agent_id, None, "ON DELETE SET NULL");
    app.post_webhook(
        &sms_params(
            "SMdel00000000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "hi",
        ),
        None,
    )
    .await;
    app.settle().await;
    assert_eq!(app.count("ai_thread").await, 0);
}

async fn agent_apis_are_scoped(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let a = app.new_org("Alpha").await;
    let b = app.new_org("Bravo").await;
    let a_number = app.add_number(&a, "+14155550100").await;
    let b_number = app.add_number(&b, "+14155550200").await;
    let a_agents: Value = app.ok_as(&a.client, "/api/agents", Value::Null).await;
    let b_agents: Value = app.ok_as(&b.client, "/api/agents", Value::Null).await;
    let a_agent = a_agents[0]["id"].clone();
    let _: Value = app
        .ok_as(
            &a.client,
            "/api/agents/assign_numbers",
            json!({"id": a_agent, "number_ids": [a_number]}),
        )
        .await;
    app.post_webhook(
        &sms_params(
            "SMscope000000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "secret",
        ),
        None,
    )
    .await;
    app.settle().await;
    let threads: Value = app
        .ok_as(
            &a.client,
            "/api/agents/threads",
            json!({"agent_id": a_agent}),
        )
        .await;
    let list: Value = app.inbox(&a.client).await;
    let conv: Value = app
        .ok_as(
            &a.client,
            "/api/conversations/get",
            json!({"contact_id": list[0]["contact_id"]}),
        )
        .await;
    let a_message = conv["messages"][0]["id"].clone();
    let input = json!({"name": "Hijacked", "persona": "", "goals": "", "rules": "", "send_mode": "autonomous"});
    let calls: Vec<(&str, Value)> = vec![
        ("/api/agents/get", json!({"id": a_agent})),
        ("/api/agents/update", json!({"id": a_agent, "input": input})),
        (
            "/api/agents/assign_numbers",
            json!({"id": a_agent, "number_ids": [b_number]}),
        ),
        (
            "/api/agents/assign_numbers",
            json!({"id": b_agents[0]["id"], "number_ids": [a_number]}),
        ),
        ("/api/agents/threads", json!({"agent_id": a_agent})),
        (
            "/api/threads/events",
            json!({"thread_id": threads["items"][0]["id"]}),
        ),
        ("/api/suggestions", json!({"message_id": a_message})),
    ];
    for (path, body) in calls {
        let (status, reply) = app.call_as(&b.client, path, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {reply}");
    }
    let b_list: Value = app.ok_as(&b.client, "/api/agents", Value::Null).await;
    assert!(!b_list
        .to_string()
        .contains(&a_agent.as_str().unwrap().to_string()));
    let a_view: Value = app
        .ok_as(&a.client, "/api/agents/get", json!({"id": a_agent}))
        .await;
    assert_eq!(a_view["send_mode"], "suggest", "unchanged");
    assert_eq!(a_view["number_ids"], json!([a_number]));
}

on_both_databases!(
    clones_keep_suggest_mode_everywhere,
    an_owner_who_left_keeps_only_escalation,
    history_is_a_window_of_one_hundred,
    deleting_an_agent_unassigns_its_numbers,
    agent_apis_are_scoped,
);

/// find_or_spawn reuses the live thread; the partial unique index refuses a second live thread
/// for the same (agent, key) but allows one beside an archived thread, on both databases.
async fn thread_index_and_reuse(backend: Backend) {
    use herald::ai_agent::thread::{contact_key, spawn_ai_agent_thread};
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Index Co").await;
    let agents: Value = app.ok_as(&org.client, "/api/agents", Value::Null).await;
    let agent: uuid::Uuid = agents[0]["id"].as_str().unwrap().parse().unwrap();
    let contact = app.add_contact(&org, "Ada", "+14155552671").await;
    let key = contact_key(contact);
    let first = spawn_ai_agent_thread(
        &app.state.db,
        agent,
        org.org_id,
        Some(key.clone()),
        app.state.clock.now(),
    )
    .await
    .unwrap();
    let dup = spawn_ai_agent_thread(
        &app.state.db,
        agent,
        org.org_id,
        Some(key.clone()),
        app.state.clock.now(),
    )
    .await
    .unwrap_err();
    assert!(herald::platform::db::is_unique_violation(&dup), "{dup}");
    let payload = herald::ai_agent::events::AiThreadEventPayload::UserMessage {
        text: "hello".into(),
        plan_mode: false,
    };
    let found = herald::ai_agent::worker::find_or_spawn_contact_thread(
        &app.state,
        agent,
        org.org_id,
        contact,
        payload.clone(),
    )
    .await
    .unwrap();
    assert_eq!(found, first, "the live thread is reused");
    app.settle().await;
    app.state
        .db
        .execute_unprepared("UPDATE ai_thread SET state = 'archived'")
        .await
        .unwrap();
    let fresh = herald::ai_agent::worker::find_or_spawn_contact_thread(
        &app.state, agent, org.org_id, contact, payload,
    )
    .await
    .unwrap();
    assert_ne!(fresh, first, "an archived thread does not block a new one");
    assert_eq!(app.count("ai_thread").await, 2);
}

on_both_databases!(thread_index_and_reuse);
