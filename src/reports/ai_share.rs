//! The AI's share, agent by agent (`report_agent_daily`, migration 52): suggestions offered,
//! used as written, edited and not used; autonomous replies; escalations; handoffs.
//!
//! Each is counted once, by rollup passes over rows marked as still to count, like the texts:
//! - a suggestion set's offer, on the day it was offered (`rolled_up`);
//! - its first use, on the same day (`use_rolled`), so that "not used" is exactly the offers
//!   less the uses of any range;
//! - an escalation, by its notification (`rolled_up`);
//! - autonomous replies and handoffs, by the texts' own arrival pass (`reports::replies`).
use crate::ai_agent::entity::{ai_agent, text_agent, text_agent_suggestion as set};
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::notifications::entity as notification;
use crate::reports::entity::report_agent_daily as agent_daily;
use crate::reports::figures::Range;
use crate::reports::rollup::{day_of, Zones};
use chrono::{DateTime, Utc};
use migration::m20261128_000052_ai_and_response_reports::{
    ESCALATIONS_PENDING, SETS_PENDING, USES_PENDING,
};
use sea_orm::sea_query::{Expr, LockBehavior, LockType, OnConflict};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};
use std::collections::{BTreeMap, HashMap};
use uuid::Uuid;

/// The metrics kept per agent.
pub mod metric {
    pub const OFFERED: &str = "offered";
    pub const AS_WRITTEN: &str = "as_written";
    pub const EDITED: &str = "edited";
    pub const AUTO_REPLY: &str = "auto_reply";
    pub const ESCALATION: &str = "escalation";
    pub const HANDOFF: &str = "handoff";
}

/// (organisation, day, number, agent, metric); the nil id for a number or an agent unknown.
pub type Key = (Uuid, String, Uuid, Uuid, String);

/// Counters to add, in key order (no two passes deadlock).
#[derive(Default)]
pub struct Counts(pub BTreeMap<Key, i64>);

impl Counts {
    pub fn bump(&mut self, org: Uuid, day: String, number: Uuid, agent: Option<Uuid>, m: &str) {
        let key = (org, day, number, agent.unwrap_or_default(), m.to_owned());
        *self.0.entry(key).or_default() += 1;
    }

    pub async fn add<C: ConnectionTrait>(self, db: &C) -> AppResult<()> {
        let rows: Vec<agent_daily::ActiveModel> = self
            .0
            .into_iter()
            .map(
                |((org, day, number, agent, m), n)| agent_daily::ActiveModel {
                    organization_id: Set(org),
                    day: Set(day),
                    phone_number_id: Set(number),
                    agent_id: Set(agent),
                    metric: Set(m),
                    value: Set(n),
                },
            )
            .collect();
        for part in rows.chunks(200) {
            agent_daily::Entity::insert_many(part.to_vec())
                .on_conflict(
                    OnConflict::columns([
                        agent_daily::Column::OrganizationId,
                        agent_daily::Column::Day,
                        agent_daily::Column::PhoneNumberId,
                        agent_daily::Column::AgentId,
                        agent_daily::Column::Metric,
                    ])
                    .value(
                        agent_daily::Column::Value,
                        Expr::cust("report_agent_daily.value + excluded.value"),
                    )
                    .to_owned(),
                )
                .exec_without_returning(db)
                .await?;
        }
        Ok(())
    }
}

/// Whether a text out is an agent's own reply (not a person's, nor a suggestion a person sent).
pub fn is_agents_own(ai_origin: Option<&str>) -> bool {
    ai_origin.is_some_and(|o| o.starts_with("agent") || o.starts_with("auto_reply"))
}

fn locked<E: EntityTrait>(q: sea_orm::Select<E>, backend: DbBackend) -> sea_orm::Select<E> {
    if backend == DbBackend::Postgres {
        q.lock_with_behavior(LockType::Update, LockBehavior::SkipLocked)
    } else {
        q
    }
}

type SetRow = (
    Uuid,
    Uuid,
    Option<Uuid>,
    Option<Uuid>,
    Uuid,
    DateTime<Utc>,
    Option<String>,
);

