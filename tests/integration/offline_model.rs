//! The offline model is honest about what it is: it understands a dozen phrasings of questions,
//! tagging plans and a campaign, answers them from the tools, and says plainly that anything
//! else needs a hosted model, without acting.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use serde_json::{json, Value};

async fn ask_and_answer(app: &TestApp, org: &Org, text: &str, plan_mode: bool) -> String {
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/assistant/ask",
            json!({"text": text, "plan_mode": plan_mode}),
        )
        .await;
    app.settle().await;
    let view: Value = app.ok_as(&org.client, "/api/assistant", Value::Null).await;
    let events = view["events"].as_array().unwrap();
    // A plan turn ends with present_plan's result; any other turn with the model's words.
    let last = events.last().unwrap();
    assert!(
        last["kind"] == "assistant" || last["summary"] == "present_plan result",
        "{last}"
    );
    last["detail"].as_str().unwrap_or("").to_owned()
}

async fn plans(app: &TestApp, org: &Org) -> Vec<Value> {
    let v: Value = app
        .ok_as(
            &org.client,
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
        )
        .await;
    v["items"].as_array().unwrap().clone()
}

async fn a_dozen_phrasings_and_an_honest_no(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let questions: [(&str, &[&str]); 8] = [
        ("How many contacts do we have?", &["You have 5 contacts."]),
        (
            "who has opted out?",
            &["1 contact has opted out: Boris Becker."],
        ),
        ("list unsubscribed contacts", &["Boris Becker"]),
        (
            "Who hasn't replied in 14 days?",
            &[
                "4 contacts have not replied in 14 days",
                "Grace Hopper",
                "Linus Torvalds",
            ],
        ),
        ("show me quiet contacts", &["not replied in 30 days"]),
        (
            "which contacts are tagged patient?",
            &["1 contact is tagged \"patient\": Grace Hopper."],
        ),
        (
            "tell me about Katherine",
            &["Katherine Johnson: +14155552674"],
        ),
        ("what's Grace's number?", &["Grace Hopper: +14155552672"]),
    ];
    for (q, want) in questions {
        let answer = ask_and_answer(&app, &c.org, q, false).await;
        for w in want {
            assert!(answer.contains(w), "{q} → {answer}");
        }
        assert!(!answer.contains("hosted model"), "{q} → {answer}");
    }
    let help = ask_and_answer(&app, &c.org, "what can you do?", false).await;
    assert!(help.contains("offline model"), "{help}");
    // Three plans, in other words than the demo's.
    ask_and_answer(
        &app,
        &c.org,
        "Label people we haven't heard from in two weeks as dormant",
        true,
    )
    .await;
    ask_and_answer(
        &app,
        &c.org,
        "Send a follow-up campaign to quote leads",
        true,
    )
    .await;
    // A campaign to a tag, about something (issue 51 §1).
    ask_and_answer(
        &app,
        &c.org,
        "Text everyone tagged patient about our Saturday opening",
        true,
    )
    .await;
    let made = plans(&app, &c.org).await;
    assert_eq!(made.len(), 3);
    let titles: Vec<&str> = made.iter().map(|p| p["title"].as_str().unwrap()).collect();
    assert!(
        titles.contains(&"Tag 3 quiet contacts as \"dormant\""),
        "{titles:?}"
    );
    assert!(
        titles.contains(&"Follow up with 2 quiet quote leads"),
        "{titles:?}"
    );
    assert!(
        titles.contains(&"Text everyone tagged patient about our Saturday opening"),
        "{titles:?}"
    );
    // Approved, it drafts each patient a note about it, greeting them by first name.
    let tagged = made
        .iter()
        .find(|p| p["title"] == "Text everyone tagged patient about our Saturday opening")
        .unwrap();
    let op = approve_and_draft(&app, &c.org, &tagged["id"]).await;
    let drafts = eventually(20, "the drafts", || async {
        let s = sheet(&app, &c.org, &op).await;
        (s["operation"]["status"] == "awaiting_approval").then_some(s)
    })
    .await;
    assert_eq!(
        drafts["items"][0]["draft"],
        "Hi Grace, a quick note about our Saturday opening. Any questions, just reply to this text."
    );
    // Anything else: a plain answer, and no action.
    for odd in [
        "write me a poem about teeth",
        "delete every contact",
        "book Ada for Tuesday at 3",
    ] {
        let answer = ask_and_answer(&app, &c.org, odd, true).await;
        assert!(answer.contains("needs a hosted model"), "{odd} → {answer}");
    }
    assert_eq!(
        plans(&app, &c.org).await.len(),
        3,
        "no plan from a request it did not understand"
    );
    let view: Value = app
        .ok_as(&c.org.client, "/api/assistant", Value::Null)
        .await;
    let events = view["events"].as_array().unwrap();
    let tail = &events[events.len() - 9..];
    assert!(
        tail.iter()
            .all(|e| !e["summary"].as_str().unwrap_or("").starts_with("Calls ")),
        "no tool call for the odd requests"
    );
}

on_both_databases!(a_dozen_phrasings_and_an_honest_no);
