//! `for_each` steps' items, one row each in `plan_step_item`. The items are written once, when
//! the step first starts (all or none, in one transaction); each then runs under its own effect
//! key (plan, step, item, hash of its arguments) and its row records the outcome. A runner that
//! dies mid-step resumes at the items still `ready`: one whose effect committed just before the
//! crash answers its recorded result, so nothing runs twice and nothing is lost. Over another
//! step's items, an item that step did not complete is `blocked`, and only it.
use super::run::arguments_hash;
use crate::ai_agent::tools::{AgentTool, EffectKey, ToolCtx};
use crate::contacts::entity::contact;
use crate::error::{AppError, AppResult};
use crate::format::grouped;
use crate::plans::audience::model::Audience;
use crate::plans::entity::plan;
use crate::platform::AppState;
use crate::steps::each::item_arguments;
use crate::steps::model::PlanStep;
use crate::steps::validate::{check_resolved, ToolSpec};
use futures::stream::{self, StreamExt};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use uuid::Uuid;

pub mod plan_step_item {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "plan_step_item")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub plan_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub step_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub idx: i32,
        pub item_key: String,
        pub item: Json,
        pub status: String,
        pub result: Option<Json>,
        pub error: Option<String>,
        pub ended_at: Option<DateTimeUtc>,
    }
    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
    impl ActiveModelBehavior for ActiveModel {}
}
use plan_step_item as row;

pub const READY: &str = "ready";
pub const COMPLETED: &str = "completed";
pub const FAILED: &str = "failed";
pub const BLOCKED: &str = "blocked";

/// Items run at once within one step.
const CONCURRENCY: usize = 8;
/// Items read (and written) per round.
const BATCH: u64 = 256;
/// Rows per insert statement.
const INSERT_CHUNK: usize = 500;
/// The most contacts an audience source may hold.
pub const AUDIENCE_MAX: u64 = 100_000;

/// One item before it has a row.
struct NewItem {
    key: String,
    item: Value,
    blocked: Option<String>,
}

/// An item's key: its `id` if it has one, else its place in the list.
fn key_of(item: &Value, idx: usize) -> String {
    match &item["id"] {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => format!("#{idx}"),
    }
}

/// A contact as an item: what a template may use.
pub(super) fn contact_item(c: &contact::Model) -> Value {
    let first = c.name.split_whitespace().next().unwrap_or_default();
    json!({"id": c.id, "name": c.name, "first_name": first, "phone": c.phone})
}

/// The contacts of an audience (`{"segment": …}` or `{"filter": …}`, less `exclude`, plus
/// `include`), in name order, up to `limit`; and how many there are.
pub async fn audience_contacts(
    state: &AppState,
    org: Uuid,
    source: &Value,
    limit: u64,
) -> AppResult<(Vec<contact::Model>, u64)> {
    let mut a: Audience = serde_json::from_value(source.clone()).map_err(|e| {
        AppError::validation(format!("for_each's audience is not one Herald reads: {e}"))
    })?;
    crate::plans::audience::resolve::prepare(state, org, &mut a).await?;
    let f = a.filter.as_ref().expect("prepare sets the filter");
    let cond = crate::contacts::filter::condition(
        f,
        org,
        state.db.get_database_backend(),
        state.clock.now(),
    )?;
    // Left out and added by hand, as a plan's audience does.
    let out_ids: Vec<Uuid> = a.exclude.iter().map(|e| e.contact_id).collect();
    let in_ids: Vec<Uuid> = a.include.iter().map(|e| e.contact_id).collect();
    let cond = sea_orm::Condition::any().add(cond).add(
        sea_orm::Condition::all()
            .add(contact::Column::OrganizationId.eq(org))
            .add(contact::Column::Id.is_in(in_ids)),
    );
    let cond = sea_orm::Condition::all()
        .add(cond)
        .add(contact::Column::Id.is_not_in(out_ids));
    let total = contact::Entity::find()
        .filter(cond.clone())
        .count(&state.db)
        .await?;
    let mut out = Vec::new();
    let mut after = None;
    while (out.len() as u64) < limit {
        let page = (limit - out.len() as u64).min(1000);
        let (rows, more) =
            crate::contacts::list::rows_where(&state.db, cond.clone(), after.as_ref(), page)
                .await?;
        after = rows.last().map(|c| crate::contacts::model::ContactCursor {
            name: c.name.clone(),
            id: c.id,
        });
        out.extend(rows);
        if !more {
            break;
        }
    }
    Ok((out, total))
}

