//! Configuration from the environment (and an optional `.env`); see the README's settings table.
use std::net::IpAddr;

#[derive(Clone, Debug)]
pub struct TwilioConfig {
    pub account_sid: String,
    pub auth_token: String,
    pub messaging_service_sid: Option<String>,
    pub status_callback_url: Option<String>,
    pub api_base: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransportKind {
    Outbox,
    Twilio,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub database_url: String,
    pub ip: IpAddr,
    pub port: u16,
    /// The address Twilio uses to reach us; the webhook signature is computed over it.
    pub public_url: String,
    /// `TWILIO_AUTH_TOKEN`: when set, inbound webhooks must carry a valid X-Twilio-Signature.
    pub webhook_auth_token: Option<String>,
    pub transport: TransportKind,
    pub twilio: Option<TwilioConfig>,
    pub simulator_enabled: bool,
    pub default_region: String,
    pub seed_demo: bool,
    /// Sign-in attempts allowed per email and per address each minute.
    pub sign_in_attempts_per_minute: u32,
    /// Campaign sends per second per number (`SEND_RATE_PER_SECOND`, default 1).
    pub sends_per_second: f64,
    /// RiskGated plans changing more rows than this wait for a person (`PLAN_RISK_MAX_ROWS`, default 25).
    pub plan_risk_max_rows: usize,
    /// Drafts written at once (`DRAFT_CONCURRENCY`, default 20).
    pub draft_concurrency: usize,
    /// Items claimed per batch (`DRAFT_BATCH_SIZE`, default 50).
    pub draft_batch_size: u64,
    /// `LLM_PROVIDER`: `offline` (default, built in and deterministic).
    pub llm_provider: String,
    /// Model, key, base URL and timeout for a hosted provider.
    pub llm: crate::ai_agent::llm::rig::RigSettings,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl Config {
    /// Reads the process environment, after loading `.env` if there is one.
    pub fn from_env() -> Result<Self, String> {
        let _ = dotenvy::dotenv();
        let ip: IpAddr = var("IP")
            .unwrap_or_else(|| "127.0.0.1".into())
            .parse()
            .map_err(|e| format!("IP: {e}"))?;
        let port: u16 = var("PORT")
            .unwrap_or_else(|| "8080".into())
            .parse()
            .map_err(|e| format!("PORT: {e}"))?;
        let database_url = var("DATABASE_URL").unwrap_or_else(|| {
            let dir = var("HERALD_DATA_DIR").unwrap_or_else(|| "data".into());
            let _ = std::fs::create_dir_all(&dir);
            format!("sqlite://{dir}/herald.db?mode=rwc")
        });
        let public_url = var("PUBLIC_URL").unwrap_or_else(|| format!("http://{ip}:{port}"));
        let twilio = var("TWILIO_ACCOUNT_SID").map(|account_sid| TwilioConfig {
            account_sid,
            auth_token: var("TWILIO_AUTH_TOKEN").unwrap_or_default(),
            messaging_service_sid: var("TWILIO_MESSAGING_SERVICE_SID"),
            status_callback_url: var("TWILIO_STATUS_CALLBACK_URL"),
            api_base: var("TWILIO_API_BASE").unwrap_or_else(|| "https://api.twilio.com".into()),
        });
        let transport = match var("SMS_TRANSPORT").as_deref() {
            None | Some("outbox") => TransportKind::Outbox,
            Some("twilio") => TransportKind::Twilio,
            Some(other) => {
                return Err(format!(
                    "SMS_TRANSPORT must be outbox or twilio, not {other}"
                ))
            }
        };
        if transport == TransportKind::Twilio && twilio.is_none() {
            return Err(
                "SMS_TRANSPORT=twilio needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN".into(),
            );
        }
        let simulator_default = transport == TransportKind::Outbox;
        Ok(Self {
            database_url,
            ip,
            port,
            public_url,
            webhook_auth_token: var("TWILIO_AUTH_TOKEN"),
            transport,
            twilio,
            simulator_enabled: var("SIMULATOR_ENABLED")
                .map(|v| v == "true" || v == "1")
                .unwrap_or(simulator_default),
            default_region: var("DEFAULT_REGION").unwrap_or_else(|| "US".into()),
            seed_demo: var("SEED_DEMO")
                .map(|v| v != "false" && v != "0")
                .unwrap_or(true),
            sign_in_attempts_per_minute: var("SIGN_IN_ATTEMPTS_PER_MINUTE")
                .and_then(|v| v.parse().ok())
                .unwrap_or(10),
            plan_risk_max_rows: var("PLAN_RISK_MAX_ROWS")
                .and_then(|v| v.parse().ok())
                .unwrap_or(crate::plans::approval::DEFAULT_MAX_ROWS),
            draft_concurrency: var("DRAFT_CONCURRENCY")
                .and_then(|v| v.parse().ok())
                .filter(|n: &usize| *n > 0)
                .unwrap_or(20),
            draft_batch_size: var("DRAFT_BATCH_SIZE")
                .and_then(|v| v.parse().ok())
                .filter(|n: &u64| *n > 0)
                .unwrap_or(50),
            sends_per_second: var("SEND_RATE_PER_SECOND")
                .and_then(|v| v.parse().ok())
                .filter(|r: &f64| *r > 0.0)
                .unwrap_or(1.0),
            llm_provider: var("LLM_PROVIDER").unwrap_or_else(|| "offline".into()),
            llm: crate::ai_agent::llm::rig::RigSettings {
                provider: var("LLM_PROVIDER").unwrap_or_else(|| "offline".into()),
                model: var("LLM_MODEL").unwrap_or_default(),
                api_key: var("LLM_API_KEY").unwrap_or_default(),
                base_url: var("LLM_BASE_URL"),
                timeout: std::time::Duration::from_secs(
                    var("LLM_TIMEOUT_SECS")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(60),
                ),
            },
        })
    }

    /// A configuration for tests and tools: outbox transport, no signature check.
    pub fn for_database(database_url: impl Into<String>) -> Self {
        Self {
            database_url: database_url.into(),
            ip: [127, 0, 0, 1].into(),
            port: 0,
            public_url: "http://127.0.0.1".into(),
            webhook_auth_token: None,
            transport: TransportKind::Outbox,
            twilio: None,
            simulator_enabled: true,
            default_region: "US".into(),
            seed_demo: false,
            sign_in_attempts_per_minute: 10,
            sends_per_second: 1.0,
            plan_risk_max_rows: crate::plans::approval::DEFAULT_MAX_ROWS,
            draft_concurrency: 20,
            draft_batch_size: 50,
            llm_provider: "offline".into(),
            llm: crate::ai_agent::llm::rig::RigSettings {
                provider: "offline".into(),
                model: String::new(),
                api_key: String::new(),
                base_url: None,
                timeout: std::time::Duration::from_secs(60),
            },
        }
    }
}
