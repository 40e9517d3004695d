//! Duplicate protection (issue 51 §1): before a campaign is approved, the other campaigns within
//! a day of it that text some of the same contacts are named, with how many, and when they go
//! ("212 of these contacts are in 'Saturday opening', sending tomorrow 10:00"). Counted in SQL
//! on each campaign's items, so exact whatever the size.
use crate::campaign::entity::operation;
use crate::campaign::model::OperationStatus;
use crate::contacts::entity::contact;
use crate::error::AppResult;
use crate::platform::AppState;
use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

/// How near in time another campaign counts.
const WINDOW_HOURS: i64 = 24;
/// Campaigns looked at, the newest first.
const CANDIDATES: u64 = 10;
/// A campaign's words shown in its name.
const NAME_CHARS: usize = 40;

/// When `at` is, in words, in the organisation's zone: "today 10:00", "tomorrow 09:30",
/// "yesterday 17:05", or "Sat 12 Dec 10:00".
pub fn day_words(at: DateTime<Utc>, now: DateTime<Utc>, zone: &str) -> String {
    let tz: Tz = zone.parse().unwrap_or(Tz::UTC);
    let (at, now) = (at.with_timezone(&tz), now.with_timezone(&tz));
    let days = (at.date_naive() - now.date_naive()).num_days();
    let time = at.format("%H:%M");
    match days {
        0 => format!("today {time}"),
        1 => format!("tomorrow {time}"),
        -1 => format!("yesterday {time}"),
        _ => at.format("%a %-d %b %H:%M").to_string(),
    }
}

/// A campaign's words with each merge field as its fallback ("there") or its name in brackets.
fn plain(words: &str) -> String {
    let mut out = String::with_capacity(words.len());
    let mut rest = words;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find("}}") else {
            out.push_str(&rest[open..]);
            return out;
        };
        let field = rest[open + 2..open + close].trim();
        match field.split_once('|') {
            Some((_, fallback)) => out.push_str(fallback.trim()),
            None => out.push_str(&format!("[{field}]")),
        }
        rest = &rest[open + close + 2..];
    }
    out.push_str(rest);
    out
}

/// A campaign's name: the start of its words.
fn name(op: &operation::Model) -> String {
    let words = plain(op.message_concept.trim());
    let words = words.as_str();
    match words.char_indices().nth(NAME_CHARS) {
        Some((i, _)) => format!("{}…", words[..i].trim_end()),
        None => words.to_owned(),
    }
}

/// When the campaign goes, went, or that it waits.
fn when(op: &operation::Model, now: DateTime<Utc>, zone: &str) -> String {
    let at = op.send_after.filter(|at| *at > now);
    match (op.status, at) {
        (OperationStatus::Done, _) => format!("sent {}", day_words(op.updated_at, now, zone)),
        (_, Some(at)) => format!("sending {}", day_words(at, now, zone)),
        (OperationStatus::Sending, None) => "sending now".into(),
        _ => "waiting for review".into(),
    }
}

/// The sentences for the campaigns within a day of `at` that text some of the audience `cond`.
pub async fn near(
    state: &AppState,
    org: Uuid,
    cond: Condition,
    at: DateTime<Utc>,
    except: Option<Uuid>,
) -> AppResult<Vec<String>> {
    let (from, to) = (
        at - Duration::hours(WINDOW_HOURS),
        at + Duration::hours(WINDOW_HOURS),
    );
    let timed = Condition::any()
        .add(operation::Column::SendAfter.between(from, to))
        .add(
            Condition::all()
                .add(operation::Column::SendAfter.is_null())
                .add(operation::Column::UpdatedAt.between(from, to)),
        );
    let mut q = operation::Entity::find()
        .filter(operation::Column::OrganizationId.eq(org))
        .filter(
            operation::Column::Status
                .is_not_in([OperationStatus::Cancelled, OperationStatus::Failed]),
        )
        .filter(timed);
    if let Some(id) = except {
        q = q.filter(operation::Column::Id.ne(id));
    }
    let candidates = q
        .order_by_desc(operation::Column::CreatedAt)
        .limit(CANDIDATES)
        .all(&state.db)
        .await?;
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let zone = crate::messaging::quiet::org_zone(&state.db, org).await?;
    let now = state.clock.now();
    let mut out = Vec::new();
    for op in candidates {
        let n = crate::campaign::written::shared_with(state, op.id, cond.clone()).await?;
        if n > 0 {
            let lead = if n == 1 {
                "1 of these contacts is".to_owned()
            } else {
                format!("{n} of these contacts are")
            };
            out.push(format!(
                "{lead} in '{}', {}",
                name(&op),
                when(&op, now, &zone)
            ));
        }
    }
    Ok(out)
}

/// The overlaps of a campaign awaiting review with the others near it.
pub async fn of_operation(state: &AppState, op: &operation::Model) -> AppResult<Vec<String>> {
    if op.status != OperationStatus::AwaitingApproval {
        return Ok(Vec::new());
    }
    let cond = Condition::all()
        .add(contact::Column::Id.in_subquery(crate::campaign::written::texted_contacts(op.id)));
    let at = op.send_after.unwrap_or_else(|| state.clock.now());
    near(state, op.organization_id, cond, at, Some(op.id)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn merge_fields_read_as_their_fallback_or_name() {
        assert_eq!(
            plain("Hi {{contact.first_name|there}}, {{org.name}} opens"),
            "Hi there, [org.name] opens"
        );
        assert_eq!(plain("no fields"), "no fields");
    }

    #[test]
    fn days_are_named_in_the_organisations_zone() {
        // 20:00 UTC on Friday 11 Dec is 12:00 in Los Angeles.
        let now = Utc.with_ymd_and_hms(2026, 12, 11, 20, 0, 0).unwrap();
        let la = "America/Los_Angeles";
        let at = |d, h| Utc.with_ymd_and_hms(2026, 12, d, h, 0, 0).unwrap();
        assert_eq!(day_words(at(11, 23), now, la), "today 15:00");
        // 18:00 UTC on the 12th is 10:00 on Saturday there.
        assert_eq!(day_words(at(12, 18), now, la), "tomorrow 10:00");
        assert_eq!(day_words(at(11, 1), now, la), "yesterday 17:00");
        assert_eq!(day_words(at(14, 18), now, la), "Mon 14 Dec 10:00");
        // In UTC, 01:00 on the 12th is tomorrow.
        assert_eq!(day_words(at(12, 1), now, "UTC"), "tomorrow 01:00");
    }
}
