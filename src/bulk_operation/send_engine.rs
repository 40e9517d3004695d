//! The send engine: approved drafts go out paced per number, only 08:00–21:00 in the recipient's
//! time zone, with opt-outs checked again at send time and one idempotency key per item, so a
//! crash never sends twice. Cancel stops everything not yet sent.
use crate::bulk_operation::entity::{item, operation};
use crate::bulk_operation::model::{item_status, OperationStatus};
use crate::contacts::entity::contact;
use crate::contacts::opt_out;
use crate::error::AppResult;
use crate::server::AppState;
use chrono::{DateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use std::time::Duration;
use uuid::Uuid;

pub const QUIET_START: u32 = 21;
pub const QUIET_END: u32 = 8;

pub fn spawn_send_engine(state: &AppState, operation_id: Uuid) {
    let bg = state.clone();
    state.tasks.spawn(async move {
        if let Err(e) = run_send_engine(&bg, operation_id).await {
            tracing::error!(error = %e, %operation_id, "send engine stopped");
        }
    });
}

/// When sending to someone in `tz` may next happen at or after `now` (now itself if allowed).
pub fn next_allowed(now: DateTime<Utc>, tz: Tz) -> DateTime<Utc> {
    let local = now.with_timezone(&tz);
    let hour = chrono::Timelike::hour(&local);
    if (QUIET_END..QUIET_START).contains(&hour) {
        return now;
    }
    let day = if hour >= QUIET_START {
        local.date_naive() + chrono::Days::new(1)
    } else {
        local.date_naive()
    };
    let open = day.and_time(NaiveTime::from_hms_opt(QUIET_END, 0, 0).expect("08:00"));
    tz.from_local_datetime(&open)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or(now)
}

fn zone_of(c: &contact::Model, org_zone: &str) -> Tz {
    c.time_zone
        .as_deref()
        .and_then(|z| z.parse().ok())
        .or_else(|| org_zone.parse().ok())
        .unwrap_or(Tz::UTC)
}

async fn set_item(
    state: &AppState,
    id: Uuid,
    status: &str,
    reason: Option<String>,
) -> AppResult<()> {
    let mut u = item::Entity::update_many()
        .col_expr(item::Column::Status, Expr::value(status))
        .col_expr(item::Column::UpdatedAt, Expr::value(Utc::now()));
    if let Some(r) = reason {
        let col = if status == item_status::SKIPPED {
            item::Column::SkipReason
        } else {
            item::Column::Error
        };
        u = u.col_expr(col, Expr::value(Some(r)));
    }
    u.filter(item::Column::Id.eq(id)).exec(&state.db).await?;
    Ok(())
}

#[tracing::instrument(skip(state))]
pub async fn run_send_engine(state: &AppState, op_id: Uuid) -> AppResult<()> {
    let clock = state.clock.clone();
    let gap = Duration::from_secs_f64(1.0 / state.engine.sends_per_second.max(0.001));
    let mut last_send: Option<DateTime<Utc>> = None;
    loop {
        let Some(op) = operation::Entity::find_by_id(op_id).one(&state.db).await? else {
            return Ok(());
        };
        if OperationStatus::parse(&op.status) != OperationStatus::Sending {
            return Ok(());
        }
        let org_zone = crate::auth::entity::organization::Entity::find_by_id(op.organization_id)
            .one(&state.db)
            .await?
            .map(|o| o.time_zone)
            .unwrap_or_else(|| "UTC".into());
        let queue = item::Entity::find()
            .filter(item::Column::OperationId.eq(op_id))
            .filter(item::Column::Status.is_in([item_status::DRAFTED, item_status::SENDING]))
            .order_by_asc(item::Column::Position)
            .all(&state.db)
            .await?;
        if queue.is_empty() {
            operation::Entity::update_many()
                .col_expr(
                    operation::Column::Status,
                    Expr::value(OperationStatus::Done.as_str()),
                )
                .filter(operation::Column::Id.eq(op_id))
                .filter(operation::Column::Status.eq(OperationStatus::Sending.as_str()))
                .exec(&state.db)
                .await?;
            crate::bulk_operation::draft_engine::refresh_counters(state, op_id).await?;
            return Ok(());
        }
        let mut earliest_wait: Option<DateTime<Utc>> = None;
        let mut sent_any = false;
        for it in queue {
            // Cancel stops everything not yet sent.
            let status = operation::Entity::find_by_id(op_id)
                .one(&state.db)
                .await?
                .map(|o| o.status);
            if status.as_deref() != Some(OperationStatus::Sending.as_str()) {
                return Ok(());
            }
            let Some(c) = contact::Entity::find_by_id(it.contact_id)
                .one(&state.db)
                .await?
            else {
                set_item(
                    state,
                    it.id,
                    item_status::SKIPPED,
                    Some("contact no longer exists".into()),
                )
                .await?;
                continue;
            };
            let allowed = next_allowed(clock.now(), zone_of(&c, &org_zone));
            if allowed > clock.now() {
                earliest_wait = Some(earliest_wait.map_or(allowed, |e| e.min(allowed)));
                continue;
            }
            if opt_out::sms_opt_out(&state.db, c.id).await?.is_some() {
                set_item(
                    state,
                    it.id,
                    item_status::SKIPPED,
                    Some("opted out before sending".into()),
                )
                .await?;
                continue;
            }
            if let Some(last) = last_send {
                let since = (clock.now() - last).to_std().unwrap_or_default();
                if since < gap {
                    clock.sleep(gap - since).await;
                }
            }
            set_item(state, it.id, item_status::SENDING, None).await?;
            // Pace from the start of each send, so the send's own time is inside the gap.
            last_send = Some(clock.now());
            let body = it.draft.clone().unwrap_or_default();
            let result = crate::messaging::outbound::send_sms_keyed(
                state,
                op.organization_id,
                c.id,
                op.phone_number_id,
                &body,
                Some("campaign"),
                Some(it.idempotency_key),
            )
            .await;
            match result {
                Ok(m) => {
                    item::Entity::update_many()
                        .col_expr(item::Column::Status, Expr::value(item_status::SENT))
                        .col_expr(item::Column::MessageId, Expr::value(Some(m.id)))
                        .col_expr(item::Column::SentAt, Expr::value(Some(clock.now())))
                        .filter(item::Column::Id.eq(it.id))
                        .exec(&state.db)
                        .await?;
                }
                Err(e) => set_item(state, it.id, item_status::FAILED, Some(e.to_string())).await?,
            }
            sent_any = true;
            crate::bulk_operation::draft_engine::refresh_counters(state, op_id).await?;
        }
        if !sent_any {
            if let Some(at) = earliest_wait {
                let wait = (at - clock.now()).to_std().unwrap_or_default();
                tracing::info!(?wait, "quiet hours: waiting to send");
                clock.sleep(wait.max(Duration::from_millis(1))).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_hours_follow_the_recipient() {
        let ny: Tz = "America/New_York".parse().unwrap();
        // 12:00 UTC is 07:00 in New York (winter): wait until 08:00 local, 13:00 UTC.
        let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
        assert_eq!(
            next_allowed(now, ny),
            Utc.with_ymd_and_hms(2026, 1, 15, 13, 0, 0).unwrap()
        );
        let noon_ny = Utc.with_ymd_and_hms(2026, 1, 15, 17, 0, 0).unwrap();
        assert_eq!(next_allowed(noon_ny, ny), noon_ny);
        // 21:30 in New York: next morning at 08:00.
        let late = Utc.with_ymd_and_hms(2026, 1, 16, 2, 30, 0).unwrap();
        assert_eq!(
            next_allowed(late, ny),
            Utc.with_ymd_and_hms(2026, 1, 16, 13, 0, 0).unwrap()
        );
        assert_eq!(
            next_allowed(
                Utc.with_ymd_and_hms(2026, 1, 15, 21, 0, 0).unwrap(),
                Tz::UTC
            ),
            Utc.with_ymd_and_hms(2026, 1, 16, 8, 0, 0).unwrap()
        );
    }
}
