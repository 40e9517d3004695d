//! The history a provider sees stays valid: a second text arrives while a tool call is still
//! running, and the fake OpenAI and Anthropic servers, which refuse histories the way the real
//! providers do, accept every request; the next turn answers the second text too.
use crate::agent_support::*;
use crate::fake_llm::{self, Dialect, Step};
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::rig::RigModel;
use herald::platform::sms::outbox::OutboxTransport;
use herald::platform::sms::{FoundSms, Lookup, OutboundSms, SentSms, SmsTransport, TransportError};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// A transport whose sends wait at a gate until the test opens it: a slow tool call.
struct Gate {
    inner: Arc<OutboxTransport>,
    entered: Notify,
    open: Notify,
}

#[async_trait::async_trait]
impl SmsTransport for Gate {
    fn name(&self) -> &'static str {
        "gate"
    }
    async fn send(&self, sms: &OutboundSms) -> Result<SentSms, TransportError> {
        if self.inner.sent().is_empty() {
            self.entered.notify_one();
            self.open.notified().await;
        }
        self.inner.send(sms).await
    }
    async fn find(&self, lookup: &Lookup) -> Result<Vec<FoundSms>, TransportError> {
        self.inner.find(lookup).await
    }
}

async fn inbound_events(s: &Setup) -> usize {
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    herald::ai_agent::entity::ai_thread_event::Entity::find()
        .filter(herald::ai_agent::entity::ai_thread_event::Column::Kind.eq("inbound_sms"))
        .count(&s.app.state.db)
        .await
        .unwrap() as usize
}

async fn text_during_a_slow_call(backend: Backend, dialect: Dialect) {
    let llm = fake_llm::start(dialect).await;
    llm.push(Step::call(
        "send_sms",
        json!({"body": "Yes, we are open Saturday."}),
    ));
    llm.push(Step::text("Answered the first text."));
    llm.push(Step::Dynamic(Box::new(|seen| {
        // The second turn sees both texts, the second after the first call's result.
        assert_eq!(seen.user_texts().len(), 2, "{:?}", seen.messages);
        Step::call("send_sms", json!({"body": "And yes, parking is free."}))
    })));
    llm.push(Step::text("Answered the second text."));
    let model = Arc::new(RigModel::new(&llm.settings(Duration::from_secs(10))).unwrap());
    let gate = Arc::new(Gate {
        inner: Arc::new(OutboxTransport::default()),
        entered: Notify::new(),
        open: Notify::new(),
    });
    let g = gate.clone();
    let Some(s) = setup_with(backend, "autonomous", Some(model), move |_| {
        g as Arc<dyn SmsTransport>
    })
    .await
    else {
        return;
    };
    let params = sms_params(
        "SMslow000000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "Are you open Saturday?",
    );
    assert!(s
        .app
        .post_webhook(&params, None)
        .await
        .status()
        .is_success());
    // The send is under way; the contact texts again meanwhile.
    tokio::time::timeout(Duration::from_secs(20), gate.entered.notified())
        .await
        .expect("the first send started");
    let params = sms_params(
        "SMslow000000000000000000000000002",
        "+14155552671",
        "+14155550100",
        "Is parking free?",
    );
    assert!(s
        .app
        .post_webhook(&params, None)
        .await
        .status()
        .is_success());
    for _ in 0..200 {
        if inbound_events(&s).await == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(
        inbound_events(&s).await,
        2,
        "the second text is queued mid-call"
    );
    gate.open.notify_one();
    s.app.settle().await;

    assert!(
        llm.refused.lock().unwrap().is_empty(),
        "the provider refused: {:?}",
        llm.refused.lock().unwrap()
    );
    assert_eq!(llm.remaining(), 0, "both turns ran to the end");
    let sent = gate.inner.sent();
    assert_eq!(sent.len(), 2, "both texts were answered");
    assert_eq!(sent[1].body, "And yes, parking is free.");
    let threads = threads_of(&s).await;
    let events = events_of(&s, &threads[0]).await;
    assert!(events
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["processed"] == true));
}

/// A turn whose tool result could never be written is set aside with its call unanswered. The
/// next turn's history must still be valid: the orphaned call reads as interrupted.
async fn orphaned_call(backend: Backend, dialect: Dialect) {
    let llm = fake_llm::start(dialect).await;
    llm.push(Step::call(
        "send_sms",
        json!({"body": "Hi Ada, see you Tuesday."}),
    ));
    llm.push(Step::text("Answered."));
    llm.push(Step::call("get_contact", json!({})));
    llm.push(Step::Dynamic(Box::new(|seen| {
        Step::text(
            if seen.messages.iter().any(|(_, m)| m.contains("interrupted")) {
                "The earlier lookup was interrupted; answering now."
            } else {
                "no interruption seen"
            },
        )
    })));
    let model = Arc::new(RigModel::new(&llm.settings(Duration::from_secs(10))).unwrap());
    let Some(s) = setup_with(backend, "autonomous", Some(model), |o| o).await else {
        return;
    };
    text_in(
        &s,
        "SMorph000000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "Tuesday ok?",
    )
    .await;
    // Every attempt of the next turn fails to record its call's result: it is set aside.
    let attempts = s.app.state.runtime().turn_attempts;
    s.app
        .state
        .faults
        .arm(herald::platform::faults::TOOL_RESULT_WRITE, attempts);
    text_in(
        &s,
        "SMorph000000000000000000000000002",
        "+14155552671",
        "+14155550100",
        "Who am I?",
    )
    .await;
    text_in(
        &s,
        "SMorph000000000000000000000000003",
        "+14155552671",
        "+14155550100",
        "Hello?",
    )
    .await;
    assert!(
        llm.refused.lock().unwrap().is_empty(),
        "the provider refused: {:?}",
        llm.refused.lock().unwrap()
    );
    assert_eq!(llm.remaining(), 0, "{} requests", llm.request_count());
    let threads = threads_of(&s).await;
    let events = events_of(&s, &threads[0]).await;
    let last = events.as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last["detail"], "The earlier lookup was interrupted; answering now.",
        "{events}"
    );
}

async fn openai_history_stays_valid(backend: Backend) {
    text_during_a_slow_call(backend, Dialect::OpenAi).await;
    orphaned_call(backend, Dialect::OpenAi).await
}

async fn anthropic_history_stays_valid(backend: Backend) {
    text_during_a_slow_call(backend, Dialect::Anthropic).await;
    orphaned_call(backend, Dialect::Anthropic).await
}

on_both_databases!(openai_history_stays_valid, anthropic_history_stays_valid);
