//! Keeping the daily rollups, by passes over what is not yet counted, each text once for its
//! arrival and once for its final delivery outcome, both on the text's day in the
//! organisation's zone:
//! - arrivals (`message.rolled_up` false): texts in and out, segments, pictures and cost;
//! - outcomes (`message.outcome_rolled` false and a final status): delivered, undelivered or
//!   failed, with the carrier's code for a failure, or "herald" for a text the send ledger gave
//!   up on before any provider took it;
//! - and with them the campaign funnels (`funnel_pass`): deliveries, answers, opt-outs, clicks.
//!
//! Two partial indexes hold just what is still to count, so a pass costs what it counts, not
//! the table. Texts stored before the rollups existed are counted by the first passes.
//!
//! Passes run in the background every few seconds and before a report is read, on any number
//! of instances: on PostgreSQL each pass claims its texts with SKIP LOCKED (a status callback
//! on a claimed text waits for the pass), and the counters are added in key order (no two
//! passes deadlock). A pass's counts and its texts' marks commit together, so a crash loses or
//! doubles nothing.
use crate::auth::entity::organization;
use crate::campaign::segments::{segments, COST_PER_MMS, COST_PER_SEGMENT};
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::messaging::model::SendState;
use crate::platform::AppState;
use crate::reports::ai_share::Counts;
use crate::reports::entity as report_daily;
use crate::reports::funnel_pass::Answer;
use crate::reports::hours::Hours;
use crate::reports::replies::Reply;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use sea_orm::sea_query::{Expr, LockBehavior, LockType, OnConflict};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, FromQueryResult, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;
use uuid::Uuid;

/// Texts a pass counts, at most.
/// (A pass holds SQLite's one write lock: a thousand keeps it short while a history is counted.)
pub const BATCH: u64 = 1000;
/// How often the background passes look for new texts.
const EVERY: Duration = Duration::from_secs(2);
/// Passes the background runs in a row before it looks again after `EVERY`.
const BACKGROUND_PASSES: usize = 50;
/// The shortest rest between two background passes.
const MIN_REST: Duration = Duration::from_millis(20);

/// The metrics kept.
pub mod metric {
    pub const IN: &str = "in";
    pub const OUT: &str = "out";
    /// Texts out that answered the contact (`purpose` "reply"), by anyone.
    pub const REPLIES: &str = "replies";
    /// SMS segments of the texts out without pictures.
    pub const SEGMENTS: &str = "segments";
    /// Texts out with pictures (each one MMS).
    pub const MMS: &str = "mms";
    /// The estimated cost of the texts out, in millionths of a dollar.
    pub const COST_MICROS: &str = "cost_micros";
    pub const DELIVERED: &str = "delivered";
    pub const UNDELIVERED: &str = "undelivered";
    pub const FAILED: &str = "failed";
    /// `fail:<carrier code>` per undelivered or failed text; `fail:herald` for one the send
    /// ledger gave up on, `fail:none` for a carrier failure without a code.
    pub const FAIL_PREFIX: &str = "fail:";
}

type Key = (Uuid, String, Uuid, String);

/// The day of `at` in `zone`, as stored.
pub fn day_of(at: DateTime<Utc>, zone: Tz) -> String {
    at.with_timezone(&zone).format("%Y-%m-%d").to_string()
}

fn zone_of(name: &str) -> Tz {
    name.parse().unwrap_or(chrono_tz::UTC)
}

/// Each organisation's zone and business hours, read once a pass.
#[derive(Default)]
pub struct Zones(HashMap<Uuid, (Tz, Hours)>);

impl Zones {
    pub async fn hours<C: ConnectionTrait>(&mut self, db: &C, org: Uuid) -> AppResult<(Tz, Hours)> {
        if let Some(z) = self.0.get(&org) {
            return Ok(*z);
        }
        let row = organization::Entity::find_by_id(org).one(db).await?;
        let z = row.map_or((chrono_tz::UTC, Hours::default()), |o| {
            (
                zone_of(&o.time_zone),
                Hours::from_row(&o.business_days, o.business_open, o.business_close),
            )
        });
        self.0.insert(org, z);
        Ok(z)
    }

    pub async fn of<C: ConnectionTrait>(&mut self, db: &C, org: Uuid) -> AppResult<Tz> {
        Ok(self.hours(db, org).await?.0)
    }
}

/// The cost of one text out, in millionths of a dollar.
fn cost_micros(body: &str, pictures: bool) -> (i64, i64) {
    if pictures {
        return (0, (COST_PER_MMS * 1e6).round() as i64);
    }
    let n = segments(body).count.max(1) as i64;
    (n, (n as f64 * COST_PER_SEGMENT * 1e6).round() as i64)
}