/// The items a step runs over, from its resolved `for_each`.
async fn gather(state: &AppState, p: &plan::Model, over: &Value) -> AppResult<Vec<NewItem>> {
    if let Some(list) = over.as_array() {
        return Ok(list
            .iter()
            .enumerate()
            .map(|(i, item)| NewItem {
                key: key_of(item, i),
                item: item.clone(),
                blocked: None,
            })
            .collect());
    }
    if let Some(step) = over["items_of"].as_str() {
        let mut out = Vec::new();
        let mut after = -1;
        loop {
            let rows = row::Entity::find()
                .filter(row::Column::PlanId.eq(p.id))
                .filter(row::Column::StepId.eq(step))
                .filter(row::Column::Idx.gt(after))
                .order_by_asc(row::Column::Idx)
                .limit(1000)
                .all(&state.db)
                .await?;
            let Some(last) = rows.last() else { break };
            after = last.idx;
            out.extend(rows.into_iter().map(|r| NewItem {
                blocked: (r.status != COMPLETED).then(|| {
                    format!(
                        "its `{step}` item {}{}",
                        if r.status == BLOCKED {
                            "was blocked"
                        } else {
                            "failed"
                        },
                        r.error.map(|e| format!(": {e}")).unwrap_or_default()
                    )
                }),
                key: r.item_key,
                item: r.item,
            }));
        }
        return Ok(out);
    }
    let (contacts, total) = audience_contacts(state, p.organization_id, over, AUDIENCE_MAX).await?;
    if total > AUDIENCE_MAX {
        return Err(AppError::validation(format!(
            "The audience holds {total} contacts; a step runs over at most {AUDIENCE_MAX}."
        )));
    }
    Ok(contacts
        .iter()
        .map(|c| NewItem {
            key: c.id.to_string(),
            item: contact_item(c),
            blocked: None,
        })
        .collect())
}

/// Writes the step's items unless a run before this one already did.
async fn ensure_rows(state: &AppState, p: &plan::Model, step: &str, over: &Value) -> AppResult<()> {
    let written = row::Entity::find()
        .filter(row::Column::PlanId.eq(p.id))
        .filter(row::Column::StepId.eq(step))
        .count(&state.db)
        .await?;
    if written > 0 {
        return Ok(());
    }
    let items = gather(state, p, over).await?;
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    for (n, chunk) in items.chunks(INSERT_CHUNK).enumerate() {
        let rows = chunk.iter().enumerate().map(|(i, it)| row::ActiveModel {
            plan_id: Set(p.id),
            step_id: Set(step.to_owned()),
            idx: Set((n * INSERT_CHUNK + i) as i32),
            item_key: Set(it.key.clone()),
            item: Set(it.item.clone()),
            status: Set(if it.blocked.is_some() { BLOCKED } else { READY }.to_owned()),
            result: Set(None),
            error: Set(it.blocked.clone()),
            ended_at: Set(it.blocked.as_ref().map(|_| now)),
        });
        row::Entity::insert_many(rows).exec(&txn).await?;
    }
    txn.commit().await?;
    Ok(())
}

/// The outcome of one item, written to its row.
async fn record(
    state: &AppState,
    p: &plan::Model,
    step: &str,
    idx: i32,
    outcome: Result<Value, String>,
) -> AppResult<()> {
    let (status, result, error) = match outcome {
        Ok(r) => (COMPLETED, Some(r), None),
        Err(e) => (FAILED, None, Some(e)),
    };
    row::Entity::update_many()
        .col_expr(row::Column::Status, Expr::value(status))
        .col_expr(row::Column::Result, Expr::value(result))
        .col_expr(row::Column::Error, Expr::value(error))
        .col_expr(row::Column::EndedAt, Expr::value(Some(state.clock.now())))
        .filter(row::Column::PlanId.eq(p.id))
        .filter(row::Column::StepId.eq(step))
        .filter(row::Column::Idx.eq(idx))
        .exec(&state.db)
        .await?;
    Ok(())
}

/// The results of step `of`'s items at these places.
async fn results_of(
    state: &AppState,
    p: &plan::Model,
    of: &str,
    idx: Vec<i32>,
) -> AppResult<HashMap<i32, Value>> {
    let rows: Vec<(i32, Option<Value>)> = row::Entity::find()
        .select_only()
        .column(row::Column::Idx)
        .column(row::Column::Result)
        .filter(row::Column::PlanId.eq(p.id))
        .filter(row::Column::StepId.eq(of))
        .filter(row::Column::Idx.is_in(idx))
        .into_tuple()
        .all(&state.db)
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(i, r)| r.map(|r| (i, r)))
        .collect())
}

