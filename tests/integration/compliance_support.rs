//! Compliance test support: texts to count per recipient, and rows from before an opt-out.
#![allow(dead_code)]
use crate::agent_support::Setup;
use crate::helpers::*;
use herald::compliance::model::Purpose;
use herald::messaging::model::SendState;
use sea_orm::{ActiveModelTrait, Set};
use uuid::Uuid;

/// A fresh US number for the i-th test person.
pub fn phone(i: usize) -> String {
    format!("+1415555{:04}", 3000 + i)
}

/// Texts the provider was asked to create for `to`.
pub fn creates_to(s: &Setup, to: &str) -> Vec<String> {
    s.outbox
        .sent()
        .into_iter()
        .filter(|m| m.to == to)
        .map(|m| m.body)
        .collect()
}

/// The contact with this phone in the organisation.
pub async fn contact_id(app: &TestApp, org: &Org, phone: &str) -> Uuid {
    use herald::contacts::entity::contact;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    contact::Entity::find()
        .filter(contact::Column::OrganizationId.eq(org.org_id))
        .filter(contact::Column::Phone.eq(phone))
        .one(&app.state.db)
        .await
        .unwrap()
        .expect("the contact")
        .id
}

/// An outbound text written before the person opted out, left in `state` (a crash mid-send,
/// or a text in doubt), as the ledger would have it.
pub async fn text_from_before(
    app: &TestApp,
    org: Uuid,
    contact: Uuid,
    number: Uuid,
    state: SendState,
    purpose: Purpose,
) -> Uuid {
    let id = Uuid::new_v4();
    let long_ago = app.state.clock.now() - chrono::Duration::minutes(10);
    let mut row = herald::messaging::outbound::queued_row(
        id,
        org,
        contact,
        number,
        "Your cleaning is due: book this week and save 10%".into(),
        Some("campaign"),
        id.to_string(),
        purpose,
        long_ago,
    );
    row.send_state = Set(Some(state));
    row.status = Set(if state == SendState::Unknown {
        "unknown"
    } else {
        "queued"
    }
    .into());
    if state != SendState::Queued {
        row.attempt_key = Set(Some(Uuid::new_v4().to_string()));
        row.attempt_started_at = Set(Some(long_ago));
        row.send_attempts = Set(1);
    }
    row.insert(&app.state.db).await.unwrap();
    id
}

/// The message's ledger state and error.
pub async fn ledger_of(app: &TestApp, id: Uuid) -> (Option<SendState>, Option<String>) {
    use sea_orm::EntityTrait;
    let m = herald::messaging::entity::Entity::find_by_id(id)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    (m.send_state, m.error)
}

/// A text an agent's plan scheduled, due now (as the sweeper finds it).
pub async fn schedule_due(
    app: &TestApp,
    org: Uuid,
    contact: Uuid,
    number: Uuid,
    body: &str,
) -> Uuid {
    use herald::messaging::scheduled::entity as scheduled;
    let now = app.state.clock.now();
    let id = Uuid::new_v4();
    scheduled::ActiveModel {
        id: Set(id),
        organization_id: Set(org),
        contact_id: Set(contact),
        phone_number_id: Set(number),
        body: Set(body.into()),
        send_at: Set(now),
        status: Set("scheduled".into()),
        plan_id: Set(None),
        message_id: Set(None),
        error: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        scheduled_by: Set(None),
    }
    .insert(&app.state.db)
    .await
    .unwrap();
    id
}
