//! Internal notes in a conversation: a member's words for the team, kept apart from the texts
//! (their own table: no path that sends reads them). An `@name` (a member's full or first name,
//! any case) notifies that member, once per note; the author is never notified of themselves.
use crate::auth::entity::{membership, user};
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::inbox::model::{NoteCursor, NotePage, NoteView, NOTE_MAX_CHARS, NOTE_PAGE};
use crate::messaging::model::LiveEvent;
use crate::notifications::service::{notify, Notice};
use crate::platform::keyset::newest_first;
use crate::platform::AppState;
use sea_orm::entity::prelude::*;
use sea_orm::{Condition, PaginatorTrait, QueryOrder, QuerySelect, Set};
use std::collections::HashMap;

/// The `conversation_note` table (migration 40).
pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "conversation_note")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub organization_id: Uuid,
        pub contact_id: Uuid,
        pub author_id: Option<Uuid>,
        #[sea_orm(column_type = "Text")]
        pub body: String,
        pub mentioned: Option<Json>,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
use entity as note;

/// The members `body` mentions: `@` and a member's full name or first name, any case; the
/// longest name wins where one starts another ("@Dana Demo" is Dana Demo, not a Dana).
pub fn mentions(body: &str, members: &[(Uuid, String)]) -> Vec<(Uuid, String)> {
    let text = body.to_lowercase();
    let mut found = Vec::new();
    for (id, name) in members {
        let full = name.trim().to_lowercase();
        let first = full
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        let named = |n: &str| {
            !n.is_empty()
                && text.match_indices(&format!("@{n}")).any(|(at, m)| {
                    // The name ends there: not "@Danae" for Dana.
                    !text[at + m.len()..]
                        .chars()
                        .next()
                        .is_some_and(char::is_alphanumeric)
                })
        };
        if named(&full) || named(&first) {
            found.push((*id, name.clone()));
        }
    }
    found
}

async fn names(state: &AppState, org: Uuid) -> AppResult<Vec<(Uuid, String)>> {
    let ids: Vec<Uuid> = membership::Entity::find()
        .select_only()
        .column(membership::Column::UserId)
        .filter(membership::Column::OrganizationId.eq(org))
        .into_tuple()
        .all(&state.db)
        .await?;
    Ok(user::Entity::find()
        .filter(user::Column::Id.is_in(ids))
        .order_by_asc(user::Column::Name)
        .all(&state.db)
        .await?
        .into_iter()
        .map(|u| (u.id, u.name))
        .collect())
}

fn view(n: note::Model, authors: &HashMap<Uuid, String>) -> NoteView {
    NoteView {
        id: n.id,
        author: n
            .author_id
            .and_then(|a| authors.get(&a).cloned())
            .unwrap_or_else(|| "A former member".into()),
        body: n.body,
        created_at: n.created_at,
        mentioned: n
            .mentioned
            .and_then(|m| serde_json::from_value(m).ok())
            .unwrap_or_default(),
    }
}

/// Adds a note to the conversation with `contact_id` and notifies the members it mentions.
pub async fn add(
    state: &AppState,
    m: &Member,
    contact_id: Uuid,
    body: &str,
) -> AppResult<NoteView> {
    let body = body.trim();
    if body.is_empty() || body.chars().count() > NOTE_MAX_CHARS {
        return Err(AppError::validation(format!(
            "A note is 1 to {NOTE_MAX_CHARS} characters."
        )));
    }
    let contact =
        crate::contacts::service::find_in_org(&state.db, m.organization_id, contact_id).await?;
    let members = names(state, m.organization_id).await?;
    let author = members
        .iter()
        .find(|(id, _)| *id == m.user_id)
        .map(|(_, n)| n.clone())
        .unwrap_or_default();
    let mentioned = mentions(body, &members);
    let row = note::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(m.organization_id),
        contact_id: Set(contact_id),
        author_id: Set(Some(m.user_id)),
        body: Set(body.to_owned()),
        mentioned: Set(Some(serde_json::json!(mentioned
            .iter()
            .map(|(_, n)| n)
            .collect::<Vec<_>>()))),
        created_at: Set(state.clock.now()),
    }
    .insert(&state.db)
    .await?;
    for (to, _) in mentioned.iter().filter(|(id, _)| *id != m.user_id) {
        notify(
            state,
            Notice {
                agent_id: None,
                organization_id: m.organization_id,
                user_id: *to,
                kind: "note_mention",
                title: format!("{author} mentioned you in a note on {}", contact.name),
                body: body.to_owned(),
                link: Some(format!("/messaging/{contact_id}")),
                source_key: Some(format!("note:{}:{to}", row.id)),
            },
        )
        .await?;
    }
    tracing::info!(%contact_id, note = %row.id, mentions = mentioned.len(), "note added");
    state
        .live
        .publish(m.organization_id, LiveEvent::ContactChanged { contact_id });
    let authors: HashMap<Uuid, String> = [(m.user_id, author)].into();
    Ok(view(row, &authors))
}

/// The conversation's notes, newest first, a page after `before`, with how many there are.
pub async fn page(
    state: &AppState,
    m: &Member,
    contact_id: Uuid,
    before: Option<NoteCursor>,
) -> AppResult<NotePage> {
    crate::contacts::service::find_in_org(&state.db, m.organization_id, contact_id).await?;
    let scope = Condition::all()
        .add(note::Column::OrganizationId.eq(m.organization_id))
        .add(note::Column::ContactId.eq(contact_id));
    let total = note::Entity::find()
        .filter(scope.clone())
        .count(&state.db)
        .await?;
    let q = note::Entity::find().filter(scope);
    let order = (note::Column::CreatedAt, note::Column::Id);
    let after = before.map(|c| (c.created_at, c.id));
    let page = newest_first(&state.db, q, order, after, NOTE_PAGE).await?;
    let next = page.next(|n| NoteCursor {
        created_at: n.created_at,
        id: n.id,
    });
    let rows = page.rows;
    let authors: HashMap<Uuid, String> =
        names(state, m.organization_id).await?.into_iter().collect();
    Ok(NotePage {
        items: rows.into_iter().map(|n| view(n, &authors)).collect(),
        total,
        next,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_by_full_or_first_name_whole_words_only() {
        let dana = (Uuid::from_u128(1), "Dana Demo".to_owned());
        let eve = (Uuid::from_u128(2), "Eve Stone".to_owned());
        let team = [dana.clone(), eve.clone()];
        assert_eq!(
            mentions("@dana can you call her?", &team),
            vec![dana.clone()]
        );
        assert_eq!(
            mentions("Ask @Eve Stone and @DANA DEMO", &team),
            vec![dana.clone(), eve]
        );
        assert!(mentions("@Danae knows; mail dana@x.test", &team).is_empty());
        assert!(mentions("no one here", &team).is_empty());
    }
}
