//! `AppState`: what every handler and server function shares, one per running server.
use crate::ai_agent::llm::ChatModel;
use crate::ai_agent::runtime::RuntimeConfig;
use crate::auth::rate_limit::SignInLimiter;
use crate::messaging::live::LiveHub;
use crate::messaging::transport::SmsTransport;
use crate::ops::metrics::Metrics;
use crate::server::Config;
use sea_orm::DatabaseConnection;
use std::ops::Deref;
use std::sync::Arc;
use tokio_util::task::TaskTracker;

pub struct Inner {
    pub db: DatabaseConnection,
    pub config: Config,
    pub transport: Arc<dyn SmsTransport>,
    pub model: Arc<dyn ChatModel>,
    pub runtime: RuntimeConfig,
    pub drafter: Arc<dyn crate::bulk_operation::drafter::Drafter>,
    pub engine: crate::bulk_operation::draft_engine::EngineConfig,
    pub clock: Arc<dyn crate::bulk_operation::clock::Clock>,
    pub live: LiveHub,
    pub metrics: Metrics,
    pub sign_in_limiter: SignInLimiter,
    /// Background work (routing after a webhook) that tests and shutdown can wait for.
    pub tasks: TaskTracker,
}

/// The outside world a server talks to; tests hand in fakes.
pub struct Services {
    pub transport: Arc<dyn SmsTransport>,
    pub model: Arc<dyn ChatModel>,
    pub runtime: RuntimeConfig,
    /// Writes campaign drafts; None uses the model.
    pub drafter: Option<Arc<dyn crate::bulk_operation::drafter::Drafter>>,
    pub engine: crate::bulk_operation::draft_engine::EngineConfig,
    pub clock: Arc<dyn crate::bulk_operation::clock::Clock>,
}

impl Services {
    pub fn from_config(config: &Config) -> Result<Self, String> {
        Ok(Self {
            transport: crate::messaging::transport::from_config(config)?,
            model: crate::ai_agent::llm::from_config(config)?,
            runtime: RuntimeConfig {
                plan_risk_max_rows: config.plan_risk_max_rows,
                ..RuntimeConfig::default()
            },
            drafter: None,
            engine: crate::bulk_operation::draft_engine::EngineConfig {
                sends_per_second: config.sends_per_second,
                concurrency: config.draft_concurrency,
                batch_size: config.draft_batch_size,
                ..Default::default()
            },
            clock: Arc::new(crate::bulk_operation::clock::SystemClock),
        })
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
    pub fn with_parts(db: DatabaseConnection, config: Config, services: Services) -> Self {
        let drafter = services.drafter.clone().unwrap_or_else(|| {
            Arc::new(crate::bulk_operation::drafter::ModelDrafter(
                services.model.clone(),
            ))
        });
        let sign_in_limiter = SignInLimiter::new(config.sign_in_attempts_per_minute);
        Self(Arc::new(Inner {
            db,
            config,
            transport: services.transport,
            model: services.model,
            runtime: services.runtime,
            drafter,
            engine: services.engine,
            clock: services.clock,
            live: LiveHub::new(),
            metrics: Metrics::new(),
            sign_in_limiter,
            tasks: TaskTracker::new(),
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
