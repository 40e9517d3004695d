//! The campaign that pauses itself (issue 30 §3). Each delivery callback for a campaign's text
//! looks at the campaign's last 100 texts with a final outcome: past the organisation's share of
//! carrier-filtered texts (30007, default 5 %) or of undelivered ones (default 15 %), the
//! campaign pauses as a stopped plan's does (`paused_from`), says why (`paused_reason`), and its
//! owners are told, with the errors behind it. A person resumes it (the alarm then counts afresh
//! from the resume) or cancels it. The send engine checks the campaign is still sending right
//! before each text, so nothing leaves after the pause.
use crate::auth::entity::organization;
use crate::campaign::entity::{item, operation};
use crate::campaign::model::OperationStatus;
use crate::error::AppResult;
use crate::messaging::entity::{self as message, status_event};
use crate::notifications::service::{notify, Notice};
use crate::platform::events::{DomainEvent, Listener};
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use std::collections::{BTreeMap, HashSet};
use uuid::Uuid;

pub use crate::auth::entity::organization::{FILTERED_PCT_DEFAULT, UNDELIVERED_PCT_DEFAULT};
/// The texts the shares are taken over: the campaign's last ones with a final outcome.
pub const WINDOW: u64 = 100;
/// Fewer outcomes than this say too little: one filtered text of three is not a pattern.
pub const MIN_OUTCOMES: usize = 20;
/// The carrier's code for a text it filtered as spam.
pub const FILTERED: &str = "30007";

/// The outcomes of a campaign's last texts.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// Texts with a final status (delivered, undelivered or failed).
    pub outcomes: usize,
    /// Of them, filtered by a carrier (30007).
    pub filtered: usize,
    /// Of them, undelivered or failed.
    pub undelivered: usize,
    /// Carriers' error codes among them, with how many texts each.
    pub codes: BTreeMap<String, usize>,
}

/// The organisation's thresholds, in percent.
#[derive(Clone, Copy, Debug)]
pub struct Thresholds {
    pub filtered_pct: i32,
    pub undelivered_pct: i32,
}

/// Why the window pauses the campaign, in words; None when it does not.
pub fn verdict(w: &Window, t: Thresholds) -> Option<String> {
    if w.outcomes < MIN_OUTCOMES {
        return None;
    }
    let past = |n: usize, pct: i32| n * 100 > pct.max(0) as usize * w.outcomes;
    let why = if past(w.filtered, t.filtered_pct) {
        format!(
            "{} of its last {} texts were filtered by carriers as spam (error 30007), past the {} % the organisation allows",
            w.filtered, w.outcomes, t.filtered_pct
        )
    } else if past(w.undelivered, t.undelivered_pct) {
        format!(
            "{} of its last {} texts were not delivered, past the {} % the organisation allows",
            w.undelivered, w.outcomes, t.undelivered_pct
        )
    } else {
        return None;
    };
    Some(format!(
        "Paused itself: {why}. Nothing more is sent until an owner resumes or cancels it."
    ))
}

