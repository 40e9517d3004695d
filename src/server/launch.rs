//! Start-up: configuration, tracing, database and migrations, the demo seed, then serving.
use crate::platform::state::Services;
use crate::platform::{AppState, Config};
use crate::server::{router::build_router, seed};
use std::net::SocketAddr;

pub fn init_tracing() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,sea_orm=warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).try_init();
}

/// A server bound to its listener, ready to serve.
pub struct Running {
    pub addr: SocketAddr,
    pub state: AppState,
    pub handle: tokio::task::JoinHandle<()>,
    /// The router, held until the process ends. Server functions run on its Dioxus thread pool,
    /// and the connections they open (Twilio's, a model's) are driven there: when serving ended
    /// at SIGTERM and the router went with it, a send still in flight on such a pooled
    /// connection lost its answer in the middle of the drain.
    pub router: axum::Router,
}

/// Binds `IP:PORT` (port 0 picks a free one) and serves in the background.
pub async fn start(config: Config) -> Result<Running, String> {
    let services = Services::from_config(&config)?;
    start_with(config, services).await
}

/// Like `start`, with the given outside services (tests hand in fakes).
pub async fn start_with(config: Config, services: Services) -> Result<Running, String> {
    crate::platform::memory::tune();
    let listener = tokio::net::TcpListener::bind((config.ip, config.port))
        .await
        .map_err(|e| format!("cannot listen on {}:{}: {e}", config.ip, config.port))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    // Held while this process serves: `herald admin restore` refuses meanwhile.
    let file_lock = crate::platform::sqlite_file::hold_server_lock(&config.database_url)?;
    let db = crate::platform::db::connect_and_migrate(&config.database_url)
        .await
        .map_err(|e| format!("database: {e}"))?;
    let ack_size = crate::platform::db::ack_pool_size(&config.database_url);
    let ack_db = crate::platform::db::connect(
        &config.database_url,
        ack_size,
        crate::platform::db::Role::Acknowledgement,
    )
    .await
    .map_err(|e| format!("database: {e}"))?;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let work = crate::platform::work::WorkRuntime::new(threads, config.turn_concurrency)
        .map_err(|e| format!("background runtime: {e}"))?;
    let state = AppState::with_parts(db, ack_db, config, services, work);
    state
        .events
        .listen(crate::server::listeners::all())
        .map_err(str::to_owned)?;
    state.live.bridge(&state.db, state.shutdown.clone());
    // Before any request or background writer: the first ANALYZE takes the write lock.
    crate::platform::sqlite_optimize::start(&state).await;
    crate::server::background::recover_at_start(&state).await;
    crate::server::background::start_sweeper(&state);
    crate::webhooks::deliver::start(&state);
    crate::reports::rollup::start(&state);
    crate::platform::sqlite_wal::start_checkpointer(&state);
    crate::server::backups::start(&state);
    crate::ai_agent::learning::service::start_reviews(&state, state.config.lesson_review_every);
    if let Some(public) = state.config.public_dir.clone() {
        // Compressing a release wasm takes a moment: serve it as it is until its copy is there.
        tokio::task::spawn_blocking(move || {
            let n = crate::server::assets::gzip_missing(&public);
            tracing::info!(files = n, "gzip copies of the web app written");
        });
    }
    let router = build_router(state.clone());
    let app = router
        .clone()
        .into_make_service_with_connect_info::<SocketAddr>();
    let stopping = state.shutdown.clone();
    let handle = tokio::spawn(async move {
        let _file_lock = file_lock;
        // Cancelling the shutdown token stops accepting; requests in flight (a webhook's
        // acknowledgement) finish first.
        let serve = axum::serve(listener, app).with_graceful_shutdown(stopping.cancelled_owned());
        if let Err(e) = serve.await {
            tracing::error!(error = %e, "server stopped");
        }
    });
    Ok(Running {
        addr,
        state,
        handle,
        router,
    })
}

