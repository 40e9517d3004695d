//! Configuration from the environment (and an optional `.env`); see the README's settings table.
use super::setting::Unit;
use std::net::IpAddr;

#[derive(Clone, Debug)]
pub struct TwilioConfig {
    pub account_sid: String,
    pub auth_token: String,
    pub messaging_service_sid: Option<String>,
    pub status_callback_url: Option<String>,
    pub api_base: String,
    /// One REST request's timeout (`TWILIO_TIMEOUT_SECS`, default 15); past it the text is
    /// reconciled, never blindly resent.
    pub timeout: std::time::Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportKind {
    Outbox,
    Twilio,
}

/// Test-only: where the server's clock starts (see `crate::platform::clock::ShiftedClock`).
#[derive(Clone, Debug, PartialEq)]
pub enum TestClock {
    /// `HERALD_TEST_CLOCK_START`: the clock reads this instant at start-up and runs on.
    Start(chrono::DateTime<chrono::Utc>),
    /// `HERALD_TEST_CLOCK_OFFSET_SECS`: the machine's time plus this many seconds, so that a
    /// restarted server keeps the same time line.
    Offset(i64),
}

#[derive(Clone, Debug)]
pub struct Config {
    pub database_url: String,
    pub ip: IpAddr,
    pub port: u16,
    /// The address Twilio uses to reach us; the webhook signature is computed over it.
    pub public_url: String,
    /// The built web app to serve (`DIOXUS_PUBLIC_PATH`, else `public/` beside the binary);
    /// none when Herald runs from `cargo` (pages and server functions only).
    pub public_dir: Option<std::path::PathBuf>,
    /// `TWILIO_AUTH_TOKEN`: when set, inbound webhooks must carry a valid X-Twilio-Signature.
    /// Required with the Twilio transport or beyond loopback (see `exposure`).
    pub webhook_auth_token: Option<String>,
    /// `ALLOW_UNSIGNED_WEBHOOKS=true`: a reachable server without a token, on purpose, for a
    /// local experiment; logged loudly at start-up.
    pub unsigned_webhooks_allowed: bool,
    pub transport: TransportKind,
    pub twilio: Option<TwilioConfig>,
    pub simulator_enabled: bool,
    pub default_region: String,
    pub seed_demo: bool,
    /// `SIGN_UP`: by invitation (the default) or open.
    pub sign_up: crate::platform::access_config::SignUpMode,
    /// The one-time token the first sign-up needs in production (`HERALD_SETUP_TOKEN`, else made
    /// at start-up and printed while no organisation exists); None elsewhere.
    pub setup_token: Option<String>,
    /// `SHARE_OPERATOR_ACCOUNT`: organisations without an account of their own text through the
    /// environment's `TWILIO_*` account (off by default in production and on an open service).
    pub share_operator_account: bool,
    /// `ALLOWED_HOSTS`: host names answered besides `PUBLIC_URL`'s and loopback (comma-separated).
    pub allowed_hosts: Vec<String>,
    /// `REQUEST_TIMEOUT_SECS` (default 60): a request that has no answer by then gets 408.
    pub request_timeout: std::time::Duration,
    /// Limits per organisation (`server::limits`).
    pub limits: super::limits::Limits,
    /// `SHUTDOWN_GRACE_SECS` (default 20): after SIGTERM, how long in-flight requests and
    /// background work may take to finish before the process exits.
    pub shutdown_grace: std::time::Duration,
    /// `METRICS_TOKEN`: `/metrics` answers a request bearing it; unset, only loopback callers.
    pub metrics_token: Option<String>,
    /// `SMTP_URL` and `SMTP_FROM`: email for invitations, resets and notifications (none: no email).
    pub email: Option<super::email::EmailSettings>,
    /// `HERALD_SECRET_KEY`: seals organisations' provider credentials at rest.
    pub secret_key: Option<[u8; 32]>,
    /// Sign-in attempts allowed per email and per address each minute.
    pub sign_in_attempts_per_minute: u32,
    /// Sign-ups allowed per email and per address each minute (`SIGN_UPS_PER_MINUTE`, default 5).
    pub sign_ups_per_minute: u32,
    /// `TRUSTED_PROXY_HEADER` (opt-in, e.g. `X-Forwarded-For`): the header a proxy in front of
    /// Herald sets to the client's address. Unset, the connection's own address is used, so a
    /// caller cannot pick the address its attempts count against.
    pub trusted_proxy_header: Option<String>,
    /// Campaign sends per second per number (`SEND_RATE_PER_SECOND`, default 1).
    pub sends_per_second: f64,
    /// RiskGated plans changing more rows than this wait for a person (`PLAN_RISK_MAX_ROWS`, default 25).
    pub plan_risk_max_rows: usize,
    /// Plans estimated to spend more than this many US dollars wait for a person
    /// (`PLAN_RISK_MAX_COST`, default 1.00).
    pub plan_risk_max_cost: f64,
    /// Drafts written at once (`DRAFT_CONCURRENCY`, default 20).
    pub draft_concurrency: usize,
    /// Send workers per campaign per instance (`SEND_CONCURRENCY`, default 4).
    pub send_concurrency: usize,
    /// Agent threads this instance runs at once (`TURN_CONCURRENCY`, default 32); the others wait
    /// their turn, holding no lease.
    pub turn_concurrency: usize,
    /// Items claimed per batch (`DRAFT_BATCH_SIZE`, default 50).
    pub draft_batch_size: u64,
    /// `LLM_PROVIDER`: `offline` (default, built in and deterministic).
    pub llm_provider: String,
    /// Model, key, base URL and timeout for a hosted provider.
    pub llm: crate::platform::llm::RigSettings,
    /// Knowledge passages' embedding model (`EMBEDDING_MODEL`); none: found by words alone.
    pub embedding: Option<crate::platform::embedding_config::EmbeddingSettings>,
    /// Outbound webhooks: `WEBHOOK_ALLOW_PRIVATE`, and retry timing.
    pub webhooks: crate::platform::webhook_config::WebhookSettings,
    /// `HERALD_ENV=production`: test-only settings are refused.
    pub production: bool,
    /// Test-only clock shift; never allowed in production or beyond loopback.
    pub test_clock: Option<TestClock>,
    /// Test-only (`HERALD_TEST_ROUTE_DELAY_MS`): a pause between storing an inbound text and
    /// routing it, so a test can kill the process in between.
    pub test_route_delay: Option<std::time::Duration>,
    /// How long a thread's claim lasts without a heartbeat (`THREAD_LEASE_SECS`, default 30).
    pub thread_lease: std::time::Duration,
    /// How often abandoned threads and unrouted texts are swept up (`SWEEP_SECS`, default 5).
    pub sweep_every: std::time::Duration,
    /// How long an autonomous agent waits after a contact's newest text before answering, so a
    /// burst gets one reply (`REPLY_QUIET_SECS`, default 5; 0 answers at once).
    pub reply_quiet: std::time::Duration,
    /// Automated replies per contact in 24 hours before the agent escalates instead
    /// (`AGENT_REPLIES_PER_CONTACT_DAY`, default 10).
    pub replies_per_contact_day: u32,
    /// How often "Review lessons" distils every agent's corrections (`LESSON_REVIEW_HOURS`,
    /// default 168: weekly). The agent page runs it on demand too.
    pub lesson_review_every: std::time::Duration,
    /// Threads idle this long are archived with a summary (`THREAD_IDLE_DAYS`, default 30).
    pub thread_idle_for: chrono::Duration,
    /// A claimed campaign item whose worker has been silent this long is returned to the queue
    /// (`CLAIM_STALE_SECS`, default 120).
    pub claim_stale_after: std::time::Duration,
    /// A text whose attempt began this long ago with no answer is reconciled with the provider
    /// (`RECONCILE_AFTER_SECS`; default twice the provider's timeout, plus 5 s).
    pub reconcile_after: std::time::Duration,
    /// Scheduled SQLite backups (`BACKUP_DIR`, `BACKUP_EVERY_HOURS`, `BACKUP_KEEP`); none unset.
    pub backup: Option<super::backup_config::BackupConfig>,
    /// Where copies of media texted in are kept (`MEDIA_DIR`, `MEDIA_S3_*`, `MEDIA_MAX_BYTES`).
    pub media: super::media_config::MediaConfig,
}

pub(crate) fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Every problem with the settings, not only the first: start-up names them all, and so does
/// `herald admin check-config`.
#[derive(Debug, thiserror::Error)]
#[error("{}", list(.0))]
pub struct ConfigErrors(pub Vec<String>);

fn list(problems: &[String]) -> String {
    match problems {
        [one] => one.clone(),
        many => format!(
            "{} problems with the settings:\n  - {}",
            many.len(),
            many.join("\n  - ")
        ),
    }
}

/// Collects problems while reading on with a stand-in value, so one bad setting hides no other.
#[derive(Default)]
pub(crate) struct Problems(pub Vec<String>);

impl Problems {
    pub fn or<T>(&mut self, read: Result<T, String>, stand_in: T) -> T {
        read.unwrap_or_else(|e| {
            self.0.push(e);
            stand_in
        })
    }
}

/// The longest span a seconds setting may name: a day.
const DAY_SECS: f64 = 86_400.0;

impl TwilioConfig {
    /// Twilio's account, when `TWILIO_ACCOUNT_SID` is set.
    fn from_env(p: &mut Problems) -> Option<Self> {
        let account_sid = var("TWILIO_ACCOUNT_SID")?;
        Some(Self {
            account_sid,
            auth_token: var("TWILIO_AUTH_TOKEN").unwrap_or_default(),
            messaging_service_sid: var("TWILIO_MESSAGING_SERVICE_SID"),
            status_callback_url: var("TWILIO_STATUS_CALLBACK_URL"),
            api_base: var("TWILIO_API_BASE").unwrap_or_else(|| "https://api.twilio.com".into()),
            timeout: p.span("TWILIO_TIMEOUT_SECS", 15.0, 3600.0, Unit::Seconds),
        })
    }
}

impl Config {
    /// Reads the process environment, after loading `.env` if there is one; refuses with every
    /// problem found.
    pub fn from_env() -> Result<Self, ConfigErrors> {
        match Self::read_env() {
            (config, problems) if problems.is_empty() => Ok(config),
            (_, problems) => Err(ConfigErrors(problems)),
        }
    }

