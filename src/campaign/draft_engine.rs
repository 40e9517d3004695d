//! `spawn_draft_engine`: claims pending items in batches (FOR UPDATE SKIP LOCKED on PostgreSQL,
//! one UPDATE … RETURNING on SQLite) with their contacts, drafts up to N at once while
//! `draft_writer` records them, and hands the operation to review when every item is drafted. A
//! reaper returns items whose worker died.
use crate::campaign::draft_writer::{heartbeat, Finished, Writer};
use crate::campaign::drafter::DraftRequest;
use crate::campaign::entity::{item, operation};
use crate::campaign::model::{ItemStatus, OperationStatus};
use crate::contacts::entity::contact;
use crate::error::{AppError, AppResult};
use crate::messaging::merge::{render, MergeValues};
use crate::platform::events::DomainEvent;
use crate::platform::AppState;
use futures::StreamExt;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QuerySelect, Statement,
};
use std::time::Duration;
use uuid::Uuid;

#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub batch_size: u64,
    pub concurrency: usize,
    /// An item whose heartbeat is older than this is returned to pending by the reaper.
    pub stale_after: Duration,
    /// Messages per second per sending number.
    pub sends_per_second: f64,
    /// Send workers per operation per instance (`SEND_CONCURRENCY`, default 4).
    pub send_concurrency: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            batch_size: 50,
            concurrency: 20,
            stale_after: Duration::from_secs(120),
            sends_per_second: 1.0,
            send_concurrency: 4,
        }
    }
}

/// Claims up to `limit` pending items of the operation for `worker`; no two claimers share one.
pub async fn claim_batch(
    state: &AppState,
    operation_id: Uuid,
    worker: &str,
    limit: u64,
) -> AppResult<Vec<(Uuid, Uuid)>> {
    let backend = state.db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => {
            "UPDATE assistant_operation_item SET status = 'drafting', claimed_by = $1, heartbeat_at = $2, attempts = attempts + 1, updated_at = $2 \
             WHERE id IN (SELECT id FROM assistant_operation_item WHERE operation_id = $3 AND status = 'pending' \
             ORDER BY position LIMIT $4 FOR UPDATE SKIP LOCKED) RETURNING id, contact_id"
        }
        _ => {
            "UPDATE assistant_operation_item SET status = 'drafting', claimed_by = ?, heartbeat_at = ?, attempts = attempts + 1, updated_at = ? \
             WHERE id IN (SELECT id FROM assistant_operation_item WHERE operation_id = ? AND status = 'pending' \
             ORDER BY position LIMIT ?) RETURNING id, contact_id"
        }
    };
    let now = state.clock.now();
    let values: Vec<sea_orm::Value> = match backend {
        DbBackend::Postgres => vec![
            worker.into(),
            now.into(),
            operation_id.into(),
            (limit as i64).into(),
        ],
        _ => vec![
            worker.into(),
            now.into(),
            now.into(),
            operation_id.into(),
            (limit as i64).into(),
        ],
    };
    let rows = state
        .db
        .query_all_raw(Statement::from_sql_and_values(backend, sql, values))
        .await?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get::<Uuid>("", "id")?,
                r.try_get::<Uuid>("", "contact_id")?,
            ))
        })
        .collect::<Result<Vec<_>, sea_orm::DbErr>>()
        .map_err(Into::into)
}

/// Returns items stuck in drafting (their worker died) to pending.
pub async fn reap_stale(state: &AppState, stale_after: Duration) -> AppResult<u64> {
    let cutoff = state.clock.now() - chrono::Duration::from_std(stale_after).unwrap_or_default();
    let res = item::Entity::update_many()
        .col_expr(item::Column::Status, Expr::value(ItemStatus::Pending))
        .col_expr(item::Column::ClaimedBy, Expr::value(Option::<String>::None))
        .filter(item::Column::Status.eq(ItemStatus::Drafting))
        .filter(item::Column::HeartbeatAt.lt(cutoff))
        .exec(&state.db)
        .await?;
    Ok(res.rows_affected)
}

