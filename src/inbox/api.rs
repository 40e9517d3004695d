//! Server functions behind the inbox's views and their pages, a conversation's state and assignee, and its notes.
use crate::error::AppError;
use crate::inbox::model::{
    ConversationView, InboxCounts, NoteCursor, NotePage, NoteView, StateChange, Triage,
};
use crate::messaging::model::{InboxCursor, InboxFilter, InboxPage};
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/conversations/get")]
    pub async fn get_conversation(contact_id: Uuid) -> Result<ConversationView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::inbox::page::conversation(&state, m.organization_id, contact_id).await
    }
}

server_fn! {
    #[post("/api/conversations")]
    /// One inbox page (newest activity first) of a view, after `after`, with the view's total;
    /// on one of the organisation's numbers if `number_id` is given.
    pub async fn list_conversations(
        filter: InboxFilter,
        after: Option<InboxCursor>,
        number_id: Option<Uuid>,
    ) -> Result<InboxPage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let viewer = crate::inbox::service::viewer_on(&state, &m, number_id).await?;
        crate::inbox::list::inbox(&state.db, &viewer, filter, after).await
    }
}

server_fn! {
    #[post("/api/inbox/counts")]
    /// How many conversations each inbox view holds, exactly (on one number, if given).
    pub async fn inbox_counts(number_id: Option<Uuid>) -> Result<InboxCounts, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        let viewer = crate::inbox::service::viewer_on(&state, &m, number_id).await?;
        crate::inbox::views::counts(&state.db, &viewer).await
    }
}

server_fn! {
    #[post("/api/conversations/triage")]
    /// A conversation's state and assignee.
    pub async fn conversation_triage(contact_id: Uuid) -> Result<Triage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::service::view(&state, m.organization_id, contact_id).await?;
        crate::messaging::conversation::triage_of(&state, m.organization_id, contact_id).await
    }
}

server_fn! {
    #[post("/api/conversations/state")]
    /// Opens, closes or snoozes a conversation.
    pub async fn set_conversation_state(
        contact_id: Uuid,
        change: StateChange,
    ) -> Result<Triage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::inbox::service::set_state(&state, &m, contact_id, change).await
    }
}

server_fn! {
    #[post("/api/conversations/assign")]
    /// Assigns a conversation to a member, or to nobody (`assignee` absent).
    pub async fn assign_conversation(
        contact_id: Uuid,
        assignee: Option<Uuid>,
    ) -> Result<Triage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::inbox::service::assign(&state, &m, contact_id, assignee).await
    }
}

server_fn! {
    #[post("/api/conversations/resume_ai")]
    /// Ends a handoff's pause: autonomous agents answer the contact's next text again.
    pub async fn resume_ai(contact_id: Uuid) -> Result<Triage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::service::view(&state, m.organization_id, contact_id).await?;
        crate::inbox::handoff::resume(&state, &m, contact_id).await
    }
}

server_fn! {
    #[post("/api/conversations/notes")]
    /// A conversation's internal notes, newest first, a page before `before`.
    pub async fn list_notes(
        contact_id: Uuid,
        before: Option<NoteCursor>,
    ) -> Result<NotePage, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::inbox::notes::page(&state, &m, contact_id, before).await
    }
}

server_fn! {
    #[post("/api/conversations/notes/add")]
    /// Adds an internal note (never sent); an `@name` notifies that member.
    pub async fn add_note(contact_id: Uuid, body: String) -> Result<NoteView, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::inbox::notes::add(&state, &m, contact_id, &body).await
    }
}
