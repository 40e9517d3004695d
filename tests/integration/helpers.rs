//! `spawn_app`: a real Herald server on 127.0.0.1:0 with a fresh SQLite or PostgreSQL database.
use herald::ai_agent::llm::ChatModel;
use herald::platform::config::Config;
use herald::platform::sms::SmsTransport;
use herald::platform::state::Services;
use herald::platform::AppState;
use herald::server::launch::start_with;
use reqwest::StatusCode;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::sync::Arc;

pub const PG_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// The instant every test server's clock starts at, whatever the machine's date, hour or zone:
/// a Wednesday at 16:00 UTC (12:00 in New York, 09:00 in Los Angeles, 17:00 in London), far
/// from any daylight-saving change. The clock then runs on with real time.
pub fn test_daytime() -> chrono::DateTime<chrono::Utc> {
    use chrono::TimeZone;
    chrono::Utc.with_ymd_and_hms(2026, 6, 17, 16, 0, 0).unwrap()
}

/// For real server binaries (`HERALD_TEST_CLOCK_OFFSET_SECS`): the shift that makes their clock
/// read `test_daytime()` now. Compute it once per test and give every restart the same value,
/// so time runs on across a kill and a restart.
pub fn daytime_offset_secs() -> i64 {
    (test_daytime() - chrono::Utc::now()).num_seconds()
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Generates `name::sqlite` and `name::postgres` tests from `async fn name(backend: Backend)`.
#[macro_export]
macro_rules! on_both_databases {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name($crate::helpers::Backend::Sqlite).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                super::$name($crate::helpers::Backend::Postgres).await
            }
        }
    )*};
}

pub struct TestApp {
    pub base: String,
    /// Its database, for a second instance on it (`Options::database`).
    pub db_url: String,
    pub state: AppState,
    pub client: reqwest::Client,
    _db: DbGuard,
}

/// Drops the per-test PostgreSQL database (or SQLite file) when the test ends.
pub struct DbGuard {
    pg_name: Option<String>,
    sqlite_path: Option<std::path::PathBuf>,
}

impl Drop for DbGuard {
    fn drop(&mut self) {
        if let Some(path) = &self.sqlite_path {
            for suffix in ["", "-wal", "-shm", ".lock"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
            }
        }
        if let Some(name) = self.pg_name.take() {
            // Best effort, on a thread of its own: the test's runtime is shutting down.
            let _ = std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async move {
                    use sea_orm::ConnectionTrait;
                    if let Ok(db) = sea_orm::Database::connect(PG_ADMIN_URL).await {
                        let _ = db
                            .execute_unprepared(&format!(
                                "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
                            ))
                            .await;
                    }
                });
            })
            .join();
        }
    }
}

/// A fresh, empty database URL for one test, or None when PostgreSQL is not running locally.
pub async fn fresh_database(backend: Backend) -> Option<(String, DbGuard)> {
    let id = uuid::Uuid::new_v4().simple().to_string();
    match backend {
        Backend::Sqlite => {
            let path = std::env::temp_dir().join(format!("herald-test-{id}.db"));
            let url = format!("sqlite://{}?mode=rwc", path.display());
            Some((
                url,
                DbGuard {
                    pg_name: None,
                    sqlite_path: Some(path),
                },
            ))
        }
        Backend::Postgres => {
            use sea_orm::ConnectionTrait;
            let admin = match sea_orm::Database::connect(PG_ADMIN_URL).await {
                Ok(db) => db,
                Err(e) if std::env::var("CI").as_deref() == Ok("true") => {
                    panic!("CI=true needs PostgreSQL on 127.0.0.1:5432: {e}")
                }
                Err(e) => {
                    eprintln!("skipping the PostgreSQL run: {e}");
                    return None;
                }
            };
            let name = format!("herald_test_{id}");
            admin
                .execute_unprepared(&format!("CREATE DATABASE \"{name}\""))
                .await
                .expect("create test database");
            Some((
                format!("postgres://postgres@127.0.0.1:5432/{name}"),
                DbGuard {
                    pg_name: Some(name),
                    sqlite_path: None,
                },
            ))
        }
    }
}

