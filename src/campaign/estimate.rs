//! When a campaign will finish, before it is approved and while it sends, and what holds it
//! back: the rate of its number's sender profile, the brand's daily cap, or quiet hours in its
//! recipients' zones. The recipients still to text are counted by zone in one grouped query
//! (never loaded), and sending is played forward stretch by stretch: while any zone's window is
//! open texts go at the rate, shared between the open zones as the engine's position order
//! shares them; a stretch ends where a window closes, the Pacific day ends or the cap is spent.
use crate::campaign::entity::operation;
use crate::campaign::model::{FinishEstimate, ItemStatus, OperationStatus};
use crate::error::AppResult;
use crate::messaging::quiet::{next_allowed_in, recipient_of};
use crate::platform::AppState;
use crate::sender_profiles::model::{thousands, Kind};
use crate::sender_profiles::pacing::{next_pacific_midnight, pacific_day};
use chrono::{DateTime, Duration, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use sea_orm::{ConnectionTrait, DbBackend, Statement};

/// How far ahead the estimate looks; a campaign that would take longer says so.
pub const HORIZON_DAYS: i64 = 90;

/// Recipients in one zone with one window, still to text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    pub tz: Tz,
    pub window: (u32, u32),
    pub n: u64,
}

/// How fast texts may go: the gap between two, and a daily cap with what is spent of it today.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pace {
    pub gap_us: i64,
    pub cap: Option<u64>,
    pub used_today: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeldBy {
    Rate,
    QuietHours,
    DailyCap,
}

impl HeldBy {
    pub fn as_str(self) -> &'static str {
        match self {
            HeldBy::Rate => "rate",
            HeldBy::QuietHours => "quiet_hours",
            HeldBy::DailyCap => "daily_cap",
        }
    }
}

/// When the last text goes, and what held the campaign back most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finish {
    pub at: DateTime<Utc>,
    pub held_by: HeldBy,
}

/// When the open window of a recipient in `tz` (open at `t`) closes.
fn closes(t: DateTime<Utc>, tz: Tz, end: u32) -> DateTime<Utc> {
    let day = t.with_timezone(&tz).date_naive();
    let at = day.and_time(NaiveTime::from_hms_opt(end.min(23), 0, 0).unwrap_or(NaiveTime::MIN));
    let at = if end >= 24 {
        at + Duration::hours(1)
    } else {
        at
    };
    tz.from_local_datetime(&at)
        .earliest()
        .map(|x| x.with_timezone(&Utc))
        .filter(|x| *x > t)
        .unwrap_or(t + Duration::hours(1))
}

/// Plays sending forward from `now`; None when nothing is left, or it would take longer than
/// `HORIZON_DAYS`.
pub fn simulate(now: DateTime<Utc>, groups: &[Group], pace: Pace) -> Option<Finish> {
    let mut left: Vec<u64> = groups.iter().map(|g| g.n).collect();
    if left.iter().all(|n| *n == 0) {
        return None;
    }
    let gap = Duration::microseconds(pace.gap_us.max(1));
    let horizon = now + Duration::days(HORIZON_DAYS);
    let mut t = now;
    let mut day_end = next_pacific_midnight(now);
    let mut cap_left = pace.cap.map(|c| c.saturating_sub(pace.used_today));
    let (mut quiet, mut capped) = (Duration::zero(), Duration::zero());
    while left.iter().any(|n| *n > 0) {
        if t >= horizon {
            return None;
        }
        if t >= day_end {
            cap_left = pace.cap;
            day_end = next_pacific_midnight(t);
        }
        if cap_left == Some(0) {
            capped += day_end - t;
            t = day_end;
            continue;
        }
        let mut end = day_end;
        let mut open = Vec::new();
        let mut opens: Option<DateTime<Utc>> = None;
        for (i, g) in groups.iter().enumerate() {
            if left[i] == 0 {
                continue;
            }
            let at = next_allowed_in(t, g.tz, g.window);
            if at > t {
                opens = Some(opens.map_or(at, |o| o.min(at)));
            } else {
                open.push(i);
                end = end.min(closes(t, g.tz, g.window.1));
            }
        }
        if open.is_empty() {
            let next = opens.unwrap_or(horizon);
            quiet += next - t;
            t = next;
            continue;
        }
        let waiting: u64 = open.iter().map(|i| left[*i]).sum();
        let room = ((end - t).num_microseconds().unwrap_or(i64::MAX)
            / gap.num_microseconds().unwrap_or(1))
        .max(0) as u64;
        let send = waiting.min(room).min(cap_left.unwrap_or(u64::MAX));
        if send == 0 {
            t = end;
            continue;
        }
        if send == waiting {
            for i in &open {
                left[*i] = 0;
            }
        } else {
            // Shared as position order shares them: in proportion, the rest one each.
            let mut given = 0;
            for i in &open {
                let share = left[*i] * send / waiting;
                left[*i] -= share;
                given += share;
            }
            for i in &open {
                if given == send {
                    break;
                }
                if left[*i] > 0 {
                    left[*i] -= 1;
                    given += 1;
                }
            }
        }
        if let Some(c) = cap_left.as_mut() {
            *c -= send;
        }
        t += gap * send as i32;
    }
    let held_by = match (quiet > Duration::zero(), capped > Duration::zero()) {
        (false, false) => HeldBy::Rate,
        _ if capped >= quiet => HeldBy::DailyCap,
        _ => HeldBy::QuietHours,
    };
    Some(Finish { at: t, held_by })
}

