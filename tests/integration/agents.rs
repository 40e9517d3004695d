//! Text Reply agents: suggest and autonomous replies from the texted number, the legacy
//! suggester, and 200 texts at once on one thread.

use crate::agent_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::platform::sms::outbox::OutboxTransport;
use serde_json::{json, Value};
use std::sync::Arc;

async fn suggest_mode_drafts_three_options(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    text_in(
        &s,
        "SMagent000000000000000000000000001",
        "+14155552671",
        "+14155550101",
        "Could I move my cleaning to Friday?",
    )
    .await;
    assert_eq!(s.app.count("ai_thread").await, 1);
    let (_, msg) = first_message(&s).await;
    let sets: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/suggestions",
            json!({"message_id": msg["id"]}),
        )
        .await;
    let options = sets[0]["options"].as_array().unwrap();
    assert_eq!(options.len(), 3);
    assert!(
        options[0]["body"].as_str().unwrap().contains("move"),
        "{options:?}"
    );
    assert_eq!(sets[0]["source"], "Text Reply");
    assert_eq!(sets[0]["offline"], true);
    assert!(s.outbox.sent().is_empty(), "suggest mode sends nothing");
    // A follow-up reuses the same thread.
    text_in(
        &s,
        "SMagent000000000000000000000000002",
        "+14155552671",
        "+14155550101",
        "Thanks!",
    )
    .await;
    assert_eq!(s.app.count("ai_thread").await, 1);
    let threads = threads_of(&s).await;
    assert_eq!(threads[0]["contact_name"], "+14155552671");
    let events = events_of(&s, &threads[0]).await;
    let kinds: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.iter().filter(|k| **k == "inbound_sms").count(), 2);
    assert!(kinds.contains(&"tool_result"));
}

async fn autonomous_replies_from_the_texted_number(backend: Backend) {
    let Some(s) = setup(backend, "autonomous", None).await else {
        return;
    };
    for i in 0..50u32 {
        let to = if i.is_multiple_of(2) {
            "+14155550100"
        } else {
            "+14155550101"
        };
        let from = format!("+1415555{:04}", 2700 + i);
        text_in(
            &s,
            &format!("SMreply{i:027}"),
            &from,
            to,
            "How much would whitening cost?",
        )
        .await;
    }
    let sent = s.outbox.sent();
    assert_eq!(sent.len(), 50, "one reply per text");
    for sms in &sent {
        let n: u32 = sms.to[8..].parse().unwrap();
        let expected = if (n - 2700).is_multiple_of(2) {
            "+14155550100"
        } else {
            "+14155550101"
        };
        assert_eq!(
            sms.from, expected,
            "the reply to {} left from the number it texted",
            sms.to
        );
    }
    let (_, msg) = first_message(&s).await;
    assert_eq!(msg["direction"], "inbound");
    let list: Value = s.app.inbox(&s.org.client).await;
    let conv: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/conversations/get",
            json!({"contact_id": list[0]["contact_id"]}),
        )
        .await;
    assert_eq!(conv["messages"][1]["ai_origin"], "agent (offline model)");
    let _ = &s.numbers;
}

async fn legacy_suggester_for_numbers_without_an_agent(backend: Backend) {
    use sea_orm::{ActiveModelTrait, Set};
    let outbox = Arc::new(OutboxTransport::default());
    let Some(app) = spawn_app_sending_to(backend, outbox.clone()).await else {
        return;
    };
    let org = app.new_org("Legacy Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let ta = uuid::Uuid::new_v4();
    herald::ai_agent::entity::text_agent::ActiveModel {
        id: Set(ta),
        organization_id: Set(org.org_id),
        name: Set("Front desk suggester".into()),
        instructions: Set(String::new()),
        auto_reply: Set(true),
        confidence_threshold: Set(0.85),
        created_at: Set(app.state.clock.now()),
    }
    .insert(&app.state.db)
    .await
    .unwrap();
    let mut phone: herald::phone_numbers::entity::ActiveModel =
        herald::phone_numbers::service::find_in_org(&app.state.db, org.org_id, number)
            .await
            .unwrap()
            .into();
    phone.text_agent_id = Set(Some(ta));
    phone.update(&app.state.db).await.unwrap();
    app.post_webhook(
        &sms_params(
            "SMlegacy0000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "Could I reschedule?",
        ),
        None,
    )
    .await;
    app.settle().await;
    assert_eq!(
        app.count("ai_thread").await,
        0,
        "the legacy path has no thread"
    );
    let list: Value = app.inbox(&org.client).await;
    let conv: Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": list[0]["contact_id"]}),
        )
        .await;
    let sets: Value = app
        .ok_as(
            &org.client,
            "/api/suggestions",
            json!({"message_id": conv["messages"][0]["id"]}),
        )
        .await;
    assert_eq!(sets[0]["source"], "Front desk suggester");
    let opts = sets[0]["options"].as_array().unwrap();
    assert_eq!(opts.len(), 3);
    assert!(opts[0]["confidence"].as_f64().unwrap() >= opts[1]["confidence"].as_f64().unwrap());
    let sent = outbox.sent();
    assert_eq!(
        sent.len(),
        1,
        "auto_reply sent the best option, which cleared the threshold"
    );
    assert_eq!(sent[0].body, opts[0]["body"].as_str().unwrap());
}

async fn two_hundred_concurrent_texts_one_thread(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    let sends = (0..200).map(|i| {
        let sid = format!("SMburst{i:027}");
        let app = &s.app;
        async move {
            let params = sms_params(
                &sid,
                "+14155552671",
                "+14155550100",
                "Are you open on Saturday?",
            );
            app.post_webhook(&params, None).await.status()
        }
    });
    for st in futures::future::join_all(sends).await {
        assert!(st.is_success());
    }
    s.app.settle().await;
    assert_eq!(s.app.count("ai_thread").await, 1, "exactly one thread");
    let threads = threads_of(&s).await;
    let thread_id: uuid::Uuid = threads[0]["id"].as_str().unwrap().parse().unwrap();
    use herald::ai_agent::entity::ai_thread_event;
    use herald::ai_agent::events::AiThreadEventPayload;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    let events = ai_thread_event::Entity::find()
        .filter(ai_thread_event::Column::ThreadId.eq(thread_id))
        .all(&s.app.state.db)
        .await
        .unwrap();
    let inputs: Vec<uuid::Uuid> = events
        .iter()
        .filter(|e| e.kind == "inbound_sms")
        .map(|e| e.id)
        .collect();
    assert_eq!(inputs.len(), 200);
    assert!(
        events
            .iter()
            .filter(|e| e.kind == "inbound_sms")
            .all(|e| e.processed_at.is_some()),
        "all 200 processed"
    );
    let mut covered = Vec::new();
    for e in &events {
        if let Ok(AiThreadEventPayload::TurnStarted { inputs }) =
            serde_json::from_value(e.payload.clone())
        {
            covered.extend(inputs);
        }
    }
    covered.sort();
    let before = covered.len();
    covered.dedup();
    assert_eq!(before, covered.len(), "no input was in two turns");
    assert_eq!(covered.len(), 200, "every input was in a turn");
}

on_both_databases!(
    suggest_mode_drafts_three_options,
    autonomous_replies_from_the_texted_number,
    legacy_suggester_for_numbers_without_an_agent,
    two_hundred_concurrent_texts_one_thread,
);
