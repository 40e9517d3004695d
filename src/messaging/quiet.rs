//! Quiet hours: a text the business starts (a campaign, an agent's outreach, a plan's step) goes
//! out only 08:00–21:00 in the recipient's time zone: their own, else the organisation's. A reply
//! to someone who just texted is not held.
use crate::auth::entity::organization;
use crate::contacts::entity::contact;
use crate::error::AppResult;
use chrono::{DateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use sea_orm::{ConnectionTrait, EntityTrait};
use uuid::Uuid;

/// Quiet hours start at 21:00 and end at 08:00, local time.
pub const QUIET_START: u32 = 21;
pub const QUIET_END: u32 = 8;

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

/// The contact's own zone, else the organisation's, else UTC.
pub fn zone_of(c: &contact::Model, org_zone: &str) -> Tz {
    c.time_zone
        .as_deref()
        .and_then(|z| z.parse().ok())
        .or_else(|| org_zone.parse().ok())
        .unwrap_or(Tz::UTC)
}

/// The organisation's time zone, the fallback for contacts without one.
pub async fn org_zone<C: ConnectionTrait>(db: &C, org_id: Uuid) -> AppResult<String> {
    Ok(organization::Entity::find_by_id(org_id)
        .one(db)
        .await?
        .map(|o| o.time_zone)
        .unwrap_or_else(|| "UTC".into()))
}

/// When the contact's quiet hours end, if they are in them at `now`.
pub fn quiet_until(
    now: DateTime<Utc>,
    c: &contact::Model,
    org_zone: &str,
) -> Option<DateTime<Utc>> {
    let at = next_allowed(now, zone_of(c, org_zone));
    (at > now).then_some(at)
}

/// Why a text to the contact is held now, in words for the card and the model.
pub fn held_reason(until: DateTime<Utc>, c: &contact::Model, org_zone: &str) -> String {
    let tz = zone_of(c, org_zone);
    format!(
        "{} is in quiet hours ({QUIET_START}:00–0{QUIET_END}:00 their time, {tz}); texts may go from {}.",
        c.name,
        until.with_timezone(&tz).format("%a %H:%M")
    )
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
    }

    #[test]
    fn both_edges_of_the_window() {
        let at = |h, m, s| Utc.with_ymd_and_hms(2026, 1, 15, h, m, s).unwrap();
        let next_morning = Utc.with_ymd_and_hms(2026, 1, 16, 8, 0, 0).unwrap();
        // Evening: 20:59:59 may send; 21:00:00 waits for the next morning.
        assert_eq!(next_allowed(at(20, 59, 59), Tz::UTC), at(20, 59, 59));
        assert_eq!(next_allowed(at(21, 0, 0), Tz::UTC), next_morning);
        assert_eq!(next_allowed(at(23, 59, 59), Tz::UTC), next_morning);
        // Morning: 07:59:59 waits a second; 08:00:00 may send.
        assert_eq!(next_allowed(at(7, 59, 59), Tz::UTC), at(8, 0, 0));
        assert_eq!(next_allowed(at(8, 0, 0), Tz::UTC), at(8, 0, 0));
        assert_eq!(next_allowed(at(0, 0, 0), Tz::UTC), at(8, 0, 0));
    }
}
