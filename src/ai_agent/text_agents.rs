//! Legacy suggesters (`text_agent`): the owner creates and edits them and binds them to numbers
//! without an AI agent, or to contacts. Only the owner: a suggester with `auto_reply` texts the
//! business's customers by itself, and binding decides who answers a number.
use crate::ai_agent::entity::{contact_text_agent, text_agent};
use crate::ai_agent::model::{TextAgentInput, TextAgentView};
use crate::auth::session::Member;
use crate::contacts::entity::contact;
use crate::error::{AppError, AppResult};
use crate::phone_numbers::entity as phone_number;
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, Set,
};
use std::collections::HashMap;
use uuid::Uuid;

async fn find(state: &AppState, org: Uuid, id: Uuid) -> AppResult<text_agent::Model> {
    text_agent::Entity::find_by_id(id)
        .filter(text_agent::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Suggester"))
}

pub async fn list(state: &AppState, m: &Member) -> AppResult<Vec<TextAgentView>> {
    let org = m.organization_id;
    let agents = text_agent::Entity::find()
        .filter(text_agent::Column::OrganizationId.eq(org))
        .order_by_asc(text_agent::Column::CreatedAt)
        .all(&state.db)
        .await?;
    let numbers = phone_number::Entity::find()
        .filter(phone_number::Column::OrganizationId.eq(org))
        .filter(phone_number::Column::TextAgentId.is_not_null())
        .all(&state.db)
        .await?;
    let ids: Vec<Uuid> = agents.iter().map(|a| a.id).collect();
    let links = contact_text_agent::Entity::find()
        .filter(contact_text_agent::Column::TextAgentId.is_in(ids))
        .all(&state.db)
        .await?;
    let names: HashMap<Uuid, String> = contact::Entity::find()
        .filter(contact::Column::OrganizationId.eq(org))
        .filter(contact::Column::Id.is_in(links.iter().map(|l| l.contact_id)))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|c| (c.id, c.name))
        .collect();
    Ok(agents
        .into_iter()
        .map(|a| TextAgentView {
            number_ids: numbers
                .iter()
                .filter(|n| n.text_agent_id == Some(a.id))
                .map(|n| n.id)
                .collect(),
            contacts: links
                .iter()
                .filter(|l| l.text_agent_id == a.id)
                .filter_map(|l| names.get(&l.contact_id).map(|n| (l.contact_id, n.clone())))
                .collect(),
            id: a.id,
            name: a.name,
            persona: a.instructions,
            auto_reply: a.auto_reply,
            confidence_threshold: a.confidence_threshold,
        })
        .collect())
}

async fn view(state: &AppState, m: &Member, id: Uuid) -> AppResult<TextAgentView> {
    list(state, m)
        .await?
        .into_iter()
        .find(|a| a.id == id)
        .ok_or_else(|| AppError::not_found("Suggester"))
}

#[tracing::instrument(skip(state, m, input))]
pub async fn create(
    state: &AppState,
    m: &Member,
    input: &TextAgentInput,
) -> AppResult<TextAgentView> {
    m.require_owner()?;
    let clean = input.cleaned().map_err(AppError::validation)?;
    let id = Uuid::new_v4();
    text_agent::ActiveModel {
        id: Set(id),
        organization_id: Set(m.organization_id),
        name: Set(clean.name),
        instructions: Set(clean.persona),
        auto_reply: Set(clean.auto_reply),
        confidence_threshold: Set(clean.confidence_threshold),
        created_at: Set(state.clock.now()),
    }
    .insert(&state.db)
    .await?;
    view(state, m, id).await
}

#[tracing::instrument(skip(state, m, input))]
pub async fn update(
    state: &AppState,
    m: &Member,
    id: Uuid,
    input: &TextAgentInput,
) -> AppResult<TextAgentView> {
    let a = find(state, m.organization_id, id).await?;
    m.require_owner()?;
    let clean = input.cleaned().map_err(AppError::validation)?;
    let mut am: text_agent::ActiveModel = a.into();
    am.name = Set(clean.name);
    am.instructions = Set(clean.persona);
    am.auto_reply = Set(clean.auto_reply);
    am.confidence_threshold = Set(clean.confidence_threshold);
    am.update(&state.db).await?;
    view(state, m, id).await
}

/// Binds the suggester to exactly these numbers and contacts (each the organisation's), in one
/// transaction: numbers and contacts it answered before and are not listed are let go.
#[tracing::instrument(skip(state, m))]
pub async fn bind(
    state: &AppState,
    m: &Member,
    id: Uuid,
    number_ids: &[Uuid],
    contact_ids: &[Uuid],
) -> AppResult<TextAgentView> {
    find(state, m.organization_id, id).await?;
    m.require_owner()?;
    for n in number_ids {
        crate::phone_numbers::service::find_in_org(&state.db, m.organization_id, *n).await?;
    }
    let found = contact::Entity::find()
        .filter(contact::Column::OrganizationId.eq(m.organization_id))
        .filter(contact::Column::Id.is_in(contact_ids.iter().copied()))
        .all(&state.db)
        .await?;
    if let Some(missing) = contact_ids
        .iter()
        .find(|c| !found.iter().any(|f| f.id == **c))
    {
        return Err(AppError::NotFound(format!("Contact {missing}")));
    }
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    phone_number::Entity::update_many()
        .col_expr(
            phone_number::Column::TextAgentId,
            Expr::value(Option::<Uuid>::None),
        )
        .filter(phone_number::Column::OrganizationId.eq(m.organization_id))
        .filter(phone_number::Column::TextAgentId.eq(id))
        .exec(&txn)
        .await?;
    if !number_ids.is_empty() {
        phone_number::Entity::update_many()
            .col_expr(phone_number::Column::TextAgentId, Expr::value(Some(id)))
            .filter(
                Condition::all()
                    .add(phone_number::Column::OrganizationId.eq(m.organization_id))
                    .add(phone_number::Column::Id.is_in(number_ids.iter().copied())),
            )
            .exec(&txn)
            .await?;
    }
    contact_text_agent::Entity::delete_many()
        .filter(
            Condition::any()
                .add(contact_text_agent::Column::TextAgentId.eq(id))
                .add(contact_text_agent::Column::ContactId.is_in(contact_ids.iter().copied())),
        )
        .exec(&txn)
        .await?;
    for c in contact_ids {
        contact_text_agent::ActiveModel {
            id: Set(Uuid::new_v4()),
            contact_id: Set(*c),
            text_agent_id: Set(id),
            created_at: Set(now),
        }
        .insert(&txn)
        .await?;
    }
    txn.commit().await?;
    state.numbers().forget_all();
    view(state, m, id).await
}
