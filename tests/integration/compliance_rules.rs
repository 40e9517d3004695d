//! Issue 25's rules, each on both databases: suppression belongs to the number, a retry never
//! sends what the rules now refuse, the Florida rules, HELP once, AI disclosure once, possible
//! opt-outs, an organisation's own phrases, carrier opt-outs, and marketing consent.
use crate::agent_support::{setup, text_in};
use crate::campaign_support::{assistant_agent, operation_for};
use crate::compliance_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::compliance::model::Purpose;
use herald::messaging::ledger::send_state;
use herald::platform::clock::ManualClock;
use herald::platform::sms::outbox::OutboxTransport;
use herald::platform::sms::{FoundSms, Lookup, OutboundSms, SentSms, SmsTransport, TransportError};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

async fn suppression_belongs_to_the_number(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    let app = &s.app;
    let ada = app.add_contact(&s.org, "Ada", "+14155552671").await;
    text_in(
        &s,
        "SMstop1",
        "+14155552671",
        "+14155550100",
        "please stop texting me",
    )
    .await;
    let v: Value = app
        .ok_as(&s.org.client, "/api/contacts/get", json!({"id": ada}))
        .await;
    assert_eq!(
        (v["opted_out"].clone(), v["opt_out_source"].clone()),
        (json!(true), json!("phrase"))
    );
    // Her phone is edited away: the old number stays suppressed, the contact row is free of it.
    let edit = |phone: &str| json!({"id": ada, "input": {"name": "Ada", "phone": phone, "email": "", "tags": []}});
    let v: Value = app
        .ok_as(&s.org.client, "/api/contacts/update", edit("+14155552600"))
        .await;
    assert_eq!(v["opted_out"], false);
    // A new contact with the number, by hand or by import, is opted out from the start.
    let again = app.add_contact(&s.org, "Ada again", "+14155552671").await;
    let v: Value = app
        .ok_as(&s.org.client, "/api/contacts/get", json!({"id": again}))
        .await;
    assert_eq!(v["opted_out"], true, "{v}");
    let sent = herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(s.org.org_id, again, s.numbers[0], "Hi Ada")
            .origin(None),
    )
    .await;
    assert!(sent.is_err(), "{sent:?}");
    let v: Value = app.ok_as(&s.org.client, "/api/contacts/update", json!({"id": again, "input": {"name": "Moved", "phone": "+14155552601", "email": "", "tags": []}})).await;
    assert_eq!(v["opted_out"], false);
    let report: Value = app
        .ok_as(
            &s.org.client,
            "/api/contacts/import",
            json!({"csv": "name,phone,consent\nAda Imported,+14155552671,web_form\n"}),
        )
        .await;
    assert_eq!(report["imported"], 1, "{report}");
    let imported = contact_id(app, &s.org, "+14155552671").await;
    let v: Value = app
        .ok_as(&s.org.client, "/api/contacts/get", json!({"id": imported}))
        .await;
    assert_eq!(v["opted_out"], true);
    assert_eq!(v["consent_source"], "web_form");
    // Only an owner with a reason clears it, and both changes are in the audit.
    let (status, _) = app
        .call_as(
            &s.org.client,
            "/api/contacts/opt_out",
            json!({"id": imported, "opted_out": false}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::BAD_REQUEST);
    let v: Value = app
        .ok_as(
            &s.org.client,
            "/api/contacts/opt_out",
            json!({"id": imported, "opted_out": false, "reason": "signed consent form #88"}),
        )
        .await;
    assert_eq!(v["opted_out"], false);
    assert_eq!(
        app.count_where(
            "suppression_audit",
            "phone = '+14155552671' AND action = 'opted_out'"
        )
        .await,
        1
    );
    assert_eq!(
        app.count_where(
            "suppression_audit",
            "phone = '+14155552671' AND action = 'cleared' AND reason = 'signed consent form #88'"
        )
        .await,
        1
    );
    // The confirmation went once, for the one opt-out.
    assert_eq!(creates_to(&s, "+14155552671").len(), 1);
}

/// Refuses the first `refuse` creates with a 429 (surely not sent), then passes them on.
struct RateLimited {
    inner: Arc<OutboxTransport>,
    refuse: AtomicUsize,
}

#[async_trait::async_trait]
impl SmsTransport for RateLimited {
    fn name(&self) -> &'static str {
        "rate-limited"
    }
    async fn send(&self, sms: &OutboundSms) -> Result<SentSms, TransportError> {
        if self
            .refuse
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            return Err(TransportError::NotSent("429 Too Many Requests".into()));
        }
        self.inner.send(sms).await
    }
    async fn find(&self, lookup: &Lookup) -> Result<Vec<FoundSms>, TransportError> {
        self.inner.find(lookup).await
    }
}