    /// The settings as far as they read, with a stand-in for each bad one, and every problem.
    pub fn read_env() -> (Self, Vec<String>) {
        let _ = dotenvy::dotenv();
        let mut p = Problems::default();
        let ip: IpAddr = p.or(
            var("IP")
                .unwrap_or_else(|| "127.0.0.1".into())
                .parse()
                .map_err(|e| format!("IP: {e}")),
            [127, 0, 0, 1].into(),
        );
        let port: u16 = p.or(
            var("PORT")
                .unwrap_or_else(|| "8080".into())
                .parse()
                .map_err(|e| format!("PORT: {e}")),
            8080,
        );
        let database_url = var("DATABASE_URL").unwrap_or_else(|| {
            let dir = var("HERALD_DATA_DIR").unwrap_or_else(|| "data".into());
            let _ = std::fs::create_dir_all(&dir);
            format!("sqlite://{dir}/herald.db?mode=rwc")
        });
        let public_url = var("PUBLIC_URL").unwrap_or_else(|| format!("http://{ip}:{port}"));
        let twilio = TwilioConfig::from_env(&mut p);
        let transport = p.or(
            match var("SMS_TRANSPORT").as_deref() {
                None | Some("outbox") => Ok(TransportKind::Outbox),
                Some("twilio") => Ok(TransportKind::Twilio),
                Some(other) => Err(format!(
                    "SMS_TRANSPORT must be outbox or twilio, not {other}"
                )),
            },
            TransportKind::Outbox,
        );
        if transport == TransportKind::Twilio && twilio.is_none() {
            p.0.push("SMS_TRANSPORT=twilio needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN".into());
        }
        let unsigned_webhooks_allowed = p.or(
            super::exposure::check_webhook_signing(
                transport,
                super::exposure::reachable_beyond_loopback(ip, var("PUBLIC_URL").as_deref()),
                var("TWILIO_AUTH_TOKEN").is_some(),
                var("ALLOW_UNSIGNED_WEBHOOKS").is_some_and(|v| v == "true" || v == "1"),
            ),
            false,
        );
        let simulator_default = transport == TransportKind::Outbox;
        let production = p.or(
            match var("HERALD_ENV").as_deref() {
                None | Some("development") | Some("test") => Ok(false),
                Some("production") => Ok(true),
                Some(other) => Err(format!(
                    "HERALD_ENV must be development, test or production, not {other}"
                )),
            },
            false,
        );
        let test_clock = p.or(test_clock_from_env(production, ip), None);
        let test_route_delay = match var("HERALD_TEST_ROUTE_DELAY_MS") {
            None => None,
            Some(ms) => p.or(
                check_test_only("HERALD_TEST_ROUTE_DELAY_MS", production, ip).and_then(|()| {
                    ms.parse()
                        .map(|ms| Some(std::time::Duration::from_millis(ms)))
                        .map_err(|e| format!("HERALD_TEST_ROUTE_DELAY_MS: {e}"))
                }),
                None,
            ),
        };
        let thread_lease = p.span("THREAD_LEASE_SECS", 30.0, DAY_SECS, Unit::Seconds);
        let sweep_every = p.span("SWEEP_SECS", 5.0, DAY_SECS, Unit::Seconds);
        let provider_timeout = twilio.as_ref().map_or(0.0, |t| t.timeout.as_secs_f64());
        let reconcile_default = 2.0 * provider_timeout + 5.0;
        let reconcile_after = p.span(
            "RECONCILE_AFTER_SECS",
            reconcile_default,
            DAY_SECS,
            Unit::Seconds,
        );
        let claim_stale_after = p.span("CLAIM_STALE_SECS", 120.0, DAY_SECS, Unit::Seconds);
        let shutdown_grace = p.span("SHUTDOWN_GRACE_SECS", 20.0, DAY_SECS, Unit::Seconds);
        let reply_quiet = p.span_or_zero("REPLY_QUIET_SECS", 5.0, 600.0, Unit::Seconds);
        let replies_per_contact_day = p.number("AGENT_REPLIES_PER_CONTACT_DAY", 10, 1..=1000);
        let idle = p.span("THREAD_IDLE_DAYS", 30.0, 36_500.0, Unit::Days);
        let thread_idle_for = chrono::Duration::seconds(idle.as_secs() as i64);
        let lesson_review_every = p.span("LESSON_REVIEW_HOURS", 168.0, 876_000.0, Unit::Hours);
        let backup = super::backup_config::read(&database_url, production, ip, &mut p);
        let media = super::media_config::read(&mut p);
        let seed_demo = p.or(
            crate::platform::access_config::seed_demo(
                var("SEED_DEMO").as_deref(),
                production,
                transport,
            ),
            false,
        );
        let sign_up = p.or(
            crate::platform::access_config::SignUpMode::parse(var("SIGN_UP").as_deref()),
            crate::platform::access_config::SignUpMode::Invite,
        );
        p.or(
            crate::platform::access_config::check_status_callback(
                twilio
                    .as_ref()
                    .and_then(|t| t.status_callback_url.as_deref()),
                &public_url,
            ),
            (),
        );
        let setup_token =
            crate::platform::access_config::setup_token(var("HERALD_SETUP_TOKEN"), production);
        let share_operator_account = p.or(
            crate::platform::access_config::share_operator_account(
                var("SHARE_OPERATOR_ACCOUNT").as_deref(),
                production,
                sign_up,
            ),
            false,
        );
        let limits = super::limits::read(&mut p);
        let llm = crate::platform::llm::RigSettings {
            provider: var("LLM_PROVIDER").unwrap_or_else(|| "offline".into()),
            model: var("LLM_MODEL").unwrap_or_default(),
            api_key: var("LLM_API_KEY").unwrap_or_default(),
            base_url: var("LLM_BASE_URL"),
            timeout: p.span("LLM_TIMEOUT_SECS", 60.0, DAY_SECS, Unit::Seconds),
        };
        let config = Self {
            limits,
            setup_token,
            share_operator_account,
            request_timeout: std::time::Duration::from_secs(p.number(
                "REQUEST_TIMEOUT_SECS",
                60,
                1..=3600,
            )),
            allowed_hosts: var("ALLOWED_HOSTS")
                .map(|v| {
                    v.split(',')
                        .map(str::trim)
                        .filter(|h| !h.is_empty())
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            database_url,
            ip,
            port,
            public_url,
            public_dir: public_dir(),
            webhook_auth_token: var("TWILIO_AUTH_TOKEN"),
            unsigned_webhooks_allowed,
            transport,
            twilio,
            simulator_enabled: var("SIMULATOR_ENABLED")
                .map(|v| v == "true" || v == "1")
                .unwrap_or(simulator_default),
            default_region: var("DEFAULT_REGION").unwrap_or_else(|| "US".into()),
            seed_demo,
            sign_up,
            metrics_token: var("METRICS_TOKEN"),
            email: super::email::EmailSettings::from_env(&mut p),
            shutdown_grace,
            secret_key: var("HERALD_SECRET_KEY").map(|k| key_from_setting(&k)),
            sign_ups_per_minute: p.number("SIGN_UPS_PER_MINUTE", 5, 1..=1_000_000),
            trusted_proxy_header: var("TRUSTED_PROXY_HEADER").map(|h| h.to_ascii_lowercase()),
            sign_in_attempts_per_minute: p.number("SIGN_IN_ATTEMPTS_PER_MINUTE", 10, 1..=1_000_000),
            plan_risk_max_rows: p.number("PLAN_RISK_MAX_ROWS", DEFAULT_MAX_ROWS, 0..=1_000_000),
            plan_risk_max_cost: p.number("PLAN_RISK_MAX_COST", DEFAULT_MAX_COST, 0.0..=1e9),
            draft_concurrency: p.number("DRAFT_CONCURRENCY", 20, 1..=10_000),
            send_concurrency: p.number("SEND_CONCURRENCY", 4, 1..=10_000),
            turn_concurrency: p.number("TURN_CONCURRENCY", 32, 1..=10_000),
            draft_batch_size: p.number("DRAFT_BATCH_SIZE", 50, 1..=100_000),
            sends_per_second: p.number("SEND_RATE_PER_SECOND", 1.0, 0.001..=100_000.0),
            llm_provider: var("LLM_PROVIDER").unwrap_or_else(|| "offline".into()),
            webhooks: crate::platform::webhook_config::WebhookSettings::from_env(),
            embedding: crate::platform::embedding_config::read(&llm, &mut p),
            llm,
            production,
            test_clock,
            test_route_delay,
            thread_lease,
            sweep_every,
            reply_quiet,
            replies_per_contact_day,
            lesson_review_every,
            thread_idle_for,
            reconcile_after,
            claim_stale_after,
            backup,
            media,
        };
        (config, p.0)
    }

    /// A configuration for tests and tools: outbox transport, no signature check.
    pub fn for_database(database_url: impl Into<String>) -> Self {
        Self {
            database_url: database_url.into(),
            ip: [127, 0, 0, 1].into(),
            port: 0,
            public_url: "http://127.0.0.1".into(),
            public_dir: None,
            webhook_auth_token: None,
            unsigned_webhooks_allowed: false,
            transport: TransportKind::Outbox,
            twilio: None,
            simulator_enabled: true,
            default_region: "US".into(),
            seed_demo: false,
            // Tests create many organisations; the invite-only default has tests of its own.
            sign_up: crate::platform::access_config::SignUpMode::Open,
            setup_token: None,
            share_operator_account: false,
            allowed_hosts: Vec::new(),
            request_timeout: std::time::Duration::from_secs(60),
            limits: super::limits::Limits::default(),
            metrics_token: None,
            email: None,
            shutdown_grace: std::time::Duration::from_secs(20),
            secret_key: None,
            sign_in_attempts_per_minute: 10,
            sign_ups_per_minute: 5,
            trusted_proxy_header: None,
            sends_per_second: 1.0,
            plan_risk_max_rows: DEFAULT_MAX_ROWS,
            plan_risk_max_cost: DEFAULT_MAX_COST,
            draft_concurrency: 20,
            draft_batch_size: 50,
            send_concurrency: 4,
            turn_concurrency: 32,
            llm_provider: "offline".into(),
            webhooks: crate::platform::webhook_config::WebhookSettings::default(),
            llm: crate::platform::llm::RigSettings {
                provider: "offline".into(),
                model: String::new(),
                api_key: String::new(),
                base_url: None,
                timeout: std::time::Duration::from_secs(60),
            },
            embedding: None,
            production: false,
            test_clock: None,
            test_route_delay: None,
            thread_lease: std::time::Duration::from_secs(30),
            sweep_every: std::time::Duration::from_secs(5),
            reply_quiet: std::time::Duration::from_secs(5),
            replies_per_contact_day: 10,
            lesson_review_every: std::time::Duration::from_secs(7 * 24 * 3600),
            thread_idle_for: chrono::Duration::days(30),
            reconcile_after: std::time::Duration::from_secs(5),
            claim_stale_after: std::time::Duration::from_secs(120),
            backup: None,
            media: super::media_config::MediaConfig::temporary(),
        }
    }
}

/// Reads the test-only clock settings, refusing them where real people could be texted.
fn test_clock_from_env(production: bool, ip: IpAddr) -> Result<Option<TestClock>, String> {
    let start = var("HERALD_TEST_CLOCK_START");
    let offset = var("HERALD_TEST_CLOCK_OFFSET_SECS");
    let clock = match (start, offset) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(
                "set HERALD_TEST_CLOCK_START or HERALD_TEST_CLOCK_OFFSET_SECS, not both".into(),
            )
        }
        (Some(s), None) => TestClock::Start(
            chrono::DateTime::parse_from_rfc3339(&s)
                .map_err(|e| format!("HERALD_TEST_CLOCK_START is not an RFC 3339 instant: {e}"))?
                .with_timezone(&chrono::Utc),
        ),
        (None, Some(o)) => TestClock::Offset(
            o.parse()
                .map_err(|e| format!("HERALD_TEST_CLOCK_OFFSET_SECS: {e}"))?,
        ),
    };
    check_test_only("HERALD_TEST_CLOCK_*", production, ip)?;
    tracing::warn!(
        ?clock,
        "TEST CLOCK: the server's time is shifted; for tests only"
    );
    Ok(Some(clock))
}

/// Test-only settings (a shifted clock moves quiet hours and leases): only on loopback, never in
/// production.
pub fn check_test_only(setting: &str, production: bool, ip: IpAddr) -> Result<(), String> {
    if production {
        return Err(format!(
            "{setting} is a test-only setting and is refused when HERALD_ENV=production"
        ));
    }
    if !ip.is_loopback() {
        return Err(format!(
            "{setting} is a test-only setting for loopback only, and IP is {ip}"
        ));
    }
    Ok(())
}

/// Where the built web app is: `DIOXUS_PUBLIC_PATH`, else `public/` beside the executable.
pub fn public_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("DIOXUS_PUBLIC_PATH")
        .map(std::path::PathBuf::from)
        .or_else(|| Some(std::env::current_exe().ok()?.parent()?.join("public")))
        .filter(|p| p.is_dir())
}

