//! "Send later" (issue 53 §5): a member writes a text and picks a date and time on the
//! contact's own clock (their zone, else their area code's, else the organisation's). It waits
//! among the conversation's scheduled texts, can be changed or cancelled until it leaves, goes
//! through the one send path when due (held past the contact's quiet hours), and is cancelled
//! by itself when the contact opts out.
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::messaging::model::{ScheduledTextView, SendLaterRequest, SendLaterWhen};
use crate::messaging::quiet;
use crate::messaging::scheduled::{entity as scheduled, schedule, status, view, MAX_HOURS};
use crate::platform::AppState;
use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Statement};
use uuid::Uuid;

/// The soonest a text may be set for: a minute from now (sooner is "Send").
const SOONEST_MINUTES: i64 = 1;
/// What a text cancelled by an opt-out says.
pub const OPTED_OUT: &str = "Cancelled: the contact opted out.";

/// The moment `at` on a clock in `tz`. A time the clocks skip (spring forward) is refused; one
/// they pass twice (fall back) is the first.
pub fn on_their_clock(at: NaiveDateTime, tz: Tz) -> AppResult<DateTime<Utc>> {
    tz.from_local_datetime(&at)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .ok_or_else(|| {
            AppError::validation(format!(
                "{} does not exist in {tz}: the clocks change then. Pick another time.",
                at.format("%a %-d %b %H:%M")
            ))
        })
}

/// Whether `send_at` may be chosen `now`.
fn within(send_at: DateTime<Utc>, now: DateTime<Utc>) -> Result<(), String> {
    if send_at < now + chrono::Duration::minutes(SOONEST_MINUTES) {
        return Err("That time has passed on their clock: pick a later one, or Send now.".into());
    }
    if send_at > now + chrono::Duration::hours(MAX_HOURS) {
        return Err(format!("A text can wait at most {} days.", MAX_HOURS / 24));
    }
    Ok(())
}

/// The contact's zone and time now, and when a text set for `at` on their clock would go.
pub async fn when(
    state: &AppState,
    m: &Member,
    contact_id: Uuid,
    at: Option<NaiveDateTime>,
) -> AppResult<SendLaterWhen> {
    let c = crate::contacts::service::find_in_org(&state.db, m.organization_id, contact_id).await?;
    let org_zone = quiet::org_zone(&state.db, m.organization_id).await?;
    let r = quiet::recipient(&c, &org_zone);
    let now = state.clock.now();
    let mut out = SendLaterWhen {
        zone: r.zone_words(),
        their_now: now
            .with_timezone(&r.tz)
            .format("%Y-%m-%dT%H:%M")
            .to_string(),
        ..Default::default()
    };
    let Some(at) = at else {
        return Ok(out);
    };
    let send_at = match on_their_clock(at, r.tz).map_err(|e| e.to_string()) {
        Ok(t) => t,
        Err(why) => {
            out.problem = Some(why);
            return Ok(out);
        }
    };
    if let Err(why) = within(send_at, now) {
        out.problem = Some(why);
        return Ok(out);
    }
    let goes = quiet::next_allowed_for(send_at, &c, &org_zone);
    if goes > send_at {
        out.held = Some(quiet::held_reason(goes, &c, &org_zone));
    }
    out.goes = Some(format!(
        "{} their time",
        goes.with_timezone(&r.tz).format("%a %-d %b, %H:%M")
    ));
    Ok(out)
}

/// Schedules a member's text for the time on the contact's clock.
pub async fn add(
    state: &AppState,
    m: &Member,
    req: &SendLaterRequest,
) -> AppResult<ScheduledTextView> {
    let c =
        crate::contacts::service::find_in_org(&state.db, m.organization_id, req.contact_id).await?;
    let org_zone = quiet::org_zone(&state.db, m.organization_id).await?;
    let send_at = on_their_clock(req.at, quiet::zone_of(&c, &org_zone))?;
    within(send_at, state.clock.now()).map_err(AppError::validation)?;
    let id = Uuid::new_v4();
    // What a send checks (the number is the organisation's, the contact may be texted, the
    // words fit), now; the sweeper checks again as it leaves.
    let row = schedule(
        state,
        id,
        m.organization_id,
        req.contact_id,
        req.phone_number_id,
        &req.body,
        send_at,
        None,
        Some(m.user_id),
    )
    .await?;
    Ok(view(row))
}

