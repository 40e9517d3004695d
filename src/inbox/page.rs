//! A conversation's page: its contact, newest texts and numbers (`messaging`), a possible
//! opt-out waiting for a person (`compliance`) and its triage. Opening it marks the texts read.
use crate::contacts::service as contacts;
use crate::error::AppResult;
use crate::inbox::model::ConversationView;
use crate::phone_numbers::service as numbers;
use crate::platform::AppState;
use uuid::Uuid;

/// The conversation with one contact; opening it marks inbound messages read. A merged contact's
/// id opens the conversation of the contact it went into (its `contact.id` says which).
pub async fn conversation(
    state: &AppState,
    org_id: Uuid,
    contact_id: Uuid,
) -> AppResult<ConversationView> {
    let contact_id = crate::contacts::merge_record::resolve(&state.db, org_id, contact_id).await?;
    let contact = contacts::view(state, org_id, contact_id).await?;
    let (rows, older) =
        crate::messaging::conversation::history(&state.db, org_id, contact_id, None).await?;
    crate::messaging::conversation::mark_read(&state.db, org_id, contact_id, state.clock.now())
        .await?;
    Ok(ConversationView {
        contact,
        messages: crate::messaging::service::with_media(state, org_id, rows).await?,
        message_count: crate::messaging::conversation::message_count(&state.db, contact_id).await?,
        older,
        numbers: numbers::list(state, org_id)
            .await?
            .into_iter()
            .map(numbers::to_view)
            .collect(),
        default_number_id: crate::messaging::service::default_number_for(state, org_id, contact_id)
            .await?,
        possible_opt_out: crate::compliance::review::open_for_contact(state, org_id, contact_id)
            .await?,
        triage: crate::messaging::conversation::triage_of(state, org_id, contact_id).await?,
    })
}
