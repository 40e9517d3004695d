//! The outside world and every domain's parts, built from the configuration: the composition root
//! wires each domain's cache, settings and seams into `AppState` here, so that the base names none.
use crate::platform::state::{clock_for, Services};
use crate::platform::Config;
use std::sync::Arc;

impl Services {
    pub fn from_config(config: &Config) -> Result<Self, String> {
        let mut parts = axum::http::Extensions::new();
        parts.insert(crate::plans::approval::RiskLimits {
            max_rows: config.plan_risk_max_rows,
            max_cost: config.plan_risk_max_cost,
        });
        parts.insert(crate::ai_agent::runtime::RuntimeConfig {
            lease_ttl: config.thread_lease,
            sweep_every: config.sweep_every,
            reply_quiet: config.reply_quiet,
            replies_per_contact_day: config.replies_per_contact_day,
            ..Default::default()
        });
        parts.insert(crate::campaign::draft_engine::EngineConfig {
            sends_per_second: config.sends_per_second,
            concurrency: config.draft_concurrency,
            batch_size: config.draft_batch_size,
            send_concurrency: config.send_concurrency,
            stale_after: config.claim_stale_after,
        });
        let media = crate::media::store::MediaStore::from_config(&config.media)
            .map_err(|e| e.to_string())?;
        parts.insert(Arc::new(media));
        if let Some(email) = &config.email {
            parts.insert(crate::platform::email::Mailer::new(email).map_err(|e| e.to_string())?);
        }
        parts.insert(Arc::new(crate::auth::rate_limit::Limiters {
            sign_in: crate::auth::rate_limit::SignInLimiter::new(
                config.sign_in_attempts_per_minute,
            ),
            sign_up: crate::auth::rate_limit::SignInLimiter::of(
                "signup",
                config.sign_ups_per_minute,
            ),
        }));
        parts.insert(Arc::new(crate::auth::password::HashPool::for_this_machine()));
        parts.insert(Arc::new(
            crate::provider_accounts::service::AccountCache::default(),
        ));
        let inbound: Arc<dyn crate::messaging::inbound::InboundSink> =
            Arc::new(crate::ai_agent::routing::AgentRouter::default());
        parts.insert(inbound);
        let rules: Arc<dyn crate::messaging::inbound::InboundRules> =
            Arc::new(crate::compliance::inbound::Rules);
        parts.insert(rules);
        let gate: Arc<dyn crate::messaging::ledger::SendCheck> =
            Arc::new(crate::compliance::gate::Gate);
        parts.insert(gate);
        let tools: Arc<dyn crate::ai_agent::tools::ToolSource> = Arc::new(crate::tools::Catalog);
        parts.insert(tools);
        parts.insert(Arc::new(crate::campaign::engines::Running::default()));
        parts.insert(Arc::new(crate::ai_agent::lease::LocalRuns::default()));
        parts.insert(Arc::new(crate::phone_numbers::cache::NumberCache::default()));
        let embedder: Option<Arc<dyn crate::knowledge::embed::Embedder>> = match &config.embedding {
            Some(s) => Some(Arc::new(crate::knowledge::embed::rig::RigEmbedder::new(s)?)),
            None => None,
        };
        parts.insert(crate::knowledge::embed::Embedding::new(embedder));
        parts.insert(Arc::new(crate::compliance::wording::PhraseCache::default()));
        parts.insert(Arc::new(
            crate::messaging::inbound_writer::InboundWriter::default(),
        ));
        Ok(Self {
            transport: crate::platform::sms::from_config(config)?,
            model: crate::ai_agent::llm::from_config(config)?,
            clock: clock_for(config),
            parts,
        })
    }
}
