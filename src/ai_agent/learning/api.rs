//! Server functions for the lessons on the agent page.
use crate::ai_agent::learning::model::{LessonView, ReviewReport};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/lessons")]
    pub async fn list_lessons(agent_id: Uuid) -> Result<Vec<LessonView>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::learning::service::list(&state, &m, agent_id).await
    }
}

server_fn! {
    #[post("/api/lessons/review")]
    /// "Review lessons" now: distils the agent's corrections into lessons.
    pub async fn review_lessons(agent_id: Uuid) -> Result<ReviewReport, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::learning::service::review_now(&state, &m, agent_id).await
    }
}

server_fn! {
    #[post("/api/lessons/update")]
    pub async fn update_lesson(id: Uuid, text: String, enabled: bool) -> Result<LessonView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::learning::service::update(&state, &m, id, &text, enabled).await
    }
}

server_fn! {
    #[post("/api/lessons/delete")]
    pub async fn delete_lesson(id: Uuid) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::ai_agent::learning::service::delete(&state, &m, id).await
    }
}
