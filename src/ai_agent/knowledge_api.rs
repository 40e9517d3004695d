//! The agents' side of the business's knowledge, for pages that load lazily (the Knowledge page
//! and an agent's page), so these stay out of the first load: what each agent would reply to a
//! question ("Try a question"), and which sources an agent answers from.
use crate::ai_agent::model::{AgentTry, AgentView};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/knowledge/try_agents")]
    /// The reply each agent that answers texts would give to `question`, texting no one.
    pub async fn try_agents(question: String) -> Result<Vec<AgentTry>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::dry_run::try_agents(&state, &m, &question).await
    }
}

server_fn! {
    #[post("/api/agents/sources")]
    /// The knowledge sources the agent answers from: these only, or all (None).
    pub async fn set_agent_sources(
        id: Uuid,
        sources: Option<Vec<Uuid>>,
    ) -> Result<AgentView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::sources::set(&state, &m, id, sources).await
    }
}
