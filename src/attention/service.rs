//! Counting what waits for a member, always within the member's organisation: unread
//! conversations, plans to approve, plan steps to confirm, notifications, possible opt-outs, and the inbox's Mine and
//! Unassigned views.
use crate::attention::model::{Attention, BADGE_MAX};
use crate::auth::session::Member;
use crate::error::AppResult;
use crate::inbox::views;
use crate::messaging::model::InboxFilter;
use crate::notifications::entity as notification;
use crate::plans::entity::plan;
use crate::plans::model::PlanStatus;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect};

pub async fn counts(state: &AppState, member: &Member) -> AppResult<Attention> {
    let org = member.organization_id;
    let unread_conversations =
        crate::messaging::conversation::unread_conversations(&state.db, org).await?;
    let plans_awaiting_approval = plan::Entity::find()
        .filter(crate::plans::access::visible_to(member))
        .filter(plan::Column::Status.eq(PlanStatus::AwaitingApproval))
        .count(&state.db)
        .await?;
    // Paused plans only: the index on (organization, paused_at) finds them.
    let steps_waiting: Option<i64> = plan::Entity::find()
        .select_only()
        .column_as(plan::Column::WaitingSteps.sum(), "n")
        .filter(crate::plans::access::visible_to(member))
        .filter(plan::Column::PausedAt.is_not_null())
        .filter(plan::Column::Status.eq(PlanStatus::Executing))
        .into_tuple()
        .one(&state.db)
        .await?
        .flatten();
    let unread_notifications = notification::Entity::find()
        .filter(notification::Column::OrganizationId.eq(org))
        .filter(notification::Column::UserId.eq(member.user_id))
        .filter(notification::Column::ReadAt.is_null())
        .count(&state.db)
        .await?;
    let possible_opt_outs = crate::compliance::review::open_count(state, org).await?;
    // The sidebar's inbox views, the work still to do (the member's own and nobody's), counted
    // only past what a badge shows: this runs on every page.
    let viewer = crate::inbox::service::viewer(state, member);
    let cap = BADGE_MAX + 1;
    let mine = views::count_up_to(&state.db, &viewer, InboxFilter::Mine, cap).await?;
    let unassigned = views::count_up_to(&state.db, &viewer, InboxFilter::Unassigned, cap).await?;
    let banners = match member.role {
        crate::auth::model::Role::Owner => {
            crate::phone_numbers::registration::banners(&state.db, org).await?
        }
        _ => Vec::new(),
    };
    Ok(Attention {
        banners,
        unread_conversations,
        plans_awaiting_approval,
        steps_waiting: steps_waiting.unwrap_or(0).max(0) as u64,
        unread_notifications,
        possible_opt_outs,
        mine,
        unassigned,
    })
}