/// Adds `counts` to the counters, in key order.
async fn add<C: ConnectionTrait>(db: &C, counts: BTreeMap<Key, i64>) -> AppResult<()> {
    let rows: Vec<report_daily::ActiveModel> = counts
        .into_iter()
        .filter(|(_, n)| *n != 0)
        .map(
            |((org, day, number, metric), n)| report_daily::ActiveModel {
                organization_id: Set(org),
                day: Set(day),
                phone_number_id: Set(number),
                metric: Set(metric),
                value: Set(n),
            },
        )
        .collect();
    for part in rows.chunks(200) {
        report_daily::Entity::insert_many(part.to_vec())
            .on_conflict(
                OnConflict::columns([
                    report_daily::Column::OrganizationId,
                    report_daily::Column::Day,
                    report_daily::Column::PhoneNumberId,
                    report_daily::Column::Metric,
                ])
                .value(
                    report_daily::Column::Value,
                    Expr::cust("report_daily.value + excluded.value"),
                )
                .to_owned(),
            )
            .exec_without_returning(db)
            .await?;
    }
    Ok(())
}

/// A text claimed by a pass: what counting needs of it.
#[derive(Debug, FromQueryResult)]
struct Row {
    id: Uuid,
    organization_id: Uuid,
    contact_id: Uuid,
    phone_number_id: Uuid,
    direction: String,
    body: String,
    media_count: i32,
    created_at: DateTime<Utc>,
    status: String,
    send_state: Option<SendState>,
    provider_sid: Option<String>,
    purpose: Option<String>,
    ai_origin: Option<String>,
    agent_id: Option<Uuid>,
    seq: Option<i64>,
    keyword: Option<String>,
}

/// Claims up to `BATCH` texts matching `pending` (raw SQL, the partial index's own words).
async fn claim<C: ConnectionTrait>(txn: &C, pending: &'static str) -> AppResult<Vec<Row>> {
    let mut q = message::Entity::find()
        .select_only()
        .columns([
            message::Column::Id,
            message::Column::OrganizationId,
            message::Column::ContactId,
            message::Column::PhoneNumberId,
            message::Column::Direction,
            message::Column::Body,
            message::Column::MediaCount,
            message::Column::CreatedAt,
            message::Column::Status,
            message::Column::SendState,
            message::Column::ProviderSid,
            message::Column::Purpose,
            message::Column::AiOrigin,
            message::Column::AgentId,
            message::Column::Seq,
            message::Column::Keyword,
        ])
        .filter(Expr::cust(pending))
        .order_by_asc(message::Column::Seq)
        .limit(BATCH);
    if txn.get_database_backend() == DbBackend::Postgres {
        q = q.lock_with_behavior(LockType::Update, LockBehavior::SkipLocked);
    }
    Ok(q.into_model::<Row>().all(txn).await?)
}

/// The carrier's code of each failed text among `ids`, from its latest status with one.
async fn codes<C: ConnectionTrait>(db: &C, ids: Vec<Uuid>) -> AppResult<HashMap<Uuid, String>> {
    use crate::messaging::entity::status_event;
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<(Uuid, Option<String>)> = status_event::Entity::find()
        .select_only()
        .column(status_event::Column::MessageId)
        .column(status_event::Column::ErrorCode)
        .filter(status_event::Column::MessageId.is_in(ids))
        .filter(status_event::Column::ErrorCode.is_not_null())
        .order_by_asc(status_event::Column::At)
        .into_tuple()
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, c)| Some((id, c?)))
        .collect())
}

/// One rollup pass at a time, on every instance (PostgreSQL; SQLite has one writer anyway): a
/// report page's catch-up then waits for a pass under way instead of skipping the texts it has
/// claimed, and never shows figures short of them.
const ROLLUP_LOCK: i64 = 0x4845_5241_4c44_5250; // "HERALDRP"

