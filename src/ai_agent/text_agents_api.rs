//! Server functions for the legacy suggesters on the agents page.
use crate::ai_agent::model::{TextAgentInput, TextAgentView};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[get("/api/text_agents")]
    pub async fn list_text_agents() -> Result<Vec<TextAgentView>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::text_agents::list(&state, &m).await
    }
}

server_fn! {
    #[post("/api/text_agents/create")]
    pub async fn create_text_agent(input: TextAgentInput) -> Result<TextAgentView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::text_agents::create(&state, &m, &input).await
    }
}

server_fn! {
    #[post("/api/text_agents/update")]
    pub async fn update_text_agent(id: Uuid, input: TextAgentInput) -> Result<TextAgentView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::text_agents::update(&state, &m, id, &input).await
    }
}

server_fn! {
    #[post("/api/text_agents/bind")]
    /// Binds a suggester to exactly these numbers and contacts.
    pub async fn bind_text_agent(
        id: Uuid,
        number_ids: Vec<Uuid>,
        contact_ids: Vec<Uuid>,
    ) -> Result<TextAgentView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::text_agents::bind(&state, &m, id, &number_ids, &contact_ids).await
    }
}
