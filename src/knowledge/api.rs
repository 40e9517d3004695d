//! Server functions for the Knowledge page: list the sources, add or change an FAQ entry, a fact
//! or a website, read a document or a website again, rename one, delete a source, and try a
//! question. All scoped to the caller's organisation. (A document is uploaded to
//! `DOCUMENT_UPLOAD_PATH`, not through a server function: its bytes are the request's body.)
use crate::error::AppError;
use crate::knowledge::model::{
    FactInput, FaqInput, SourceKind, SourcePage, SourceView, TryResult, WebInput,
};
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/knowledge")]
    /// One page of the organisation's sources of `kind` (all when None), newest first.
    pub async fn list_knowledge(
        kind: Option<SourceKind>,
        after: Option<String>,
    ) -> Result<SourcePage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::knowledge::service::list(&state.db, m.organization_id, kind, after).await
    }
}

server_fn! {
    #[post("/api/knowledge/faq")]
    /// Adds an FAQ entry, or changes the one with `id`.
    pub async fn save_faq(id: Option<Uuid>, input: FaqInput) -> Result<SourceView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::knowledge::service::save_faq(&state, &m, id, &input).await
    }
}

server_fn! {
    #[post("/api/knowledge/fact")]
    /// Adds a fact, or changes the one with `id`.
    pub async fn save_fact(id: Option<Uuid>, input: FactInput) -> Result<SourceView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::knowledge::service::save_fact(&state, &m, id, &input).await
    }
}

server_fn! {
    #[post("/api/knowledge/website")]
    /// Adds a website, or changes the one with `id`; it is read (again) in the background.
    pub async fn save_website(id: Option<Uuid>, input: WebInput) -> Result<SourceView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::knowledge::documents::save_web(&state, &m, id, &input).await
    }
}

server_fn! {
    #[post("/api/knowledge/read_again")]
    /// Reads a document or a website again now.
    pub async fn read_source_again(id: Uuid) -> Result<SourceView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::knowledge::documents::read_again(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/knowledge/rename")]
    /// Renames a document or a website.
    pub async fn rename_source(id: Uuid, title: String) -> Result<SourceView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::knowledge::documents::rename(&state, &m, id, &title).await
    }
}

server_fn! {
    #[post("/api/knowledge/delete")]
    /// Deletes a source and its passages.
    pub async fn delete_knowledge(id: Uuid) -> Result<(), AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::knowledge::service::delete(&state, &m, id).await
    }
}

server_fn! {
    #[post("/api/knowledge/try")]
    /// The passages a question finds, best first, with their scores: texting no one.
    pub async fn try_question(question: String) -> Result<TryResult, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let hits = crate::knowledge::retrieve::find(
            &state,
            m.organization_id,
            &question,
            None,
            crate::knowledge::model::HITS_MAX,
        )
        .await?;
        Ok(TryResult { hits })
    }
}

server_fn! {
    #[post("/api/knowledge/holding")]
    /// What an agent says when the knowledge does not answer.
    pub async fn holding_reply() -> Result<String, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::knowledge::holding::of(&state.db, m.organization_id).await
    }
}

server_fn! {
    #[post("/api/knowledge/holding/set")]
    /// Words the holding reply (owners only); empty goes back to Herald's words.
    pub async fn set_holding_reply(text: String) -> Result<String, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::knowledge::holding::set(&state, &m, &text).await
    }
}