pub struct Options {
    /// Where media copies go, and their size limit (none: a temporary folder, 5 MB).
    pub media: Option<herald::platform::media_config::MediaConfig>,
    pub webhook_auth_token: Option<String>,
    /// Outbound webhooks' settings (none: the defaults, private addresses refused).
    pub webhooks: Option<herald::webhooks::WebhookSettings>,
    pub public_url: String,
    pub transport: Option<Arc<dyn SmsTransport>>,
    pub model: Option<Arc<dyn ChatModel>>,
    pub drafter: Option<Arc<dyn herald::campaign::drafter::Drafter>>,
    pub clock: Option<Arc<dyn herald::platform::clock::Clock>>,
    /// Campaign sends per second (fast by default in tests).
    pub sends_per_second: f64,
    /// Send workers per campaign (one on a manual clock keeps the sleeps in order).
    pub send_concurrency: usize,
    pub sign_in_attempts_per_minute: u32,
    /// Sign-ups per minute per address: tests sign up many organisations from 127.0.0.1.
    pub sign_ups_per_minute: u32,
    pub trusted_proxy_header: Option<String>,
    /// A built web app's folder to serve (none: pages and server functions only).
    pub public_dir: Option<std::path::PathBuf>,
    /// Plans estimated to spend more than this (US dollars) wait for a person.
    pub plan_risk_max_cost: f64,
    /// Agent threads run at once (`TURN_CONCURRENCY`).
    pub turn_concurrency: usize,
    /// How old a drafting item's heartbeat may get before the reaper takes it back.
    pub draft_stale_after: Option<std::time::Duration>,
    /// `SIGN_UP` (open in tests, which create many organisations).
    pub sign_up: herald::platform::access_config::SignUpMode,
    pub metrics_token: Option<String>,
    /// `HERALD_SECRET_KEY`, as its setting.
    pub secret_key: Option<String>,
    /// Run as `SMS_TRANSPORT=twilio` (with `transport` a Twilio transport to a fake).
    pub twilio: bool,
    /// An autonomous agent's wait after the newest text (none in tests unless asked for).
    pub reply_quiet: std::time::Duration,
    /// Automated replies per contact a day before the agent escalates instead.
    pub replies_per_contact_day: u32,
    /// Another instance on this database (another test app's `db_url`), not a fresh one.
    pub database: Option<String>,
    /// `HERALD_SETUP_TOKEN`: the first sign-up needs it (as in production).
    pub setup_token: Option<String>,
    /// `REQUEST_TIMEOUT_SECS`, when a test needs it short.
    pub request_timeout: Option<std::time::Duration>,
    /// Limits per organisation, when a test needs them small.
    pub limits: Option<herald::platform::limits::Limits>,
    /// `SMTP_URL` and `SMTP_FROM` (none: no email).
    pub email: Option<herald::platform::email::EmailSettings>,
    /// `EMBEDDING_MODEL` and its companions (none: knowledge found by words alone).
    pub embedding: Option<herald::platform::embedding_config::EmbeddingSettings>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            media: None,
            webhook_auth_token: None,
            webhooks: None,
            public_url: "https://herald.example".into(),
            transport: None,
            model: None,
            drafter: None,
            clock: None,
            sends_per_second: 1000.0,
            send_concurrency: 4,
            sign_in_attempts_per_minute: 10,
            sign_ups_per_minute: 1000,
            trusted_proxy_header: None,
            public_dir: None,
            plan_risk_max_cost: herald::plans::approval::DEFAULT_MAX_COST,
            turn_concurrency: 32,
            draft_stale_after: None,
            sign_up: herald::platform::access_config::SignUpMode::Open,
            metrics_token: None,
            secret_key: None,
            twilio: false,
            reply_quiet: std::time::Duration::ZERO,
            replies_per_contact_day: 10,
            database: None,
            setup_token: None,
            request_timeout: None,
            limits: None,
            email: None,
            embedding: None,
        }
    }
}