/// The campaign's recipients still to text, by zone and window (one grouped query).
async fn groups(state: &AppState, op: &operation::Model, org_zone: &str) -> AppResult<Vec<Group>> {
    let backend = state.db.get_database_backend();
    let waiting = [
        ItemStatus::Pending,
        ItemStatus::Drafting,
        ItemStatus::Drafted,
        ItemStatus::Sending,
    ]
    .map(|s| format!("'{s}'"))
    .join(", ");
    let p = match backend {
        DbBackend::Postgres => "$1",
        _ => "?",
    };
    let sql = format!(
        "SELECT c.time_zone AS tz, substr(c.phone, 1, 5) AS area, COUNT(*) AS n \
         FROM assistant_operation_item i JOIN contact c ON c.id = i.contact_id \
         WHERE i.operation_id = {p} AND i.status IN ({waiting}) \
         GROUP BY c.time_zone, substr(c.phone, 1, 5)"
    );
    let rows = state
        .db
        .query_all_raw(Statement::from_sql_and_values(backend, sql, [op.id.into()]))
        .await?;
    let mut out: Vec<Group> = Vec::new();
    for r in rows {
        let tz: Option<String> = r.try_get("", "tz")?;
        let area: Option<String> = r.try_get("", "area")?;
        let n: i64 = r.try_get("", "n")?;
        // Any number in the area code stands for the group's (the zone and state come from it).
        let phone = area.map(|a| format!("{a}5550100"));
        let who = recipient_of(phone.as_deref(), tz.as_deref(), org_zone);
        match out
            .iter_mut()
            .find(|g| g.tz == who.tz && g.window == who.window)
        {
            Some(g) => g.n += n as u64,
            None => out.push(Group {
                tz: who.tz,
                window: who.window,
                n: n as u64,
            }),
        }
    }
    Ok(out)
}

/// The pace of the campaign's number, and its profile's rate and kind in words.
async fn pace_of(state: &AppState, op: &operation::Model) -> AppResult<(Pace, String)> {
    let profile = crate::sender_profiles::service::of_number(state, op.phone_number_id).await?;
    Ok(match profile {
        Some(p) => (
            Pace {
                gap_us: p.rate().gap_us(),
                cap: p.daily_cap(),
                used_today: p.used_on(&pacific_day(state.clock.now())),
            },
            format!("{}, {} \"{}\"", p.rate().words(), p.kind().label(), p.name),
        ),
        None => {
            let per_second = state.engine().sends_per_second.max(0.001);
            let rate = crate::sender_profiles::model::per_second_words(per_second);
            (
                Pace {
                    gap_us: (1_000_000.0 / per_second).ceil() as i64,
                    cap: None,
                    used_today: 0,
                },
                format!(
                    "{rate}, {} (no sender profile)",
                    Kind::Unregistered.label().to_lowercase()
                ),
            )
        }
    })
}

