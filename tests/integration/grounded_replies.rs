//! Grounded replies (issue 52 §3, §6): the offline model answers a text from the business's own
//! FAQ and facts, citing them; a question the knowledge does not answer gets the holding reply
//! and goes to the agent's owner; an adversarial model's made-up price is refused and it sees
//! why; a hosted model (OpenAI and Anthropic shapes) receives the passages fenced and labelled;
//! "Try a question" shows each agent's reply, texting no one.
use crate::agent_support::*;
use crate::fake_llm::{self, Dialect, Step};
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::rig::RigModel;
use herald::ai_agent::llm::scripted::ScriptedModel;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

on_both_databases!(
    the_offline_model_answers_from_knowledge_and_holds_the_rest,
    a_made_up_price_is_refused_and_the_model_sees_why,
    hosted_models_receive_the_knowledge_fenced_openai,
    hosted_models_receive_the_knowledge_fenced_anthropic,
    trying_a_question_shows_each_agents_reply,
    an_agent_answers_only_from_its_sources,
    a_draft_with_a_made_up_price_is_refused,
);

const WHITENING_Q: &str = "How much does teeth whitening cost?";
const WHITENING_A: &str = "In-office whitening is $350 and take-home trays are $180.";

/// The clinic's whitening FAQ and Saturday hours.
async fn clinic_knowledge(s: &Setup) {
    let (status, body) = s
        .app
        .call_as(
            &s.org.client,
            "/api/knowledge/faq",
            json!({"id": null, "input": {"question": WHITENING_Q, "answer": WHITENING_A,
                "alternatives": ["What is the price of whitening?"]}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = s
        .app
        .call_as(
            &s.org.client,
            "/api/knowledge/fact",
            json!({"id": null, "input": {"label": "Saturday hours", "value": "Saturday, 9am to 1pm"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// The conversation with the first contact, oldest first.
async fn texts(s: &Setup) -> Vec<Value> {
    conversation(s).await.1
}

/// The agent answering only from knowledge, which holds the clinic's whitening FAQ and Saturday
/// hours.
async fn clinic(s: &Setup) {
    answer_only(s, true).await;
    clinic_knowledge(s).await;
}

/// Ada texts the front desk (`n` numbers the text's SID).
async fn ada_asks(s: &Setup, n: u32, body: &str) {
    let sid = format!("SMground{n:026}");
    text_in(s, &sid, "+14155552671", "+14155550100", body).await;
}

async fn notifications(s: &Setup) -> Vec<Value> {
    let notes: Value = s
        .app
        .ok_as(&s.org.client, "/api/notifications", json!({}))
        .await;
    notes["items"].as_array().unwrap().clone()
}

async fn the_offline_model_answers_from_knowledge_and_holds_the_rest(backend: Backend) {
    let Some(s) = setup(backend, "autonomous", None).await else {
        return;
    };
    let fresh = s.app.new_org("New Clinic").await;
    assert_eq!(
        s.app.own_agent(&fresh).await["answer_only"],
        true,
        "a new agent answers only from knowledge"
    );
    clinic(&s).await;
    ada_asks(
        &s,
        1,
        "How much is teeth whitening, and are you open Saturday?",
    )
    .await;
    let sent = s.outbox.sent();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(
        sent[0].body.ends_with(
            "In-office whitening is $350 and take-home trays are $180. Saturday, 9am to 1pm."
        ),
        "{}",
        sent[0].body
    );
    let messages = texts(&s).await;
    let reply = messages
        .iter()
        .find(|m| m["direction"] == "outbound")
        .unwrap();
    let titles: Vec<&str> = reply["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, vec![WHITENING_Q, "Saturday hours"]);
    assert_eq!(reply["sources"][0]["excerpt"], WHITENING_A);
    assert!(notifications(&s).await.is_empty(), "nothing to escalate");

    // A question the knowledge does not answer: the holding reply, and the owner is asked.
    ada_asks(&s, 2, "Do you do veneers?").await;
    let sent = s.outbox.sent();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(
        sent[1]
            .body
            .ends_with("! Let me check with the team and get back to you."),
        "{}",
        sent[1].body
    );
    let notes = notifications(&s).await;
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0]["body"]
            .as_str()
            .unwrap()
            .contains("does not answer: \"Do you do veneers\""),
        "{}",
        notes[0]["body"]
    );
    assert!(texts(&s).await.iter().all(|m| m["body"]
        .as_str()
        .map(|b| !b.contains('$') || b.contains("$350"))
        .unwrap_or(true)));
}

async fn a_made_up_price_is_refused_and_the_model_sees_why(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    // It tries a price the knowledge does not give, a phone number and a link from nowhere, then
    // the one the knowledge gives.
    model.call(
        "send_sms",
        r#"{"body": "Whitening is only $299 this week!"}"#,
    );
    model.call(
        "send_sms",
        r#"{"body": "Call 415-555-0199 or book at https://cheap-teeth.example/deal"}"#,
    );
    model.call(
        "send_sms",
        r#"{"body": "In-office whitening is $350. Questions? 415-555-0100"}"#,
    );
    model.say("done");
    let Some(s) = setup(backend, "autonomous", Some(model.clone())).await else {
        return;
    };
    clinic(&s).await;
    // The business's own rules are its words too: the number they give may be texted.
    let _: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/organization/update",
            json!({"settings": {"name": "Agent Co", "time_zone": "UTC",
                "rules": "Sign off with our number, (415) 555-0100."}}),
        )
        .await;
    ada_asks(&s, 3, "how much is whitening").await;
    let sent = s.outbox.sent();
    assert_eq!(sent.len(), 1, "only the grounded reply left: {sent:?}");
    assert!(sent[0]
        .body
        .ends_with("In-office whitening is $350. Questions? 415-555-0100"));
    // The model was shown the knowledge before it answered, fenced and labelled.
    let system = model.seen_systems.lock().unwrap()[0].clone();
    assert!(
        system.contains(&format!(
            "<<<KNOWLEDGE source=\"{WHITENING_Q}\" kind=\"FAQ\""
        )),
        "{system}"
    );
    // And it saw each refusal, with the figures named.
    let results = model.seen_tool_results.lock().unwrap().clone();
    for named in [
        "299 appears in neither the business's knowledge",
        "4155550199, cheap-teeth.example/deal appear in neither",
    ] {
        assert!(results.iter().any(|r| r.contains(named)), "{results:?}");
    }
    let threads = threads_of(&s).await;
    let events = events_of(&s, &threads[0]).await;
    let refused = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["summary"] == "send_sms refused")
        .count();
    assert_eq!(refused, 2);
    // The refused tries did not use up the turn's sends (it may send 2).
    let reply = texts(&s)
        .await
        .into_iter()
        .find(|m| m["direction"] == "outbound")
        .unwrap();
    assert_eq!(reply["sources"][0]["title"], WHITENING_Q);
}

async fn hosted_fenced(backend: Backend, dialect: Dialect) {
    let llm = fake_llm::start(dialect).await;
    llm.push(Step::call(
        "search_knowledge",
        json!({"question": "Saturday hours"}),
    ));
    llm.push(Step::call(
        "send_sms",
        json!({"body": "Whitening is $350, and on Saturday we open 9am to 1pm."}),
    ));
    llm.push(Step::text("Done."));
    let model = Arc::new(RigModel::new(&llm.settings(Duration::from_secs(10))).unwrap());
    let Some(s) = setup_with(backend, "autonomous", Some(model), |o| o).await else {
        return;
    };
    clinic(&s).await;
    ada_asks(&s, 4, "What's the price of whitening?").await;
    assert!(llm.refused.lock().unwrap().is_empty());
    assert_eq!(llm.remaining(), 0);
    let seen = llm.seen();
    let first = &seen[0];
    assert!(
        first.system.contains("## The business's knowledge")
            && first.system.contains(&format!(
                "<<<KNOWLEDGE source=\"{WHITENING_Q}\" kind=\"FAQ\""
            ))
            && first
                .system
                .contains(&format!("Q: {WHITENING_Q}\nA: {WHITENING_A}\nKNOWLEDGE>>>")),
        "{}",
        first.system
    );
    assert!(first.tools.contains(&"search_knowledge".to_string()));
    // The search's passages came back fenced too, and the reply used both sources.
    let result = &seen[1]
        .messages
        .iter()
        .rev()
        .find(|(r, _)| r == "tool")
        .unwrap()
        .1;
    assert!(
        result.contains("<<<KNOWLEDGE source=\\\"Saturday hours\\\" kind=\\\"Fact\\\""),
        "{result}"
    );
    let sent = s.outbox.sent();
    assert_eq!(sent.len(), 1);
    let reply = texts(&s)
        .await
        .into_iter()
        .find(|m| m["direction"] == "outbound")
        .unwrap();
    let titles: Vec<&str> = reply["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, vec![WHITENING_Q, "Saturday hours"]);
}

async fn hosted_models_receive_the_knowledge_fenced_openai(backend: Backend) {
    hosted_fenced(backend, Dialect::OpenAi).await
}
async fn hosted_models_receive_the_knowledge_fenced_anthropic(backend: Backend) {
    hosted_fenced(backend, Dialect::Anthropic).await
}

async fn trying_a_question_shows_each_agents_reply(backend: Backend) {
    let Some(s) = setup(backend, "autonomous", None).await else {
        return;
    };
    clinic(&s).await;
    let tried = try_agents(&s, "How much is whitening?").await;
    assert_eq!(tried.as_array().unwrap().len(), 1, "{tried}");
    assert_eq!(tried[0]["agent"], "Text Reply");
    assert_eq!(tried[0]["suggests"], false);
    assert_eq!(tried[0]["model"], "Herald offline model");
    assert_eq!(tried[0]["reply"], format!("Hi! {WHITENING_A}"), "{tried}");
    assert_eq!(tried[0]["sources"], json!([WHITENING_Q]));
    let unknown = try_agents(&s, "Do you do veneers?").await;
    assert_eq!(
        unknown[0]["reply"],
        "Hi! Let me check with the team and get back to you."
    );
    assert!(unknown[0]["escalation"]
        .as_str()
        .unwrap()
        .contains("veneers"));
    // Nobody was texted, nothing was drafted, nobody was notified.
    assert!(s.outbox.sent().is_empty());
    assert_eq!(s.app.count("text_agent_suggestion").await, 0);
    assert!(notifications(&s).await.is_empty());
    // The holding reply is the organisation's own words, owners only, and promises nothing.
    let (status, body) = s
        .app
        .call_as(
            &s.org.client,
            "/api/knowledge/holding/set",
            json!({"text": "We'll call you back by 5pm."}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let saved: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/knowledge/holding/set",
            json!({"text": "Good question! I'll ask the team and text you back."}),
        )
        .await;
    assert_eq!(saved, "Good question! I'll ask the team and text you back.");
    let member = s.app.add_member(&s.org, "Sam").await;
    let (status, _) = s
        .app
        .call_as(
            &member.client,
            "/api/knowledge/holding/set",
            json!({"text": "Hold on."}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let again = try_agents(&s, "Do you do veneers?").await;
    assert_eq!(
        again[0]["reply"],
        "Hi! Good question! I'll ask the team and text you back."
    );
}

/// What each agent would reply to `question` ("Try a question").
async fn try_agents(s: &Setup, question: &str) -> Value {
    s.app
        .ok_as(
            &s.org.client,
            "/api/knowledge/try_agents",
            json!({"question": question}),
        )
        .await
}

/// The first agent's reply to `question`.
async fn try_reply(s: &Setup, question: &str) -> String {
    let tried = try_agents(s, question).await;
    tried[0]["reply"].as_str().unwrap_or_default().to_owned()
}

async fn an_agent_answers_only_from_its_sources(backend: Backend) {
    let Some(s) = setup(backend, "autonomous", None).await else {
        return;
    };
    clinic(&s).await;
    let facts: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/knowledge",
            json!({"kind": "fact", "after": null}),
        )
        .await;
    let saturday = facts["items"][0]["id"].clone();
    let view: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/agents/sources",
            json!({"id": s.agent["id"], "sources": [saturday]}),
        )
        .await;
    assert_eq!(view["knowledge_sources"], json!([saturday]));
    // The whitening FAQ is not among its sources: it does not know the price.
    assert_eq!(
        try_reply(&s, "How much is whitening?").await,
        "Hi! Let me check with the team and get back to you."
    );
    ada_asks(&s, 5, "How much is whitening?").await;
    let sent = s.outbox.sent();
    assert!(
        sent[0]
            .body
            .ends_with("Let me check with the team and get back to you."),
        "{sent:?}"
    );
    assert_eq!(
        try_reply(&s, "Are you open Saturday?").await,
        "Hi! Saturday, 9am to 1pm."
    );
    // Back to all of it.
    let view: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/agents/sources",
            json!({"id": s.agent["id"], "sources": null}),
        )
        .await;
    assert_eq!(view["knowledge_sources"], Value::Null);
    assert!(try_reply(&s, "How much is whitening?")
        .await
        .contains("$350"));
    // Another organisation's source is not one to name.
    let other = s.app.new_org("Other Clinic").await;
    let (status, _) = s
        .app
        .call_as(
            &other.client,
            "/api/agents/sources",
            json!({"id": s.app.own_agent(&other).await["id"], "sources": [saturday]}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A member's own agent that texts by itself: narrowing is theirs, widening an owner's.
    let mo = s.app.add_member(&s.org, "Mo").await;
    let mine = s.app.own_agent(&mo).await;
    let _: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/agents/update",
            json!({"id": mine["id"], "input": {"name": "Mo's agent", "persona": mine["persona"],
                "goals": mine["goals"], "rules": "", "send_mode": "autonomous"}}),
        )
        .await;
    let narrowed = s
        .app
        .call_as(
            &mo.client,
            "/api/agents/sources",
            json!({"id": mine["id"], "sources": [saturday]}),
        )
        .await;
    assert_eq!(narrowed.0, StatusCode::OK, "{}", narrowed.1);
    let (status, body) = s
        .app
        .call_as(
            &mo.client,
            "/api/agents/sources",
            json!({"id": mine["id"], "sources": null}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body.to_string().contains("only an owner"), "{body}");
    let _: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/agents/sources",
            json!({"id": mine["id"], "sources": null}),
        )
        .await;
    let audit: Value = s
        .app
        .ok_as(&s.org.client, "/api/audit", json!({"before": null}))
        .await;
    assert!(audit["entries"].as_array().unwrap().iter().any(|e| {
        e["action"] == "agent_widened" && e["detail"] == "widened: more of the knowledge"
    }));
}

async fn a_draft_with_a_made_up_price_is_refused(backend: Backend) {
    let model = Arc::new(ScriptedModel::new());
    model.call(
        "propose_sms_replies",
        r#"{"options": ["Whitening is $350.", "Today only: $199!"]}"#,
    );
    model.call(
        "propose_sms_replies",
        r#"{"options": ["Whitening is $350.", "In-office whitening is $350; trays are $180."]}"#,
    );
    model.say("done");
    let Some(s) = setup(backend, "suggest", Some(model.clone())).await else {
        return;
    };
    clinic(&s).await;
    ada_asks(&s, 6, "How much is whitening?").await;
    let results = model.seen_tool_results.lock().unwrap().clone();
    assert!(
        results
            .iter()
            .any(|r| r.contains("Option 2: Not sent: 199 appears in neither")),
        "{results:?}"
    );
    let (_, msg) = first_message(&s).await;
    let sets: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/suggestions",
            json!({"message_id": msg["id"]}),
        )
        .await;
    assert_eq!(
        sets.as_array().unwrap().len(),
        1,
        "only the grounded drafts"
    );
    assert_eq!(sets[0]["options"][0]["sources"][0]["title"], WHITENING_Q);
}