/// Changes a waiting text's words and time (on the contact's clock), until it leaves.
pub async fn edit(
    state: &AppState,
    m: &Member,
    id: Uuid,
    body: &str,
    at: NaiveDateTime,
) -> AppResult<ScheduledTextView> {
    let row = scheduled::Entity::find_by_id(id)
        .filter(scheduled::Column::OrganizationId.eq(m.organization_id))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Scheduled text"))?;
    let c =
        crate::contacts::service::find_in_org(&state.db, m.organization_id, row.contact_id).await?;
    let org_zone = quiet::org_zone(&state.db, m.organization_id).await?;
    let send_at = on_their_clock(at, quiet::zone_of(&c, &org_zone))?;
    let now = state.clock.now();
    within(send_at, now).map_err(AppError::validation)?;
    let ok = crate::messaging::outbound::check_sendable(
        state,
        m.organization_id,
        row.contact_id,
        row.phone_number_id,
        body,
    )
    .await?;
    let done = scheduled::Entity::update_many()
        .col_expr(scheduled::Column::Body, Expr::value(ok.body))
        .col_expr(scheduled::Column::SendAt, Expr::value(send_at))
        .col_expr(scheduled::Column::UpdatedAt, Expr::value(now))
        .filter(scheduled::Column::Id.eq(id))
        .filter(scheduled::Column::OrganizationId.eq(m.organization_id))
        .filter(scheduled::Column::Status.eq(status::SCHEDULED))
        .exec(&state.db)
        .await?;
    if done.rows_affected != 1 {
        return Err(AppError::Conflict(format!(
            "This text is {} and can no longer be changed.",
            row.status
        )));
    }
    let row = scheduled::Entity::find_by_id(id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Scheduled text"))?;
    Ok(view(row))
}

/// Cancels the waiting texts of every contact whose number has opted out (the sweeper's; any
/// way an opt-out is recorded: STOP, a member, a carrier's refusal, a review). Answers how many.
pub async fn cancel_opted_out(state: &AppState) -> AppResult<u64> {
    let db = &state.db;
    let backend = db.get_database_backend();
    let p = |n: usize| match backend {
        sea_orm::DbBackend::Postgres => format!("${n}"),
        _ => "?".to_owned(),
    };
    let sql = format!(
        "UPDATE scheduled_text SET status = {}, error = {}, updated_at = {} \
         WHERE status = {} AND EXISTS (SELECT 1 FROM contact c JOIN suppression s \
           ON s.organization_id = c.organization_id AND s.phone = c.phone \
           WHERE c.id = scheduled_text.contact_id \
             AND c.organization_id = scheduled_text.organization_id)",
        p(1),
        p(2),
        p(3),
        p(4)
    );
    let done = db
        .execute_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [
                status::CANCELED.into(),
                OPTED_OUT.into(),
                state.clock.now().into(),
                status::SCHEDULED.into(),
            ],
        ))
        .await?;
    Ok(done.rows_affected())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn at(d: u32, h: u32, min: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(2027, 3, d)
            .unwrap()
            .and_hms_opt(h, min, 0)
            .unwrap()
    }

    #[test]
    fn their_clock_and_the_clocks_changing() {
        let ny: Tz = "America/New_York".parse().unwrap();
        // 09:00 in New York in winter is 14:00 UTC.
        assert_eq!(
            on_their_clock(at(1, 9, 0), ny).unwrap().to_rfc3339(),
            "2027-03-01T14:00:00+00:00"
        );
        // 14 March 2027, 02:30 does not happen in New York.
        let e = on_their_clock(at(14, 2, 30), ny).unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");
    }

    #[test]
    fn a_time_must_be_ahead_and_within_thirty_days() {
        let now = Utc.with_ymd_and_hms(2027, 3, 1, 12, 0, 0).unwrap();
        assert!(within(now + chrono::Duration::minutes(5), now).is_ok());
        assert!(within(now, now).unwrap_err().contains("passed"));
        assert!(within(now + chrono::Duration::days(31), now)
            .unwrap_err()
            .contains("30 days"));
    }
}