/// The step's items by outcome: the counts, and the failures grouped by what was said.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    pub total: u64,
    pub completed: u64,
    pub failed: u64,
    pub blocked: u64,
    /// Failures and blocks by reason, most first (at most five).
    pub reasons: Vec<(String, u64)>,
}

impl Progress {
    /// "2,140 of 18,440 sent · 12 refused: opted out".
    pub fn line(&self, tool: &str) -> String {
        let verb = match tool {
            crate::plans::model::SEND_TOOL => "sent",
            "add_note" => "noted",
            "tag_contacts" => "tagged",
            "set_custom_field" => "updated",
            "schedule_text" => "scheduled",
            _ => "done",
        };
        let mut line = format!(
            "{} of {} {verb}",
            grouped(self.completed),
            grouped(self.total)
        );
        if self.failed > 0 {
            line.push_str(&format!(" · {} refused", grouped(self.failed)));
        }
        if self.blocked > 0 {
            line.push_str(&format!(" · {} blocked", grouped(self.blocked)));
        }
        for (why, n) in self.reasons.iter().take(3) {
            line.push_str(&format!(" · {}: {why}", grouped(*n)));
        }
        line
    }

    /// The step's result once every item has an outcome.
    pub fn summary(&self, tool: &str) -> Value {
        json!({
            "total": self.total,
            "completed": self.completed,
            "failed": self.failed,
            "blocked": self.blocked,
            "reasons": self.reasons.iter().map(|(r, n)| json!({"reason": r, "count": n})).collect::<Vec<_>>(),
            "line": self.line(tool),
        })
    }
}

/// The step's progress, counted in SQL.
pub async fn progress(state: &AppState, plan_id: Uuid, step: &str) -> AppResult<Progress> {
    let groups: Vec<(String, Option<String>, i64)> = row::Entity::find()
        .select_only()
        .column(row::Column::Status)
        .column(row::Column::Error)
        .expr_as(
            sea_orm::sea_query::Func::count(Expr::col(row::Column::Idx)),
            "n",
        )
        .filter(row::Column::PlanId.eq(plan_id))
        .filter(row::Column::StepId.eq(step))
        .group_by(row::Column::Status)
        .group_by(row::Column::Error)
        .into_tuple()
        .all(&state.db)
        .await?;
    let mut p = Progress::default();
    let mut reasons: HashMap<String, u64> = HashMap::new();
    for (status, error, n) in groups {
        let n = n as u64;
        p.total += n;
        match status.as_str() {
            COMPLETED => p.completed += n,
            FAILED => p.failed += n,
            BLOCKED => p.blocked += n,
            _ => {}
        }
        if let Some(e) = error {
            *reasons.entry(e).or_default() += n;
        }
    }
    let mut reasons: Vec<(String, u64)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    reasons.truncate(5);
    p.reasons = reasons;
    Ok(p)
}

