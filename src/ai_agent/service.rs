//! Agents: per-member clones of platform agents, listing, editing, number assignment, and the
//! owner's session that grants an agent its tools.
use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::model::{
    AgentInput, AgentView, SendMode, ASSISTANT_AGENT_ID, TEXT_REPLY_AGENT_ID,
};
use crate::ai_agent::settings::AgentSettings;
use crate::auth::entity::{membership, user};
use crate::auth::model::Role;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::phone_numbers::entity as phone_number;
use crate::platform::AppState;
use chrono::Utc;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, Set,
};
use serde_json::json;
use uuid::Uuid;

/// Platform agents every new member gets a clone of.
pub const DEFAULT_USER_AGENT_SOURCES: [Uuid; 2] = [TEXT_REPLY_AGENT_ID, ASSISTANT_AGENT_ID];

/// Clones each platform agent for a member, copying every field; send_mode explicitly. A member
/// who rejoins keeps the clone they still hold (their Assistant, with its plans) and gets a new
/// one of each that was handed to an owner when they left.
pub async fn clone_platform_agents_for_member<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    organization_id: Uuid,
    now: chrono::DateTime<Utc>,
) -> AppResult<()> {
    for source_id in DEFAULT_USER_AGENT_SOURCES {
        let held = ai_agent::Entity::find()
            .filter(ai_agent::Column::OrganizationId.eq(organization_id))
            .filter(ai_agent::Column::UserId.eq(user_id))
            .filter(ai_agent::Column::SystemSourceId.eq(source_id))
            .one(db)
            .await?;
        if held.is_some() {
            continue;
        }
        let Some(src) = ai_agent::Entity::find_by_id(source_id).one(db).await? else {
            continue;
        };
        ai_agent::ActiveModel {
            id: Set(Uuid::new_v4()),
            organization_id: Set(Some(organization_id)),
            user_id: Set(Some(user_id)),
            system_source_id: Set(Some(src.id)),
            name: Set(src.name),
            persona: Set(src.persona),
            goals: Set(src.goals),
            send_mode: Set(src.send_mode),
            attach_domain_tools: Set(src.attach_domain_tools),
            tools_allowlist: Set(src.tools_allowlist),
            config_payload: Set(new_agent_payload(src.config_payload)),
            created_at: Set(now),
        }
        .insert(db)
        .await?;
    }
    Ok(())
}

/// A new agent's settings from its platform template: it answers only from knowledge unless the
/// template says otherwise.
fn new_agent_payload(mut payload: serde_json::Value) -> serde_json::Value {
    use crate::ai_agent::settings::ANSWER_ONLY_KEY;
    if let Some(map) = payload.as_object_mut() {
        map.entry(ANSWER_ONLY_KEY).or_insert(json!(true));
    } else {
        payload = json!({ ANSWER_ONLY_KEY: true });
    }
    payload
}

/// The agent owner's membership, which grants the domain tools; None if they left the organisation.
pub async fn build_session_for_member(
    state: &AppState,
    agent: &ai_agent::Model,
) -> AppResult<Option<Member>> {
    let (Some(user_id), Some(org_id)) = (agent.user_id, agent.organization_id) else {
        return Ok(None);
    };
    let m = membership::Entity::find()
        .filter(membership::Column::UserId.eq(user_id))
        .filter(membership::Column::OrganizationId.eq(org_id))
        .one(&state.db)
        .await?;
    Ok(m.map(|m| Member {
        user_id,
        organization_id: org_id,
        role: Role::parse(&m.role).unwrap_or(Role::Member),
    }))
}

/// The organisation's agent with this id, or NotFound (platform agents and other organisations' too).
pub async fn find_in_org<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    id: Uuid,
) -> AppResult<ai_agent::Model> {
    ai_agent::Entity::find_by_id(id)
        .filter(ai_agent::Column::OrganizationId.eq(org_id))
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("Agent"))
}