/// The server binary's main: never returns while serving.
pub fn run() {
    init_tracing();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("admin") {
        let code = runtime.block_on(crate::server::admin::run(&args[1..]));
        std::process::exit(code);
    }
    runtime.block_on(async {
        let config = match Config::from_env() {
            Ok(c) => c,
            Err(e) => {
                eprintln!("Herald cannot start: {e}");
                std::process::exit(2);
            }
        };
        if config.unsigned_webhooks_allowed {
            tracing::warn!(
                ip = %config.ip,
                public_url = %config.public_url,
                "UNSIGNED WEBHOOKS ALLOWED (ALLOW_UNSIGNED_WEBHOOKS=true): anyone who reaches this \
                 server can forge texts, STOP and START. For local experiments only."
            );
        }
        let seed_demo = config.seed_demo;
        let running = match start(config).await {
            Ok(r) => r,
            Err(e) => {
                eprintln!("Herald cannot start: {e}");
                std::process::exit(1);
            }
        };
        if seed_demo {
            match seed::seed_demo_if_empty(&running.state).await {
                Ok(Some(_)) => tracing::info!("seeded the demo organisation"),
                Ok(None) => {}
                Err(e) => tracing::error!(error = %e, "demo seed failed"),
            }
        }
        let s = &running.state;
        println!();
        println!("  Herald is running at http://{}", running.addr);
        println!("  Database:  {}", redact(&s.config.database_url));
        println!("  SMS:       {} transport", s.transport.name());
        println!("  Model:     {}", s.model.label());
        if seed_demo {
            println!(
                "  Sign in:   {}  /  {}",
                seed::DEMO_EMAIL,
                seed::DEMO_PASSWORD
            );
        }
        println!("  Sign-up:   {}", s.config.sign_up.as_str());
        if let Some(token) = &s.config.setup_token {
            // Shown while nobody has set Herald up: the first sign-up needs it.
            if crate::auth::service::first_run(s).await.unwrap_or(false) {
                println!(
                    "  Set-up:    open {} and give the one-time set-up token {token}",
                    s.config.public_url
                );
                println!("             (or create the owner with `herald admin create-owner`)");
            }
        }
        println!();
        let state = running.state.clone();
        // The router lives until the process exits: the drain's sends use its thread pool.
        let (mut handle, _router) = (running.handle, running.router);
        tokio::select! {
            _ = &mut handle => {}
            signal = stop_signal() => {
                drain(&state, handle, signal).await;
                std::process::exit(0);
            }
        }
    });
}

/// The longest time a stopping server keeps taking requests after `/readyz` turned 503.
const NOTICE_AT_MOST: std::time::Duration = std::time::Duration::from_secs(5);

/// SIGTERM (a service manager stopping Herald) or SIGINT (Ctrl-C).
async fn stop_signal() -> &'static str {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
    tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    }
}

/// `/readyz` answers 503 at once while requests are still served for a notice period (after
/// SIGTERM: a quarter of the grace, at most `NOTICE_AT_MOST`), so a load balancer probing it stops sending
/// them; then no new connection is taken, and requests in flight and the background work
/// (routing, turns, sends) finish within the rest of `SHUTDOWN_GRACE_SECS`. Whatever is still
/// running then is handed back through its lease when the process exits.
async fn drain(state: &AppState, server: tokio::task::JoinHandle<()>, signal: &str) {
    let grace = state.config.shutdown_grace;
    let started = tokio::time::Instant::now();
    // Ctrl-C is a person at a terminal, not a load balancer: no notice.
    let notice = match signal {
        "SIGTERM" => (grace / 4).min(NOTICE_AT_MOST),
        _ => std::time::Duration::ZERO,
    };
    tracing::info!(
        signal,
        grace_secs = grace.as_secs_f64(),
        notice_secs = notice.as_secs_f64(),
        "draining: not ready"
    );
    state.draining.cancel();
    tokio::time::sleep(notice).await;
    tracing::info!("draining: taking no new connections");
    state.shutdown.cancel();
    let grace = grace.saturating_sub(started.elapsed());
    let finished = tokio::time::timeout(grace, async {
        let _ = server.await;
        crate::platform::state::wait_for_background(&state.tasks).await;
        state.loops.close();
        state.loops.wait().await;
    })
    .await;
    match finished {
        Ok(()) => tracing::info!("drained; exiting"),
        Err(_) => {
            tracing::warn!("grace period over with work still running; its leases hand it back")
        }
    }
}

pub fn redact(url: &str) -> String {
    match (url.find("://"), url.find('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://***{}", &url[..s], &url[at..]),
        _ => url.to_owned(),
    }
}
