//! The send engine: approved drafts go out only 08:00–21:00 in the recipient's time zone, with
//! opt-outs checked again at send time, paced by the number's sender profile across every
//! instance (`sender_profiles::pacing`: one shared slot queue per profile, or per lone number,
//! and a 10DLC brand's daily cap). Items are claimed one at a time (FOR UPDATE
//! SKIP LOCKED on PostgreSQL), so any number of instances split one campaign; each text goes
//! through the send ledger under the item's key, so a crash never sends twice.
use crate::campaign::entity::{item, operation};
use crate::campaign::model::{ItemStatus, OperationStatus};
use crate::contacts::entity::contact;
use crate::contacts::opt_out;
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::messaging::model::SendState;
use crate::messaging::outbound::{Outgoing, Pictures};
use crate::messaging::quiet::next_allowed_for;
use crate::platform::events::DomainEvent;
use crate::platform::AppState;
use crate::sender_profiles::pacing::{reserve, Slot};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    Statement,
};
use std::collections::HashMap;
use std::time::Duration;
use uuid::Uuid;

/// How long the engine waits when other workers hold the remaining items.
const POLL: Duration = Duration::from_millis(250);
/// Items looked at per pass.
const WINDOW: u64 = 200;

async fn set_item(
    state: &AppState,
    id: Uuid,
    status: ItemStatus,
    reason: Option<String>,
) -> AppResult<()> {
    let mut u = item::Entity::update_many()
        .col_expr(item::Column::Status, Expr::value(status))
        .col_expr(item::Column::UpdatedAt, Expr::value(state.clock.now()));
    if let Some(r) = reason {
        let col = if status == ItemStatus::Skipped {
            item::Column::SkipReason
        } else {
            item::Column::Error
        };
        u = u.col_expr(col, Expr::value(Some(r)));
    }
    u.filter(item::Column::Id.eq(id)).exec(&state.db).await?;
    Ok(())
}

/// Claims one of `candidates` (in position order) for this instance; None if others took them.
async fn claim(state: &AppState, candidates: &[Uuid]) -> AppResult<Option<Uuid>> {
    if candidates.is_empty() {
        return Ok(None);
    }
    let backend = state.db.get_database_backend();
    let now = state.clock.now();
    let n = candidates.len().min(50);
    let (sql, mut values): (String, Vec<sea_orm::Value>) = match backend {
        DbBackend::Postgres => {
            let list: Vec<String> = (0..n).map(|i| format!("${}", i + 3)).collect();
            (
                format!(
                    "UPDATE assistant_operation_item SET status = 'sending', claimed_by = $1, heartbeat_at = $2, updated_at = $2 \
                     WHERE id = (SELECT id FROM assistant_operation_item WHERE id IN ({}) AND status = 'drafted' \
                     ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id",
                    list.join(", ")
                ),
                vec![state.instance_id.clone().into(), now.into()],
            )
        }
        _ => (
            format!(
                "UPDATE assistant_operation_item SET status = 'sending', claimed_by = ?, heartbeat_at = ?, updated_at = ? \
                 WHERE id = (SELECT id FROM assistant_operation_item WHERE id IN ({}) AND status = 'drafted' \
                 ORDER BY position LIMIT 1) RETURNING id",
                vec!["?"; n].join(", ")
            ),
            vec![state.instance_id.clone().into(), now.into(), now.into()],
        ),
    };
    values.extend(candidates[..n].iter().map(|id| sea_orm::Value::from(*id)));
    let row = state
        .db
        .query_one_raw(Statement::from_sql_and_values(backend, sql, values))
        .await?;
    Ok(match row {
        Some(r) => Some(r.try_get::<Uuid>("", "id")?),
        None => None,
    })
}

