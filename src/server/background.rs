//! Recovery and sweeping: at start-up and then periodically, work a dead process (this one, or
//! another instance) left behind is picked up: texts in doubt, queued texts, campaign engines,
//! plans under an expired lease, threads with expired leases or waiting inputs, inbound texts
//! never routed, knowledge documents and websites waiting to be read, and idle threads to archive.
use crate::platform::AppState;

/// Texts younger than this are still being routed by the process that stored them.
const ROUTING_GRACE_SECS: i64 = 10;
/// Idle threads are looked for this often (their idle time is counted in days).
const ARCHIVE_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// What a restart must pick up before serving: plans, campaigns, texts, threads.
pub async fn recover_at_start(state: &AppState) {
    sweep(state, chrono::Duration::zero(), true).await;
}

async fn sweep(state: &AppState, grace: chrono::Duration, archive: bool) {
    // Texts in doubt are reconciled with the provider; queued ones are sent.
    let doubt = chrono::Duration::from_std(state.config.reconcile_after).unwrap_or_default();
    match crate::messaging::ledger::sweep(state, doubt).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(texts = n, "reconciled or sent texts left in the ledger"),
        Err(e) => tracing::error!(error = %e, "could not sweep the send ledger"),
    }
    // Scheduled texts of contacts who opted out since, cancelled with that reason.
    match crate::messaging::send_later::cancel_opted_out(state).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(
            texts = n,
            "cancelled scheduled texts of contacts who opted out"
        ),
        Err(e) => tracing::error!(error = %e, "could not cancel opted-out scheduled texts"),
    }
    // Texts scheduled for now (and any a dead process left mid-send).
    match crate::messaging::scheduled::send_due(state).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(texts = n, "sent scheduled texts"),
        Err(e) => tracing::error!(error = %e, "could not send scheduled texts"),
    }
    // Media of inbound texts not copied yet (a crash, or a provider that did not answer), in the
    // background: a slow provider never holds up start-up or the rest of the sweep. Claims keep
    // two sweeps from copying the same item.
    let bg = state.clone();
    state.tasks.spawn(async move {
        match crate::media::copier::copy_due(&bg).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(items = n, "copied media left pending"),
            Err(e) => tracing::error!(error = %e, "could not copy pending media"),
        }
    });
    // Knowledge documents and websites waiting to be read (queued, to try again, or due for
    // their refresh), each read in the background.
    match crate::knowledge::read::read_due(state).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(sources = n, "reading knowledge sources"),
        Err(e) => tracing::error!(error = %e, "could not look for knowledge to read"),
    }
    // Knowledge passages waiting for their vector (with an embedding model), in the background.
    crate::knowledge::embed::sweep::kick(state);
    // Plans whose campaign ended while nobody was there to end them.
    match crate::plans::campaign_outcome::settle(state).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(plans = n, "ended plans whose campaign had ended"),
        Err(e) => tracing::error!(error = %e, "could not settle campaign plans"),
    }
    // Snoozed conversations whose time has come open again.
    match crate::inbox::service::wake_snoozed(state).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(conversations = n, "woke snoozed conversations"),
        Err(e) => tracing::error!(error = %e, "could not wake snoozed conversations"),
    }
    // Engines for every active campaign, and plans whose worker died.
    if let Err(e) = crate::campaign::engines::resume(state).await {
        tracing::error!(error = %e, "could not resume campaigns");
    }
    if let Err(e) = crate::plans::executor::resume_pending(state).await {
        tracing::error!(error = %e, "could not resume plans");
    }
    match crate::auth::session::sweep_expired(state).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(sessions = n, "swept expired sessions"),
        Err(e) => tracing::warn!(error = %e, "could not sweep expired sessions"),
    }
    if let Err(e) = crate::auth::rate_limit::forget_old(&state.db, state.clock.now()).await {
        tracing::warn!(error = %e, "could not forget old rate-limit windows");
    }
    match crate::ai_agent::routing::route_unrouted(state, grace).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(texts = n, "routed texts a crash left unrouted"),
        Err(e) => tracing::error!(error = %e, "could not sweep unrouted texts"),
    }
    // Idle threads are archived with a summary (hourly is often enough for an idle time in
    // days); an input that raced the archiving moves on at every sweep.
    if archive {
        // Pictures uploaded for a text that was never sent (hourly, like archiving).
        match crate::media::upload::sweep_unsent(state).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(uploads = n, "forgot old uploads"),
            Err(e) => tracing::warn!(error = %e, "could not forget old uploads"),
        }
        if let Err(e) =
            crate::ai_agent::archive::archive_idle(state, state.config.thread_idle_for).await
        {
            tracing::error!(error = %e, "could not archive idle threads");
        }
    }
    match crate::ai_agent::archive::rehome_stranded(state).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(inputs = n, "moved inputs from archived threads"),
        Err(e) => tracing::error!(error = %e, "could not move inputs from archived threads"),
    }
    match crate::ai_agent::worker::sweep(state).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(threads = n, "picked up threads with work and no worker"),
        Err(e) => tracing::error!(error = %e, "could not sweep threads"),
    }
}

/// Sweeps every `runtime.sweep_every` until the server shuts down.
pub fn start_sweeper(state: &AppState) {
    let bg = state.clone();
    state.loops.spawn(async move {
        let mut archived_at = std::time::Instant::now();
        loop {
            tokio::select! {
                _ = bg.shutdown.cancelled() => return,
                _ = tokio::time::sleep(bg.runtime().sweep_every) => {}
            }
            let archive = archived_at.elapsed() >= ARCHIVE_EVERY;
            if archive {
                archived_at = std::time::Instant::now();
            }
            sweep(&bg, chrono::Duration::seconds(ROUTING_GRACE_SECS), archive).await;
        }
    });
}