/// Counts the offers, uses and escalations not yet counted (up to `batch` of each), inside the
/// caller's transaction; answers how many.
pub async fn pass<C: ConnectionTrait>(txn: &C, zones: &mut Zones, batch: u64) -> AppResult<usize> {
    let backend = txn.get_database_backend();
    let mut counts = Counts::default();
    let mut n = 0;
    for (pending, mark) in [
        (SETS_PENDING, set::Column::RolledUp),
        (USES_PENDING, set::Column::UseRolled),
    ] {
        let q = set::Entity::find()
            .select_only()
            .columns([
                set::Column::Id,
                set::Column::OrganizationId,
                set::Column::AiAgentId,
                set::Column::TextAgentId,
                set::Column::MessageId,
                set::Column::CreatedAt,
                set::Column::UsedAs,
            ])
            .filter(Expr::cust(pending))
            .order_by_asc(set::Column::CreatedAt)
            .limit(batch);
        let rows: Vec<SetRow> = locked(q, backend).into_tuple().all(txn).await?;
        if rows.is_empty() {
            continue;
        }
        let numbers = numbers_of(txn, rows.iter().map(|r| r.4).collect()).await?;
        for (_, org, ai, legacy, msg, at, used_as) in &rows {
            let day = day_of(*at, zones.of(txn, *org).await?);
            let number = numbers.get(msg).copied().unwrap_or_default();
            let m = match (mark, used_as.as_deref()) {
                (set::Column::RolledUp, _) => metric::OFFERED,
                (_, Some("as_written")) => metric::AS_WRITTEN,
                _ => metric::EDITED,
            };
            counts.bump(*org, day, number, ai.or(*legacy), m);
        }
        let ids: Vec<Uuid> = rows.iter().map(|r| r.0).collect();
        for part in ids.chunks(500) {
            set::Entity::update_many()
                .col_expr(mark, Expr::value(true))
                .filter(set::Column::Id.is_in(part.iter().copied()))
                .exec(txn)
                .await?;
        }
        n += rows.len();
    }
    let q = notification::Entity::find()
        .select_only()
        .columns([
            notification::Column::Id,
            notification::Column::OrganizationId,
            notification::Column::AgentId,
            notification::Column::CreatedAt,
        ])
        .filter(Expr::cust(ESCALATIONS_PENDING))
        .order_by_asc(notification::Column::CreatedAt)
        .limit(batch);
    let rows: Vec<(Uuid, Uuid, Option<Uuid>, DateTime<Utc>)> =
        locked(q, backend).into_tuple().all(txn).await?;
    for (_, org, agent, at) in &rows {
        let day = day_of(*at, zones.of(txn, *org).await?);
        counts.bump(*org, day, Uuid::nil(), *agent, metric::ESCALATION);
    }
    let ids: Vec<Uuid> = rows.iter().map(|r| r.0).collect();
    for part in ids.chunks(500) {
        notification::Entity::update_many()
            .col_expr(notification::Column::RolledUp, Expr::value(true))
            .filter(notification::Column::Id.is_in(part.iter().copied()))
            .exec(txn)
            .await?;
    }
    n += rows.len();
    counts.add(txn).await?;
    Ok(n)
}

/// The number each of the texts `ids` came to.
async fn numbers_of<C: ConnectionTrait>(db: &C, ids: Vec<Uuid>) -> AppResult<HashMap<Uuid, Uuid>> {
    let mut out = HashMap::new();
    for part in ids.chunks(500) {
        let rows: Vec<(Uuid, Uuid)> = message::Entity::find()
            .select_only()
            .columns([message::Column::Id, message::Column::PhoneNumberId])
            .filter(message::Column::Id.is_in(part.iter().copied()))
            .into_tuple()
            .all(db)
            .await?;
        out.extend(rows);
    }
    Ok(out)
}

/// One agent's figures (or the totals) over a range.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentRow {
    /// None for the totals; the nil id for texts or escalations of an agent no longer known.
    pub agent: Option<Uuid>,
    pub name: String,
    pub offered: i64,
    pub as_written: i64,
    pub edited: i64,
    pub auto_replies: i64,
    pub escalations: i64,
    pub handoffs: i64,
}

