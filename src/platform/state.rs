//! `AppState`: what every handler and server function shares, one per running server.
use crate::ai_agent::llm::ChatModel;
use crate::ai_agent::runtime::RuntimeConfig;
use crate::auth::rate_limit::SignInLimiter;
use crate::ops::metrics::Metrics;
use crate::platform::live::LiveHub;
use crate::platform::sms::SmsTransport;
use crate::platform::Config;
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
    pub runtime: RuntimeConfig,
    pub drafter: Arc<dyn crate::campaign::drafter::Drafter>,
    pub engine: crate::campaign::draft_engine::EngineConfig,
    pub clock: Arc<dyn crate::platform::clock::Clock>,
    pub live: LiveHub,
    pub metrics: Metrics,
    pub sign_in_limiter: SignInLimiter,
    pub sign_up_limiter: SignInLimiter,
    /// Organisations' provider accounts, opened (`provider_accounts::service`).
    pub accounts: crate::provider_accounts::service::AccountCache,
    /// Argon2 work, at most one per core (`auth::password::HashPool`).
    pub hashing: crate::auth::password::HashPool,
    /// Background work (routing after a webhook) that tests and shutdown can wait for.
    pub tasks: TaskTracker,
    /// Where background work runs: routing, agent turns, plans and campaign engines.
    pub work: crate::platform::work::WorkRuntime,
    /// Names this process in leases: `host-pid-random`.
    pub instance_id: String,
    /// Test-armed failure points (empty in production).
    pub faults: crate::platform::faults::FaultPoints,
    /// Where stored inbound texts go next (the agents' router).
    pub inbound: Arc<dyn crate::messaging::inbound::InboundSink>,
    /// Cancelled when the server stops: ends the periodic sweeper.
    pub shutdown: tokio_util::sync::CancellationToken,
    /// Cancelled at SIGTERM, before `shutdown`: `/readyz` answers 503 while requests are still
    /// served, so a load balancer can stop sending them.
    pub draining: tokio_util::sync::CancellationToken,
    /// The scheduled backups' status, for `/healthz`.
    pub backups: crate::platform::backup_config::BackupStatus,
    /// The campaign engines running in this process.
    pub engines: crate::campaign::engines::Running,
    /// The agent threads this process is running.
    pub local_runs: crate::ai_agent::lease::LocalRuns,
    /// The numbers the webhook looks up (`phone_numbers::cache`).
    pub numbers: crate::phone_numbers::cache::NumberCache,
    /// Each organisation's own opt-out phrases, for the webhook's detector.
    pub phrases: crate::compliance::wording::PhraseCache,
    /// Group commit for the webhook's texts (`messaging::inbound_writer`).
    pub inbound_writer: crate::messaging::inbound_writer::InboundWriter,
    /// Where copies of media texted in are kept (`media::store`).
    pub media: crate::media::store::MediaStore,
    /// The after-effects' listeners (`platform::events`), registered by the composition root.
    pub events: crate::platform::events::DomainEvents,
}

/// The outside world a server talks to; tests hand in fakes.
pub struct Services {
    pub transport: Arc<dyn SmsTransport>,
    pub model: Arc<dyn ChatModel>,
    pub runtime: RuntimeConfig,
    /// Writes campaign drafts; None uses the model.
    pub drafter: Option<Arc<dyn crate::campaign::drafter::Drafter>>,
    pub engine: crate::campaign::draft_engine::EngineConfig,
    pub clock: Arc<dyn crate::platform::clock::Clock>,
    pub media: crate::media::store::MediaStore,
}

impl Services {
    pub fn from_config(config: &Config) -> Result<Self, String> {
        Ok(Self {
            transport: crate::platform::sms::from_config(config)?,
            model: crate::ai_agent::llm::from_config(config)?,
            runtime: RuntimeConfig {
                plan_risk: crate::plans::approval::RiskLimits {
                    max_rows: config.plan_risk_max_rows,
                    max_cost: config.plan_risk_max_cost,
                },
                lease_ttl: config.thread_lease,
                sweep_every: config.sweep_every,
                reply_quiet: config.reply_quiet,
                replies_per_contact_day: config.replies_per_contact_day,
                ..RuntimeConfig::default()
            },
            drafter: None,
            engine: crate::campaign::draft_engine::EngineConfig {
                sends_per_second: config.sends_per_second,
                concurrency: config.draft_concurrency,
                batch_size: config.draft_batch_size,
                send_concurrency: config.send_concurrency,
                stale_after: config.claim_stale_after,
            },
            clock: clock_for(config),
            media: crate::media::store::MediaStore::from_config(&config.media)
                .map_err(|e| e.to_string())?,
        })
    }
}

fn instance_id() -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "herald".into());
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("{host}-{}-{}", std::process::id(), &random[..8])
}

/// The machine's clock, or the test-only shifted one `Config` allowed.
fn clock_for(config: &Config) -> Arc<dyn crate::platform::clock::Clock> {
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
        let drafter = services.drafter.clone().unwrap_or_else(|| {
            Arc::new(crate::campaign::drafter::ModelDrafter(
                services.model.clone(),
            ))
        });
        let sign_in_limiter = SignInLimiter::new(config.sign_in_attempts_per_minute);
        let sign_up_limiter = SignInLimiter::of("signup", config.sign_ups_per_minute);
        let instance_id = instance_id();
        Self(Arc::new(Inner {
            db,
            ack_db,
            config,
            transport: services.transport,
            model: services.model,
            runtime: services.runtime,
            drafter,
            engine: services.engine,
            clock: services.clock,
            live: LiveHub::new(instance_id.clone()),
            metrics: Metrics::new(),
            sign_in_limiter,
            sign_up_limiter,
            hashing: crate::auth::password::HashPool::for_this_machine(),
            accounts: Default::default(),
            tasks: TaskTracker::new(),
            work,
            instance_id,
            faults: Default::default(),
            inbound: Arc::new(crate::ai_agent::routing::AgentRouter::default()),
            shutdown: Default::default(),
            draining: Default::default(),
            backups: Default::default(),
            engines: Default::default(),
            local_runs: Default::default(),
            numbers: Default::default(),
            phrases: Default::default(),
            inbound_writer: Default::default(),
            media: services.media,
            events: Default::default(),
        }))
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
