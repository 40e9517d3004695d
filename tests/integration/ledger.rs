//! The send ledger when Herald cannot tell: a provider that loses every answer and cannot be
//! asked. The campaign's texts become `unknown`, are shown on the operation, and a person
//! decides: "mark as sent" settles one, "send anyway" sends another (once).
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::platform::sms::outbox::OutboxTransport;
use herald::platform::sms::{FoundSms, Lookup, OutboundSms, SentSms, SmsTransport, TransportError};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Takes every text, loses every answer while `lost` holds, and cannot be asked about them.
struct Lossy {
    inner: OutboxTransport,
    lost: AtomicBool,
}

#[async_trait::async_trait]
impl SmsTransport for Lossy {
    fn name(&self) -> &'static str {
        "lossy"
    }
    async fn send(&self, sms: &OutboundSms) -> Result<SentSms, TransportError> {
        let sent = self.inner.send(sms).await?;
        if self.lost.load(Ordering::SeqCst) {
            return Err(TransportError::Ambiguous("connection reset".into()));
        }
        Ok(sent)
    }
    async fn find(&self, _: &Lookup) -> Result<Vec<FoundSms>, TransportError> {
        Err(TransportError::NotSent("the list is down".into()))
    }
}

async fn texts_in_doubt_wait_for_a_person(backend: Backend) {
    let lossy = Arc::new(Lossy {
        inner: OutboxTransport::default(),
        lost: AtomicBool::new(true),
    });
    let Some(app) = spawn_app_sending_to(backend, lossy.clone()).await else {
        return;
    };
    let c = crm(&app).await;
    let agent = assistant_agent(&app, c.org.org_id).await;
    let plan = campaign_plan(&app, &agent, &include_all(&[c.katherine, c.linus]), "Doubt").await;
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    app.settle().await;
    let op = app
        .ok_as::<Value>(&c.org.client, "/api/plans/get", json!({"id": plan.id}))
        .await["executed_ref"]
        .clone();
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/approve",
            app.approve_body(&c.org.client, &json!(op)).await,
        )
        .await;
    // The sends' answers are lost; every lookup fails; after the last try they are unknown.
    for _ in 0..400 {
        if lossy.inner.sent().len() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    for _ in 0..herald::messaging::ledger::RECONCILE_TRIES {
        herald::messaging::ledger::sweep(&app.state, chrono::Duration::zero())
            .await
            .unwrap();
    }
    app.settle().await;
    let view: Value = app
        .ok_as(&c.org.client, "/api/operations/get", json!({"id": op}))
        .await;
    assert_eq!(view["unknown"], 2, "{view}");
    assert_eq!(view["status"], "done", "nothing left to send; two in doubt");
    assert_eq!(
        lossy.inner.sent().len(),
        2,
        "sent once each, never blindly again"
    );
    let sheet = sheet(&app, &c.org, &op).await;
    let items = sheet["items"].as_array().unwrap().clone();
    let conv: Value = app
        .ok_as(
            &c.org.client,
            "/api/conversations/get",
            json!({"contact_id": items[0]["contact_id"]}),
        )
        .await;
    let doubt = conv["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["direction"] == "outbound")
        .unwrap();
    assert_eq!(
        doubt["send_state"], "unknown",
        "shown in the conversation too"
    );
    // A person decides: the first went (mark as sent); the second is sent again.
    lossy.lost.store(false, Ordering::SeqCst);
    let after: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/items/resolve",
            json!({"item_id": items[0]["id"], "resolution": "mark_sent"}),
        )
        .await;
    assert_eq!(after["items"][0]["status"], "sent");
    assert_eq!(lossy.inner.sent().len(), 2);
    let after: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/items/resolve",
            json!({"item_id": items[1]["id"], "resolution": "send_anyway"}),
        )
        .await;
    assert_eq!(after["items"][1]["status"], "sent", "{after}");
    assert_eq!(after["operation"]["unknown"], 0);
    assert_eq!(
        lossy.inner.sent().len(),
        3,
        "sent anyway: once more, by choice"
    );
    // Decided once: a second decision is refused.
    let (status, _) = app
        .call_as(
            &c.org.client,
            "/api/operations/items/resolve",
            json!({"item_id": items[1]["id"], "resolution": "send_anyway"}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::CONFLICT);
    // Another organisation cannot decide for this one.
    let other = app.new_org("Elsewhere").await;
    let (status, _) = app
        .call_as(
            &other.client,
            "/api/messages/resolve",
            json!({"id": doubt["id"], "resolution": "mark_sent"}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::NOT_FOUND);
}

on_both_databases!(texts_in_doubt_wait_for_a_person);