pub(crate) async fn to_view(
    state: &AppState,
    member: &Member,
    a: ai_agent::Model,
) -> AppResult<AgentView> {
    let owner_name = match a.user_id {
        Some(u) => user::Entity::find_by_id(u)
            .one(&state.db)
            .await?
            .map(|u| u.name),
        None => None,
    };
    let number_ids = phone_number::Entity::find()
        .filter(phone_number::Column::OrganizationId.eq(member.organization_id))
        .filter(phone_number::Column::AiAgentId.eq(a.id))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|p| p.id)
        .collect();
    let s = AgentSettings::of(&a);
    Ok(AgentView {
        planning_enabled: s.planning_enabled,
        plan_approval: s.plan_approval,
        reply_send_limit: s.reply_send_limit,
        reply_reads_org_wide: s.reply_reads_org_wide,
        sees_pictures: s.sees_pictures,
        answer_only: s.answer_only,
        knowledge_sources: s.knowledge_sources,
        id: a.id,
        name: a.name,
        persona: a.persona,
        goals: a.goals,
        rules: s.rules,
        send_mode: SendMode::parse(&a.send_mode),
        is_mine: a.user_id == Some(member.user_id),
        owner_name,
        number_ids,
    })
}

pub async fn list(state: &AppState, member: &Member) -> AppResult<Vec<AgentView>> {
    let rows = ai_agent::Entity::find()
        .filter(ai_agent::Column::OrganizationId.eq(member.organization_id))
        .order_by_asc(ai_agent::Column::CreatedAt)
        // Clones made together keep their platform order: Text Reply before Assistant.
        .order_by_desc(ai_agent::Column::Name)
        .all(&state.db)
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for a in rows {
        out.push(to_view(state, member, a).await?);
    }
    Ok(out)
}

pub async fn get(state: &AppState, member: &Member, id: Uuid) -> AppResult<AgentView> {
    let a = find_in_org(&state.db, member.organization_id, id).await?;
    to_view(state, member, a).await
}

fn clean(input: &AgentInput) -> AppResult<AgentInput> {
    let name = input.name.trim();
    if name.is_empty() {
        return Err(AppError::validation("Give the agent a name."));
    }
    Ok(AgentInput {
        name: name.to_owned(),
        persona: input.persona.trim().to_owned(),
        goals: input.goals.trim().to_owned(),
        rules: input.rules.trim().to_owned(),
        send_mode: input.send_mode,
        planning_enabled: input.planning_enabled,
        plan_approval: input.plan_approval,
        reply_send_limit: input.reply_send_limit,
        reply_reads_org_wide: input.reply_reads_org_wide,
        sees_pictures: input.sees_pictures,
        answer_only: input.answer_only,
    })
}

/// The settings an input gives, over what the agent had (`was`; None for a new agent): an unsaid
/// `answer_only` keeps its value (on for a new agent), and its sources stay as they were.
fn settings_of(c: &AgentInput, was: Option<&AgentSettings>) -> AgentSettings {
    AgentSettings {
        rules: c.rules.clone(),
        planning_enabled: c.planning_enabled,
        plan_approval: c.plan_approval,
        reply_send_limit: c.reply_send_limit,
        reply_reads_org_wide: c.reply_reads_org_wide,
        sees_pictures: c.sees_pictures,
        answer_only: c.answer_only.unwrap_or(was.is_none_or(|w| w.answer_only)),
        knowledge_sources: was.and_then(|w| w.knowledge_sources.clone()),
    }
}

pub async fn create(state: &AppState, member: &Member, input: &AgentInput) -> AppResult<AgentView> {
    let c = clean(input)?;
    if c.send_mode == SendMode::Autonomous {
        // An agent that texts by itself, from the business's numbers: an owner decides.
        member.require_owner()?;
    }
    let mut payload = json!({});
    settings_of(&c, None).write_into(&mut payload);
    let a = ai_agent::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(Some(member.organization_id)),
        user_id: Set(Some(member.user_id)),
        system_source_id: Set(None),
        name: Set(c.name),
        persona: Set(c.persona),
        goals: Set(c.goals),
        send_mode: Set(c.send_mode.as_str().into()),
        attach_domain_tools: Set(true),
        tools_allowlist: Set(json!(["escalate_to_user"])),
        config_payload: Set(payload),
        created_at: Set(state.clock.now()),
    }
    .insert(&state.db)
    .await?;
    to_view(state, member, a).await
}

/// Whether the member directs this agent: its owner, or an organisation owner. The agent acts
/// with its owner's powers, so directing it (settings, instructions, lessons) is theirs.
pub fn directs(member: &Member, a: &ai_agent::Model) -> bool {
    a.user_id == Some(member.user_id) || member.role == Role::Owner
}

/// Only the agent's owner, or an organisation owner, changes an agent.
pub fn may_edit(member: &Member, a: &ai_agent::Model) -> AppResult<()> {
    if directs(member, a) {
        Ok(())
    } else {
        Err(AppError::Forbidden)
    }
}