/// Plans changing more rows than this gate under RiskGated (`PLAN_RISK_MAX_ROWS`, default 25).
pub const DEFAULT_MAX_ROWS: usize = 25;
/// Plans estimated to spend more than this many US dollars gate (`PLAN_RISK_MAX_COST`).
pub const DEFAULT_MAX_COST: f64 = 1.0;

/// The key that seals organisations' provider secrets (`provider_accounts::crypto`), from
/// `HERALD_SECRET_KEY`: the setting's base64 value when it is 32 bytes, else its SHA-256 (a long
/// random passphrase works too).
pub fn key_from_setting(setting: &str) -> [u8; 32] {
    use base64::Engine;
    let s = setting.trim();
    if let Ok(raw) = base64::engine::general_purpose::STANDARD.decode(s) {
        if let Ok(key) = <[u8; 32]>::try_from(raw.as_slice()) {
            return key;
        }
    }
    <sha2::Sha256 as sha2::Digest>::digest(s.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_clock_is_refused_in_production_and_beyond_loopback() {
        let loopback: IpAddr = [127, 0, 0, 1].into();
        assert!(check_test_only("X", false, loopback).is_ok());
        assert!(check_test_only("X", true, loopback)
            .unwrap_err()
            .contains("HERALD_ENV=production"));
        assert!(check_test_only("X", false, [0, 0, 0, 0].into())
            .unwrap_err()
            .contains("loopback only"));
    }
}