/// Items in `sending` follow their text through the ledger; an item whose worker died before its
/// text existed goes back to the queue.
pub async fn sync_items(state: &AppState, op_id: Uuid, stale_after: Duration) -> AppResult<()> {
    let sending = item::Entity::find()
        .filter(item::Column::OperationId.eq(op_id))
        .filter(item::Column::Status.is_in([ItemStatus::Sending, ItemStatus::Unknown]))
        .all(&state.db)
        .await?;
    if sending.is_empty() {
        return Ok(());
    }
    let keys: Vec<String> = sending
        .iter()
        .map(|i| i.idempotency_key.to_string())
        .collect();
    let texts: HashMap<String, message::Model> = message::Entity::find()
        .filter(message::Column::IdempotencyKey.is_in(keys))
        .all(&state.db)
        .await?
        .into_iter()
        .filter_map(|m| m.idempotency_key.clone().map(|k| (k, m)))
        .collect();
    let stale = state.clock.now() - chrono::Duration::from_std(stale_after).unwrap_or_default();
    for it in sending {
        let Some(m) = texts.get(&it.idempotency_key.to_string()) else {
            if it.status == ItemStatus::Sending && it.heartbeat_at.is_none_or(|h| h < stale) {
                item::Entity::update_many()
                    .col_expr(item::Column::Status, Expr::value(ItemStatus::Drafted))
                    .col_expr(item::Column::ClaimedBy, Expr::value(Option::<String>::None))
                    .filter(item::Column::Id.eq(it.id))
                    .filter(item::Column::Status.eq(ItemStatus::Sending))
                    .filter(item::Column::HeartbeatAt.eq(it.heartbeat_at))
                    .exec(&state.db)
                    .await?;
            }
            continue;
        };
        let next = match m.send_state {
            Some(SendState::Sent) => ItemStatus::Sent,
            Some(SendState::Failed) => ItemStatus::Failed,
            Some(SendState::Unknown) => ItemStatus::Unknown,
            _ => ItemStatus::Sending,
        };
        if next != it.status || it.message_id != Some(m.id) {
            item::Entity::update_many()
                .col_expr(item::Column::Status, Expr::value(next))
                .col_expr(item::Column::MessageId, Expr::value(Some(m.id)))
                .col_expr(item::Column::Error, Expr::value(m.error.clone()))
                .filter(item::Column::Id.eq(it.id))
                .exec(&state.db)
                .await?;
        }
    }
    Ok(())
}

/// Runs `send_concurrency` workers on the operation here (more for a fast sender profile,
/// `pacing::workers_for`); the shared pacing keeps their total rate, and item claims keep them
/// (and other instances' workers) apart.
#[tracing::instrument(skip(state))]
pub async fn run_send_engine(state: &AppState, op_id: Uuid) -> AppResult<()> {
    let Some(op) = operation::Entity::find_by_id(op_id).one(&state.db).await? else {
        return Ok(());
    };
    let n = crate::sender_profiles::pacing::workers_for(
        state,
        op.phone_number_id,
        state.engine().send_concurrency,
    )
    .await?;
    let workers = (0..n).map(|_| send_worker(state, op_id));
    futures::future::try_join_all(workers).await?;
    Ok(())
}

