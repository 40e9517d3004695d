//! Agent work cannot hold up the webhook (issue 15): with every turn slot taken by a turn whose
//! model does not answer, texts are still acknowledged and stored; no more turns run at once
//! than the slots allow; and once the model answers, every text is processed, one thread per
//! contact. A campaign draft slower than the reaper's limit is kept alive by its heartbeat and
//! drafted once. No timings are asserted: only what happened.
use crate::agent_support::*;
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::{ChatMessage, ChatModel, Completion, LlmError, ToolDef};
use herald::campaign::drafter::{DraftRequest, Drafter};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The offline model behind a gate that tests open, counting calls in flight.
struct GatedModel {
    open: tokio::sync::watch::Receiver<bool>,
    in_flight: AtomicUsize,
    most: AtomicUsize,
}

#[async_trait::async_trait]
impl ChatModel for GatedModel {
    fn label(&self) -> String {
        "gated offline".into()
    }

    async fn complete(
        &self,
        system: &str,
        messages: &[ChatMessage],
        tools: &[ToolDef],
    ) -> Result<Completion, LlmError> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        let mut open = self.open.clone();
        let _ = open.wait_for(|o| *o).await;
        let answer = herald::ai_agent::llm::offline::OfflineModel
            .complete(system, messages, tools)
            .await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        answer
    }
}

async fn busy_agents_never_hold_up_acknowledgements(backend: Backend) {
    let (gate, open) = tokio::sync::watch::channel(false);
    let model = Arc::new(GatedModel {
        open,
        in_flight: AtomicUsize::new(0),
        most: AtomicUsize::new(0),
    });
    let Some(s) = setup_with_options(backend, "suggest", model.clone(), |o| Options {
        turn_concurrency: 2,
        ..o
    })
    .await
    else {
        return;
    };
    let to = "+14155550100";
    let contacts: Vec<String> = (0..6).map(|i| format!("+1415557{i:04}")).collect();
    let mut sent = 0;
    for (i, from) in contacts.iter().enumerate() {
        let sid = format!("SMisofirst{i:024}");
        let reply = s
            .app
            .post_webhook(&sms_params(&sid, from, to, "Can I move my visit?"), None)
            .await;
        assert!(reply.status().is_success());
        sent += 1;
    }
    let held = "both turn slots are taken by turns waiting on the model";
    eventually(30, held, || async {
        (model.in_flight.load(Ordering::SeqCst) == 2).then_some(())
    })
    .await;
    // Every slot is held by a turn that cannot finish: texts still go in, each acknowledged.
    for round in 0..3 {
        for (i, from) in contacts.iter().enumerate() {
            let sid = format!("SMisoround{round}{i:023}");
            let reply = s
                .app
                .post_webhook(&sms_params(&sid, from, to, "Hello again?"), None)
                .await;
            assert!(
                reply.status().is_success(),
                "acknowledged while agents are busy"
            );
            sent += 1;
        }
    }
    assert_eq!(
        s.app.count_where("message", "direction = 'inbound'").await,
        sent,
        "every acknowledged text is stored"
    );
    assert_eq!(
        model.in_flight.load(Ordering::SeqCst),
        2,
        "no turn beyond the slots"
    );
    gate.send(true).unwrap();
    eventually(30, "every text is processed by a turn", || async {
        let processed = "kind = 'inbound_sms' AND processed_at IS NOT NULL";
        (s.app.count_where("ai_thread_event", processed).await == sent).then_some(())
    })
    .await;
    s.app.settle().await;
    assert!(
        model.most.load(Ordering::SeqCst) <= 2,
        "at most two turns ran at once"
    );
    assert_eq!(
        s.app.count_where("ai_thread", "1 = 1").await,
        6,
        "one thread per contact"
    );
    assert_eq!(
        s.app
            .count_where("message", "direction = 'inbound' AND routed_at IS NULL")
            .await,
        0
    );
}
on_both_databases!(busy_agents_never_hold_up_acknowledgements);

/// A drafter that takes `latency` and counts its drafts.
struct SlowDrafter {
    latency: Duration,
    drafts: AtomicUsize,
}

#[async_trait::async_trait]
impl Drafter for SlowDrafter {
    async fn draft(&self, req: &DraftRequest) -> Result<String, LlmError> {
        tokio::time::sleep(self.latency).await;
        self.drafts.fetch_add(1, Ordering::SeqCst);
        Ok(format!("Hi {}, {}", req.first_name, req.concept))
    }
}

async fn slow_drafts_stay_claimed(backend: Backend) {
    let drafter = Arc::new(SlowDrafter {
        latency: Duration::from_millis(900),
        drafts: AtomicUsize::new(0),
    });
    let Some(app) = spawn_app_with(
        backend,
        Options {
            drafter: Some(drafter.clone()),
            draft_stale_after: Some(Duration::from_millis(300)),
            ..Default::default()
        },
    )
    .await
    else {
        return;
    };
    let c = crm(&app).await;
    let mut ids = Vec::new();
    for i in 0..8 {
        ids.push(
            app.add_contact(&c.org, &format!("Lead {i}"), &format!("+1415558{i:04}"))
                .await,
        );
    }
    let agent = assistant_agent(&app, c.org.org_id).await;
    let op = operation_for(&app, &agent, &include_all(&ids), "Slow").await;
    // A reaper as eager as the limit allows runs beside the engine the whole time.
    let reaper = {
        let state = app.state.clone();
        tokio::spawn(async move {
            let mut returned = 0;
            loop {
                returned +=
                    herald::campaign::draft_engine::reap_stale(&state, Duration::from_millis(300))
                        .await
                        .unwrap();
                tokio::time::sleep(Duration::from_millis(40)).await;
                if returned > 0 {
                    return returned;
                }
            }
        })
    };
    herald::campaign::draft_engine::run_draft_engine(&app.state, op)
        .await
        .unwrap();
    reaper.abort();
    let returned = reaper.await.unwrap_or(0);
    assert_eq!(returned, 0, "no item in progress was taken back");
    assert_eq!(
        drafter.drafts.load(Ordering::SeqCst),
        8,
        "each item drafted once"
    );
    use herald::campaign::entity::item;
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    let drafted = item::Entity::find()
        .filter(item::Column::OperationId.eq(op))
        .filter(item::Column::Status.eq("drafted"))
        .filter(item::Column::Attempts.eq(1))
        .count(&app.state.db)
        .await
        .unwrap();
    assert_eq!(drafted, 8, "every item drafted on its first claim");
}
on_both_databases!(slow_drafts_stay_claimed);