/// A claimed item with what its draft needs to know of the contact.
struct Claimed {
    item_id: Uuid,
    first_name: String,
    context: String,
    /// The contact's name and custom fields, for the concept's merge fields.
    contact_name: String,
    custom: std::collections::BTreeMap<String, String>,
}

/// Claims a batch and reads its contacts in one query.
async fn claim_with_contacts(
    state: &AppState,
    operation_id: Uuid,
    worker: &str,
    limit: u64,
) -> AppResult<Vec<Claimed>> {
    let batch = claim_batch(state, operation_id, worker, limit).await?;
    if batch.is_empty() {
        return Ok(vec![]);
    }
    let contacts: std::collections::HashMap<Uuid, contact::Model> = contact::Entity::find()
        .filter(contact::Column::Id.is_in(batch.iter().map(|(_, c)| *c)))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|c| (c.id, c))
        .collect();
    Ok(batch
        .into_iter()
        .map(|(item_id, contact_id)| {
            let c = contacts.get(&contact_id);
            let (first_name, context) = context_of(c);
            Claimed {
                item_id,
                first_name,
                context,
                contact_name: c.map(|c| c.name.clone()).unwrap_or_default(),
                custom: c
                    .map(|c| MergeValues::custom_fields(&c.custom_fields))
                    .unwrap_or_default(),
            }
        })
        .collect())
}

/// The contact's first name (or "there") and a line about them for the drafter.
fn context_of(c: Option<&contact::Model>) -> (String, String) {
    let Some(c) = c else {
        return (String::new(), String::new());
    };
    let first = c
        .name
        .split_whitespace()
        .next()
        .filter(|n| !n.starts_with('+'))
        .unwrap_or("there")
        .to_owned();
    let tags: Vec<String> = serde_json::from_value(c.tags.clone()).unwrap_or_default();
    (
        first,
        format!(
            "Contact: {} · tags: {} · notes: {}",
            c.name,
            tags.join(", "),
            c.notes
        ),
    )
}

/// Drafts one claimed item and hands the outcome to the writer; a failure goes back to pending
/// for another attempt (at most 3).
async fn draft_item(
    state: &AppState,
    op: &operation::Model,
    (org, lessons, owner): (&crate::auth::entity::organization::Model, &[String], &str),
    claimed: Claimed,
    writer: &Writer,
) {
    // The concept's merge fields, filled in for this contact; one nothing fills fails this
    // item with the field's name (never a draft with braces in it).
    let values = MergeValues {
        contact_name: claimed.contact_name,
        custom: claimed.custom,
        org_name: org.name.clone(),
        me_name: owner.to_owned(),
    };
    let concept = match render(&op.message_concept, &values) {
        Ok(concept) => concept,
        Err(e) => {
            writer.record(Finished {
                item_id: claimed.item_id,
                result: Err(format!("The concept's merge fields: {e}")),
            });
            return;
        }
    };
    let req = DraftRequest {
        organization: org.name.clone(),
        rules: org.rules.clone().unwrap_or_default(),
        lessons: lessons.to_vec(),
        persona: op.persona.clone(),
        concept,
        instruction: "Follow up personally and briefly.".into(),
        contact_context: claimed.context,
        first_name: claimed.first_name,
    };
    let result = state.drafter().draft(&req).await.map_err(|e| e.to_string());
    writer.record(Finished {
        item_id: claimed.item_id,
        result,
    });
}

/// Recounts the operation's counters from its items and publishes progress.
///
/// Many workers (on several instances) recount at once. Each recount first takes the
/// operation's row lock in its own transaction and only then counts, so a recount that read
/// older items can never land after one that read newer ones: the last recount is the truth.
pub async fn refresh_counters(state: &AppState, op_id: Uuid) -> AppResult<()> {
    recount(state, op_id, None).await.map(|_| ())
}

/// Recounts, and in the same transaction moves a `from` operation to `to` (so its final
/// status is never seen beside counters from before). Answers whether the status changed here.
pub async fn recount(
    state: &AppState,
    op_id: Uuid,
    change: Option<(OperationStatus, OperationStatus)>,
) -> AppResult<bool> {
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let changed = recount_in(&txn, op_id, state.clock.now(), change).await?;
    txn.commit().await?;
    published(state, op_id).await?;
    Ok(changed)
}