/// The card's estimate for a campaign still to send; None once it is done, cancelled or paused.
pub async fn for_operation(
    state: &AppState,
    op: &operation::Model,
    status: OperationStatus,
) -> AppResult<Option<FinishEstimate>> {
    if !matches!(
        status,
        OperationStatus::Drafting | OperationStatus::AwaitingApproval | OperationStatus::Sending
    ) {
        return Ok(None);
    }
    let org_zone = crate::messaging::quiet::org_zone(&state.db, op.organization_id).await?;
    let groups = groups(state, op, &org_zone).await?;
    let (pace, rate) = pace_of(state, op).await?;
    let now = state.clock.now();
    let zone: Tz = org_zone.parse().unwrap_or(Tz::UTC);
    let Some(f) = simulate(now, &groups, pace) else {
        let words = match groups.iter().any(|g| g.n > 0) {
            true => format!("Estimated to take more than {HORIZON_DAYS} days at {rate}."),
            false => return Ok(None),
        };
        return Ok(Some(FinishEstimate {
            words,
            held_by: HeldBy::Rate.as_str().into(),
        }));
    };
    let when = f.at.with_timezone(&zone).format("%a %-d %b, %H:%M");
    let why = match f.held_by {
        HeldBy::Rate => format!("held back by the rate: {rate}"),
        HeldBy::QuietHours => {
            format!("held back by quiet hours: texts go only 08:00–21:00 in each recipient's zone (at {rate})")
        }
        HeldBy::DailyCap => format!(
            "held back by the daily cap: {} texts a Pacific day for the brand (T-Mobile), at {rate}",
            thousands(pace.cap.unwrap_or_default())
        ),
    };
    Ok(Some(FinishEstimate {
        words: format!("Estimated to finish about {when} ({zone}), {why}."),
        held_by: f.held_by.as_str().into(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::America::{Los_Angeles, New_York};

    fn ny(n: u64) -> Group {
        Group {
            tz: New_York,
            window: (8, 21),
            n,
        }
    }

    fn at(tz: Tz, d: u32, h: u32, m: u32) -> DateTime<Utc> {
        tz.with_ymd_and_hms(2026, 1, d, h, m, 0)
            .unwrap()
            .with_timezone(&Utc)
    }

    const ONE_A_SECOND: Pace = Pace {
        gap_us: 1_000_000,
        cap: None,
        used_today: 0,
    };

    #[test]
    fn in_the_day_the_rate_sets_the_finish() {
        let f = simulate(at(New_York, 15, 10, 0), &[ny(600)], ONE_A_SECOND).unwrap();
        assert_eq!(f.at, at(New_York, 15, 10, 10));
        assert_eq!(f.held_by, HeldBy::Rate);
    }

    #[test]
    fn at_night_quiet_hours_hold_it_until_eight() {
        let f = simulate(at(New_York, 15, 22, 0), &[ny(60)], ONE_A_SECOND).unwrap();
        assert_eq!(f.at, at(New_York, 16, 8, 1));
        assert_eq!(f.held_by, HeldBy::QuietHours);
        // Past 21:00 the rest waits for the morning.
        let f = simulate(at(New_York, 15, 20, 59), &[ny(120)], ONE_A_SECOND).unwrap();
        assert_eq!(f.at, at(New_York, 16, 8, 1));
    }

    #[test]
    fn the_daily_cap_rolls_over_at_midnight_pacific() {
        let pace = Pace {
            gap_us: 1_000_000,
            cap: Some(100),
            used_today: 40,
        };
        // 60 left today (Pacific); the other 40 go at 08:00 New York the next morning.
        let f = simulate(at(New_York, 15, 10, 0), &[ny(100)], pace).unwrap();
        assert_eq!(f.at, at(New_York, 16, 8, 0) + Duration::seconds(40));
        assert_eq!(f.held_by, HeldBy::DailyCap);
        // A west-coast list starts again at 08:00 Los Angeles, not at midnight.
        let west = Group {
            tz: Los_Angeles,
            window: (8, 21),
            n: 100,
        };
        let f = simulate(at(Los_Angeles, 15, 10, 0), &[west], pace).unwrap();
        assert_eq!(f.at, at(Los_Angeles, 16, 8, 0) + Duration::seconds(40));
    }

    #[test]
    fn open_zones_share_the_rate_and_a_closed_one_waits() {
        // 20:30 in New York, 17:30 in Los Angeles: New York closes at 21:00 with 1,800 texts
        // sent between the two; the rest of New York waits for its morning.
        let west = Group {
            tz: Los_Angeles,
            window: (8, 21),
            n: 1800,
        };
        let f = simulate(at(New_York, 15, 20, 30), &[ny(1800), west], ONE_A_SECOND).unwrap();
        assert_eq!(f.at, at(New_York, 16, 8, 15));
        assert!(simulate(at(New_York, 15, 10, 0), &[ny(0)], ONE_A_SECOND).is_none());
    }
}