pub async fn spawn_app(backend: Backend) -> Option<TestApp> {
    spawn_app_with(backend, Options::default()).await
}

pub async fn spawn_app_with(backend: Backend, opts: Options) -> Option<TestApp> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "warn,sqlx=error".into()),
        )
        .with_test_writer()
        .try_init();
    let (url, guard) = match opts.database.clone() {
        Some(url) => (
            url,
            DbGuard {
                pg_name: None,
                sqlite_path: None,
            },
        ),
        None => fresh_database(backend).await?,
    };
    let mut config = Config::for_database(url.clone());
    config.webhook_auth_token = opts.webhook_auth_token;
    if let Some(w) = opts.webhooks {
        config.webhooks = w;
    }
    config.public_url = opts.public_url;
    config.sign_in_attempts_per_minute = opts.sign_in_attempts_per_minute;
    config.sign_ups_per_minute = opts.sign_ups_per_minute;
    config.trusted_proxy_header = opts.trusted_proxy_header;
    config.public_dir = opts.public_dir;
    config.turn_concurrency = opts.turn_concurrency;
    config.sign_up = opts.sign_up;
    // As the environment's default outside production: lent on an invite-only install only.
    config.share_operator_account =
        opts.sign_up == herald::platform::access_config::SignUpMode::Invite;
    config.setup_token = opts.setup_token;
    if let Some(t) = opts.request_timeout {
        config.request_timeout = t;
    }
    if let Some(l) = opts.limits.clone() {
        config.limits = l;
    }
    config.metrics_token = opts.metrics_token;
    config.email = opts.email;
    config.embedding = opts.embedding;
    config.secret_key = opts
        .secret_key
        .map(|k| herald::provider_accounts::crypto::key_from_setting(&k));
    if let Some(media) = opts.media {
        config.media = media;
    }
    config.plan_risk_max_cost = opts.plan_risk_max_cost;
    let mut services = Services::from_config(&config).expect("services");
    // A failing embedding model rests 20 ms, then 40 ms… in tests (seconds in production).
    if let Some(e) = services
        .parts
        .get_mut::<herald::knowledge::embed::Embedding>()
    {
        e.backoff = std::time::Duration::from_millis(20);
    }
    if opts.twilio {
        // The transport handed in below is a Twilio one, to a fake.
        config.transport = herald::platform::config::TransportKind::Twilio;
    }
    if let Some(t) = opts.transport {
        services.transport = t;
    }
    if let Some(m) = opts.model {
        services.model = m;
    }
    services.runtime_mut().model_backoff = std::time::Duration::from_millis(5);
    // A failed turn retries after 20 ms, 40 ms, 80 ms in tests (seconds in production).
    services.runtime_mut().turn_backoff = std::time::Duration::from_millis(20);
    if let Some(d) = opts.drafter {
        services.parts.insert(d);
    }
    services.runtime_mut().reply_quiet = opts.reply_quiet;
    services.runtime_mut().replies_per_contact_day = opts.replies_per_contact_day;
    // Quiet hours, leases and backoff follow this clock; never the machine's hour.
    services.clock = opts.clock.unwrap_or_else(|| {
        Arc::new(herald::platform::clock::ShiftedClock::starting_at(
            test_daytime(),
        ))
    });
    services.engine_mut().sends_per_second = opts.sends_per_second;
    services.engine_mut().send_concurrency = opts.send_concurrency;
    if let Some(stale) = opts.draft_stale_after {
        services.engine_mut().stale_after = stale;
    }
    let running = start_with(config, services).await.expect("server starts");
    Some(TestApp {
        base: format!("http://{}", running.addr),
        db_url: url,
        state: running.state,
        client: new_client(),

        _db: guard,
    })
}

/// A test server with default options that sends through `transport` (an outbox or a fake).
pub async fn spawn_app_sending_to(
    backend: Backend,
    transport: Arc<dyn SmsTransport>,
) -> Option<TestApp> {
    spawn_app_with(
        backend,
        Options {
            transport: Some(transport),
            ..Default::default()
        },
    )
    .await
}

