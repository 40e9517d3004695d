//! Server functions behind the agents pages and the suggestions panel.
use crate::ai_agent::model::{
    AgentInput, AgentView, ConversationWithDrafts, ModelInfo, OperatorView, SuggestionSet,
    ThreadEventView,
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
    #[post("/api/conversations/open")]
    /// A conversation's page (`inbox::page::conversation`, which marks its texts read) with the
    /// suggested replies waiting on its inbound texts.
    pub async fn open_conversation(contact_id: Uuid) -> Result<ConversationWithDrafts, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let conversation = crate::inbox::page::conversation(&state, m.organization_id, contact_id).await?;
        let inbound: Vec<Uuid> = conversation
            .messages
            .iter()
            .filter(|m| m.direction == crate::messaging::model::Direction::Inbound)
            .map(|m| m.id)
            .collect();
        let suggested = crate::ai_agent::suggestions::counts(&state, m.organization_id, &inbound).await?;
        Ok(ConversationWithDrafts { conversation, suggested })
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
    #[post("/api/assistant/ask")]
    /// A message to the operator's assistant; `plan_mode` is the composer's Plan switch.
    pub async fn ask_assistant(text: String, plan_mode: bool) -> Result<Uuid, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::assistant::ask(&state, &m, &text, plan_mode).await
    }
}

server_fn! {
    #[post("/api/messages/send")]
    /// A person's text from the composer, perhaps from an agent's suggestion (which is then
    /// counted as used, as written or edited).
    pub async fn send_message(request: crate::messaging::model::SendSmsRequest) -> Result<crate::messaging::model::MessageView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let suggestion = match request.suggestion_id {
            Some(id) => Some(
                crate::ai_agent::suggestions::suggestion_for(
                    &state.db,
                    m.organization_id,
                    request.contact_id,
                    id,
                )
                .await?,
            ),
            None => None,
        };
        let origin = match request.ai_origin.as_deref() {
            None if suggestion.is_some() => Some("suggestion"),
            None => None,
            Some("suggestion") => Some("suggestion"),
            Some(other) => {
                return Err(AppError::Validation(format!(
                    "Unknown ai_origin \"{other}\"."
                )))
            }
        };
        // A person's text by hand: the autonomous agents step back first, so that theirs is the
        // only reply from here on.
        crate::contacts::service::view(&state, m.organization_id, request.contact_id).await?;
        crate::inbox::handoff::pause(&state, m.organization_id, request.contact_id, m.user_id)
            .await?;
        use crate::messaging::outbound::{send, Outgoing, Pictures};
        let out = Outgoing::new(
            m.organization_id,
            request.contact_id,
            request.phone_number_id,
            &request.body,
        );
        // A text with pictures goes as an MMS, without an origin (as it always has).
        let out = match request.media_ids.is_empty() {
            true => out.origin(origin),
            false => out.pictures(Pictures::Uploads(&request.media_ids)),
        };
        let sent = send(&state, out).await?;
        if let Some(set) = &suggestion {
            crate::ai_agent::suggestions::mark_used(&state.db, set, sent.id, &request.body).await?;
        }
        Ok(sent)
    }
}
