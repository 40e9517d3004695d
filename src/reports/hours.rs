//! Business hours: the weekdays and the local opening and closing times in which a response
//! time counts (a text that arrives on Friday evening and is answered on Monday at 9:05 took
//! five minutes, not sixty-three hours). Kept on the organisation (migration 52); any member
//! reads them, owners change them.
use crate::auth::entity::organization;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;
use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, Set};
use uuid::Uuid;

pub use crate::auth::entity::organization::{CLOSE_DEFAULT, DAYS_DEFAULT, OPEN_DEFAULT};

const DAY_NAMES: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// Business hours: which weekdays (Monday first), and the opening and closing minute of the
/// local day (closing after opening; 1440 is midnight at the day's end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hours {
    pub days: [bool; 7],
    pub open: u32,
    pub close: u32,
}

impl Default for Hours {
    fn default() -> Self {
        Self::from_row("", 0, 0)
    }
}

impl Hours {
    /// As stored; anything unreadable stands for the default.
    pub fn from_row(days: &str, open: i32, close: i32) -> Self {
        let mut set = [false; 7];
        for c in days.chars() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=7).contains(d)) {
                set[d as usize - 1] = true;
            }
        }
        if (0..close).contains(&open) && close <= 1440 && set.contains(&true) {
            Self {
                days: set,
                open: open as u32,
                close: close as u32,
            }
        } else {
            Self {
                days: [true, true, true, true, true, false, false],
                open: OPEN_DEFAULT as u32,
                close: CLOSE_DEFAULT as u32,
            }
        }
    }

    /// The weekdays as stored ("12345").
    pub fn days_row(&self) -> String {
        (1..=7)
            .filter(|d| self.days[*d - 1])
            .map(|d| char::from(b'0' + d as u8))
            .collect()
    }

    /// From a form: the weekdays ticked (1–7) and the times as `HH:MM`, or why not.
    pub fn parse(days: &[u32], open: &str, close: &str) -> AppResult<Self> {
        let time = |s: &str, what: &str| -> AppResult<u32> {
            let s = s.trim();
            if s == "24:00" {
                return Ok(1440);
            }
            NaiveTime::parse_from_str(s, "%H:%M")
                .map(|t| t.hour() * 60 + t.minute())
                .map_err(|_| {
                    AppError::Validation(format!(
                        "The {what} time \"{s}\" is not a time of day (HH:MM)."
                    ))
                })
        };
        let (open, close) = (time(open, "opening")?, time(close, "closing")?);
        if close <= open {
            return Err(AppError::validation(
                "Closing time must come after opening time.",
            ));
        }
        let mut set = [false; 7];
        for d in days {
            match d {
                1..=7 => set[*d as usize - 1] = true,
                _ => return Err(AppError::validation("A weekday is 1 (Monday) to 7.")),
            }
        }
        if !set.contains(&true) {
            return Err(AppError::validation("Tick at least one business day."));
        }
        Ok(Self {
            days: set,
            open,
            close,
        })
    }

    /// `HH:MM` of a minute of the day.
    pub fn clock(minute: u32) -> String {
        format!("{:02}:{:02}", minute / 60, minute % 60)
    }

    /// In words: "Mon, Tue, Wed, Thu, Fri 09:00–17:00".
    pub fn describe(&self) -> String {
        let days: Vec<&str> = (0..7)
            .filter(|d| self.days[*d])
            .map(|d| DAY_NAMES[d])
            .collect();
        format!(
            "{} {}–{}",
            days.join(", "),
            Self::clock(self.open),
            Self::clock(self.close)
        )
    }

    /// The business seconds from `from` to `to` in `zone`: the time within the open hours of
    /// each business day between them (0 if `to` is not after `from`).
    pub fn seconds(&self, from: DateTime<Utc>, to: DateTime<Utc>, zone: Tz) -> i64 {
        if to <= from {
            return 0;
        }
        let (first, last) = (
            from.with_timezone(&zone).date_naive(),
            to.with_timezone(&zone).date_naive(),
        );
        let mut total = 0;
        let mut d = first;
        while d <= last {
            if self.days[d.weekday().num_days_from_monday() as usize] {
                let (open, close) = (at(zone, d, self.open), at(zone, d, self.close));
                let span = close.min(to) - open.max(from);
                total += span.num_seconds().max(0);
            }
            d += Duration::days(1);
        }
        total
    }
}