pub fn new_client() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap()
}

/// A signed-in organisation: its client (with the session cookie), and its ids.
pub struct Org {
    pub client: reqwest::Client,
    pub org_id: uuid::Uuid,
    pub email: String,
    pub password: &'static str,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Calls a server function with a JSON body; answers the status and the JSON reply.
    pub async fn call_as(
        &self,
        client: &reqwest::Client,
        path: &str,
        body: Value,
    ) -> (StatusCode, Value) {
        let req = if body.is_null() {
            client.get(self.url(path))
        } else {
            client.post(self.url(path)).json(&body)
        };
        let res = req.send().await.expect("request");
        let status = res.status();
        let text = res.text().await.unwrap_or_default();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// The first page of contacts a search matches: its items.
    pub async fn search_contacts(&self, client: &reqwest::Client, query: Value) -> Value {
        let page: Value = self
            .ok_as(client, "/api/contacts/search", json!({"query": query}))
            .await;
        page["items"].clone()
    }

    /// The inbox's first page (all conversations, newest first): its items.
    pub async fn inbox(&self, client: &reqwest::Client) -> Value {
        let page: Value = self
            .ok_as(
                client,
                "/api/conversations",
                json!({"filter": "all", "after": null}),
            )
            .await;
        page["items"].clone()
    }

    /// Like `call_as`, but expects success and decodes the reply.
    pub async fn ok_as<T: DeserializeOwned>(
        &self,
        client: &reqwest::Client,
        path: &str,
        body: Value,
    ) -> T {
        let (status, value) = self.call_as(client, path, body).await;
        assert!(status.is_success(), "{path} answered {status}: {value}");
        serde_json::from_value(value).expect("decodes")
    }

    /// The body of "Approve all" for an operation: its id and the digest of the drafts its sheet
    /// shows now, as the review page sends them.
    pub async fn approve_body(&self, client: &reqwest::Client, op: &Value) -> Value {
        let sheet: Value = self
            .ok_as(client, "/api/operations/sheet", json!({"id": op}))
            .await;
        json!({"id": op, "digest": sheet["digest"]})
    }

    /// Signs up a new organisation with its owner, with two numbers.
    pub async fn new_org(&self, name: &str) -> Org {
        let client = new_client();
        let email = format!(
            "owner-{}@{}.test",
            uuid::Uuid::new_v4().simple(),
            name.to_lowercase().replace(' ', "")
        );
        let me: Value = self
            .ok_as(&client, "/api/auth/sign_up", json!({"form": {"organization_name": name, "name": "Owner", "email": email, "password": "correct horse battery"}}))
            .await;
        Org {
            client,
            org_id: me["organization_id"].as_str().unwrap().parse().unwrap(),
            email,
            password: "correct horse battery",
        }
    }

    /// The agent the signed-in member owns (every member gets a Text Reply of their own).
    pub async fn own_agent(&self, member: &Org) -> Value {
        let agents: Value = self.ok_as(&member.client, "/api/agents", Value::Null).await;
        agents
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["is_mine"] == true)
            .expect("the member's own Text Reply")
            .clone()
    }

    /// Adds a member (not an owner) to the organisation, signed in on a client of their own.
    pub async fn add_member(&self, org: &Org, name: &str) -> Org {
        let email = format!(
            "{}-{}@member.test",
            name.to_lowercase(),
            uuid::Uuid::new_v4().simple()
        );
        let client = self
            .invite(org, name, &email, "member password 1", "member")
            .await;
        Org {
            client,
            org_id: org.org_id,
            email,
            password: "member password 1",
        }
    }

