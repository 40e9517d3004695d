//! Which of the business's knowledge an agent answers from (issue 52 §2, §4): all of it (the
//! default) or the sources named. For an agent that texts by itself, answering from more than
//! an owner approved (all of it again, or a source it did not have) is an owner's decision, and
//! audited, like every widening; narrowing is anyone's who directs the agent.
use crate::ai_agent::model::{AgentView, SendMode};
use crate::ai_agent::service::{find_in_org, may_edit, to_view};
use crate::ai_agent::settings::AgentSettings;
use crate::auth::model::Role;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::knowledge::entity::knowledge_source as source;
use crate::platform::AppState;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, Set};
use std::collections::BTreeSet;
use uuid::Uuid;

/// Sources one agent may be given by name at most (more: answer from all of them).
pub const NAMED_MAX: usize = 500;

/// Whether answering from `new` rather than `old` widens the agent.
pub fn widens(old: &Option<Vec<Uuid>>, new: &Option<Vec<Uuid>>) -> bool {
    match (old, new) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(o), Some(n)) => n.iter().any(|id| !o.contains(id)),
    }
}

/// Sets the sources the agent answers from: these only, or all (None).
pub async fn set(
    state: &AppState,
    m: &Member,
    id: Uuid,
    sources: Option<Vec<Uuid>>,
) -> AppResult<AgentView> {
    let a = find_in_org(&state.db, m.organization_id, id).await?;
    may_edit(m, &a)?;
    let sources = sources.map(|s| s.into_iter().collect::<BTreeSet<_>>());
    if let Some(named) = &sources {
        if named.len() > NAMED_MAX {
            return Err(AppError::validation(format!(
                "Name at most {NAMED_MAX} sources, or let the agent answer from all of them."
            )));
        }
        let found = source::Entity::find()
            .filter(source::Column::OrganizationId.eq(m.organization_id))
            .filter(source::Column::Id.is_in(named.iter().copied()))
            .count(&state.db)
            .await?;
        if found as usize != named.len() {
            return Err(AppError::not_found("A knowledge source"));
        }
    }
    let sources: Option<Vec<Uuid>> = sources.map(|s| s.into_iter().collect());
    let mut settings = AgentSettings::of(&a);
    let widened = SendMode::parse(&a.send_mode) == SendMode::Autonomous
        && widens(&settings.knowledge_sources, &sources);
    if widened && m.role != Role::Owner {
        return Err(AppError::NotPermitted(
            "This agent texts by itself, so only an owner may let it answer from more of the \
             knowledge. Switch it to suggest mode to change it, or ask an owner."
                .into(),
        ));
    }
    settings.knowledge_sources = sources;
    let mut payload = a.config_payload.clone();
    settings.write_into(&mut payload);
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let name = a.name.clone();
    let mut am: crate::ai_agent::entity::ai_agent::ActiveModel = a.into();
    am.config_payload = Set(payload);
    let a = am.update(&txn).await?;
    if widened {
        crate::audit::service::record(
            &txn,
            crate::audit::service::Entry {
                organization_id: Some(m.organization_id),
                actor: Some(m.user_id),
                action: crate::audit::model::AuditAction::AgentWidened,
                target: &name,
                detail: Some("widened: more of the knowledge".into()),
            },
            state.clock.now(),
        )
        .await?;
    }
    txn.commit().await?;
    to_view(state, m, a).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_knowledge_widens_less_does_not() {
        let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
        assert!(!widens(&None, &Some(vec![a])), "narrowing from all");
        assert!(widens(&Some(vec![a]), &None), "back to all");
        assert!(
            widens(&Some(vec![a]), &Some(vec![a, b])),
            "a source it had not"
        );
        assert!(!widens(&Some(vec![a, b]), &Some(vec![b])), "fewer");
    }
}