pub async fn update(
    state: &AppState,
    member: &Member,
    id: Uuid,
    input: &AgentInput,
) -> AppResult<AgentView> {
    let a = find_in_org(&state.db, member.organization_id, id).await?;
    may_edit(member, &a)?;
    let c = clean(input)?;
    let approval = crate::ai_agent::autonomy::needs_owner(&a, &c);
    if let Some(what) = &approval {
        if member.role != Role::Owner {
            return Err(AppError::NotPermitted(if what == "made autonomous" {
                "Only an organisation owner can make an agent autonomous.".into()
            } else {
                format!(
                    "This agent texts by itself, so only an owner may change it ({}). Switch it \
                     to suggest mode to edit it, or ask an owner.",
                    what.trim_start_matches("widened: ")
                )
            }));
        }
    }
    let mut payload = a.config_payload.clone();
    settings_of(&c, Some(&AgentSettings::of(&a))).write_into(&mut payload);
    let mut am: ai_agent::ActiveModel = a.into();
    am.name = Set(c.name);
    am.persona = Set(c.persona);
    am.goals = Set(c.goals);
    am.send_mode = Set(c.send_mode.as_str().into());
    am.config_payload = Set(payload);
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let a = am.update(&txn).await?;
    if let Some(what) = approval {
        crate::audit::service::record(
            &txn,
            crate::audit::service::Entry {
                organization_id: Some(member.organization_id),
                actor: Some(member.user_id),
                action: crate::audit::model::AuditAction::AgentWidened,
                target: &a.name,
                detail: Some(what),
            },
            state.clock.now(),
        )
        .await?;
    }
    txn.commit().await?;
    to_view(state, member, a).await
}

/// Makes the agent answer exactly these of the organisation's numbers.
pub async fn assign_numbers(
    state: &AppState,
    member: &Member,
    id: Uuid,
    number_ids: &[Uuid],
) -> AppResult<AgentView> {
    let a = find_in_org(&state.db, member.organization_id, id).await?;
    // Which agent answers a number decides who texts the business's customers.
    member.require_owner()?;
    for n in number_ids {
        crate::phone_numbers::service::find_in_org(&state.db, member.organization_id, *n).await?;
    }
    let txn = crate::platform::db::begin_write(&state.db).await?;
    phone_number::Entity::update_many()
        .col_expr(
            phone_number::Column::AiAgentId,
            Expr::value(Option::<Uuid>::None),
        )
        .filter(phone_number::Column::OrganizationId.eq(member.organization_id))
        .filter(phone_number::Column::AiAgentId.eq(id))
        .exec(&txn)
        .await?;
    if !number_ids.is_empty() {
        phone_number::Entity::update_many()
            .col_expr(phone_number::Column::AiAgentId, Expr::value(Some(id)))
            .filter(
                Condition::all()
                    .add(phone_number::Column::OrganizationId.eq(member.organization_id))
                    .add(phone_number::Column::Id.is_in(number_ids.iter().copied())),
            )
            .exec(&txn)
            .await?;
    }
    txn.commit().await?;
    state.numbers().forget_all();
    to_view(state, member, a).await
}

/// The member's own Assistant clone.
pub async fn my_assistant(state: &AppState, member: &Member) -> AppResult<ai_agent::Model> {
    ai_agent::Entity::find()
        .filter(ai_agent::Column::OrganizationId.eq(member.organization_id))
        .filter(ai_agent::Column::UserId.eq(member.user_id))
        .filter(ai_agent::Column::SystemSourceId.eq(ASSISTANT_AGENT_ID))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Your assistant"))
}

/// The ids of other members' Assistants in the organisation (a subquery).
pub fn others_assistants(m: &crate::auth::session::Member) -> sea_orm::sea_query::SelectStatement {
    sea_orm::sea_query::Query::select()
        .column(crate::ai_agent::entity::ai_agent::Column::Id)
        .from(crate::ai_agent::entity::ai_agent::Entity)
        .and_where(crate::ai_agent::entity::ai_agent::Column::OrganizationId.eq(m.organization_id))
        .and_where(
            crate::ai_agent::entity::ai_agent::Column::SystemSourceId
                .eq(crate::ai_agent::model::ASSISTANT_AGENT_ID),
        )
        .cond_where(
            sea_orm::Condition::any()
                .add(crate::ai_agent::entity::ai_agent::Column::UserId.ne(m.user_id))
                .add(crate::ai_agent::entity::ai_agent::Column::UserId.is_null()),
        )
        .to_owned()
}
