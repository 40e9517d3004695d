//! Starting the real server binary, ChromeDriver and a WebDriver session, and saving screenshots.
use crate::helpers::{daytime_offset_secs, fresh_database, Backend, DbGuard};
use fantoccini::{Client, ClientBuilder, Locator};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub use crate::helpers::free_port;

pub fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test-output/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A child process killed when dropped.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The web build's server, on its own port and database, with the demo organisation.
pub struct WebServer {
    pub base: String,
    /// The server's database, for a test that puts a record in place first.
    pub db_url: String,
    _proc: Proc,
    _db: DbGuard,
}

impl WebServer {
    /// A connection to the server's database that waits for SQLite's writer as the server's own
    /// connections do (polling, up to `BUSY_TIMEOUT`), so a test's writes are not starved while
    /// the server's background passes write.
    pub async fn db(&self) -> sea_orm::DatabaseConnection {
        use herald::platform::db::{connect, Role};
        connect(&self.db_url, 2, Role::Background).await.unwrap()
    }
}

/// The demo organisation's id and its first number's, for seeding into it.
pub async fn demo_org_and_number(db: &sea_orm::DatabaseConnection) -> (uuid::Uuid, uuid::Uuid) {
    use herald::auth::entity::organization;
    use herald::phone_numbers::entity as phone_number;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    let org = organization::Entity::find().one(db).await.unwrap().unwrap();
    let number = phone_number::Entity::find()
        .filter(phone_number::Column::OrganizationId.eq(org.id))
        .one(db)
        .await
        .unwrap()
        .unwrap();
    (org.id, number.id)
}

pub async fn start_web_server(backend: Backend) -> Option<WebServer> {
    start_web_server_with(backend, &[]).await
}

/// The demo's web server with these settings in its environment as well (`SMTP_URL`, say).
pub async fn start_web_server_with(
    backend: Backend,
    settings: &[(&str, String)],
) -> Option<WebServer> {
    let (url, guard) = fresh_database(backend).await?;
    let dir = std::env::var("HERALD_WEB_DIR").expect("HERALD_WEB_DIR names the web build");
    let (base, proc) = start_server_with(&dir, &url, true, &format!("{backend:?}"), settings).await;
    Some(WebServer {
        base,
        db_url: url,
        _proc: proc,
        _db: guard,
    })
}

/// The web server on `url` (another instance may share it); `seed` adds the demo organisation.
pub async fn start_web_server_at(url: &str, seed: bool, log_name: &str) -> (String, Proc) {
    let dir = std::env::var("HERALD_WEB_DIR")
        .expect("HERALD_WEB_DIR names the web build, scripts/build_web.sh's folder (scripts/test.sh sets it)");
    start_server_in(&dir, url, seed, log_name).await
}

/// The server of the web build in `dir` on `url`.
pub async fn start_server_in(dir: &str, url: &str, seed: bool, log_name: &str) -> (String, Proc) {
    start_server_with(dir, url, seed, log_name, &[]).await
}

