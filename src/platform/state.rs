//! `AppState`: what every handler and server function shares, one per running server.
use crate::platform::live::LiveHub;
use crate::platform::llm::ChatModel;
use crate::platform::metrics::Metrics;
use crate::platform::sms::SmsTransport;
use crate::platform::Config;
use axum::http::Extensions;
use sea_orm::DatabaseConnection;
use std::ops::Deref;
use std::sync::Arc;
use tokio_util::task::TaskTracker;

pub struct Inner {
    pub db: DatabaseConnection,
    /// A pool of its own for the webhook's acknowledgement (storing an inbound text) and for
    /// routing it onto its thread: agent turns and engines busy on `db` never make a carrier's
    /// request, or the queueing of its text, wait for a connection.
    pub ack_db: DatabaseConnection,
    pub config: Config,
    pub transport: Arc<dyn SmsTransport>,
    pub model: Arc<dyn ChatModel>,
    pub clock: Arc<dyn crate::platform::clock::Clock>,
    pub live: LiveHub,
    pub metrics: Metrics,
    /// Background work (routing after a webhook) that tests and shutdown can wait for.
    pub tasks: TaskTracker,
    /// The periodic loops (sweeper, rollup, deliveries, backups): each ends at `shutdown`, and
    /// shutdown (or a test about to change the schema) waits here for a pass in flight.
    pub loops: TaskTracker,
    /// Where background work runs: routing, agent turns, plans and campaign engines.
    pub work: crate::platform::work::WorkRuntime,
    /// Names this process in leases: `host-pid-random`.
    pub instance_id: String,
    /// Test-armed failure points (empty in production).
    pub faults: crate::platform::faults::FaultPoints,
    /// Cancelled when the server stops: ends the periodic sweeper.
    pub shutdown: tokio_util::sync::CancellationToken,
    /// Cancelled at SIGTERM, before `shutdown`: `/readyz` answers 503 while requests are still
    /// served, so a load balancer can stop sending them.
    pub draining: tokio_util::sync::CancellationToken,
    /// The scheduled backups' status, for `/healthz`.
    pub backups: crate::platform::backup_config::BackupStatus,
    /// The after-effects' listeners (`platform::events`), registered by the composition root.
    pub events: crate::platform::events::DomainEvents,
    /// Each domain's own shared parts (its caches, settings and seams: the number cache, the
    /// agents' runtime settings, the inbound sink …), put in by the composition root
    /// (`server::services`) and read through the domain's accessor (`state.numbers()`), so
    /// that the base names no domain's type.
    pub parts: Extensions,
}

/// The outside world a server talks to, and the domains' parts; tests hand in fakes.
/// `server::services` builds it from the configuration.
pub struct Services {
    pub transport: Arc<dyn SmsTransport>,
    pub model: Arc<dyn ChatModel>,
    pub clock: Arc<dyn crate::platform::clock::Clock>,
    pub parts: Extensions,
}

fn instance_id() -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "herald".into());
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("{host}-{}-{}", std::process::id(), &random[..8])
}

/// The machine's clock, or the test-only shifted one `Config` allowed.
pub fn clock_for(config: &Config) -> Arc<dyn crate::platform::clock::Clock> {
    use crate::platform::clock::{ShiftedClock, SystemClock};
    use crate::platform::config::TestClock;
    match &config.test_clock {
        None => Arc::new(SystemClock),
        Some(TestClock::Start(at)) => Arc::new(ShiftedClock::starting_at(*at)),
        Some(TestClock::Offset(secs)) => {
            Arc::new(ShiftedClock::with_offset(chrono::Duration::seconds(*secs)))
        }
    }
}

/// Cheap to clone; reaches handlers through an axum `Extension`.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    pub fn with_parts(
        db: DatabaseConnection,
        ack_db: DatabaseConnection,
        config: Config,
        services: Services,
        work: crate::platform::work::WorkRuntime,
    ) -> Self {
        let instance_id = instance_id();
        Self(Arc::new(Inner {
            db,
            ack_db,
            config,
            transport: services.transport,
            model: services.model,
            clock: services.clock,
            live: LiveHub::new(instance_id.clone()),
            metrics: Metrics::new(),
            tasks: TaskTracker::new(),
            loops: TaskTracker::new(),
            work,
            instance_id,
            faults: Default::default(),
            shutdown: Default::default(),
            draining: Default::default(),
            backups: Default::default(),
            events: Default::default(),
            parts: services.parts,
        }))
    }

    /// A domain's part, as the composition root put it in; each domain reads its own through an
    /// accessor of its own. A missing one is a wiring mistake, found by the first test.
    pub fn part<T: Clone + Send + Sync + 'static>(&self) -> &T {
        self.parts.get::<T>().unwrap_or_else(|| {
            panic!(
                "{} was not put in (server::services)",
                std::any::type_name::<T>()
            )
        })
    }

    /// The state of the server function or page being handled right now.
    pub fn current() -> Result<Self, crate::error::AppError> {
        dioxus::fullstack::FullstackContext::current()
            .and_then(|ctx| ctx.extension::<AppState>())
            .ok_or_else(|| crate::error::AppError::Internal("no server state".into()))
    }
}

/// Waits until every tracked background task has finished (tests use it to settle routing).
pub async fn wait_for_background(tasks: &TaskTracker) {
    tasks.close();
    tasks.wait().await;
    tasks.reopen();
}
