//! Issue 25's rules on what comes in and the first answers, on both databases: HELP once, AI
//! disclosure once, possible opt-outs wait for a person, an organisation's own phrases and the
//! carriers' opt-outs.
use crate::agent_support::{setup, text_in};
use crate::compliance_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::compliance::model::Purpose;
use herald::messaging::model::SendState;
use serde_json::{json, Value};

async fn help_is_answered_once_per_request(backend: Backend) {
    let Some(s) = setup(backend, "autonomous", None).await else {
        return;
    };
    text_in(&s, "SMhelp1", "+14155552671", "+14155550100", "HELP").await;
    // A redelivery of the same text answers nothing more.
    text_in(&s, "SMhelp1", "+14155552671", "+14155550100", "HELP").await;
    s.app.settle().await;
    let got = creates_to(&s, "+14155552671");
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].contains("Agent Co") && got[0].contains("STOP"),
        "{got:?}"
    );
    // The agent did not answer it too.
    text_in(&s, "SMhelp2", "+14155552671", "+14155550100", "info").await;
    s.app.settle().await;
    assert_eq!(creates_to(&s, "+14155552671").len(), 2);
}

async fn an_autonomous_agent_discloses_in_its_first_reply_only(backend: Backend) {
    let Some(s) = setup(backend, "autonomous", None).await else {
        return;
    };
    text_in(
        &s,
        "SMd1",
        "+14155552671",
        "+14155550100",
        "Hi, can I book a cleaning next week?",
    )
    .await;
    wait_for_creates(&s, "+14155552671", 1).await;
    text_in(
        &s,
        "SMd2",
        "+14155552671",
        "+14155550100",
        "Tuesday morning works for me",
    )
    .await;
    wait_for_creates(&s, "+14155552671", 2).await;
    let got = creates_to(&s, "+14155552671");
    assert!(
        got[0].starts_with("(Automated reply from Agent Co's AI assistant.)"),
        "{got:?}"
    );
    assert!(!got[1].contains("Automated"), "{got:?}");
    // Another number is another conversation: it discloses again.
    text_in(
        &s,
        "SMd3",
        "+14155552671",
        "+14155550101",
        "Is this the same office?",
    )
    .await;
    wait_for_creates(&s, "+14155552671", 3).await;
    assert!(creates_to(&s, "+14155552671")[2].contains("Automated"));
}