async fn a_retry_never_sends_what_the_rules_now_refuse(backend: Backend) {
    use chrono::TimeZone;
    // 20:59 in New York (EDT, UTC-4).
    let clock = Arc::new(ManualClock::at(
        chrono::Utc.with_ymd_and_hms(2026, 6, 18, 0, 59, 0).unwrap(),
    ));
    let outbox = Arc::new(OutboxTransport::default());
    let transport = Arc::new(RateLimited {
        inner: outbox.clone(),
        refuse: AtomicUsize::new(2),
    });
    let Some(app) = spawn_app_with(
        backend,
        Options {
            transport: Some(transport),
            clock: Some(clock.clone()),
            ..Default::default()
        },
    )
    .await
    else {
        return;
    };
    let org = app.new_org("Retry Co").await;
    let number = app.add_number(&org, "+12125550100").await;
    let a = app.add_contact(&org, "Ann", "+12125550101").await;
    let b = app.add_contact(&org, "Bea", "+12125550102").await;
    let mut ids = Vec::new();
    for c in [a, b] {
        let m = herald::messaging::outbound::send(
            &app.state,
            herald::messaging::outbound::Outgoing::new(
                org.org_id,
                c,
                number,
                "Our spring hours are out",
            )
            .origin(Some("campaign"))
            .keyed(Some(uuid::Uuid::new_v4()))
            .purpose(Purpose::Outreach),
        )
        .await
        .unwrap();
        assert_eq!(
            m.send_state.as_deref(),
            Some(send_state::QUEUED),
            "a 429 leaves it queued"
        );
        ids.push(m.id);
    }
    // Ann opts out before the retry; the clock passes 21:00 before Bea's.
    assert!(app
        .post_webhook(
            &sms_params("SMann", "+12125550101", "+12125550100", "STOP"),
            None
        )
        .await
        .status()
        .is_success());
    app.settle().await;
    clock.advance(chrono::Duration::minutes(2));
    herald::messaging::ledger::sweep(&app.state, chrono::Duration::zero())
        .await
        .unwrap();
    app.settle().await;
    let (ann, ann_error) = ledger_of(&app, ids[0]).await;
    let (bea, bea_error) = ledger_of(&app, ids[1]).await;
    assert_eq!(ann.as_deref(), Some(send_state::FAILED));
    assert!(ann_error.unwrap_or_default().contains("opted out"));
    assert_eq!(bea.as_deref(), Some(send_state::FAILED));
    assert!(
        bea_error
            .clone()
            .unwrap_or_default()
            .contains("quiet hours"),
        "{bea_error:?}"
    );
    // Later sweeps never send them: failed is final.
    clock.advance(chrono::Duration::hours(12));
    herald::messaging::ledger::sweep(&app.state, chrono::Duration::zero())
        .await
        .unwrap();
    let sent = outbox.sent();
    assert_eq!(sent.iter().filter(|m| m.to == "+12125550102").count(), 0);
    let to_ann: Vec<_> = sent.iter().filter(|m| m.to == "+12125550101").collect();
    assert_eq!(to_ann.len(), 1, "only the confirmation: {to_ann:?}");
    assert!(to_ann[0].body.contains("unsubscribed"));
}

