//! Send slots, shared by every instance. A number in a sender profile takes its turn in the
//! profile's one queue (`sender_profile.next_send_us`, advanced by the profile's rate in one
//! atomic update), so the profile's numbers together never pass its rate, however many
//! instances send. A 10DLC profile with a daily cap also counts the Pacific day's sends in the
//! same update; past the cap there is no slot until midnight Pacific, when T-Mobile's count
//! starts again. A number in no profile is paced on its own, as before profiles. Texts sent
//! outside campaigns count against the day as they leave (`count_sent`), without waiting.
use crate::error::AppResult;
use crate::platform::events::{DomainEvent, Listener};
use crate::platform::AppState;
use chrono::{DateTime, Days, NaiveTime, TimeZone, Utc};
use chrono_tz::America::Los_Angeles;
use sea_orm::{ConnectionTrait, DbBackend, EntityTrait, Statement};
use std::time::Duration;
use uuid::Uuid;

/// When a send may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    At(DateTime<Utc>),
    /// The brand's daily cap is spent; the next slot is after `until` (midnight Pacific).
    CapReached {
        until: DateTime<Utc>,
        cap: u64,
    },
}

/// The Pacific day T-Mobile counts `at` on ("2026-01-15").
pub fn pacific_day(at: DateTime<Utc>) -> String {
    at.with_timezone(&Los_Angeles).date_naive().to_string()
}

/// The next midnight in Pacific time after `at`.
pub fn next_pacific_midnight(at: DateTime<Utc>) -> DateTime<Utc> {
    let day = at.with_timezone(&Los_Angeles).date_naive() + Days::new(1);
    Los_Angeles
        .from_local_datetime(&day.and_time(NaiveTime::MIN))
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or(at + chrono::Duration::days(1))
}

/// Reserves the next send from `number_id`: in its profile's queue, or (in none) its own with
/// `default_gap` between sends.
pub async fn reserve(state: &AppState, number_id: Uuid, default_gap: Duration) -> AppResult<Slot> {
    let backend = state.db.get_database_backend();
    let row = state
        .db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            match backend {
                DbBackend::Postgres => "SELECT sender_profile_id FROM phone_number WHERE id = $1",
                _ => "SELECT sender_profile_id FROM phone_number WHERE id = ?",
            },
            [number_id.into()],
        ))
        .await?
        .ok_or_else(|| crate::error::AppError::not_found("Phone number"))?;
    let profile: Option<Uuid> = row.try_get("", "sender_profile_id")?;
    if let Some(p) = profile {
        if let Some(slot) = reserve_in_profile(state, p).await? {
            return Ok(slot);
        }
    }
    reserve_number(state, number_id, default_gap)
        .await
        .map(Slot::At)
}

/// Hears texts leave (`DomainEvent::TextLeft`): each one outside a campaign counts against its
/// profile's day (a campaign's texts were counted as their slots were reserved).
pub struct DailyCount;

#[async_trait::async_trait]
impl Listener for DailyCount {
    async fn on(&self, state: &AppState, event: &DomainEvent) -> AppResult<()> {
        match event {
            DomainEvent::TextLeft {
                phone_number_id,
                campaign: false,
                ..
            } => count_sent(state, *phone_number_id).await,
            _ => Ok(()),
        }
    }
}

/// Counts a text sent from `number_id` outside a campaign against its profile's Pacific day.
/// T-Mobile's cap counts every text of the brand: a conversation's texts are never held by it
/// (an answer waits for no one), but they use the day's allowance, so campaigns get what is left.
pub async fn count_sent(state: &AppState, number_id: Uuid) -> AppResult<()> {
    let backend = state.db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => {
            "UPDATE sender_profile SET \
             cap_used = CASE WHEN cap_day = $1 THEN cap_used + 1 ELSE 1 END, cap_day = $1 \
             WHERE id = (SELECT sender_profile_id FROM phone_number WHERE id = $2)"
        }
        _ => {
            "UPDATE sender_profile SET \
             cap_used = CASE WHEN cap_day = ?1 THEN cap_used + 1 ELSE 1 END, cap_day = ?1 \
             WHERE id = (SELECT sender_profile_id FROM phone_number WHERE id = ?2)"
        }
    };
    let today = pacific_day(state.clock.now());
    state
        .db
        .execute_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [today.into(), number_id.into()],
        ))
        .await?;
    Ok(())
}

