//! What start-up would refuse beyond the settings themselves, for `herald admin check-config`:
//! the SMS transport and the model it would build, the SQLite file's restore lock, and whether
//! the database answers. Each problem is named; none stops the others being looked at.
use crate::platform::Config;
use std::time::Duration;

/// How long the database has to answer.
const CONNECT_WAIT: Duration = Duration::from_secs(5);

/// Every reason start-up would fail with these settings (besides the settings' own problems).
pub async fn problems(config: &Config) -> Vec<String> {
    let mut found = Vec::new();
    if let Err(e) = crate::platform::sms::from_config(config) {
        found.push(format!("SMS transport: {e}"));
    }
    if let Err(e) = crate::ai_agent::llm::from_config(config) {
        found.push(format!("model (LLM_PROVIDER={}): {e}", config.llm_provider));
    }
    // A shared lock, let go at once: it conflicts only with a restore in progress.
    if let Err(e) = crate::platform::sqlite_file::hold_server_lock(&config.database_url) {
        found.push(e);
    }
    if let Err(e) = reachable(&config.database_url).await {
        found.push(e);
    }
    found
}

/// Connects and pings, without migrating.
async fn reachable(url: &str) -> Result<(), String> {
    let shown = crate::server::launch::redact(url);
    let mut options = sea_orm::ConnectOptions::new(url.to_owned());
    options
        .max_connections(1)
        .connect_timeout(CONNECT_WAIT)
        .acquire_timeout(CONNECT_WAIT)
        .sqlx_logging(false);
    let connect = async {
        let db = sea_orm::Database::connect(options).await?;
        db.ping().await?;
        db.close().await
    };
    match tokio::time::timeout(CONNECT_WAIT * 2, connect).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(format!("the database {shown} does not answer: {e}")),
        Err(_) => Err(format!(
            "the database {shown} does not answer within {} s",
            (CONNECT_WAIT * 2).as_secs()
        )),
    }
}