/// Runs a `for_each` step: its items written once, then every item not yet finished, a batch
/// at a time with bounded concurrency. Answers the step's summary; fails only when items ran
/// and none completed.
pub async fn run_each(
    ctx: &ToolCtx,
    p: &plan::Model,
    step: &PlanStep,
    resolved: &Value,
    tool: &dyn AgentTool,
    spec: &ToolSpec,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<Value, String> {
    let state = &ctx.state;
    let failed = |e: AppError| e.to_string();
    let stopped = || stop.load(std::sync::atomic::Ordering::SeqCst);
    ensure_rows(state, p, &step.id, &resolved["for_each"])
        .await
        .map_err(failed)?;
    let zipped = resolved["for_each"]["items_of"].as_str();
    let template = &resolved["arguments"];
    let mut last_told = std::time::Instant::now();
    loop {
        if stopped() {
            break;
        }
        let batch = row::Entity::find()
            .filter(row::Column::PlanId.eq(p.id))
            .filter(row::Column::StepId.eq(&step.id))
            .filter(row::Column::Status.eq(READY))
            .order_by_asc(row::Column::Idx)
            .limit(BATCH)
            .all(&state.db)
            .await
            .map_err(|e| failed(e.into()))?;
        if batch.is_empty() {
            break;
        }
        let upstream = match zipped {
            Some(of) => results_of(state, p, of, batch.iter().map(|r| r.idx).collect())
                .await
                .map_err(failed)?,
            None => HashMap::new(),
        };
        let outcomes: Vec<AppResult<()>> = stream::iter(batch)
            .map(|r| {
                let z = zipped.zip(upstream.get(&r.idx));
                async move {
                    // A person stopped the plan: items not started stay as they are.
                    if stopped() {
                        return Ok(());
                    }
                    let outcome = async {
                        let args = item_arguments(template, &r.item, z)?;
                        check_resolved(spec, &args)?;
                        let key = EffectKey::named(format!(
                            "item:{}:{}:{}:{}",
                            p.id,
                            step.id,
                            r.item_key,
                            arguments_hash(&args)
                        ));
                        tool.call(ctx, &key, args).await.map_err(|e| e.to_string())
                    }
                    .await;
                    record(state, p, &step.id, r.idx, outcome).await
                }
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
        for o in outcomes {
            o.map_err(failed)?;
        }
        if last_told.elapsed() >= std::time::Duration::from_millis(500) {
            last_told = std::time::Instant::now();
            state.live.publish(
                p.organization_id,
                crate::messaging::model::LiveEvent::PlanUpdated { plan_id: p.id },
            );
        }
    }
    let done = progress(state, p.id, &step.id).await.map_err(failed)?;
    if stopped() {
        return Err(format!(
            "stopped by a person after {} of {} items",
            done.completed + done.failed,
            done.total
        ));
    }
    if done.total > 0 && done.completed == 0 && done.failed > 0 {
        return Err(format!("No item completed: {}", done.line(&step.tool)));
    }
    Ok(done.summary(&step.tool))
}

/// The dry run of a `for_each` step: every item goes through the tool's simulator, in memory;
/// nothing is written. Answers the totals as the step's predicted result.
pub async fn simulate_each(
    ctx: &ToolCtx,
    p: &plan::Model,
    step: &PlanStep,
    resolved: &Value,
    tool: &dyn AgentTool,
    spec: &ToolSpec,
) -> Result<Value, String> {
    let over = &resolved["for_each"];
    let items: Vec<NewItem> = if over["items_of"].is_string() {
        // The step it runs over has not run in a dry run: each of its items is taken as done.
        let of = over["items_of"].as_str().unwrap_or_default();
        return Ok(json!({
            "total": over["completed"], "texts": 0, "segments": 0, "cost_usd": 0.0,
            "line": format!("Runs once for each item step `{of}` completes"),
        }));
    } else {
        gather(&ctx.state, p, over)
            .await
            .map_err(|e| e.to_string())?
    };
    let template = &resolved["arguments"];
    let outcomes: Vec<Result<Value, String>> = stream::iter(items.iter())
        .map(|it| async move {
            let args = item_arguments(template, &it.item, None)?;
            check_resolved(spec, &args)?;
            tool.simulate(ctx, args).await.map_err(|e| e.to_string())
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    let mut p = Progress {
        total: items.len() as u64,
        ..Default::default()
    };
    let (mut segments, mut cost) = (0u64, 0.0f64);
    let mut reasons: HashMap<String, u64> = HashMap::new();
    for o in &outcomes {
        match o {
            Ok(r) => {
                p.completed += 1;
                segments += r["segments"].as_u64().unwrap_or(0);
                cost += r["cost_usd"].as_f64().unwrap_or(0.0);
            }
            Err(e) => {
                p.failed += 1;
                *reasons.entry(e.clone()).or_default() += 1;
            }
        }
    }
    let mut reasons: Vec<(String, u64)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    reasons.truncate(5);
    p.reasons = reasons;
    let texts = if step.tool == crate::plans::model::SEND_TOOL {
        p.completed
    } else {
        0
    };
    let mut out = p.summary(&step.tool);
    out["texts"] = json!(texts);
    out["segments"] = json!(segments);
    out["cost_usd"] = json!(cost);
    out["line"] = json!(format!("Would be {}", p.line(&step.tool)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reads_as_a_line() {
        let p = Progress {
            total: 18440,
            completed: 2140,
            failed: 12,
            blocked: 0,
            reasons: vec![("opted out".into(), 12)],
        };
        assert_eq!(
            p.line("send_sms"),
            "2,140 of 18,440 sent · 12 refused · 12: opted out"
        );
        assert_eq!(key_of(&json!({"id": "c1"}), 4), "c1");
        assert_eq!(key_of(&json!("x"), 4), "#4");
    }
}