/// A slot in profile `id`'s queue; None if the profile is gone (the number sends on its own).
async fn reserve_in_profile(state: &AppState, id: Uuid) -> AppResult<Option<Slot>> {
    let now = state.clock.now();
    let today = pacific_day(now);
    let backend = state.db.get_database_backend();
    // The gap is the profile's own: a unit's microseconds over its rate, rounded up
    // (`model::Rate::gap_us`), in integers on both databases.
    let gap = "((CASE rate_unit WHEN 'minute' THEN 60000000 ELSE 1000000 END) + rate - 1) / rate";
    let sql = match backend {
        DbBackend::Postgres => format!(
            "UPDATE sender_profile SET \
             cap_used = CASE WHEN cap_day = $1 THEN cap_used + 1 ELSE 1 END, cap_day = $1, \
             next_send_us = GREATEST(COALESCE(next_send_us, 0), $2) + {gap} \
             WHERE id = $3 AND (daily_cap IS NULL OR kind <> '10dlc' OR cap_day IS NULL \
             OR cap_day <> $1 OR cap_used < daily_cap) \
             RETURNING next_send_us, {gap} AS gap"
        ),
        _ => format!(
            "UPDATE sender_profile SET \
             cap_used = CASE WHEN cap_day = ?1 THEN cap_used + 1 ELSE 1 END, cap_day = ?1, \
             next_send_us = MAX(COALESCE(next_send_us, 0), ?2) + {gap} \
             WHERE id = ?3 AND (daily_cap IS NULL OR kind <> '10dlc' OR cap_day IS NULL \
             OR cap_day <> ?1 OR cap_used < daily_cap) \
             RETURNING next_send_us, {gap} AS gap"
        ),
    };
    let now_us = now.timestamp_micros();
    let row = state
        .db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [today.into(), now_us.into(), id.into()],
        ))
        .await?;
    if let Some(r) = row {
        let next: i64 = r.try_get("", "next_send_us")?;
        let gap: i64 = r.try_get("", "gap")?;
        let at = DateTime::from_timestamp_micros(next - gap).unwrap_or(now);
        return Ok(Some(Slot::At(at)));
    }
    // No slot: the cap is spent today, or the profile is gone.
    let cap = crate::sender_profiles::entity::Entity::find_by_id(id)
        .one(&state.db)
        .await?
        .and_then(|p| p.daily_cap());
    Ok(cap.map(|cap| Slot::CapReached {
        until: next_pacific_midnight(now),
        cap,
    }))
}

/// The most send workers one campaign runs on one instance.
pub const MAX_WORKERS: usize = 64;
/// How long a worker's send may take (the provider's round trip) with the rate still held.
const SEND_BUDGET_SECS: f64 = 0.5;

/// Send workers a campaign from `number_id` runs here: at least `base` (`SEND_CONCURRENCY`),
/// and enough for its profile's rate when each send takes up to half a second (a short code's
/// 100 a second needs 50 texts in flight; four workers would send 8 a second).
pub async fn workers_for(state: &AppState, number_id: Uuid, base: usize) -> AppResult<usize> {
    let profile = crate::sender_profiles::service::of_number(state, number_id).await?;
    let needed = profile.map_or(0, |p| {
        (p.rate().per_second() * SEND_BUDGET_SECS).ceil() as usize
    });
    Ok(needed.clamp(base.max(1), MAX_WORKERS.max(base)))
}

/// Reserves a lone number's next send slot, shared by every instance: answers when this send
/// may go. The row's atomic update orders concurrent reservations.
pub async fn reserve_number(
    state: &AppState,
    number_id: Uuid,
    gap: Duration,
) -> AppResult<DateTime<Utc>> {
    let now_ms = state.clock.now().timestamp_millis();
    let gap_ms = gap.as_millis() as i64;
    let backend = state.db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => "UPDATE phone_number SET next_send_ms = GREATEST(COALESCE(next_send_ms, 0), $1) + $2 WHERE id = $3 RETURNING next_send_ms",
        _ => "UPDATE phone_number SET next_send_ms = MAX(COALESCE(next_send_ms, 0), ?) + ? WHERE id = ? RETURNING next_send_ms",
    };
    let row = state
        .db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [now_ms.into(), gap_ms.into(), number_id.into()],
        ))
        .await?
        .ok_or_else(|| crate::error::AppError::not_found("Phone number"))?;
    let next: i64 = row.try_get("", "next_send_ms")?;
    Ok(DateTime::from_timestamp_millis(next - gap_ms).unwrap_or_else(|| state.clock.now()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_day_is_pacific_and_ends_at_its_midnight() {
        // 07:30 UTC on 16 January is 23:30 on the 15th in Los Angeles.
        let at = Utc.with_ymd_and_hms(2026, 1, 16, 7, 30, 0).unwrap();
        assert_eq!(pacific_day(at), "2026-01-15");
        assert_eq!(
            next_pacific_midnight(at),
            Utc.with_ymd_and_hms(2026, 1, 16, 8, 0, 0).unwrap()
        );
        // Summer time: midnight is 07:00 UTC.
        let july = Utc.with_ymd_and_hms(2026, 7, 1, 12, 0, 0).unwrap();
        assert_eq!(
            next_pacific_midnight(july),
            Utc.with_ymd_and_hms(2026, 7, 2, 7, 0, 0).unwrap()
        );
    }
}