    /// The owner invites someone with `role`; they accept on a client of their own, which is then
    /// signed in.
    pub async fn invite(
        &self,
        owner: &Org,
        name: &str,
        email: &str,
        password: &str,
        role: &str,
    ) -> reqwest::Client {
        let inv: Value = self
            .ok_as(
                &owner.client,
                "/api/invitations/create",
                json!({"role": role}),
            )
            .await;
        let token = inv["token"].as_str().expect("an invitation token");
        assert!(
            inv["url"]
                .as_str()
                .unwrap()
                .ends_with(&format!("/join/{token}")),
            "{inv}"
        );
        let client = new_client();
        let me: Value = self
            .ok_as(
                &client,
                "/api/invitations/accept",
                json!({"token": token, "name": name, "email": email, "password": password}),
            )
            .await;
        assert_eq!(me["role"], role);
        client
    }

    pub async fn add_number(&self, org: &Org, number: &str) -> uuid::Uuid {
        let v: Value = self
            .ok_as(
                &org.client,
                "/api/numbers/create",
                json!({"input": {"number": number, "friendly_name": "Main", "provider_sid": ""}}),
            )
            .await;
        v["id"].as_str().unwrap().parse().unwrap()
    }

    pub async fn add_contact(&self, org: &Org, name: &str, phone: &str) -> uuid::Uuid {
        let v: Value = self
            .ok_as(
                &org.client,
                "/api/contacts/create",
                json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": name, "phone": phone, "email": "", "tags": []}}),
            )
            .await;
        v["id"].as_str().unwrap().parse().unwrap()
    }

    /// Records written (web form) consent for a contact, as a person would on the contact form:
    /// a contact who only texted in may be answered, not sent a campaign.
    pub async fn give_consent(&self, org: &Org, contact: uuid::Uuid) {
        let c: Value = self
            .ok_as(&org.client, "/api/contacts/get", json!({"id": contact}))
            .await;
        let input = json!({"name": c["name"], "phone": c["phone"].as_str().unwrap_or_default(), "email": c["email"].as_str().unwrap_or_default(), "tags": c["tags"], "custom_fields": c["custom_fields"], "notes": c["notes"], "time_zone": c["time_zone"].as_str().unwrap_or_default(), "consent": {"source": "web_form", "note": "signed up on the web form"}});
        let _: Value = self
            .ok_as(
                &org.client,
                "/api/contacts/update",
                json!({"id": contact, "input": input}),
            )
            .await;
    }

    /// Posts a Twilio-style inbound SMS webhook.
    pub async fn post_webhook(
        &self,
        params: &[(&str, &str)],
        signature: Option<&str>,
    ) -> reqwest::Response {
        let mut req = self
            .client
            .post(self.url("/webhooks/twilio/sms"))
            .form(params);
        if let Some(sig) = signature {
            req = req.header("X-Twilio-Signature", sig);
        }
        req.send().await.expect("webhook request")
    }

    /// An unsigned delivery status callback for `sid` (with the carrier's code, if any); the
    /// test server does not check signatures unless told to.
    pub async fn status_callback(&self, sid: &str, status: &str, code: Option<&str>) {
        let mut form = vec![("MessageSid", sid), ("MessageStatus", status)];
        if let Some(code) = code {
            form.push(("ErrorCode", code));
        }
        let res = self
            .client
            .post(self.url("/webhooks/twilio/status"))
            .form(&form)
            .send()
            .await
            .expect("status callback");
        assert!(res.status().is_success(), "{}", res.status());
    }

    /// The body of a page `client` opens.
    pub async fn page_text(&self, client: &reqwest::Client, path: &str) -> String {
        client
            .get(self.url(path))
            .send()
            .await
            .expect("page request")
            .text()
            .await
            .expect("page body")
    }

    /// A text in from `from` to `to`, acknowledged, with its routing finished.
    pub async fn text_in(&self, sid: &str, from: &str, to: &str, body: &str) {
        let res = self
            .post_webhook(&sms_params(sid, from, to, body), None)
            .await;
        assert!(res.status().is_success(), "{}", res.status());
        self.settle().await;
    }

    /// Stops this server and its periodic loops, and waits for a pass in flight to end: a
    /// test about to change the schema under the database would otherwise race the rollup.
    pub async fn stop(&self) {
        self.state.shutdown.cancel();
        self.state.loops.close();
        self.state.loops.wait().await;
        self.settle().await;
    }