async fn send_worker(state: &AppState, op_id: Uuid) -> AppResult<()> {
    let clock = state.clock.clone();
    let gap = Duration::from_secs_f64(1.0 / state.engine().sends_per_second.max(0.001));
    loop {
        state.faults.check(crate::platform::faults::SEND_LOOP)?;
        let Some(op) = operation::Entity::find_by_id(op_id).one(&state.db).await? else {
            return Ok(());
        };
        if op.status != OperationStatus::Sending {
            return Ok(());
        }
        // Scheduled for a date and time: nothing goes before it (then each contact's hours).
        if let Some(at) = op.send_after.filter(|at| *at > clock.now()) {
            let wait = (at - clock.now()).to_std().unwrap_or_default();
            tracing::info!(?wait, "scheduled: waiting to send");
            clock.sleep(wait.max(Duration::from_millis(1))).await;
            continue;
        }
        sync_items(state, op_id, state.engine().stale_after).await?;
        // The campaign's pictures, which every text carries (fixed once it is sending).
        let pictures = crate::campaign::pictures::of(&state.db, op_id).await?;
        let queue = item::Entity::find()
            .filter(item::Column::OperationId.eq(op_id))
            .filter(item::Column::Status.eq(ItemStatus::Drafted))
            .order_by_asc(item::Column::Position)
            .limit(WINDOW)
            .all(&state.db)
            .await?;
        if queue.is_empty() {
            let in_flight = item::Entity::find()
                .filter(item::Column::OperationId.eq(op_id))
                .filter(item::Column::Status.eq(ItemStatus::Sending))
                .one(&state.db)
                .await?;
            if in_flight.is_none() {
                return finish(state, op_id).await;
            }
            // Other workers' sends, or texts the ledger is still reconciling.
            tokio::time::sleep(POLL).await;
            continue;
        }
        let org_zone = crate::messaging::quiet::org_zone(&state.db, op.organization_id).await?;
        let people: HashMap<Uuid, contact::Model> = contact::Entity::find()
            .filter(contact::Column::Id.is_in(queue.iter().map(|i| i.contact_id)))
            .all(&state.db)
            .await?
            .into_iter()
            .map(|c| (c.id, c))
            .collect();
        let now = clock.now();
        let mut allowed = Vec::new();
        let mut earliest: Option<DateTime<Utc>> = None;
        for it in &queue {
            let at = match people.get(&it.contact_id) {
                Some(c) => next_allowed_for(now, c, &org_zone),
                None => now,
            };
            if at > now {
                earliest = Some(earliest.map_or(at, |e| e.min(at)));
            } else {
                allowed.push(it.id);
            }
        }
        if allowed.is_empty() {
            let wait = (earliest.unwrap_or(now) - now).to_std().unwrap_or_default();
            tracing::info!(?wait, "quiet hours: waiting to send");
            clock.sleep(wait.max(Duration::from_millis(1))).await;
            continue;
        }
        // Down the window in order: each item is claimed (another worker may hold it), sent,
        // and the window is read again once walked. Cancel stops everything not yet sent.
        let mut since_counters = 0;
        for (n, id) in allowed.iter().enumerate() {
            if n % 10 == 9 && !still_sending(state, op_id).await? {
                return Ok(());
            }
            let it = queue
                .iter()
                .find(|i| i.id == *id)
                .cloned()
                .expect("allowed from the queue");
            // The walk takes time (pacing): someone may have entered their quiet hours.
            if let Some(c) = people.get(&it.contact_id) {
                let now = clock.now();
                if next_allowed_for(now, c, &org_zone) > now {
                    continue;
                }
            }
            if claim(state, std::slice::from_ref(id)).await?.is_none() {
                continue;
            }
            let person = people.get(&it.contact_id);
            send_one(state, &op, &it, person, &pictures, &org_zone, gap).await?;
            since_counters += 1;
            if since_counters >= 20 {
                crate::campaign::draft_engine::refresh_counters(state, op_id).await?;
                since_counters = 0;
            }
        }
        crate::campaign::draft_engine::refresh_counters(state, op_id).await?;
    }
}

async fn still_sending(state: &AppState, op_id: Uuid) -> AppResult<bool> {
    Ok(operation::Entity::find_by_id(op_id)
        .one(&state.db)
        .await?
        .is_some_and(|o| o.status == OperationStatus::Sending))
}

