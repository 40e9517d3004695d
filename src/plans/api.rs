//! Server functions for plans: get, list, edit, approve, reject; all scoped to the organisation.
use crate::error::AppError;
use crate::plans::model::{AssistantView, PlanCursor, PlanEdit, PlanPage, PlanStatus, PlanView};
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/plans/get")]
    pub async fn get_plan(id: Uuid) -> Result<PlanView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let p = crate::plans::access::find_visible(&state, &m, id).await?;
        crate::plans::service::view(&state, p).await
    }
}

server_fn! {
    #[post("/api/plans/list")]
    /// One page of plans, newest first (after `after`), by status, agent or thread, words in
    /// the title or request, steps waiting on a person, or age in days, with the exact number
    /// matching.
    pub async fn list_plans(
        status: Option<PlanStatus>,
        agent_id: Option<Uuid>,
        thread_id: Option<Uuid>,
        after: Option<PlanCursor>,
        search: Option<String>,
        waiting: Option<bool>,
        within_days: Option<u32>,
    ) -> Result<PlanPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let by = crate::plans::service::PlanQuery {
            status,
            agent: agent_id,
            thread: thread_id,
            search,
            waiting: waiting.unwrap_or(false),
            within_days,
        };
        crate::plans::service::list(&state, &m, by, after).await
    }
}

server_fn! {
    #[post("/api/plans/edit")]
    pub async fn edit_plan(id: Uuid, edit: PlanEdit) -> Result<PlanView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::plans::decisions::edit(&state, &m, id, &edit).await
    }
}

server_fn! {
    #[post("/api/plans/approve")]
    pub async fn approve_plan(id: Uuid) -> Result<PlanView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::plans::decisions::approve(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/plans/reject")]
    pub async fn reject_plan(id: Uuid, reason: String) -> Result<PlanView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::plans::decisions::reject(&state, &m, id, &reason).await
    }
}

server_fn! {
    #[post("/api/plans/steps")]
    /// A decision about a running step plan's steps: confirm one (bound to the arguments shown),
    /// confirm all waiting, skip one, or continue by one step (lazy).
    pub async fn decide_plan_steps(
        id: Uuid,
        action: crate::steps::model::StepAction,
    ) -> Result<PlanView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::plans::steps::decide::decide(&state, &m, id, &action).await
    }
}

server_fn! {
    #[post("/api/plans/simulate")]
    /// A dry run of a step plan: reads run for real, writes through their simulators; nothing
    /// is written.
    pub async fn simulate_plan(
        id: Uuid,
    ) -> Result<crate::steps::model::Simulation, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::plans::steps::simulate::simulate(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/plans/replan")]
    /// Asks the plan's agent for a revised plan (its completed steps stay frozen), with what
    /// the person wants changed.
    pub async fn replan_plan(id: Uuid, note: String) -> Result<PlanView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::plans::replan::replan(&state, &m, id, &note).await
    }
}

server_fn! {
    #[post("/api/plans/revisions")]
    /// Every revision in the plan's line, first to last.
    pub async fn plan_revisions(id: Uuid) -> Result<Vec<PlanView>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::plans::replan::revisions(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/plans/stop")]
    /// Stops an approved or running plan (an owner, or the member who directs its agent):
    /// nothing new of it starts, its scheduled texts are cancelled, its campaigns paused.
    pub async fn stop_plan(id: Uuid, reason: String) -> Result<PlanView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::plans::stop::stop(&state, &m, id, &reason).await
    }
}

server_fn! {
    #[get("/api/assistant")]
    pub async fn get_assistant() -> Result<AssistantView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::plans::assistant_page::view(&state, &m).await
    }
}
