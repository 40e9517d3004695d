//! Answers, counted from the texts' arrival pass. A reply is a text out in a conversation the
//! contact started (`purpose` "reply"): a person's, a suggestion a person sent, or an agent's
//! own. For each reply as it is counted:
//! - **the response time**: if texts from the contact waited for it (since the reply before
//!   it), the business seconds from the first of them to this reply, one `report_response` row
//!   keyed by that first text, on the day it arrived. Keyword texts (STOP, HELP) wait for
//!   nothing: Herald answers them itself;
//! - **an autonomous reply**, for the agent that sent it;
//! - **a handoff**, when a person replies right after an agent's own reply: the person took the
//!   conversation over from that agent.
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::reports::ai_share::{is_agents_own, metric, Counts};
use crate::reports::entity::report_response as response;
use crate::reports::figures::Range;
use crate::reports::rollup::{day_of, Zones};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use uuid::Uuid;

/// A reply being counted.
pub struct Reply {
    pub org: Uuid,
    pub contact: Uuid,
    pub number: Uuid,
    pub seq: i64,
    pub at: DateTime<Utc>,
    pub ai_origin: Option<String>,
    pub agent: Option<Uuid>,
}

/// Counts `replies` (in the caller's transaction): response rows written, agent counters into
/// `counts`.
pub async fn count<C: ConnectionTrait>(
    txn: &C,
    zones: &mut Zones,
    replies: &[Reply],
    counts: &mut Counts,
) -> AppResult<()> {
    let mut rows = Vec::new();
    for r in replies {
        let (zone, hours) = zones.hours(txn, r.org).await?;
        let before: Option<(i64, Option<Uuid>, Option<String>)> = message::Entity::find()
            .select_only()
            .columns([
                message::Column::Seq,
                message::Column::AgentId,
                message::Column::AiOrigin,
            ])
            // A contact is one organisation's: its id alone scopes the lookup, and leads the
            // planner to (contact_id, seq), never a walk back through the organisation's texts.
            .filter(message::Column::ContactId.eq(r.contact))
            .filter(message::Column::Direction.eq("outbound"))
            .filter(message::Column::Purpose.eq("reply"))
            .filter(message::Column::Seq.lt(r.seq))
            .order_by_desc(message::Column::Seq)
            .limit(1)
            .into_tuple()
            .one(txn)
            .await?;
        let waited: Option<(Uuid, DateTime<Utc>, Uuid)> = message::Entity::find()
            .select_only()
            .columns([
                message::Column::Id,
                message::Column::CreatedAt,
                message::Column::PhoneNumberId,
            ])
            // A contact is one organisation's: its id alone scopes the lookup, and leads the
            // planner to (contact_id, seq), never a walk back through the organisation's texts.
            .filter(message::Column::ContactId.eq(r.contact))
            .filter(message::Column::Direction.eq("inbound"))
            .filter(message::Column::Keyword.is_null())
            .filter(message::Column::Seq.gt(before.as_ref().map_or(0, |b| b.0)))
            .filter(message::Column::Seq.lt(r.seq))
            .order_by_asc(message::Column::Seq)
            .limit(1)
            .into_tuple()
            .one(txn)
            .await?;
        if let Some((first, at, number)) = waited {
            rows.push(response::ActiveModel {
                inbound_message_id: Set(first),
                organization_id: Set(r.org),
                day: Set(day_of(at, zone)),
                phone_number_id: Set(number),
                agent_id: Set(is_agents_own(r.ai_origin.as_deref())
                    .then_some(r.agent)
                    .flatten()),
                seconds: Set(hours.seconds(at, r.at, zone)),
            });
        }
        let day = day_of(r.at, zone);
        if is_agents_own(r.ai_origin.as_deref()) {
            counts.bump(r.org, day, r.number, r.agent, metric::AUTO_REPLY);
        } else if let Some((_, agent, _)) = before.filter(|b| is_agents_own(b.2.as_deref())) {
            counts.bump(r.org, day, r.number, agent, metric::HANDOFF);
        }
    }
    for part in rows.chunks(200) {
        response::Entity::insert_many(part.to_vec())
            .on_conflict(
                OnConflict::column(response::Column::InboundMessageId)
                    .do_nothing()
                    .to_owned(),
            )
            .exec_without_returning(txn)
            .await?;
    }
    Ok(())
}

/// Answered within this many business seconds: "within 5 minutes".
pub const FAST_SECS: i64 = 300;

/// How fast texts were answered, over the waits that began in a range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Responses {
    pub answered: u64,
    /// The median in business seconds: the middle one, or the lower of the two middle ones.
    pub median: Option<i64>,
    pub fast: u64,
}

impl Responses {
    /// Answered within `FAST_SECS`, in percent (None without any answered).
    pub fn fast_pct(&self) -> Option<f64> {
        (self.answered > 0).then(|| self.fast as f64 * 100.0 / self.answered as f64)
    }
}

/// The response figures of the waits that began in `r` (on one number, or all). Reads the
/// range's rows of `report_response` through its index: the count, the middle one by offset,
/// and the count within 5 minutes.
pub async fn read<C: ConnectionTrait>(db: &C, org: Uuid, r: Range) -> AppResult<Responses> {
    let mut q = response::Entity::find()
        .filter(response::Column::OrganizationId.eq(org))
        .filter(response::Column::Day.gte(r.from.format("%Y-%m-%d").to_string()))
        .filter(response::Column::Day.lte(r.to.format("%Y-%m-%d").to_string()));
    if let Some(n) = r.number {
        q = q.filter(response::Column::PhoneNumberId.eq(n));
    }
    let answered = q.clone().count(db).await?;
    if answered == 0 {
        return Ok(Responses::default());
    }
    let median: Option<i64> = q
        .clone()
        .select_only()
        .column(response::Column::Seconds)
        .order_by_asc(response::Column::Seconds)
        .offset((answered - 1) / 2)
        .limit(1)
        .into_tuple()
        .one(db)
        .await?;
    let fast = q
        .filter(response::Column::Seconds.lte(FAST_SECS))
        .count(db)
        .await?;
    Ok(Responses {
        answered,
        median,
        fast,
    })
}

/// A span of business seconds in words: "42 s", "3 min 20 s", "2 h 05 min".
pub fn span(secs: i64) -> String {
    match secs {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min {:02} s", s / 60, s % 60),
        s => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_in_words() {
        assert_eq!(span(42), "42 s");
        assert_eq!(span(200), "3 min 20 s");
        assert_eq!(span(7500), "2 h 05 min");
    }

    #[test]
    fn the_fast_share_needs_an_answer() {
        let r = Responses {
            answered: 4,
            median: Some(10),
            fast: 3,
        };
        assert_eq!(r.fast_pct(), Some(75.0));
        assert_eq!(Responses::default().fast_pct(), None);
    }
}