async fn florida_holds_at_eight_and_caps_three_a_day(backend: Backend) {
    use chrono::TimeZone;
    // 20:30 in Miami (EDT, UTC-4): federal hours allow it, Florida's do not.
    let clock = Arc::new(ManualClock::at(
        chrono::Utc.with_ymd_and_hms(2026, 6, 18, 0, 30, 0).unwrap(),
    ));
    let outbox = Arc::new(OutboxTransport::default());
    let Some(app) = spawn_app_with(
        backend,
        Options {
            transport: Some(outbox.clone()),
            clock: Some(clock.clone()),
            ..Default::default()
        },
    )
    .await
    else {
        return;
    };
    let org = app.new_org("Sunshine Co").await;
    let number = app.add_number(&org, "+13055550100").await;
    let flo = app.add_contact(&org, "Flo", "+13055550123").await;
    let v: Value = app
        .ok_as(&org.client, "/api/contacts/get", json!({"id": flo}))
        .await;
    assert!(
        v["inferred_zone"]
            .as_str()
            .unwrap()
            .contains("area code 305"),
        "{v}"
    );
    // A scheduled text due now is held until 08:00 Miami time (12:00 UTC).
    let id = schedule_due(
        &app,
        org.org_id,
        flo,
        number,
        "Your appointment is tomorrow",
    )
    .await;
    herald::messaging::scheduled::send_due(&app.state)
        .await
        .unwrap();
    let row = {
        use sea_orm::EntityTrait;
        herald::messaging::scheduled::entity::Entity::find_by_id(id)
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
    };
    assert_eq!(row.status, "scheduled");
    assert_eq!(
        row.send_at,
        chrono::Utc.with_ymd_and_hms(2026, 6, 18, 12, 0, 0).unwrap()
    );
    // A text sent straight at 20:30 is refused as it leaves.
    let late = herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(org.org_id, flo, number, "Late offer")
            .origin(Some("campaign"))
            .keyed(Some(uuid::Uuid::new_v4()))
            .purpose(Purpose::Outreach),
    )
    .await;
    assert!(format!("{late:?}").contains("Florida"), "{late:?}");
    // The next morning: three marketing texts go, the fourth in 24 hours is refused.
    clock.advance(chrono::Duration::hours(14));
    for i in 0..3 {
        herald::messaging::outbound::send(
            &app.state,
            herald::messaging::outbound::Outgoing::new(
                org.org_id,
                flo,
                number,
                &format!("Offer {i}"),
            )
            .origin(Some("campaign"))
            .keyed(Some(uuid::Uuid::new_v4()))
            .purpose(Purpose::Outreach),
        )
        .await
        .unwrap();
    }
    let fourth = herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(org.org_id, flo, number, "Offer 4")
            .origin(Some("campaign"))
            .keyed(Some(uuid::Uuid::new_v4()))
            .purpose(Purpose::Outreach),
    )
    .await;
    assert!(
        format!("{fourth:?}").contains("at most 3 marketing texts"),
        "{fourth:?}"
    );
    // A reply in a conversation she started is not marketing.
    assert!(app
        .post_webhook(
            &sms_params(
                "SMflo",
                "+13055550123",
                "+13055550100",
                "What time do you open?"
            ),
            None
        )
        .await
        .status()
        .is_success());
    app.settle().await;
    herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(org.org_id, flo, number, "We open at 9.")
            .origin(None),
    )
    .await
    .unwrap();
    assert_eq!(
        outbox
            .sent()
            .iter()
            .filter(|m| m.to == "+13055550123")
            .count(),
        4
    );
}

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
        send_state::QUEUED,
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

async fn marketing_needs_written_consent(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    let app = &s.app;
    let without: Value = app
        .ok_as(&s.org.client, "/api/contacts/create", json!({"input": {"name": "No Consent", "phone": "+14155552680", "email": "", "tags": []}}))
        .await;
    assert_eq!(without["consent_source"], "none");
    let no = without["id"].as_str().unwrap().parse().unwrap();
    let yes = app.add_contact(&s.org, "Has Consent", "+14155552681").await;
    // A first text from the composer is outreach: refused without consent, with the reason.
    let refused = herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(s.org.org_id, no, s.numbers[0], "Hello!")
            .origin(None),
    )
    .await;
    assert!(
        format!("{refused:?}").contains("no marketing consent"),
        "{refused:?}"
    );
    herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(s.org.org_id, yes, s.numbers[0], "Hello!")
            .origin(None),
    )
    .await
    .unwrap();
    // A campaign leaves the one without consent out, with the reason.
    let agent = assistant_agent(app, s.org.org_id).await;
    let audience = crate::campaign_support::include_all(&[no, yes]);
    let op = operation_for(app, &agent, &audience, "Consent").await;
    let skipped = {
        use herald::campaign::entity::item;
        use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
        item::Entity::find()
            .filter(item::Column::OperationId.eq(op))
            .filter(item::Column::SkipReason.eq("no marketing consent on record"))
            .count(&app.state.db)
            .await
            .unwrap()
    };
    assert_eq!(skipped, 1);
    // Once the person texts first, a reply needs no marketing consent.
    text_in(
        &s,
        "SMfirst",
        "+14155552680",
        "+14155550100",
        "Hi, do you have time Friday?",
    )
    .await;
    herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(s.org.org_id, no, s.numbers[0], "We do!")
            .origin(None),
    )
    .await
    .unwrap();
}

on_both_databases!(
    suppression_belongs_to_the_number,
    a_retry_never_sends_what_the_rules_now_refuse,
    florida_holds_at_eight_and_caps_three_a_day,
    help_is_answered_once_per_request,
    an_autonomous_agent_discloses_in_its_first_reply_only,
    a_possible_opt_out_waits_for_a_person,
    an_organisations_own_words_and_the_carriers_opt_outs,
    marketing_needs_written_consent,
);