impl AgentRow {
    /// Suggestion sets offered and never used.
    pub fn not_used(&self) -> i64 {
        (self.offered - self.as_written - self.edited).max(0)
    }

    fn add(&mut self, m: &str, n: i64) {
        let slot = match m {
            metric::OFFERED => &mut self.offered,
            metric::AS_WRITTEN => &mut self.as_written,
            metric::EDITED => &mut self.edited,
            metric::AUTO_REPLY => &mut self.auto_replies,
            metric::ESCALATION => &mut self.escalations,
            metric::HANDOFF => &mut self.handoffs,
            _ => return,
        };
        *slot += n;
    }
}

/// Each agent's figures in the range (most active first) and their totals. Escalations carry no
/// number: with one number chosen, they are left out.
pub async fn read<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    r: Range,
) -> AppResult<(Vec<AgentRow>, AgentRow)> {
    let mut q = agent_daily::Entity::find()
        .select_only()
        .column(agent_daily::Column::AgentId)
        .column(agent_daily::Column::Metric)
        .column_as(Expr::cust("CAST(SUM(value) AS BIGINT)"), "n")
        .filter(agent_daily::Column::OrganizationId.eq(org))
        .filter(agent_daily::Column::Day.gte(r.from.format("%Y-%m-%d").to_string()))
        .filter(agent_daily::Column::Day.lte(r.to.format("%Y-%m-%d").to_string()));
    if let Some(n) = r.number {
        q = q.filter(agent_daily::Column::PhoneNumberId.eq(n));
    }
    let rows: Vec<(Uuid, String, Option<i64>)> = q
        .group_by(agent_daily::Column::AgentId)
        .group_by(agent_daily::Column::Metric)
        .into_tuple()
        .all(db)
        .await?;
    let mut by_agent: BTreeMap<Uuid, AgentRow> = BTreeMap::new();
    let mut total = AgentRow {
        name: "All agents".into(),
        ..Default::default()
    };
    for (agent, m, n) in rows {
        let n = n.unwrap_or(0);
        by_agent
            .entry(agent)
            .or_insert_with(|| AgentRow {
                agent: Some(agent),
                ..Default::default()
            })
            .add(&m, n);
        total.add(&m, n);
    }
    let names = names(db, org, by_agent.keys().copied().collect()).await?;
    let mut out: Vec<AgentRow> = by_agent
        .into_values()
        .map(|mut a| {
            let id = a.agent.unwrap_or_default();
            a.name = names
                .get(&id)
                .cloned()
                .unwrap_or_else(|| "An agent since removed".into());
            a
        })
        .collect();
    out.sort_by(|a, b| {
        let busy = |x: &AgentRow| x.offered + x.auto_replies + x.escalations;
        busy(b).cmp(&busy(a)).then_with(|| a.name.cmp(&b.name))
    });
    Ok((out, total))
}

/// The names of the organisation's agents among `ids`, of either kind.
async fn names<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    ids: Vec<Uuid>,
) -> AppResult<HashMap<Uuid, String>> {
    let mut out: HashMap<Uuid, String> = HashMap::new();
    let rows: Vec<(Uuid, String)> = ai_agent::Entity::find()
        .select_only()
        .columns([ai_agent::Column::Id, ai_agent::Column::Name])
        .filter(ai_agent::Column::Id.is_in(ids.clone()))
        .filter(ai_agent::Column::OrganizationId.eq(org))
        .into_tuple()
        .all(db)
        .await?;
    out.extend(rows);
    let rows: Vec<(Uuid, String)> = text_agent::Entity::find()
        .select_only()
        .columns([text_agent::Column::Id, text_agent::Column::Name])
        .filter(text_agent::Column::Id.is_in(ids))
        .filter(text_agent::Column::OrganizationId.eq(org))
        .into_tuple()
        .all(db)
        .await?;
    out.extend(rows);
    Ok(out)
}