/// Counts up to `BATCH` arrivals and `BATCH` outcomes not yet counted; answers how many.
pub async fn pass(state: &AppState) -> AppResult<usize> {
    use migration::m20261128_000051_report_rollups::OUTCOME_PENDING;
    let txn = crate::platform::db::begin_write(&state.db).await?;
    crate::platform::db::advisory_xact_lock(&txn, ROLLUP_LOCK).await?;
    let arrivals = claim(&txn, "rolled_up = false").await?;
    let outcomes = claim(&txn, OUTCOME_PENDING).await?;
    let mut zones = Zones::default();
    let ai = crate::reports::ai_share::pass(&txn, &mut zones, BATCH).await?;
    let marks = crate::reports::funnel_pass::pass(&txn, BATCH).await?;
    if arrivals.is_empty() && outcomes.is_empty() {
        txn.commit().await?;
        return Ok(ai + marks);
    }
    let failed: Vec<Uuid> = outcomes
        .iter()
        .filter(|r| r.status != "delivered")
        .map(|r| r.id)
        .collect();
    let codes = codes(&txn, failed).await?;
    let mut counts: BTreeMap<Key, i64> = BTreeMap::new();
    let mut replies = Vec::new();
    for (outcome, rows) in [(false, &arrivals), (true, &outcomes)] {
        for row in rows {
            let (org, number) = (row.organization_id, row.phone_number_id);
            let day = day_of(row.created_at, zones.of(&txn, org).await?);
            let mut bump = |m: String, n: i64| {
                *counts.entry((org, day.clone(), number, m)).or_default() += n;
            };
            let status = &row.status;
            if outcome {
                bump(status.clone(), 1);
                if status != metric::DELIVERED {
                    let gave_up =
                        row.send_state == Some(SendState::Failed) && row.provider_sid.is_none();
                    let code = match (gave_up, codes.get(&row.id)) {
                        (true, _) => "herald".to_owned(),
                        (false, Some(c)) => c.trim().chars().take(8).collect(),
                        (false, None) => "none".to_owned(),
                    };
                    bump(format!("{}{code}", metric::FAIL_PREFIX), 1);
                }
            } else if row.direction == "inbound" {
                bump(metric::IN.into(), 1);
            } else {
                let pictures = row.media_count > 0;
                let (segs, cost) = cost_micros(&row.body, pictures);
                bump(metric::OUT.into(), 1);
                bump(metric::SEGMENTS.into(), segs);
                bump(metric::MMS.into(), pictures as i64);
                bump(metric::COST_MICROS.into(), cost);
                if row.purpose.as_deref() == Some("reply") {
                    bump(metric::REPLIES.into(), 1);
                    replies.push(Reply {
                        org,
                        contact: row.contact_id,
                        number,
                        seq: row.seq.unwrap_or(i64::MAX),
                        at: row.created_at,
                        ai_origin: row.ai_origin.clone(),
                        agent: row.agent_id,
                    });
                }
            }
        }
    }
    add(&txn, counts).await?;
    let answers: Vec<Answer> = arrivals
        .iter()
        .filter(|r| r.direction == "inbound" && r.keyword.is_none())
        .map(|r| Answer {
            contact: r.contact_id,
            at: r.created_at,
        })
        .collect();
    let delivered: Vec<Uuid> = outcomes
        .iter()
        .filter(|r| r.status == metric::DELIVERED)
        .map(|r| r.id)
        .collect();
    crate::reports::funnel_pass::count(&txn, &answers, &delivered).await?;
    let mut agents = Counts::default();
    crate::reports::replies::count(&txn, &mut zones, &replies, &mut agents).await?;
    agents.add(&txn).await?;
    for (col, rows) in [
        (message::Column::RolledUp, &arrivals),
        (message::Column::OutcomeRolled, &outcomes),
    ] {
        let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        for part in ids.chunks(500) {
            message::Entity::update_many()
                .col_expr(col, Expr::value(true))
                .filter(message::Column::Id.is_in(part.iter().copied()))
                .exec(&txn)
                .await?;
        }
    }
    txn.commit().await?;
    Ok(arrivals.len() + outcomes.len() + ai + marks)
}

/// Passes until every text stored so far is counted (or `max_passes` ran); answers how many.
pub async fn catch_up(state: &AppState, max_passes: usize) -> AppResult<usize> {
    let mut n = 0;
    for _ in 0..max_passes {
        match pass(state).await? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Runs passes in the background until shutdown.
///
/// Between two passes it rests at least as long as the last pass took: a pass holds SQLite's one
/// write lock, and passes back to back left another writer only microseconds to take it (a bulk
/// import waiting behind a history being counted gave up with "database is locked"). So counting
/// a backlog takes at most half the writer's time, and the rest of the app writes in between.
pub fn start(state: &AppState) {
    let bg = state.clone();
    state.loops.spawn(async move {
        loop {
            for _ in 0..BACKGROUND_PASSES {
                let began = std::time::Instant::now();
                match pass(&bg).await {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) => {
                        tracing::error!(error = %e, "report rollup pass failed");
                        break;
                    }
                }
                tokio::select! {
                    _ = bg.shutdown.cancelled() => return,
                    _ = tokio::time::sleep(began.elapsed().max(MIN_REST)) => {}
                }
            }
            tokio::select! {
                _ = bg.shutdown.cancelled() => return,
                _ = tokio::time::sleep(EVERY) => {}
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_text_counts_on_its_day_in_the_organisations_zone() {
        let at = Utc.with_ymd_and_hms(2026, 3, 2, 5, 30, 0).unwrap();
        assert_eq!(day_of(at, chrono_tz::UTC), "2026-03-02");
        assert_eq!(day_of(at, chrono_tz::America::Los_Angeles), "2026-03-01");
        assert_eq!(zone_of("not a zone"), chrono_tz::UTC);
    }

    #[test]
    fn a_text_costs_its_segments_or_one_mms() {
        assert_eq!(cost_micros("Hi", false), (1, 7900));
        assert_eq!(cost_micros(&"a".repeat(161), false), (2, 15800));
        assert_eq!(cost_micros("Hi", true), (0, 20000));
    }
}
