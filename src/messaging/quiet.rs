//! Quiet hours: a text the business starts (a campaign, an agent's outreach, a plan's step) goes
//! out only 08:00–21:00 in the recipient's time zone (47 CFR 64.1200(c)(1)), and 08:00–20:00 to
//! Florida, Oklahoma and Maryland (FTSA, OTSA, Stop the Spam Calls Act). The zone is the
//! contact's own, else the one its area code suggests (said as inferred), else the
//! organisation's; the state comes from the area code. A reply to someone who texted is not held.
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

/// States whose own law narrows the window to 08:00–20:00 and caps marketing at 3 texts a person
/// in 24 hours.
pub const STRICT_STATES: &[(&str, &str)] = &[
    ("FL", "Florida (FTSA)"),
    ("OK", "Oklahoma (OTSA)"),
    ("MD", "Maryland (Stop the Spam Calls Act)"),
];
/// Marketing texts one person may get in any 24 hours under those states' rules.
pub const STRICT_DAILY_CAP: u64 = 3;

/// Where a recipient's zone came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneSource {
    Own,
    /// From the number's area code.
    Inferred,
    Organisation,
}

/// Who a text reaches, in time and place: the zone, where it came from, the US state (from the
/// area code), and the hours texts may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recipient {
    pub tz: Tz,
    pub source: ZoneSource,
    pub state: Option<&'static str>,
    pub npa: Option<u16>,
    /// The local hours [start, end) in which texts may go.
    pub window: (u32, u32),
}

impl Recipient {
    /// The state law that narrows the window, if any (e.g. "Florida (FTSA)").
    pub fn state_law(&self) -> Option<&'static str> {
        let st = self.state?;
        STRICT_STATES
            .iter()
            .find(|(s, _)| *s == st)
            .map(|(_, law)| *law)
    }

    /// The zone in words: "America/New_York (inferred from area code 305)".
    pub fn zone_words(&self) -> String {
        match (self.source, self.npa) {
            (ZoneSource::Inferred, Some(npa)) => {
                format!("{} (inferred from area code {npa})", self.tz)
            }
            (ZoneSource::Organisation, _) => format!("{} (the organisation's)", self.tz),
            _ => self.tz.to_string(),
        }
    }
}

/// The recipient's zone, state and window.
pub fn recipient(c: &contact::Model, org_zone: &str) -> Recipient {
    recipient_of(c.phone.as_deref(), c.time_zone.as_deref(), org_zone)
}

/// The same from a contact's phone number and own zone (as stored).
pub fn recipient_of(phone: Option<&str>, time_zone: Option<&str>, org_zone: &str) -> Recipient {
    let area = phone.and_then(crate::contacts::area_codes::lookup);
    let own = time_zone.and_then(|z| z.parse::<Tz>().ok());
    let inferred = area.and_then(|a| a.zone.parse::<Tz>().ok());
    let (tz, source) = match (own, inferred) {
        (Some(tz), _) => (tz, ZoneSource::Own),
        (None, Some(tz)) => (tz, ZoneSource::Inferred),
        (None, None) => (
            org_zone.parse().unwrap_or(Tz::UTC),
            ZoneSource::Organisation,
        ),
    };
    let state = area.map(|a| a.state);
    let strict = state.is_some_and(|s| STRICT_STATES.iter().any(|(st, _)| *st == s));
    Recipient {
        tz,
        source,
        state,
        npa: area.map(|a| a.npa),
        window: if strict {
            (QUIET_END, 20)
        } else {
            (QUIET_END, QUIET_START)
        },
    }
}

/// When sending to someone in `tz` may next happen at or after `now` (now itself if allowed),
/// in the federal window.
pub fn next_allowed(now: DateTime<Utc>, tz: Tz) -> DateTime<Utc> {
    next_allowed_in(now, tz, (QUIET_END, QUIET_START))
}