/// The errors behind a pause, in plain words, most frequent first.
pub fn errors_behind(w: &Window) -> String {
    let mut codes: Vec<(&String, &usize)> = w.codes.iter().collect();
    codes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    codes
        .into_iter()
        .map(|(code, n)| format!("{n} × {}", crate::platform::carrier_errors::explain(code)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The campaign's texts carriers filtered as spam (30007), exactly.
pub async fn filtered_count(state: &AppState, op_id: Uuid) -> AppResult<u64> {
    use sea_orm::sea_query::Query;
    use sea_orm::PaginatorTrait;
    Ok(status_event::Entity::find()
        .filter(status_event::Column::ErrorCode.eq(FILTERED))
        .filter(
            status_event::Column::MessageId.in_subquery(
                Query::select()
                    .column(item::Column::MessageId)
                    .from(item::Entity)
                    .and_where(item::Column::OperationId.eq(op_id))
                    .to_owned(),
            ),
        )
        .count(&state.db)
        .await?)
}

/// The organisation's thresholds.
pub async fn thresholds(state: &AppState, org: Uuid) -> AppResult<Thresholds> {
    let o = organization::Entity::find_by_id(org).one(&state.db).await?;
    Ok(Thresholds {
        filtered_pct: o
            .as_ref()
            .map_or(FILTERED_PCT_DEFAULT, |o| o.pause_filtered_pct),
        undelivered_pct: o
            .as_ref()
            .map_or(UNDELIVERED_PCT_DEFAULT, |o| o.pause_undelivered_pct),
    })
}

/// Sets the organisation's thresholds (owners only), each a whole percent from 1 to 100.
pub async fn set_thresholds(
    state: &AppState,
    m: &crate::auth::session::Member,
    filtered: &str,
    undelivered: &str,
) -> AppResult<Thresholds> {
    m.require_owner()?;
    let pct = |v: &str, what: &str| -> AppResult<i32> {
        v.trim()
            .parse::<i32>()
            .ok()
            .filter(|p| (1..=100).contains(p))
            .ok_or_else(|| {
                crate::error::AppError::Validation(format!(
                    "The {what} share must be a whole percent from 1 to 100, not \"{}\".",
                    v.trim()
                ))
            })
    };
    let t = Thresholds {
        filtered_pct: pct(filtered, "carrier-filtered")?,
        undelivered_pct: pct(undelivered, "undelivered")?,
    };
    organization::Entity::update_many()
        .col_expr(
            organization::Column::PauseFilteredPct,
            Expr::value(t.filtered_pct),
        )
        .col_expr(
            organization::Column::PauseUndeliveredPct,
            Expr::value(t.undelivered_pct),
        )
        .filter(organization::Column::Id.eq(m.organization_id))
        .exec(&state.db)
        .await?;
    tracing::info!(org = %m.organization_id, ?t, "campaign pause thresholds set");
    Ok(t)
}

/// Each of the organisation's numbers with its texts carriers filtered (30007), exactly; the
/// first `limit` numbers by number, and how many there are in all.
pub async fn filtered_by_number(
    state: &AppState,
    org: Uuid,
    limit: u64,
) -> AppResult<(Vec<(String, u64)>, u64)> {
    use crate::phone_numbers::entity as number;
    use sea_orm::PaginatorTrait;
    let all = number::Entity::find()
        .filter(number::Column::OrganizationId.eq(org))
        .count(&state.db)
        .await?;
    let numbers: Vec<(Uuid, String)> = number::Entity::find()
        .select_only()
        .column(number::Column::Id)
        .column(number::Column::Number)
        .filter(number::Column::OrganizationId.eq(org))
        .order_by_asc(number::Column::Number)
        .limit(limit)
        .into_tuple()
        .all(&state.db)
        .await?;
    let counts: std::collections::HashMap<Uuid, i64> = status_event::Entity::find()
        .select_only()
        .column(status_event::Column::PhoneNumberId)
        .column_as(
            sea_orm::sea_query::SimpleExpr::from(sea_orm::sea_query::Func::count(Expr::col(
                status_event::Column::Id,
            ))),
            "n",
        )
        .filter(status_event::Column::OrganizationId.eq(org))
        .filter(status_event::Column::ErrorCode.eq(FILTERED))
        .filter(status_event::Column::PhoneNumberId.is_in(numbers.iter().map(|(id, _)| *id)))
        .group_by(status_event::Column::PhoneNumberId)
        .into_tuple()
        .all(&state.db)
        .await?
        .into_iter()
        .collect();
    Ok((
        numbers
            .into_iter()
            .map(|(id, n)| (n, counts.get(&id).copied().unwrap_or(0) as u64))
            .collect(),
        all,
    ))
}

/// The campaign's last `WINDOW` texts with a final outcome, sent since its alarm's start.
pub async fn window(state: &AppState, op: &operation::Model) -> AppResult<Window> {
    let mut q = item::Entity::find()
        .select_only()
        .column(item::Column::MessageId)
        .filter(item::Column::OperationId.eq(op.id))
        .filter(item::Column::SentAt.is_not_null())
        .filter(item::Column::MessageId.is_not_null());
    if let Some(from) = op.alarm_from {
        q = q.filter(item::Column::SentAt.gte(from));
    }
    // Read newest first, a page at a time, until the window holds `WINDOW` final outcomes:
    // texts still waiting for their callbacks say nothing yet.
    let mut w = Window::default();
    let mut offset = 0;
    loop {
        let ids: Vec<Option<Uuid>> = q
            .clone()
            .order_by_desc(item::Column::SentAt)
            .order_by_desc(item::Column::Id)
            .offset(offset)
            .limit(WINDOW)
            .into_tuple()
            .all(&state.db)
            .await?;
        let page = ids.len() as u64;
        let ids: Vec<Uuid> = ids.into_iter().flatten().collect();
        let status: std::collections::HashMap<Uuid, String> = message::Entity::find()
            .select_only()
            .column(message::Column::Id)
            .column(message::Column::Status)
            .filter(message::Column::Id.is_in(ids.iter().copied()))
            .filter(message::Column::Status.is_in(["delivered", "undelivered", "failed"]))
            .into_tuple()
            .all(&state.db)
            .await?
            .into_iter()
            .collect();
        // Newest first, as far as the window has room.
        let room = WINDOW as usize - w.outcomes;
        let finals: Vec<(Uuid, String)> = ids
            .iter()
            .filter_map(|id| status.get(id).map(|s| (*id, s.clone())))
            .take(room)
            .collect();
        w.outcomes += finals.len();
        w.undelivered += finals.iter().filter(|(_, s)| s != "delivered").count();
        let failed: Vec<Uuid> = finals
            .iter()
            .filter(|(_, s)| s != "delivered")
            .map(|(id, _)| *id)
            .collect();
        let coded: Vec<(Uuid, Option<String>)> = status_event::Entity::find()
            .select_only()
            .column(status_event::Column::MessageId)
            .column(status_event::Column::ErrorCode)
            .filter(status_event::Column::MessageId.is_in(failed))
            .filter(status_event::Column::ErrorCode.is_not_null())
            .into_tuple()
            .all(&state.db)
            .await?;
        let mut seen = HashSet::new();
        for (id, code) in coded {
            let Some(code) = code else { continue };
            if seen.insert((id, code.clone())) {
                if code == FILTERED {
                    w.filtered += 1;
                }
                *w.codes.entry(code).or_default() += 1;
            }
        }
        offset += page;
        if page < WINDOW || w.outcomes >= WINDOW as usize || offset >= 10 * WINDOW {
            return Ok(w);
        }
    }
}

/// After a delivery callback for `message_id`: if it is a sending campaign's text and the
/// campaign's window is past a threshold, the campaign pauses itself.
pub async fn after_callback(state: &AppState, message_id: Uuid) -> AppResult<()> {
    let Some(op_id) = item::Entity::find()
        .select_only()
        .column(item::Column::OperationId)
        .filter(item::Column::MessageId.eq(message_id))
        .into_tuple::<Uuid>()
        .one(&state.db)
        .await?
    else {
        return Ok(());
    };
    let Some(op) = operation::Entity::find_by_id(op_id).one(&state.db).await? else {
        return Ok(());
    };
    if op.status != OperationStatus::Sending || op.paused_from.is_some() {
        return Ok(());
    }
    let t = thresholds(state, op.organization_id).await?;
    let w = window(state, &op).await?;
    let Some(why) = verdict(&w, t) else {
        return Ok(());
    };
    pause(state, &op, &why, &w).await
}

/// Hears delivery statuses (`DomainEvent::MessageStatus`): a campaign text's final status may
/// pause its campaign (`after_callback`).
pub struct DeliveryAlarm;

#[async_trait::async_trait]
impl Listener for DeliveryAlarm {
    async fn on(&self, state: &AppState, event: &DomainEvent) -> AppResult<()> {
        match event {
            DomainEvent::MessageStatus {
                message_id, status, ..
            } if matches!(status.as_str(), "delivered" | "undelivered" | "failed") => {
                after_callback(state, *message_id).await
            }
            _ => Ok(()),
        }
    }
}

/// Pauses a sending campaign for `why`, once, and tells its owners.
async fn pause(state: &AppState, op: &operation::Model, why: &str, w: &Window) -> AppResult<()> {
    let now = state.clock.now();
    let res = operation::Entity::update_many()
        .col_expr(
            operation::Column::PausedFrom,
            Expr::value(Some(OperationStatus::Sending)),
        )
        .col_expr(
            operation::Column::Status,
            Expr::value(OperationStatus::AwaitingApproval),
        )
        .col_expr(
            operation::Column::PausedReason,
            Expr::value(Some(why.to_owned())),
        )
        .col_expr(operation::Column::UpdatedAt, Expr::value(now))
        .filter(operation::Column::Id.eq(op.id))
        .filter(operation::Column::Status.eq(OperationStatus::Sending))
        .filter(operation::Column::PausedFrom.is_null())
        .exec(&state.db)
        .await?;
    if res.rows_affected != 1 {
        return Ok(());
    }
    tracing::warn!(operation = %op.id, filtered = w.filtered, undelivered = w.undelivered,
        outcomes = w.outcomes, "campaign paused itself");
    state.live.publish(
        op.organization_id,
        crate::messaging::model::LiveEvent::OperationUpdated {
            operation_id: op.id,
        },
    );
    let owners = crate::auth::owners::owner_ids(&state.db, op.organization_id).await?;
    let mut told: Vec<Uuid> = op.owner_user_id.into_iter().collect();
    told.extend(owners.into_iter().filter(|u| Some(*u) != op.owner_user_id));
    let body = format!("{why}\n\nThe errors behind it:\n{}", errors_behind(w));
    for user_id in told {
        notify(
            state,
            Notice {
                agent_id: None,
                organization_id: op.organization_id,
                user_id,
                kind: "operation",
                title: format!("The campaign \"{}\" paused itself", op.message_concept),
                body: body.clone(),
                link: Some(format!("/operations/{}", op.id)),
                source_key: Some(format!(
                    "operation:{}:alarm:{}:{user_id}",
                    op.id,
                    now.timestamp()
                )),
            },
        )
        .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Thresholds = Thresholds {
        filtered_pct: 5,
        undelivered_pct: 15,
    };

    fn w(outcomes: usize, filtered: usize, undelivered: usize) -> Window {
        Window {
            outcomes,
            filtered,
            undelivered,
            codes: BTreeMap::new(),
        }
    }

    #[test]
    fn past_the_filtered_share_pauses() {
        assert!(verdict(&w(100, 5, 5), T).is_none(), "5 % is not past 5 %");
        let why = verdict(&w(100, 6, 6), T).expect("6 % is");
        assert!(
            why.contains("6 of its last 100") && why.contains("30007"),
            "{why}"
        );
    }

    #[test]
    fn past_the_undelivered_share_pauses() {
        assert!(verdict(&w(100, 0, 15), T).is_none());
        let why = verdict(&w(40, 0, 7), T).expect("17.5 %");
        assert!(why.contains("not delivered"), "{why}");
    }

    #[test]
    fn too_few_outcomes_say_nothing() {
        assert!(verdict(&w(MIN_OUTCOMES - 1, 5, 5), T).is_none());
        assert!(verdict(&w(MIN_OUTCOMES, 2, 2), T).is_some());
    }

    #[test]
    fn the_errors_behind_are_in_words_most_first() {
        let mut x = w(30, 3, 4);
        x.codes.insert("30003".into(), 1);
        x.codes.insert(FILTERED.into(), 3);
        let text = errors_behind(&x);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("3 × ") && lines[0].contains("30007"),
            "{text}"
        );
        assert!(
            lines[1].starts_with("1 × ") && lines[1].contains("30003"),
            "{text}"
        );
    }
}