/// Tells the organisation's pages the operation changed.
pub async fn published(state: &AppState, op_id: Uuid) -> AppResult<()> {
    if let Some(op) = operation::Entity::find_by_id(op_id).one(&state.db).await? {
        state.live.publish(
            op.organization_id,
            crate::messaging::model::LiveEvent::OperationUpdated {
                operation_id: op_id,
            },
        );
    }
    Ok(())
}

/// `recount` inside the caller's transaction; an operation it ends writes `campaign.finished`.
pub async fn recount_in<C: ConnectionTrait>(
    txn: &C,
    op_id: Uuid,
    now: chrono::DateTime<chrono::Utc>,
    change: Option<(OperationStatus, OperationStatus)>,
) -> AppResult<bool> {
    operation::Entity::update_many()
        .col_expr(operation::Column::UpdatedAt, Expr::value(now))
        .filter(operation::Column::Id.eq(op_id))
        .exec(txn)
        .await?;
    let mut changed = false;
    if let Some((from, to)) = change {
        changed = operation::Entity::update_many()
            .col_expr(operation::Column::Status, Expr::value(to.as_str()))
            .filter(operation::Column::Id.eq(op_id))
            .filter(operation::Column::Status.eq(from.as_str()))
            .exec(txn)
            .await?
            .rows_affected
            == 1;
    }
    // Counted by the database: one grouped query, whatever the campaign's size.
    let by_status: Vec<(ItemStatus, bool, i64)> = item::Entity::find()
        .select_only()
        .column(item::Column::Status)
        .column_as(item::Column::DraftedAt.is_not_null(), "was_drafted")
        .column_as(item::Column::Id.count(), "n")
        .filter(item::Column::OperationId.eq(op_id))
        .group_by(item::Column::Status)
        .group_by(item::Column::DraftedAt.is_not_null())
        .into_tuple()
        .all(txn)
        .await?;
    let count = |s: ItemStatus| {
        by_status
            .iter()
            .filter(|(st, _, _)| *st == s)
            .map(|(_, _, n)| *n)
            .sum::<i64>() as i32
    };
    let drafted = by_status
        .iter()
        .filter(|(st, was, _)| *was && *st != ItemStatus::Skipped)
        .map(|(_, _, n)| *n)
        .sum::<i64>() as i32;
    operation::Entity::update_many()
        .col_expr(operation::Column::Drafted, Expr::value(drafted))
        .col_expr(
            operation::Column::Sent,
            Expr::value(count(ItemStatus::Sent)),
        )
        .col_expr(
            operation::Column::Failed,
            Expr::value(count(ItemStatus::Failed)),
        )
        .col_expr(
            operation::Column::Skipped,
            Expr::value(count(ItemStatus::Skipped)),
        )
        .filter(operation::Column::Id.eq(op_id))
        .exec(txn)
        .await?;
    let ended = change.is_some_and(|(_, to)| {
        matches!(
            to,
            OperationStatus::Done | OperationStatus::Cancelled | OperationStatus::Failed
        )
    });
    if changed && ended {
        crate::campaign::webhook_events::campaign_finished(txn, op_id, now).await?;
    }
    Ok(changed)
}

