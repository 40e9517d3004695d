//! Resuming a campaign its stopped plan paused (issue 29 §2): an owner takes it back to what it
//! was doing (drafting, awaiting review or sending) and its engine starts again. Everything
//! already sent stays sent; every text still goes through the same gate.
use crate::auth::session::Member;
use crate::campaign::engines::{start, Engine};
use crate::campaign::entity::operation;
use crate::campaign::model::{OperationStatus, OperationView};
use crate::campaign::review::{find_visible, view};
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

pub async fn resume(state: &AppState, m: &Member, id: Uuid) -> AppResult<OperationView> {
    let op = find_visible(state, m, id).await?;
    // A campaign texts many people from the business's numbers: an owner decides, as approving.
    m.require_owner()?;
    if op.paused_from.is_none() {
        return Err(AppError::Conflict(format!(
            "This campaign is {}, not paused.",
            op.status.as_str().replace('_', " ")
        )));
    }
    let back = op
        .paused_from
        .filter(|s| {
            matches!(
                s,
                OperationStatus::Drafting
                    | OperationStatus::AwaitingApproval
                    | OperationStatus::Sending
            )
        })
        .unwrap_or(OperationStatus::AwaitingApproval);
    let res = operation::Entity::update_many()
        .col_expr(operation::Column::Status, Expr::value(back))
        .col_expr(operation::Column::PausedFrom, Expr::value(None::<String>))
        .col_expr(operation::Column::PausedReason, Expr::value(None::<String>))
        // The delivery alarm counts afresh: the texts that paused it were seen by a person.
        .col_expr(
            operation::Column::AlarmFrom,
            Expr::value(Some(state.clock.now())),
        )
        .col_expr(operation::Column::UpdatedAt, Expr::value(state.clock.now()))
        .filter(operation::Column::Id.eq(id))
        .filter(operation::Column::PausedFrom.is_not_null())
        .exec(&state.db)
        .await?;
    if res.rows_affected != 1 {
        return Err(AppError::Conflict(
            "This campaign changed meanwhile; look again.".into(),
        ));
    }
    match back {
        OperationStatus::Drafting => start(state, id, Engine::Draft),
        OperationStatus::Sending => start(state, id, Engine::Send),
        _ => {}
    }
    tracing::info!(operation = %id, status = back.as_str(), "campaign resumed");
    state.live.publish(
        m.organization_id,
        crate::messaging::model::LiveEvent::OperationUpdated { operation_id: id },
    );
    view(state, find_visible(state, m, id).await?).await
}