/// The same, with these settings in its environment as well.
pub async fn start_server_with(
    dir: &str,
    url: &str,
    seed: bool,
    log_name: &str,
    settings: &[(&str, String)],
) -> (String, Proc) {
    let port = free_port();
    let log =
        std::fs::File::create(screenshot_dir().join(format!("server-{log_name}.log"))).unwrap();
    let mut cmd = Command::new(PathBuf::from(&dir).join("server"));
    // Run it as a user would, without cargo's variables (which would also point Dioxus's asset
    // resolver at the source tree).
    for (key, _) in std::env::vars() {
        if key.starts_with("CARGO") || key.starts_with("DIOXUS") {
            cmd.env_remove(key);
        }
    }
    let child = cmd
        .current_dir(dir)
        .env("IP", "127.0.0.1")
        .env("PORT", port.to_string())
        .env("DATABASE_URL", url)
        .env("SEED_DEMO", if seed { "true" } else { "false" })
        .env("RUST_LOG", "info")
        // Agents answer at once: the burst debounce has its own test.
        .env("REPLY_QUIET_SECS", "0")
        // Webhooks may go to a receiver on loopback (the Developers page's test).
        .env("WEBHOOK_ALLOW_PRIVATE", "true")
        // Daytime for the server (campaigns send at once), whatever the hour here.
        .env(
            "HERALD_TEST_CLOCK_OFFSET_SECS",
            daytime_offset_secs().to_string(),
        )
        .envs(settings.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("start the web server binary");
    let base = format!("http://127.0.0.1:{port}");
    wait_healthy(&base).await;
    (base, Proc(child))
}

/// Clicks the inbox entry of `name` and waits for the conversation.
/// Picks an inbox view: a tab on a desktop, from the views' sheet on a phone.
pub async fn choose_view(b: &Browser, screen: Screen, view: &str) {
    if matches!(screen, Screen::Phone { .. }) {
        b.click("#inbox-views").await;
        b.wait_for("#inbox-filters.open").await;
    }
    b.click(&format!("#filter-{view}")).await;
    b.wait_for(&format!("#filter-{view}.active")).await;
}

pub async fn open_conversation(b: &Browser, name: &str) {
    b.wait_for_text(".conversation-item", name).await;
    let items = b
        .client
        .find_all(Locator::Css(".conversation-item"))
        .await
        .unwrap();
    for item in items {
        if item.text().await.unwrap().contains(name) {
            b.tap(&item).await;
            break;
        }
    }
    b.wait_for_text("#conversation-title", name).await;
}

pub async fn wait_healthy(base: &str) {
    for _ in 0..300 {
        if let Ok(r) = reqwest::get(format!("{base}/healthz")).await {
            if r.status().is_success() {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{base} never became healthy");
}

pub struct Browser {
    pub client: Client,
    _driver: Proc,
    _profile: PathBuf,
}

/// The screen a browser test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    /// A 1280×860 window.
    Desktop,
    /// A phone in Chromium's mobile emulation (touch, a phone's user agent), CSS pixels.
    Phone { width: u32, height: u32 },
}

impl Screen {
    /// The phone the issue names: 390×844.
    pub const PHONE: Screen = Screen::Phone {
        width: 390,
        height: 844,
    };

    /// A prefix for screenshot names.
    pub fn tag(self) -> String {
        match self {
            Screen::Desktop => String::new(),
            Screen::Phone { width, .. } => format!("phone{width}-"),
        }
    }
}

/// The web server with demo data, and a browser on `screen` signed in to it as the demo user.
pub async fn signed_in(backend: Backend, screen: Screen) -> Option<(WebServer, Browser)> {
    let server = start_web_server(backend).await?;
    let b = start_browser_on(screen).await;
    b.sign_in_demo(&server.base).await;
    Some((server, b))
}

pub async fn start_browser() -> Browser {
    start_browser_on(Screen::Desktop).await
}

pub async fn start_browser_on(screen: Screen) -> Browser {
    // Both rustls providers are in the dependency graph; pick one for the WebDriver client.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let port = free_port();
    // The browser is not Herald: under the pinned-clock runs (libfaketime) it keeps real time.
    let driver = Command::new("chromedriver")
        .env_remove("LD_PRELOAD")
        .env_remove("FAKETIME")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver (scripts/setup.sh --test installs it)");
    let profile =
        std::env::temp_dir().join(format!("herald-chrome-{}", uuid::Uuid::new_v4().simple()));
    let mut caps = serde_json::json!({
        "goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,860",
                format!("--user-data-dir={}", profile.display()),
            ]
        }
    });
    if let Screen::Phone { width, height } = screen {
        caps["goog:chromeOptions"]["mobileEmulation"] = serde_json::json!({
            "deviceMetrics": { "width": width, "height": height, "pixelRatio": 2, "touch": true },
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36"
        });
    }
    let mut last = None;
    for _ in 0..50 {
        let mut builder = ClientBuilder::rustls().expect("rustls");
        builder.capabilities(caps.as_object().unwrap().clone());
        match builder.connect(&format!("http://127.0.0.1:{port}")).await {
            Ok(client) => {
                return Browser {
                    client,
                    _driver: Proc(driver),
                    _profile: profile,
                }
            }
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("no WebDriver session: {last:?}");
}

impl Browser {
    pub async fn shot(&self, name: &str) {
        let png = self.client.screenshot().await.expect("screenshot");
        std::fs::write(screenshot_dir().join(format!("{name}.png")), png).unwrap();
        let sheets = self
            .client
            .execute("return Array.from(document.styleSheets).map(s => (s.href || 'inline') + ' rules=' + s.cssRules.length).join('\\n')", vec![])
            .await
            .unwrap_or_default();
        std::fs::write(
            screenshot_dir().join(format!("{name}.styles.txt")),
            sheets.as_str().unwrap_or_default(),
        )
        .unwrap();
    }

    pub async fn wait_for(&self, css: &str) -> fantoccini::elements::Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("waiting for {css}: {e}"))
    }

    /// Waits until an element matching `css` contains `text`.
    pub async fn wait_for_text(&self, css: &str, text: &str) {
        for _ in 0..200 {
            if let Ok(els) = self.client.find_all(Locator::Css(css)).await {
                for el in els {
                    if el.text().await.unwrap_or_default().contains(text) {
                        return;
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no {css} ever showed {text:?}");
    }

    /// Waits until no element matching `css` contains `text`.
    pub async fn wait_until_gone_text(&self, css: &str, text: &str) {
        for _ in 0..200 {
            let mut seen = false;
            if let Ok(els) = self.client.find_all(Locator::Css(css)).await {
                for el in els {
                    seen |= el.text().await.unwrap_or_default().contains(text);
                }
            }
            if !seen {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("{css} still showed {text:?}");
    }

    /// Signs in as the demo user and waits for the signed-in shell.
    pub async fn sign_in_demo(&self, base: &str) {
        self.open(&format!("{base}/signin")).await;
        self.fill("#signin-email", herald::server::seed::DEMO_EMAIL)
            .await;
        self.fill("#signin-password", herald::server::seed::DEMO_PASSWORD)
            .await;
        self.click("#signin-submit").await;
        self.wait_for("#nav-assistant").await;
    }

    /// Asks the Assistant, in plan mode, for `request` (the page at `base`).
    pub async fn ask_for_a_plan(&self, base: &str, request: &str) {
        self.open(&format!("{base}/assistant")).await;
        self.click("#plan-switch").await;
        self.fill("#assistant-input", request).await;
        self.click("#assistant-send").await;
    }

    /// Opens `url` and waits until the client app has hydrated.
    pub async fn open(&self, url: &str) {
        self.client.goto(url).await.unwrap();
        self.wait_for("body[data-hydrated='true']").await;
    }

    pub async fn fill(&self, css: &str, text: &str) {
        let el = self.wait_for(css).await;
        el.clear().await.unwrap();
        el.send_keys(text).await.unwrap();
    }

    /// Fails when the page scrolls sideways: wider than the screen.
    pub async fn assert_fits_width(&self, what: &str) {
        let v = self
            .client
            .execute(
                "const e = document.scrollingElement; return [e.scrollWidth, e.clientWidth];",
                vec![],
            )
            .await
            .unwrap();
        let (scroll, client) = (v[0].as_u64().unwrap(), v[1].as_u64().unwrap());
        if scroll <= client {
            return;
        }
        // Name the widest offenders, innermost first, so the failure says what to fix.
        let wide = self
            .client
            .execute(
                "const w = document.scrollingElement.clientWidth; return [...document.querySelectorAll('body *')]
                   .filter(e => e.getBoundingClientRect().right > w + 1 && ![...e.children].some(c => c.getBoundingClientRect().right > w + 1))
                   .slice(0, 5).map(e => e.tagName.toLowerCase() + '.' + [...e.classList].join('.') + ' ' + Math.round(e.getBoundingClientRect().right));",
                vec![],
            )
            .await
            .unwrap();
        panic!("{what} scrolls sideways: {scroll} px of content in {client} px; too wide: {wide}");
    }

    /// Clicks the element as a person would: scrolled to the middle of the screen first, so
    /// that a phone's fixed bars never sit over it.
    /// A live event may re-render the element between finding and clicking it; a person
    /// would simply click the new one, so a stale element is looked up again, and so is one
    /// that something else still covered.
    pub async fn click(&self, css: &str) {
        for _ in 0..5 {
            let el = self.wait_for(css).await;
            match self.try_tap(&el).await {
                Ok(()) => return,
                Err(e) if is_stale(&e) || is_covered(&e) => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(e) => panic!("clicking {css}: {e}"),
            }
        }
        panic!("{css} kept being replaced before it could be clicked");
    }

    pub async fn tap(&self, el: &fantoccini::elements::Element) {
        self.try_tap(el).await.unwrap();
    }

    async fn try_tap(
        &self,
        el: &fantoccini::elements::Element,
    ) -> Result<(), fantoccini::error::CmdError> {
        let arg = serde_json::to_value(el).unwrap();
        let _ = self
            .client
            .execute(
                "arguments[0].scrollIntoView({block: 'center', inline: 'nearest'});",
                vec![arg],
            )
            .await;
        el.click().await
    }
}

/// Another element sat over it: the page was still laying out (a phone's tab bar over the
/// composer until the page settles). A person would tap again once it has; a page that keeps it
/// covered still fails after the retries.
fn is_covered(e: &fantoccini::error::CmdError) -> bool {
    matches!(
        e,
        fantoccini::error::CmdError::Standard(w)
            if w.error == fantoccini::error::ErrorStatus::ElementClickIntercepted
    )
}

fn is_stale(e: &fantoccini::error::CmdError) -> bool {
    matches!(
        e,
        fantoccini::error::CmdError::Standard(w)
            if w.error == fantoccini::error::ErrorStatus::StaleElementReference
    )
}
