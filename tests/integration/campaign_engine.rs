//! The campaign engines: claims never overlap, restarts resume without redrafting, pacing and
//! both sides of quiet hours on a manual clock, late opt-outs, and exactly-once sends.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::campaign::drafter::{DraftRequest, Drafter, FixedLatencyDrafter};
use herald::campaign::entity::item;
use herald::messaging::model::SendState;
use herald::platform::clock::ManualClock;
use herald::platform::sms::outbox::OutboxTransport;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Four claimers at once never share an item.
async fn claims_never_overlap(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let mut ids = Vec::new();
    for i in 0..200 {
        ids.push(
            app.add_contact(&c.org, &format!("Lead {i}"), &format!("+1415556{i:04}"))
                .await,
        );
    }
    let audience = include_all(&ids);
    let agent = assistant_agent(&app, c.org.org_id).await;
    let op = operation_for(&app, &agent, &audience, "Claims").await;
    let claimers = (0..4).map(|w| {
        let state = app.state.clone();
        tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let batch =
                    herald::campaign::draft_engine::claim_batch(&state, op, &format!("w{w}"), 7)
                        .await
                        .unwrap();
                if batch.is_empty() {
                    break;
                }
                mine.extend(batch.into_iter().map(|(id, _)| id));
            }
            mine
        })
    });
    let mut all: Vec<uuid::Uuid> = Vec::new();
    for h in claimers {
        all.extend(h.await.unwrap());
    }
    let n = all.len();
    all.sort();
    all.dedup();
    assert_eq!(n, all.len(), "no item was claimed twice");
    // The periodic sweep may start the server's own draft engine on this operation while the
    // test runs (a slow machine takes more than a sweep to add 200 contacts): it is a fifth
    // claimer then. Every claim adds one attempt, so each item was claimed exactly once overall.
    let items = item::Entity::find()
        .filter(item::Column::OperationId.eq(op))
        .all(&app.state.db)
        .await
        .unwrap();
    assert_eq!(items.len(), 200);
    assert!(
        items
            .iter()
            .all(|i| i.attempts == 1 && i.status.as_str() != "pending"),
        "every item claimed once: {:?}",
        items
            .iter()
            .map(|i| (i.status.as_str(), i.attempts))
            .collect::<Vec<_>>()
    );
    assert!(n > 0, "the test's claimers took part");
}

struct CountingDrafter(AtomicUsize);

#[async_trait::async_trait]
impl Drafter for CountingDrafter {
    async fn draft(&self, req: &DraftRequest) -> Result<String, herald::ai_agent::llm::LlmError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(format!("Hi {}", req.first_name))
    }
}