/// The instant of `minute` past local midnight on `day` in `zone`; a time that a clock change
/// skips counts as the hour after it.
fn at(zone: Tz, day: NaiveDate, minute: u32) -> DateTime<Utc> {
    let local = day.and_time(NaiveTime::MIN) + Duration::minutes(minute as i64);
    zone.from_local_datetime(&local)
        .earliest()
        .or_else(|| {
            zone.from_local_datetime(&(local + Duration::hours(1)))
                .earliest()
        })
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|| Utc.from_utc_datetime(&local))
}

/// The organisation's business hours.
pub async fn of<C: ConnectionTrait>(db: &C, org: Uuid) -> AppResult<Hours> {
    let row = organization::Entity::find_by_id(org)
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("Organisation"))?;
    Ok(Hours::from_row(
        &row.business_days,
        row.business_open,
        row.business_close,
    ))
}

/// Sets the organisation's business hours: owners only. They count from the next response on;
/// response times already counted keep the hours they were counted in.
pub async fn save(state: &AppState, m: &Member, h: Hours) -> AppResult<()> {
    m.require_owner()?;
    organization::ActiveModel {
        id: sea_orm::ActiveValue::Unchanged(m.organization_id),
        business_days: Set(h.days_row()),
        business_open: Set(h.open as i32),
        business_close: Set(h.close as i32),
        ..Default::default()
    }
    .update(&state.db)
    .await?;
    tracing::info!(org = %m.organization_id, hours = %h.describe(), "business hours set");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::America::Los_Angeles as LA;

    fn la(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
        LA.with_ymd_and_hms(y, mo, d, h, mi, 0)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn only_open_hours_on_business_days_count() {
        let h = Hours::default();
        // Within one morning.
        assert_eq!(
            h.seconds(la(2026, 11, 2, 9, 0), la(2026, 11, 2, 9, 4), LA),
            240
        );
        // Friday 18:00 to Monday 09:05: five minutes.
        assert_eq!(
            h.seconds(la(2026, 11, 6, 18, 0), la(2026, 11, 9, 9, 5), LA),
            300
        );
        // Monday 16:50 to Tuesday 09:10: ten minutes then ten.
        assert_eq!(
            h.seconds(la(2026, 11, 2, 16, 50), la(2026, 11, 3, 9, 10), LA),
            1200
        );
        // Night to early morning, all outside: nothing.
        assert_eq!(
            h.seconds(la(2026, 11, 2, 22, 0), la(2026, 11, 3, 7, 0), LA),
            0
        );
        assert_eq!(
            h.seconds(la(2026, 11, 3, 7, 0), la(2026, 11, 2, 22, 0), LA),
            0
        );
    }

    #[test]
    fn a_clock_change_is_counted_in_real_seconds() {
        // All week open round the clock; 1 November 2026 is 25 hours long in Los Angeles.
        let h = Hours::parse(&[1, 2, 3, 4, 5, 6, 7], "00:00", "24:00").unwrap();
        assert_eq!(
            h.seconds(la(2026, 11, 1, 0, 0), la(2026, 11, 2, 0, 0), LA),
            25 * 3600
        );
        // 8 March 2026 is 23 hours long.
        assert_eq!(
            h.seconds(la(2026, 3, 8, 0, 0), la(2026, 3, 9, 0, 0), LA),
            23 * 3600
        );
    }

    #[test]
    fn hours_from_a_form_are_checked() {
        let h = Hours::parse(&[1, 3, 5], "08:30", "18:00").unwrap();
        assert_eq!(h.days_row(), "135");
        assert_eq!(h.describe(), "Mon, Wed, Fri 08:30–18:00");
        assert_eq!(Hours::from_row("135", 510, 1080), h);
        assert!(Hours::parse(&[1], "18:00", "08:00").is_err());
        assert!(Hours::parse(&[], "08:00", "18:00").is_err());
        assert!(Hours::parse(&[8], "08:00", "18:00").is_err());
        assert!(Hours::parse(&[1], "8 am", "18:00").is_err());
        assert_eq!(
            Hours::from_row(DAYS_DEFAULT, OPEN_DEFAULT, CLOSE_DEFAULT),
            Hours::default()
        );
        assert_eq!(Hours::from_row("9", 600, 60), Hours::default());
    }
}