#[tracing::instrument(skip(state))]
pub async fn run_draft_engine(state: &AppState, op_id: Uuid) -> AppResult<()> {
    let worker = format!("drafter-{}", Uuid::new_v4().simple());
    let cfg = state.engine().clone();
    loop {
        let Some(op) = operation::Entity::find_by_id(op_id).one(&state.db).await? else {
            return Ok(());
        };
        if op.status != OperationStatus::Drafting {
            return Ok(());
        }
        let org = crate::auth::entity::organization::Entity::find_by_id(op.organization_id)
            .one(&state.db)
            .await?
            .ok_or_else(|| AppError::not_found("Organisation"))?;
        // `{{me.name}}` in a concept: the member the campaign is for.
        let owner = match op.owner_user_id {
            Some(id) => crate::auth::entity::user::Entity::find_by_id(id)
                .one(&state.db)
                .await?
                .map(|u| u.name)
                .unwrap_or_default(),
            None => String::new(),
        };
        let lessons: Vec<String> =
            crate::ai_agent::learning::service::enabled(&state.db, op.agent_id)
                .await?
                .into_iter()
                .map(|(_, text)| text)
                .collect();
        state.faults.check(crate::platform::faults::DRAFT_LOOP)?;
        reap_stale(state, cfg.stale_after).await?;
        // A claimer keeps one batch ahead of the drafts (the channel holds a batch), so no draft
        // waits for a claim; the writer records finished drafts meanwhile.
        let batch_size = cfg.batch_size;
        let (tx, claims) = tokio::sync::mpsc::channel::<Claimed>(batch_size.max(1) as usize);
        let claimer = {
            let (st, w) = (state.clone(), worker.clone());
            tokio::spawn(async move {
                loop {
                    match claim_with_contacts(&st, op_id, &w, batch_size).await {
                        Ok(batch) if !batch.is_empty() => {
                            for claimed in batch {
                                if tx.send(claimed).await.is_err() {
                                    return;
                                }
                            }
                        }
                        Ok(_) => return,
                        Err(e) => {
                            tracing::error!(error = %e, "claim failed");
                            return;
                        }
                    }
                }
            })
        };
        let claims = tokio_stream::wrappers::ReceiverStream::new(claims);
        let writer = Writer::start(state, op_id);
        let beat = heartbeat(state, &worker, cfg.stale_after);
        claims
            .for_each_concurrent(cfg.concurrency.max(1), |claimed| {
                draft_item(state, &op, (&org, &lessons, &owner), claimed, &writer)
            })
            .await;
        let _ = claimer.await;
        writer.finish().await;
        beat.cancel();
        refresh_counters(state, op_id).await?;
        let busy = item::Entity::find()
            .filter(item::Column::OperationId.eq(op_id))
            .filter(item::Column::Status.is_in([ItemStatus::Pending, ItemStatus::Drafting]))
            .one(&state.db)
            .await?;
        match busy {
            // Another worker is drafting the rest (or a failed draft waits for another try).
            Some(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            None => return finish_drafting(state, &op).await,
        }
    }
}

/// Every item drafted: the operation waits for review, and the owner hears about it.
async fn finish_drafting(state: &AppState, op: &operation::Model) -> AppResult<()> {
    let changed = recount(
        state,
        op.id,
        Some((OperationStatus::Drafting, OperationStatus::AwaitingApproval)),
    )
    .await?;
    if changed {
        let event = DomainEvent::CampaignDrafted {
            operation_id: op.id,
        };
        crate::platform::events::publish(state, event).await?;
        if let Some(user_id) = op.owner_user_id {
            crate::notifications::service::notify(
                state,
                crate::notifications::service::Notice {
                    agent_id: None,
                    organization_id: op.organization_id,
                    user_id,
                    kind: "operation",
                    title: "Drafts are ready for review".into(),
                    body: format!(
                        "The campaign \"{}\" has drafts waiting for your review.",
                        op.message_concept
                    ),
                    link: Some(format!("/operations/{}", op.id)),
                    source_key: Some(drafted_notice(op.id)),
                },
            )
            .await?;
        }
    }
    Ok(())
}

impl crate::platform::AppState {
    /// The campaign engines' settings (`server::services` puts them in).
    pub fn engine(&self) -> &EngineConfig {
        self.part::<EngineConfig>()
    }
}

impl crate::platform::state::Services {
    /// The campaign engines' settings, for a test to change before the server starts.
    pub fn engine_mut(&mut self) -> &mut EngineConfig {
        self.parts
            .get_mut()
            .expect("the engine settings are put in by from_config")
    }
}

/// The key of a campaign's "Drafts are ready for review" notice: approving or cancelling the
/// campaign marks it done (`review`).
pub fn drafted_notice(operation_id: Uuid) -> String {
    format!("operation:{operation_id}:drafted")
}
