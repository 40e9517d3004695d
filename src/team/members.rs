//! The owner's powers over members: removing one (their sessions and open pages end at once,
//! their agents are paused and handed to the owner, their private Assistant thread is archived),
//! changing a role, and issuing a one-time password-reset link. The last owner stays an owner.
use crate::ai_agent::entity::{ai_agent, ai_thread};
use crate::ai_agent::model::{SendMode, ASSISTANT_AGENT_ID};
use crate::audit::model::AuditAction;
use crate::audit::service::{record, Entry};
use crate::auth::entity::{membership, session, user};
use crate::auth::model::{MemberRemoved, ResetLink, Role};
use crate::auth::owners::owners;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::live_event::LiveEvent;
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};
use uuid::Uuid;

async fn membership_of<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    user_id: Uuid,
) -> AppResult<membership::Model> {
    membership::Entity::find()
        .filter(membership::Column::OrganizationId.eq(org))
        .filter(membership::Column::UserId.eq(user_id))
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("That member"))
}

async fn name_of<C: ConnectionTrait>(db: &C, user_id: Uuid) -> AppResult<(String, String)> {
    let u = user::Entity::find_by_id(user_id)
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("That member"))?;
    Ok((u.name, u.email))
}

/// Takes a member out of the organisation. Everything happens in one transaction; then every
/// open page of theirs is told, and closes.
#[tracing::instrument(skip(state))]
pub async fn remove(state: &AppState, owner: &Member, user_id: Uuid) -> AppResult<MemberRemoved> {
    owner.require_owner()?;
    let org = owner.organization_id;
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    crate::platform::db::lock_organization(&txn, org).await?;
    let m = membership_of(&txn, org, user_id).await?;
    if m.role == Role::Owner.as_str() && owners(&txn, org).await? <= 1 {
        return Err(AppError::Conflict(
            "The last owner cannot be removed. Make someone else an owner first.".into(),
        ));
    }
    let (name, email) = name_of(&txn, user_id).await?;
    membership::Entity::delete_by_id(m.id).exec(&txn).await?;
    let sessions_ended = session::Entity::delete_many()
        .filter(session::Column::UserId.eq(user_id))
        .filter(session::Column::OrganizationId.eq(org))
        .exec(&txn)
        .await?
        .rows_affected;
    let theirs = ai_agent::Entity::find()
        .filter(ai_agent::Column::OrganizationId.eq(org))
        .filter(ai_agent::Column::UserId.eq(user_id))
        .all(&txn)
        .await?;
    let (assistants, agents): (Vec<_>, Vec<_>) = theirs
        .into_iter()
        .partition(|a| a.system_source_id == Some(ASSISTANT_AGENT_ID));
    if !agents.is_empty() {
        ai_agent::Entity::update_many()
            .col_expr(ai_agent::Column::UserId, Expr::value(owner.user_id))
            .col_expr(
                ai_agent::Column::SendMode,
                Expr::value(SendMode::Suggest.as_str()),
            )
            .filter(ai_agent::Column::Id.is_in(agents.iter().map(|a| a.id)))
            .exec(&txn)
            .await?;
    }
    let assistant_threads_archived = ai_thread::Entity::update_many()
        .col_expr(ai_thread::Column::State, Expr::value("archived"))
        .col_expr(ai_thread::Column::UpdatedAt, Expr::value(now))
        .filter(ai_thread::Column::AgentId.is_in(assistants.iter().map(|a| a.id)))
        .filter(ai_thread::Column::State.ne("archived"))
        .exec(&txn)
        .await?
        .rows_affected;
    let agents_reassigned: Vec<String> = agents.into_iter().map(|a| a.name).collect();
    // Their conversations go back to the unassigned view.
    let unassigned = crate::inbox::service::unassign_member(&txn, org, user_id).await?;
    record(
        &txn,
        Entry {
            organization_id: Some(org),
            actor: Some(owner.user_id),
            action: AuditAction::MemberRemoved,
            target: &format!("{name} <{email}>"),
            detail: Some(format!(
                "{sessions_ended} session(s) ended; {unassigned} conversation(s) unassigned; \
                 agents paused and reassigned: {}",
                if agents_reassigned.is_empty() {
                    "none".to_owned()
                } else {
                    agents_reassigned.join(", ")
                }
            )),
        },
        now,
    )
    .await?;
    txn.commit().await?;
    state.live.publish(org, LiveEvent::AccessEnded { user_id });
    tracing::info!(%user_id, sessions_ended, "member removed");
    Ok(MemberRemoved {
        name,
        sessions_ended,
        agents_reassigned,
        assistant_threads_archived,
    })
}

/// Makes a member an owner, or an owner a member; the last owner cannot be demoted.
pub async fn set_role(
    state: &AppState,
    owner: &Member,
    user_id: Uuid,
    role: Role,
) -> AppResult<()> {
    owner.require_owner()?;
    let org = owner.organization_id;
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    crate::platform::db::lock_organization(&txn, org).await?;
    let m = membership_of(&txn, org, user_id).await?;
    if m.role == role.as_str() {
        return Ok(());
    }
    if role == Role::Member && owners(&txn, org).await? <= 1 {
        return Err(AppError::Conflict(
            "The last owner cannot become a member. Make someone else an owner first.".into(),
        ));
    }
    membership::Entity::update_many()
        .col_expr(membership::Column::Role, Expr::value(role.as_str()))
        .filter(membership::Column::Id.eq(m.id))
        .exec(&txn)
        .await?;
    let (name, email) = name_of(&txn, user_id).await?;
    record(
        &txn,
        Entry {
            organization_id: Some(org),
            actor: Some(owner.user_id),
            action: AuditAction::RoleChanged,
            target: &format!("{name} <{email}>"),
            detail: Some(format!("{} → {}", m.role, role.as_str())),
        },
        now,
    )
    .await?;
    txn.commit().await?;
    Ok(())
}

/// An owner's one-time reset link for a member who forgot their password. An account is one
/// person's across every organisation it belongs to, so an owner may reset only an account that
/// belongs to their organisation alone: a link for one that belongs elsewhere too would let this
/// owner sign in as that person there (issue 49 §2).
pub async fn issue_reset(state: &AppState, owner: &Member, user_id: Uuid) -> AppResult<ResetLink> {
    owner.require_owner()?;
    let org = owner.organization_id;
    membership_of(&state.db, org, user_id).await?;
    let elsewhere = membership::Entity::find()
        .filter(membership::Column::UserId.eq(user_id))
        .filter(membership::Column::OrganizationId.ne(org))
        .count(&state.db)
        .await?;
    if elsewhere > 0 {
        return Err(AppError::Validation(
            "This person's account also belongs to another organisation, so a reset link from \
             here would open that organisation too. Only the server's operator can issue one \
             (`herald admin reset-password EMAIL`)."
                .into(),
        ));
    }
    let (name, email) = name_of(&state.db, user_id).await?;
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let link = crate::auth::account::new_reset(
        &txn,
        &state.config.public_url,
        state.clock.now(),
        user_id,
        Some(owner.user_id),
    )
    .await?;
    record(
        &txn,
        Entry {
            organization_id: Some(org),
            actor: Some(owner.user_id),
            action: AuditAction::PasswordResetIssued,
            target: &format!("{name} <{email}>"),
            detail: None,
        },
        state.clock.now(),
    )
    .await?;
    txn.commit().await?;
    Ok(link)
}
