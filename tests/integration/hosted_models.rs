//! Planning and replies end to end through rig against the fake OpenAI and Anthropic servers:
//! read tools, then `present_plan` with a typed campaign, approval and the operation's drafts;
//! with a malformed call, an unknown tool, a 500 and a timeout along the way. Replies in both
//! send modes. Every request must pass the providers' history rules.
use crate::agent_support::*;
use crate::campaign_support::*;
use crate::fake_llm::{self, Dialect, Seen, Step};
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::rig::RigModel;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// Quote leads with no reply in 30 days and not opted out, from the turn's two read results.
fn campaign_from(seen: &Seen) -> Step {
    let results = seen.results();
    let quiet: Vec<&str> = results
        .iter()
        .find_map(|r| r["quiet"].as_array())
        .map(|q| q.iter().filter_map(|c| c["id"].as_str()).collect())
        .unwrap_or_default();
    let leads = results
        .iter()
        .rev()
        .find_map(|r| r["contacts"].as_array())
        .cloned()
        .unwrap_or_default();
    let audience: Vec<Value> = leads
        .iter()
        .map(|c| {
            let id = c["id"].as_str().unwrap_or("");
            let (include, reason) = if c["opted_out"] == true {
                (false, "opted out")
            } else if !quiet.contains(&id) {
                (false, "replied recently")
            } else {
                (true, "quiet quote lead")
            };
            json!({"contact_id": id, "include": include, "reason": reason, "kind": "quote_lead"})
        })
        .collect();
    Step::call(
        "present_plan",
        json!({"title": "Follow up with quiet quote leads", "summary": "A personal follow-up.",
            "action": {"type": "bulk_sms_campaign", "audience": audience,
                "message_concept": "Check in on the quote we sent."}}),
    )
}

async fn planning_through(backend: Backend, dialect: Dialect) {
    let llm = fake_llm::start(dialect).await;
    // A malformed call and an unknown tool go back to the model as errors.
    llm.push(Step::raw_call("find_quiet_contacts", "{\"days\": 3"));
    llm.push(Step::call("delete_everything", json!({})));
    // Mid-plan the provider fails (500), then stalls past the timeout; the third try answers.
    llm.push(Step::Status(500));
    llm.push(Step::Stall(Duration::from_secs(3)));
    llm.push(Step::call("find_quiet_contacts", json!({"days": 30})));
    llm.push(Step::call("search_contacts", json!({"query": "quote"})));
    // present_plan ends the turn: no further step is asked for.
    llm.push(Step::Dynamic(Box::new(campaign_from)));
    llm.otherwise(Box::new(|seen| {
        if seen.tools.iter().any(|t| t == "submit_draft") {
            Step::call(
                "submit_draft",
                json!({"text": "Hi! Any questions about our quote?"}),
            )
        } else {
            Step::text("(nothing else scripted)")
        }
    }));
    let Some((app, outbox)) =
        fake_llm::spawn_with(backend, &llm, Duration::from_millis(1500)).await
    else {
        return;
    };
    let c = crm(&app).await;
    ask(&app, &c.org, FOLLOW_UP).await;
    assert!(
        llm.refused.lock().unwrap().is_empty(),
        "{:?}",
        llm.refused.lock().unwrap()
    );
    let plan = first_plan(&app, &c.org).await;
    assert_eq!(plan["status"], "awaiting_approval", "{plan}");
    assert_eq!(plan["action"]["type"], "bulk_sms_campaign");
    let included: Vec<&str> = plan["contacts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["change"]["include"] == true)
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(included.len(), 2, "Katherine and Linus: {included:?}");
    // The turn saw its errors and went on; nothing was sent while planning.
    let view: Value = app
        .ok_as(&c.org.client, "/api/assistant", Value::Null)
        .await;
    let refused: Vec<String> = view["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["summary"].as_str().unwrap_or("").ends_with("refused"))
        .map(|e| e["detail"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(refused[1].contains("not available"));
    assert!(outbox.sent().is_empty());
    assert_eq!(llm.remaining(), 0);
    // Approval: the campaign's operation drafts every text through the same hosted model.
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/plans/approve",
            json!({"id": plan["id"]}),
        )
        .await;
    app.settle().await;
    let plan: Value = app
        .ok_as(&c.org.client, "/api/plans/get", json!({"id": plan["id"]}))
        .await;
    let sheet = sheet(&app, &c.org, &plan["executed_ref"]).await;
    assert_eq!(sheet["operation"]["status"], "awaiting_approval", "{sheet}");
    let drafts: Vec<&str> = sheet["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["draft"].as_str())
        .collect();
    assert_eq!(drafts, ["Hi! Any questions about our quote?"; 2]);
    assert!(llm.refused.lock().unwrap().is_empty());
}

async fn replies_through(backend: Backend, dialect: Dialect) {
    for mode in ["suggest", "autonomous"] {
        let llm = fake_llm::start(dialect).await;
        llm.push(Step::call("get_contact", json!({})));
        llm.push(if mode == "suggest" {
            Step::call(
                "propose_sms_replies",
                json!({"options": ["Yes, 9 to 1.", "We are open Saturday morning.", "Yes! Want to book?"]}),
            )
        } else {
            Step::call("send_sms", json!({"body": "Yes, 9 to 1 on Saturdays."}))
        });
        llm.push(Step::text("Done."));
        let model = Arc::new(RigModel::new(&llm.settings(Duration::from_secs(10))).unwrap());
        let Some(s) = setup_with(backend, mode, Some(model), |o| o).await else {
            return;
        };
        text_in(
            &s,
            "SMhost000000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "Open Saturday?",
        )
        .await;
        assert!(llm.refused.lock().unwrap().is_empty());
        assert_eq!(llm.remaining(), 0, "{mode}");
        let (_, msg) = first_message(&s).await;
        let sets: Value = s
            .app
            .ok_as(
                &s.org.client,
                "/api/suggestions",
                json!({"message_id": msg["id"]}),
            )
            .await;
        if mode == "suggest" {
            assert!(s.outbox.sent().is_empty(), "suggest mode never sends");
            assert_eq!(sets[0]["options"].as_array().unwrap().len(), 3);
        } else {
            // The agent's first reply in the conversation says it is automated.
            assert_eq!(
                s.outbox.sent()[0].body,
                "(Automated reply from Agent Co's AI assistant.) Yes, 9 to 1 on Saturdays."
            );
            assert_eq!(s.outbox.sent()[0].from, "+14155550100");
        }
    }
}

async fn planning_through_openai(backend: Backend) {
    planning_through(backend, Dialect::OpenAi).await
}
async fn planning_through_anthropic(backend: Backend) {
    planning_through(backend, Dialect::Anthropic).await
}
async fn replies_through_openai(backend: Backend) {
    replies_through(backend, Dialect::OpenAi).await
}
async fn replies_through_anthropic(backend: Backend) {
    replies_through(backend, Dialect::Anthropic).await
}

on_both_databases!(
    planning_through_openai,
    planning_through_anthropic,
    replies_through_openai,
    replies_through_anthropic,
);