async fn wait_for_creates(s: &crate::agent_support::Setup, to: &str, n: usize) {
    for _ in 0..600 {
        if creates_to(s, to).len() >= n {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("{to} got {:?}, not {n} texts", creates_to(s, to));
}

async fn a_possible_opt_out_waits_for_a_person(backend: Backend) {
    let Some(s) = setup(backend, "autonomous", None).await else {
        return;
    };
    let app = &s.app;
    text_in(&s, "SMamb1", "+14155552671", "+14155550100", "wrong number").await;
    text_in(
        &s,
        "SMamb2",
        "+14155552672",
        "+14155550100",
        "I'm not interested anymore",
    )
    .await;
    app.settle().await;
    assert!(
        s.outbox.sent().is_empty(),
        "the agent paused: {:?}",
        s.outbox.sent()
    );
    let counts: Value = app
        .ok_as(&s.org.client, "/api/attention", Value::Null)
        .await;
    assert_eq!(counts["possible_opt_outs"], 2, "{counts}");
    let page: Value = app
        .ok_as(
            &s.org.client,
            "/api/compliance/possible_opt_outs",
            json!({"page": 0}),
        )
        .await;
    assert_eq!(page["total"], 2);
    let first = page["items"][0].clone();
    assert_eq!(first["body"], "wrong number");
    // While it waits, an automated text to that person is refused as it leaves.
    let c1 = contact_id(app, &s.org, "+14155552671").await;
    let held = text_from_before(
        app,
        s.org.org_id,
        c1,
        s.numbers[0],
        SendState::Queued,
        Purpose::Reply,
    )
    .await;
    herald::messaging::ledger::deliver(&app.state, held)
        .await
        .unwrap();
    assert!(ledger_of(app, held)
        .await
        .1
        .unwrap_or_default()
        .contains("paused"));
    // Dismissed: the text goes on to the agent, which answers it.
    let _: Value = app
        .ok_as(
            &s.org.client,
            "/api/compliance/possible_opt_outs/decide",
            json!({"id": first["id"], "opt_out": false}),
        )
        .await;
    wait_for_creates(&s, "+14155552671", 1).await;
    // Confirmed: the number is suppressed and gets its one confirmation.
    let second = page["items"][1].clone();
    let _: Value = app
        .ok_as(
            &s.org.client,
            "/api/compliance/possible_opt_outs/decide",
            json!({"id": second["id"], "opt_out": true}),
        )
        .await;
    app.settle().await;
    let got = creates_to(&s, "+14155552672");
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].contains("unsubscribed"));
    let (status, _) = app
        .call_as(
            &s.org.client,
            "/api/compliance/possible_opt_outs/decide",
            json!({"id": second["id"], "opt_out": false}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::CONFLICT);
    let counts: Value = app
        .ok_as(&s.org.client, "/api/attention", Value::Null)
        .await;
    assert_eq!(counts["possible_opt_outs"], 0);
}

async fn an_organisations_own_words_and_the_carriers_opt_outs(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    let app = &s.app;
    let view: Value = app
        .ok_as(&s.org.client, "/api/compliance/settings", Value::Null)
        .await;
    let mut settings = view["settings"].clone();
    settings["opt_out_phrases"] = json!("no gracias\nbasta ya");
    let _: Value = app
        .ok_as(
            &s.org.client,
            "/api/compliance/settings/update",
            json!({"settings": settings}),
        )
        .await;
    text_in(&s, "SMown", "+14155552671", "+14155550100", "No gracias!!").await;
    let c = contact_id(app, &s.org, "+14155552671").await;
    let v: Value = app
        .ok_as(&s.org.client, "/api/contacts/get", json!({"id": c}))
        .await;
    assert_eq!(v["opted_out"], true, "{v}");
    // Twilio's Advanced Opt-Out handled a STOP: suppressed, and Herald sends no second confirmation.
    let mut params = sms_params("SMadv", "+14155552672", "+14155550100", "stop");
    params.push(("OptOutType", "STOP"));
    assert!(app.post_webhook(&params, None).await.status().is_success());
    app.settle().await;
    let c2 = contact_id(app, &s.org, "+14155552672").await;
    let v: Value = app
        .ok_as(&s.org.client, "/api/contacts/get", json!({"id": c2}))
        .await;
    assert_eq!(v["opted_out"], true);
    assert!(creates_to(&s, "+14155552672").is_empty());
    // A send refused by the carrier with 21610 puts the number on the same list.
    let c3 = app.add_contact(&s.org, "Cy", "+14155552673").await;
    let m = herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(s.org.org_id, c3, s.numbers[0], "Hello Cy")
            .origin(None),
    )
    .await
    .unwrap();
    let sid = {
        use sea_orm::EntityTrait;
        herald::messaging::entity::Entity::find_by_id(m.id)
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
            .provider_sid
            .expect("sent")
    };
    let status = app
        .client
        .post(app.url("/webhooks/twilio/status"))
        .form(&[
            ("MessageSid", sid.as_str()),
            ("MessageStatus", "failed"),
            ("ErrorCode", "21610"),
        ])
        .send()
        .await
        .unwrap()
        .status();
    assert!(status.is_success());
    let v: Value = app
        .ok_as(&s.org.client, "/api/contacts/get", json!({"id": c3}))
        .await;
    assert_eq!(
        (v["opted_out"].clone(), v["opt_out_source"].clone()),
        (json!(true), json!("carrier"))
    );
    // The failed text says why in plain words, with the code (issue 30 §1).
    let error = {
        use sea_orm::EntityTrait;
        herald::messaging::entity::Entity::find_by_id(m.id)
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
            .error
    };
    assert_eq!(
        error.as_deref(),
        Some(herald::platform::carrier_errors::explain("21610").as_str())
    );
    assert!(error
        .unwrap()
        .starts_with("The recipient has opted out of texts from this number (error 21610)."));
}

on_both_databases!(
    help_is_answered_once_per_request,
    an_autonomous_agent_discloses_in_its_first_reply_only,
    a_possible_opt_out_waits_for_a_person,
    an_organisations_own_words_and_the_carriers_opt_outs,
);
