//! Issue 25's rules as a text leaves, each on both databases: suppression belongs to the number,
//! and a retry never sends what the rules now refuse. The other rules: `compliance_florida`,
//! `compliance_replies` and `compliance_consent`.
use crate::agent_support::{setup, text_in};
use crate::compliance_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::compliance::model::Purpose;
use herald::messaging::model::SendState;
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
            m.send_state,
            Some(SendState::Queued),
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
    assert_eq!(ann, Some(SendState::Failed));
    assert!(ann_error.unwrap_or_default().contains("opted out"));
    assert_eq!(bea, Some(SendState::Failed));
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

on_both_databases!(
    suppression_belongs_to_the_number,
    a_retry_never_sends_what_the_rules_now_refuse,
);
