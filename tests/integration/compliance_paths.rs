//! Issue 25's whole-path test: twenty ways of saying "stop" to an autonomous agent's number.
//! Each person gets exactly one confirmation, and then nothing from any path: the agent, a
//! campaign approved afterwards, a scheduled text, a plan's text, the reconciler's resend and
//! "send anyway". The provider's creates are counted per recipient.
use crate::agent_support::{setup, text_in};
use crate::campaign_support::{assistant_agent, campaign_plan, include_all};
use crate::compliance_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::compliance::model::Purpose;
use herald::messaging::model::SendState;
use serde_json::{json, Value};

pub const PHRASINGS: [&str; 20] = [
    "STOP",
    "Please stop texting me",
    "remove me from your list",
    "STOP 🛑",
    "no más mensajes",
    "unsubscribe",
    "leave me alone",
    "quit messaging me",
    "I never signed up for this",
    "darme de baja",
    "no me escriban",
    "désabonnez-moi",
    "take me off your list",
    "don't text me again",
    "Cancel.",
    "opt me out please",
    "Stop please",
    "end",
    "ne m'écrivez plus",
    "stop sending me messages",
];

async fn every_phrasing_gets_one_confirmation_then_nothing(backend: Backend) {
    let Some(s) = setup(backend, "autonomous", None).await else {
        return;
    };
    let app = &s.app;
    let mut ids = Vec::new();
    for i in 0..PHRASINGS.len() {
        ids.push(
            app.add_contact(&s.org, &format!("Person {i}"), &phone(i))
                .await,
        );
    }
    // A campaign written while they were all still subscribed; approved after they opt out.
    let assistant = assistant_agent(app, s.org.org_id).await;
    let plan = campaign_plan(app, &assistant, &include_all(&ids), "Spring offer").await;

    for (i, words) in PHRASINGS.iter().enumerate() {
        text_in(
            &s,
            &format!("SMout{i:04}"),
            &phone(i),
            "+14155550100",
            words,
        )
        .await;
    }
    app.settle().await;
    for (i, words) in PHRASINGS.iter().enumerate() {
        let got = creates_to(&s, &phone(i));
        assert_eq!(got.len(), 1, "{words:?}: {got:?}");
        assert!(got[0].contains("unsubscribed"), "{words:?}: {got:?}");
    }
    let suppressed = app.count("suppression").await;
    assert_eq!(suppressed, 20);

    // 1. The agent: a later text starts no turn and gets no answer.
    text_in(
        &s,
        "SMagain0",
        &phone(0),
        "+14155550100",
        "hello? are you open today",
    )
    .await;

    // 2. The campaign approved afterwards: every item is skipped, and the sheet sends nothing.
    let _: Value = app
        .ok_as(&s.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    app.settle().await;
    let op = app
        .ok_as::<Value>(&s.org.client, "/api/plans/get", json!({"id": plan.id}))
        .await["executed_ref"]
        .clone();
    let view: Value = app
        .ok_as(&s.org.client, "/api/operations/get", json!({"id": op}))
        .await;
    assert_eq!(view["skipped"], 20, "{view}");
    let _ = app
        .call_as(
            &s.org.client,
            "/api/operations/approve",
            app.approve_body(&s.org.client, &json!(op)).await,
        )
        .await;
    app.settle().await;

    // 3. A scheduled text that falls due.
    let number = s.numbers[0];
    let c1 = contact_id(app, &s.org, &phone(1)).await;
    schedule_due(
        app,
        s.org.org_id,
        c1,
        number,
        "Reminder: your visit is tomorrow",
    )
    .await;
    herald::messaging::scheduled::send_due(&app.state)
        .await
        .unwrap();
    assert_eq!(
        app.count_where("scheduled_text", "status = 'failed'").await,
        1
    );

    // 4. A plan's text (the step tools' send path).
    let c2 = contact_id(app, &s.org, &phone(2)).await;
    let refused = herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(
            s.org.org_id,
            c2,
            number,
            "Following up on your quote",
        )
        .origin(Some("agent"))
        .keyed(Some(uuid::Uuid::new_v4()))
        .purpose(Purpose::Outreach),
    )
    .await;
    assert!(refused.is_err(), "{refused:?}");

    // 5. The reconciler: a text left in doubt before the opt-out is looked up, found missing,
    //    and would be resent; the gate refuses it as it leaves.
    let c3 = contact_id(app, &s.org, &phone(3)).await;
    let in_doubt = text_from_before(
        app,
        s.org.org_id,
        c3,
        number,
        SendState::Sending,
        Purpose::Outreach,
    )
    .await;
    herald::messaging::ledger::sweep(&app.state, chrono::Duration::zero())
        .await
        .unwrap();
    let (state, error) = ledger_of(app, in_doubt).await;
    assert_eq!(state, Some(SendState::Failed));
    assert!(error.unwrap_or_default().contains("opted out"));

    // 6. "Send anyway" on a text in doubt.
    let c4 = contact_id(app, &s.org, &phone(4)).await;
    let unknown = text_from_before(
        app,
        s.org.org_id,
        c4,
        number,
        SendState::Unknown,
        Purpose::Reply,
    )
    .await;
    let _ = herald::messaging::ledger::resolve_unknown(
        &app.state,
        s.org.org_id,
        unknown,
        herald::messaging::model::Resolution::SendAnyway,
    )
    .await
    .unwrap();
    let (state, error) = ledger_of(app, unknown).await;
    assert_eq!(state, Some(SendState::Failed));
    assert!(error.unwrap_or_default().starts_with("Not sent:"));

    app.settle().await;
    let mut counts = Vec::new();
    for (i, words) in PHRASINGS.iter().enumerate() {
        let got = creates_to(&s, &phone(i));
        assert_eq!(
            got.len(),
            1,
            "{words:?} got more than its confirmation: {got:?}"
        );
        counts.push(got.len());
    }
    println!(
        "whole path: {} phrasings, {} creates in all, {} per person (the confirmation)",
        PHRASINGS.len(),
        s.outbox.sent().len(),
        counts.iter().max().unwrap()
    );
    assert_eq!(s.outbox.sent().len(), PHRASINGS.len());
}

on_both_databases!(every_phrasing_gets_one_confirmation_then_nothing);