    /// Waits for background routing to finish.
    pub async fn settle(&self) {
        herald::platform::state::wait_for_background(&self.state.tasks).await;
    }

    /// Rows of `table` matching a SQL condition written by the test.
    pub async fn count_where(&self, table: &str, condition: &str) -> i64 {
        use sea_orm::{ConnectionTrait, Statement};
        let row = self
            .state
            .db
            .query_one_raw(Statement::from_string(
                self.state.db.get_database_backend(),
                format!("SELECT COUNT(*) AS n FROM \"{table}\" WHERE {condition}"),
            ))
            .await
            .unwrap()
            .unwrap();
        row.try_get::<i64>("", "n").unwrap()
    }

    pub async fn count(&self, table: &str) -> i64 {
        self.count_where(table, "1 = 1").await
    }

    /// Every row of every table, as text, sorted: two snapshots are equal only if nothing was
    /// written in between.
    /// Every table's rows, once the reports' rollup has counted everything stored: the
    /// background passes derive report rows from texts, and one landing between two snapshots
    /// is no change a test made. Read until two readings agree (no pass was in flight).
    pub async fn snapshot(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        let mut last = None;
        for _ in 0..20 {
            herald::reports::rollup::catch_up(&self.state, 1000)
                .await
                .unwrap();
            let now = self.read_tables().await;
            if last.as_ref() == Some(&now) {
                return now;
            }
            last = Some(now);
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the tables never stopped changing");
    }

    async fn read_tables(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        use sea_orm::{ConnectionTrait, DbBackend, Statement};
        let db = &self.state.db;
        let backend = db.get_database_backend();
        let text = |sql: String| async move {
            db.query_all_raw(Statement::from_string(backend, sql))
                .await
                .unwrap()
                .into_iter()
                .map(|r| {
                    r.try_get_by_index::<Option<String>>(0)
                        .unwrap()
                        .unwrap_or_default()
                })
                .collect::<Vec<String>>()
        };
        let tables = match backend {
            DbBackend::Sqlite => text(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                    .into(),
            )
            .await,
            _ => {
                text(
                    "SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()"
                        .into(),
                )
                .await
            }
        };
        let mut out = std::collections::BTreeMap::new();
        for t in tables {
            let rows = match backend {
                DbBackend::Sqlite => {
                    let cols = text(format!("SELECT name FROM pragma_table_info('{t}')")).await;
                    let row = cols
                        .iter()
                        .map(|c| format!("quote(\"{c}\")"))
                        .collect::<Vec<_>>()
                        .join(" || ',' || ");
                    text(format!("SELECT {row} FROM \"{t}\"")).await
                }
                _ => text(format!("SELECT x::text FROM \"{t}\" x")).await,
            };
            let mut rows = rows;
            rows.sort();
            out.insert(t, rows);
        }
        assert!(out.len() > 10, "every table: {:?}", out.keys());
        out
    }
}

/// A port on loopback no one listens on now, for a server a test starts.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A phone number a test names, known to be one.
pub fn num(n: &str) -> herald::platform::sms::PhoneNumber {
    herald::platform::sms::PhoneNumber::new(n).expect("a phone number")
}

/// Polls `probe` every 100 ms until it answers Some, for at most `secs` seconds.
pub async fn eventually<T, F, Fut>(secs: u64, what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    for _ in 0..secs * 10 {
        if let Some(v) = probe().await {
            return v;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}");
}

/// Inbound webhook parameters for a text.
pub fn sms_params<'a>(
    sid: &'a str,
    from: &'a str,
    to: &'a str,
    body: &'a str,
) -> Vec<(&'a str, &'a str)> {
    vec![
        ("MessageSid", sid),
        ("AccountSid", "AC00000000000000000000000000000000"),
        ("From", from),
        ("To", to),
        ("Body", body),
        ("NumMedia", "0"),
    ]
}
