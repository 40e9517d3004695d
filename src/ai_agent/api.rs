//! Server functions behind the agents pages and the suggestions panel.
use crate::ai_agent::model::{
    AgentInput, AgentView, AssistantView, ModelInfo, OperatorView, SuggestionSet, ThreadEventView,
};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[get("/api/agents")]
    pub async fn list_agents() -> Result<Vec<AgentView>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::service::list(&state, &m).await
    }
}

server_fn! {
    #[post("/api/agents/get")]
    pub async fn get_agent(id: Uuid) -> Result<AgentView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::service::get(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/agents/create")]
    pub async fn create_agent(input: AgentInput) -> Result<AgentView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::service::create(&state, &m, &input).await
    }
}

server_fn! {
    #[post("/api/agents/update")]
    pub async fn update_agent(id: Uuid, input: AgentInput) -> Result<AgentView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::service::update(&state, &m, id, &input).await
    }
}

server_fn! {
    #[post("/api/agents/assign_numbers")]
    pub async fn assign_agent_numbers(id: Uuid, number_ids: Vec<Uuid>) -> Result<AgentView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::service::assign_numbers(&state, &m, id, &number_ids).await
    }
}

server_fn! {
    #[post("/api/agents/threads")]
    /// One page of the agent's threads (most recently active first), with how many there are.
    pub async fn list_agent_threads(
        agent_id: Uuid,
        after: Option<crate::ai_agent::model::ThreadCursor>,
    ) -> Result<crate::ai_agent::model::ThreadPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::suggestions::threads_for_agent(&state, &m, agent_id, after).await
    }
}

server_fn! {
    #[post("/api/threads/events")]
    pub async fn get_thread_events(thread_id: Uuid) -> Result<Vec<ThreadEventView>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::suggestions::thread_events(&state, &m, thread_id).await
    }
}

server_fn! {
    #[post("/api/threads/operator")]
    /// The thread's composer: the agent, its planning, and whether the caller may instruct it.
    pub async fn thread_operator(thread_id: Uuid) -> Result<OperatorView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::operator::view(&state, &m, thread_id).await
    }
}

server_fn! {
    #[post("/api/threads/post")]
    /// An operator's instruction to the agent of this thread; `plan_mode` is the Plan switch.
    pub async fn post_to_thread(
        thread_id: Uuid,
        text: String,
        plan_mode: bool,
    ) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::operator::post(&state, &m, thread_id, &text, plan_mode).await
    }
}

server_fn! {
    #[post("/api/suggestions")]
    /// The suggestions panel's data for one message.
    pub async fn get_suggestions(message_id: Uuid) -> Result<Vec<SuggestionSet>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::suggestions::for_message(&state, m.organization_id, message_id).await
    }
}

server_fn! {
    #[get("/api/model")]
    pub async fn model_info() -> Result<ModelInfo, AppError> {
        let (state, _) = crate::auth::session::require_member().await?;
        Ok(ModelInfo {
            label: state.model.label(),
            offline: state.model.is_offline(),
        })
    }
}

server_fn! {
    #[get("/api/assistant")]
    pub async fn get_assistant() -> Result<AssistantView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::assistant::view(&state, &m).await
    }
}

server_fn! {
    #[post("/api/assistant/ask")]
    /// A message to the operator's assistant; `plan_mode` is the composer's Plan switch.
    pub async fn ask_assistant(text: String, plan_mode: bool) -> Result<Uuid, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::assistant::ask(&state, &m, &text, plan_mode).await
    }
}
