//! Idle threads are archived with a summary; the contact's next text starts a fresh thread that
//! reads it; an input that reached a thread as it was archived moves to the fresh one, once.
use crate::agent_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::entity::ai_thread;
use herald::ai_agent::llm::scripted::ScriptedModel;
use sea_orm::EntityTrait;
use serde_json::Value;
use std::sync::Arc;

async fn thread(app: &TestApp, id: &Value) -> ai_thread::Model {
    let id: uuid::Uuid = id.as_str().unwrap().parse().unwrap();
    ai_thread::Entity::find_by_id(id)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap()
}

async fn idle_threads_are_archived_with_a_summary(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    let Some(s) = setup(backend, "suggest", Some(model.clone())).await else {
        return;
    };
    text_in(
        &s,
        "SMarc000000000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "Can I book a cleaning?",
    )
    .await;
    let first = threads_of(&s).await[0]["id"].clone();
    let turn_one = *model.seen_message_counts.lock().unwrap().last().unwrap();

    // Not idle long enough: kept.
    let n = herald::ai_agent::archive::archive_idle(&s.app.state, chrono::Duration::days(30))
        .await
        .unwrap();
    assert_eq!(n, 0);
    // Idle past the limit: archived, with a summary that fences the contact's words.
    let n = herald::ai_agent::archive::archive_idle(&s.app.state, chrono::Duration::seconds(-1))
        .await
        .unwrap();
    assert_eq!(n, 1);
    let old = thread(&s.app, &first).await;
    assert_eq!(old.state, "archived");
    let summary = old.summary.clone().unwrap();
    assert!(
        summary.starts_with("The contact texted 1 time(s)"),
        "{summary}"
    );
    assert!(summary.contains("Can I book a cleaning?"));

    // The next text starts a fresh thread, which begins with that summary.
    text_in(
        &s,
        "SMarc000000000000000000000000000002",
        "+14155552671",
        "+14155550100",
        "Tuesday works",
    )
    .await;
    let threads = threads_of(&s).await;
    let fresh = threads
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] != first)
        .expect("a fresh thread")
        .clone();
    let events = events_of(&s, &fresh).await;
    assert_eq!(events[0]["kind"], "earlier_summary", "{events}");
    assert!(events[0]["detail"]
        .as_str()
        .unwrap()
        .contains("Can I book a cleaning?"));
    let turn_two = *model.seen_message_counts.lock().unwrap().last().unwrap();
    assert_eq!(
        turn_two,
        turn_one + 1,
        "the fresh thread's turn reads the summary and the new text"
    );

    // An input that reached the archived thread anyway moves to the fresh thread, once.
    herald::ai_agent::archive::archive_idle(&s.app.state, chrono::Duration::seconds(-1))
        .await
        .unwrap();
    let archived = thread(&s.app, &fresh["id"]).await;
    assert_eq!(archived.state, "archived");
    let (conv, msg) = first_message(&s).await;
    let payload = herald::ai_agent::events::AiThreadEventPayload::inbound_sms(
        msg["id"].as_str().unwrap().parse().unwrap(),
        conv["contact_id"].as_str().unwrap().parse().unwrap(),
        s.numbers[0],
        "late text",
    );
    herald::ai_agent::thread::append_event(
        &s.app.state.db,
        archived.id,
        &payload,
        chrono::Utc::now(),
    )
    .await
    .unwrap();
    assert_eq!(
        herald::ai_agent::archive::rehome_stranded(&s.app.state)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        herald::ai_agent::archive::rehome_stranded(&s.app.state)
            .await
            .unwrap(),
        0,
        "moved once"
    );
    s.app.settle().await;
    let threads = threads_of(&s).await;
    let third = threads
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] != first && t["id"] != fresh["id"])
        .expect("a third thread")
        .clone();
    let events = events_of(&s, &third).await;
    let kinds: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        &kinds[..2],
        &["earlier_summary", "inbound_sms"],
        "{kinds:?}"
    );
}

on_both_databases!(idle_threads_are_archived_with_a_summary);