/// A restart mid-drafting resumes without redrafting finished items.
async fn restart_mid_drafting(backend: Backend) {
    let drafter = Arc::new(CountingDrafter(AtomicUsize::new(0)));
    let opts = Options {
        drafter: Some(drafter.clone()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let c = crm(&app).await;
    let mut ids = Vec::new();
    for i in 0..10 {
        ids.push(
            app.add_contact(&c.org, &format!("Lead {i}"), &format!("+1415557{i:04}"))
                .await,
        );
    }
    let audience = include_all(&ids);
    let agent = assistant_agent(&app, c.org.org_id).await;
    let op = operation_for(&app, &agent, &audience, "Restart").await;
    // A first worker drafted four and died holding three more.
    let first = herald::campaign::draft_engine::claim_batch(&app.state, op, "dead", 7)
        .await
        .unwrap();
    use sea_orm::sea_query::Expr;
    for (id, _) in first.iter().take(4) {
        item::Entity::update_many()
            .col_expr(item::Column::Status, Expr::value("drafted"))
            .col_expr(item::Column::Draft, Expr::value(Some("FIRST RUN")))
            .col_expr(
                item::Column::DraftedAt,
                Expr::value(Some(app.state.clock.now())),
            )
            .filter(item::Column::Id.eq(*id))
            .exec(&app.state.db)
            .await
            .unwrap();
    }
    item::Entity::update_many()
        .col_expr(
            item::Column::HeartbeatAt,
            Expr::value(Some(app.state.clock.now() - chrono::Duration::hours(1))),
        )
        .filter(item::Column::Status.eq("drafting"))
        .exec(&app.state.db)
        .await
        .unwrap();
    // The restart: the engines resume.
    herald::campaign::engines::resume(&app.state).await.unwrap();
    app.settle().await;
    assert_eq!(
        drafter.0.load(Ordering::SeqCst),
        6,
        "only the six unfinished items were drafted"
    );
    let items = herald::campaign::create::items_of(&app.state, op)
        .await
        .unwrap();
    assert!(items.iter().all(|i| i.status.as_str() == "drafted"));
    assert_eq!(
        items
            .iter()
            .filter(|i| i.draft.as_deref() == Some("FIRST RUN"))
            .count(),
        4
    );
    let s = sheet(&app, &c.org, &json!(op)).await;
    assert_eq!(s["operation"]["status"], "awaiting_approval");
}

/// A server on a manual clock with `n` New York contacts in an approved campaign, drafted and
/// waiting for the review sheet.
pub(crate) async fn new_york_campaign(
    backend: Backend,
    start: chrono::DateTime<chrono::Utc>,
    n: usize,
) -> Option<(TestApp, Crm, Arc<ManualClock>, Arc<OutboxTransport>, Value)> {
    let clock = Arc::new(ManualClock::at(start));
    let outbox = Arc::new(OutboxTransport::default());
    let opts = Options {
        clock: Some(clock.clone()),
        transport: Some(outbox.clone()),
        sends_per_second: 1.0,
        send_concurrency: 1,
        drafter: Some(Arc::new(FixedLatencyDrafter(Duration::ZERO))),
        ..Default::default()
    };
    let app = spawn_app_with(backend, opts).await?;
    let c = crm(&app).await;
    let mut ids = Vec::new();
    for i in 0..n {
        let v: Value = app
            .ok_as(&c.org.client, "/api/contacts/create", json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": format!("NY {i}"), "phone": format!("+1212555{:04}", 100 + i), "email": "", "tags": ["quote"], "time_zone": "America/New_York"}}))
            .await;
        ids.push(v["id"].as_str().unwrap().parse::<uuid::Uuid>().unwrap());
    }
    let audience = include_all(&ids);
    let agent = assistant_agent(&app, c.org.org_id).await;
    let plan = campaign_plan(&app, &agent, &audience, "Pacing").await;
    let _: Value = app
        .ok_as(&c.org.client, "/api/plans/approve", json!({"id": plan.id}))
        .await;
    app.settle().await;
    let op = app
        .ok_as::<Value>(&c.org.client, "/api/plans/get", json!({"id": plan.id}))
        .await["executed_ref"]
        .clone();
    Some((app, c, clock, outbox, op))
}

/// Pacing (1 a second) and the morning side of quiet hours, with an injectable clock; a STOP
/// before sending skips.
async fn pacing_quiet_hours_and_late_opt_outs(backend: Backend) {
    use chrono::TimeZone;
    // 03:00 in New York: quiet until 08:00.
    let start = chrono::Utc.with_ymd_and_hms(2026, 1, 15, 8, 0, 0).unwrap();
    let Some((app, c, clock, outbox, op)) = new_york_campaign(backend, start, 4).await else {
        return;
    };
    // A STOP arrives ten minutes after drafting, before sending.
    clock.advance(chrono::Duration::minutes(10));
    app.post_webhook(
        &sms_params(
            "SMstoplate000000000000000000000001",
            "+12125550103",
            "+14155550100",
            "STOP",
        ),
        None,
    )
    .await;
    app.settle().await;
    let s = sheet(&app, &c.org, &op).await;
    let flagged = s["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["contact_name"] == "NY 3")
        .unwrap()
        .clone();
    assert_eq!(
        flagged["replied_since_drafting"], true,
        "the sheet flags a reply since drafting"
    );
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/approve",
            app.approve_body(&c.org.client, &json!(op)).await,
        )
        .await;
    app.settle().await;
    // The STOP got its one confirmation; the campaign's own texts are the rest.
    let (confirmations, sent): (Vec<_>, Vec<_>) = outbox
        .sent()
        .into_iter()
        .partition(|m| m.body.contains("unsubscribed"));
    assert_eq!(confirmations.len(), 1, "{confirmations:?}");
    assert_eq!(confirmations[0].to, "+12125550103");
    assert_eq!(
        sent.len(),
        3,
        "the contact who said STOP is skipped at send time"
    );
    let slept = clock.slept.lock().unwrap().clone();
    assert_eq!(
        slept[0],
        Duration::from_secs(5 * 3600 - 600),
        "waited for 08:00 in New York"
    );
    let gaps: Vec<Duration> = slept[1..].to_vec();
    assert_eq!(
        gaps,
        vec![Duration::from_secs(1), Duration::from_secs(1)],
        "one a second"
    );
    let s = sheet(&app, &c.org, &op).await;
    let skipped = s["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["contact_name"] == "NY 3")
        .unwrap()
        .clone();
    assert_eq!(skipped["skip_reason"], "opted out before sending");
    assert_eq!(s["operation"]["status"], "done");
}

/// The evening side: sending starts at 20:59:58 in New York at one a second; the third text,
/// whose turn comes at 21:00:00, waits for 08:00 the next morning, and so does the fourth.
async fn quiet_hours_close_at_nine(backend: Backend) {
    use chrono::TimeZone;
    let ny: chrono_tz::Tz = "America/New_York".parse().unwrap();
    let start = ny
        .with_ymd_and_hms(2026, 1, 15, 20, 59, 58)
        .unwrap()
        .with_timezone(&chrono::Utc);
    let Some((app, c, clock, outbox, op)) = new_york_campaign(backend, start, 4).await else {
        return;
    };
    approve_and_settle(&app, &c.org, &json!(op)).await;
    assert_eq!(outbox.sent().len(), 4, "everyone is texted in the end");
    let local = sent_local(&app, &op, ny).await;
    let at = january;
    assert_eq!(
        local,
        vec![
            at(15, 20, 59, 58),
            at(15, 20, 59, 59),
            at(16, 8, 0, 0),
            at(16, 8, 0, 1)
        ],
        "nothing leaves at or after 21:00 in the recipient's zone"
    );
    assert!(clock
        .slept
        .lock()
        .unwrap()
        .contains(&Duration::from_secs(11 * 3600)));
}

/// The same idempotency key is the same text; a crash between the provider accepting it and
/// Herald recording it leaves it `sending` without a SID, and the ledger finds it with the
/// provider instead of sending it again (the outbox, like Twilio, does not deduplicate).
async fn idempotent_sends(backend: Backend) {
    let outbox = Arc::new(OutboxTransport::default());
    let Some(app) = spawn_app_sending_to(backend, outbox.clone()).await else {
        return;
    };
    let c = crm(&app).await;
    let number = herald::phone_numbers::service::list(&app.state, c.org.org_id)
        .await
        .unwrap()[0]
        .id;
    let key = uuid::Uuid::new_v4();
    let send = || {
        herald::messaging::outbound::send(
            &app.state,
            herald::messaging::outbound::Outgoing::new(c.org.org_id, c.linus, number, "Hello")
                .origin(Some("campaign"))
                .keyed(Some(key))
                .purpose(herald::compliance::model::Purpose::Outreach),
        )
    };
    let a = send().await.unwrap();
    let b = send().await.unwrap();
    assert_eq!(a.id, b.id);
    assert_eq!(outbox.sent().len(), 1);
    // The crash: the provider has it, Herald recorded nothing of the answer.
    use sea_orm::ConnectionTrait;
    app.state
        .db
        .execute_unprepared(
            "UPDATE message SET send_state = 'sending', provider_sid = NULL, status = 'queued' WHERE direction = 'outbound'",
        )
        .await
        .unwrap();
    let again = send().await.unwrap();
    assert_eq!(
        again.send_state,
        Some(SendState::Sending),
        "left to the ledger"
    );
    assert_eq!(outbox.sent().len(), 1, "never resent blindly");
    herald::messaging::ledger::sweep(&app.state, chrono::Duration::zero())
        .await
        .unwrap();
    let row = herald::messaging::entity::Entity::find_by_id(a.id)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.send_state, Some(SendState::Sent));
    assert!(
        row.provider_sid.is_some(),
        "its SID, found with the provider"
    );
    assert_eq!(outbox.sent().len(), 1, "the provider sent it once");
    assert_eq!(
        app.count("message").await,
        2,
        "the inbound from setup and one outbound"
    );
}

on_both_databases!(
    claims_never_overlap,
    restart_mid_drafting,
    pacing_quiet_hours_and_late_opt_outs,
    quiet_hours_close_at_nine,
    idempotent_sends,
);
