//! Issue 49 §9: webhook deliveries are picked fairly per organisation, and each place in flight
//! is claimed again as soon as its delivery ends. Alpha has twenty subscriptions to a receiver that
//! takes three seconds an answer, and its events are older than Bravo's; Bravo's events still
//! arrive at once, one after another, while Alpha's are in flight.
use crate::helpers::*;
use crate::on_both_databases;
use crate::webhook_receiver::Receiver;
use crate::webhooks::subscribe;
use reqwest::StatusCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

async fn one_organisation_never_holds_another_s_webhooks(backend: Backend) {
    let settings = herald::webhooks::WebhookSettings {
        allow_private: true,
        retry_base: Duration::from_millis(40),
        poll_every: Duration::from_millis(50),
        ..Default::default()
    };
    let opts = Options {
        webhooks: Some(settings),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let (slow, fast) = (Receiver::start().await, Receiver::start().await);
    slow.delay_ms.store(3000, Ordering::SeqCst);
    let alpha = app.new_org("Alpha").await;
    let bravo = app.new_org("Bravo").await;
    for i in 0..20 {
        let url = format!("{}?sub={i}", slow.url);
        let (status, body) = subscribe(&app, &alpha, &url, &["contact.created"]).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let (status, secret) = subscribe(&app, &bravo, &fast.url, &["contact.created"]).await;
    assert_eq!(status, StatusCode::CREATED, "{secret}");
    fast.set_secret(&secret);

    // Alpha's twenty deliveries first (older), then Bravo's three, one at a time.
    app.add_contact(&alpha, "Alpha One", "+14155553001").await;
    let started = Instant::now();
    for i in 0..3 {
        app.add_contact(&bravo, &format!("Bravo {i}"), &format!("+1415555310{i}"))
            .await;
        fast.wait_for(i + 1).await;
    }
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(2500),
        "Bravo's three arrived in {took:?}, while Alpha's answers take 3 s each"
    );
    assert_eq!(fast.snapshot().forged, 0);
    // Alpha's were tried meanwhile, no more than half the places at once: eight answered at
    // about three seconds, the next eight were still in flight.
    tokio::time::sleep(Duration::from_millis(4000).saturating_sub(started.elapsed())).await;
    let answered = slow.snapshot().requests;
    assert!((8..16).contains(&answered), "{answered}");
}

on_both_databases!(one_organisation_never_holds_another_s_webhooks);