/// Sends one claimed item, or puts it back when its recipient's window closed meanwhile.
async fn send_one(
    state: &AppState,
    op: &operation::Model,
    it: &item::Model,
    person: Option<&contact::Model>,
    pictures: &[crate::media::entity::upload::Model],
    org_zone: &str,
    gap: Duration,
) -> AppResult<()> {
    let Some(c) = person else {
        return set_item(
            state,
            it.id,
            ItemStatus::Skipped,
            Some("contact no longer exists".into()),
        )
        .await;
    };
    if c.unreachable_at.is_some() {
        // The carrier said so of an earlier text (of this campaign, or another).
        return set_item(
            state,
            it.id,
            ItemStatus::Skipped,
            Some(crate::contacts::reachability::SKIP_REASON.into()),
        )
        .await;
    }
    if opt_out::sms_opt_out(&state.db, c.id).await?.is_some() {
        return set_item(
            state,
            it.id,
            ItemStatus::Skipped,
            Some("opted out before sending".into()),
        )
        .await;
    }
    let slot = match reserve(state, op.phone_number_id, gap).await? {
        Slot::At(at) => at,
        Slot::CapReached { until, cap } => {
            // The brand's daily cap is spent: the text waits in Herald (not in Twilio's queue,
            // which drops a text after 10 hours) for the next Pacific day; quiet hours are
            // checked again then, in the recipient's zone.
            put_back(state, it.id).await?;
            let wait = (until - state.clock.now()).to_std().unwrap_or_default();
            tracing::info!(?wait, cap, "daily cap spent: waiting for midnight Pacific");
            state.clock.sleep(wait.max(Duration::from_millis(1))).await;
            return Ok(());
        }
    };
    let wait = (slot - state.clock.now()).to_std().unwrap_or_default();
    if !wait.is_zero() {
        state.clock.sleep(wait).await;
    }
    // The window is checked again at the moment of sending: the pacing wait may have carried the
    // send past 21:00. The item goes back to the queue; the sleep until morning happens there.
    let now = state.clock.now();
    // … and whether the campaign still sends: a pause (its plan stopped, or its delivery alarm)
    // or a cancel during the wait sends nothing more.
    if next_allowed_for(now, c, org_zone) > now || !still_sending(state, op.id).await? {
        return put_back(state, it.id).await;
    }
    // Its links become this contact's short links (the same ones if this send is retried).
    let draft = it.draft.as_deref().unwrap_or_default();
    let body = match op.track_links {
        true => {
            crate::links::service::shorten(
                &state.db,
                &state.config.public_url,
                op.organization_id,
                crate::links::service::Scope::Campaign(op.id),
                c.id,
                draft,
                now,
            )
            .await?
        }
        false => draft.to_owned(),
    };
    let out = Outgoing::new(op.organization_id, c.id, op.phone_number_id, &body)
        .origin(Some("campaign"))
        .keyed(Some(it.idempotency_key))
        .purpose(crate::compliance::model::Purpose::Outreach)
        .pictures(Pictures::Shared(pictures));
    let result = crate::messaging::outbound::send(state, out).await;
    match result {
        Ok(m) => {
            let status = match m.send_state {
                Some(SendState::Sent) => ItemStatus::Sent,
                Some(SendState::Unknown) => ItemStatus::Unknown,
                _ => ItemStatus::Sending,
            };
            item::Entity::update_many()
                .col_expr(item::Column::Status, Expr::value(status))
                .col_expr(item::Column::MessageId, Expr::value(Some(m.id)))
                .col_expr(item::Column::SentAt, Expr::value(Some(now)))
                .col_expr(
                    item::Column::SentBy,
                    Expr::value(Some(state.instance_id.clone())),
                )
                .filter(item::Column::Id.eq(it.id))
                .exec(&state.db)
                .await?;
        }
        Err(e) => {
            tracing::warn!(error = %e, item_id = %it.id, "campaign text failed");
            set_item(state, it.id, ItemStatus::Failed, Some(e.to_string())).await?
        }
    }
    Ok(())
}

/// A claimed item goes back to the queue, unsent.
async fn put_back(state: &AppState, id: Uuid) -> AppResult<()> {
    item::Entity::update_many()
        .col_expr(item::Column::Status, Expr::value(ItemStatus::Drafted))
        .col_expr(item::Column::ClaimedBy, Expr::value(Option::<String>::None))
        .filter(item::Column::Id.eq(id))
        .exec(&state.db)
        .await?;
    Ok(())
}

/// Nothing left to send or in flight: the operation is done (once, whoever gets here first).
async fn finish(state: &AppState, op_id: Uuid) -> AppResult<()> {
    let changed = crate::campaign::draft_engine::recount(
        state,
        op_id,
        Some((OperationStatus::Sending, OperationStatus::Done)),
    )
    .await?;
    if changed {
        let event = DomainEvent::CampaignEnded {
            operation_id: op_id,
        };
        crate::platform::events::publish(state, event).await?;
    }
    Ok(())
}

/// How many of an operation's items each instance sent: the work split across instances.
pub async fn split(state: &AppState, op_id: Uuid) -> AppResult<Vec<(String, i64)>> {
    let rows: Vec<(Option<String>, i64)> = item::Entity::find()
        .select_only()
        .column(item::Column::SentBy)
        .column_as(item::Column::Id.count(), "n")
        .filter(item::Column::OperationId.eq(op_id))
        .filter(item::Column::Status.eq(ItemStatus::Sent))
        .group_by(item::Column::SentBy)
        .into_tuple()
        .all(&state.db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(by, n)| (by.unwrap_or_default(), n))
        .collect())
}