/// The same within the hours [start, end) local time.
pub fn next_allowed_in(now: DateTime<Utc>, tz: Tz, (start, end): (u32, u32)) -> DateTime<Utc> {
    let local = now.with_timezone(&tz);
    let hour = chrono::Timelike::hour(&local);
    if (start..end).contains(&hour) {
        return now;
    }
    let day = if hour >= end {
        local.date_naive() + chrono::Days::new(1)
    } else {
        local.date_naive()
    };
    let open = day.and_time(NaiveTime::from_hms_opt(start, 0, 0).unwrap_or_default());
    tz.from_local_datetime(&open)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or(now)
}

/// The contact's own zone, else their area code's, else the organisation's, else UTC.
pub fn zone_of(c: &contact::Model, org_zone: &str) -> Tz {
    recipient(c, org_zone).tz
}

/// When a text to the contact may next go at or after `now`, in their window.
pub fn next_allowed_for(now: DateTime<Utc>, c: &contact::Model, org_zone: &str) -> DateTime<Utc> {
    let r = recipient(c, org_zone);
    next_allowed_in(now, r.tz, r.window)
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
    let at = next_allowed_for(now, c, org_zone);
    (at > now).then_some(at)
}

/// Why a text to the contact is held now, in words for the card and the model.
pub fn held_reason(until: DateTime<Utc>, c: &contact::Model, org_zone: &str) -> String {
    let r = recipient(c, org_zone);
    let law = r
        .state_law()
        .map(|l| format!(", under {l}"))
        .unwrap_or_default();
    format!(
        "{} is in quiet hours ({}:00–0{}:00 their time, {}{law}); texts may go from {}.",
        c.name,
        r.window.1,
        r.window.0,
        r.zone_words(),
        until.with_timezone(&r.tz).format("%a %H:%M")
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

    fn person(phone: &str, tz: Option<&str>) -> contact::Model {
        let now = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
        contact::Model {
            id: uuid::Uuid::nil(),
            organization_id: uuid::Uuid::nil(),
            name: "P".into(),
            phone: Some(phone.into()),
            email: None,
            tags: serde_json::json!([]),
            custom_fields: serde_json::json!({}),
            notes: String::new(),
            time_zone: tz.map(str::to_owned),
            created_at: now,
            updated_at: now,
            consent_source: "none".into(),
            consent_at: None,
            consent_note: None,
            unreachable_reason: None,
            unreachable_at: None,
        }
    }

    #[test]
    fn the_zone_is_the_contacts_then_the_area_codes_then_the_organisations() {
        let miami = recipient(&person("+13055550100", None), "UTC");
        assert_eq!(miami.tz, chrono_tz::America::New_York);
        assert_eq!(miami.source, ZoneSource::Inferred);
        assert_eq!((miami.state, miami.window), (Some("FL"), (8, 20)));
        assert!(miami.zone_words().contains("inferred from area code 305"));
        let own = recipient(&person("+13055550100", Some("America/Denver")), "UTC");
        assert_eq!(
            (own.tz, own.source),
            (chrono_tz::America::Denver, ZoneSource::Own)
        );
        // The state rules follow the number even when the contact set a zone.
        assert_eq!(own.window, (8, 20));
        let sf = recipient(&person("+14155550100", None), "UTC");
        assert_eq!((sf.state, sf.window), (Some("CA"), (8, 21)));
        let uk = recipient(&person("+447700900000", None), "Europe/London");
        assert_eq!(
            (uk.tz, uk.source),
            (chrono_tz::Europe::London, ZoneSource::Organisation)
        );
    }

    #[test]
    fn florida_closes_at_eight() {
        // 20:30 in Miami (EST, UTC-5) is 01:30 UTC the next day: held until 08:00 local.
        let c = person("+13055550100", None);
        let now = Utc.with_ymd_and_hms(2026, 1, 16, 1, 30, 0).unwrap();
        assert_eq!(
            quiet_until(now, &c, "UTC"),
            Some(Utc.with_ymd_and_hms(2026, 1, 16, 13, 0, 0).unwrap())
        );
        assert!(held_reason(now, &c, "UTC").contains("Florida"));
        // The same hour in San Francisco is allowed.
        let sf = person("+14155550100", Some("America/New_York"));
        assert_eq!(quiet_until(now, &sf, "UTC"), None);
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
