//! A step plan's steps as they stand, one row each in `plan_step` (migration 56). The plan's
//! `action_payload` keeps the steps as presented and approved; a runner's transition writes only
//! the rows of the steps that moved, so a step over 20,000 items, or a plan of 1,000 steps with
//! their results, never rewrites the plan's whole JSON. Every reader of a step plan's state
//! reads it here: `action` for one plan, `actions` for a page of them (one query).
use crate::error::{AppError, AppResult};
use crate::plans::entity::plan;
use crate::plans::model::PlanAction;
use crate::steps::model::PlanStep;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use std::collections::HashMap;
use uuid::Uuid;

pub mod plan_step {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "plan_step")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub plan_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub step_id: String,
        pub status: String,
        /// The whole step as it stands (`PlanStep`).
        pub step: Json,
        pub updated_at: DateTimeUtc,
    }
    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
    impl ActiveModelBehavior for ActiveModel {}
}
use plan_step as row;

/// Plan ids per `IN` list when reading a page of plans' steps.
const READ_CHUNK: usize = 500;
/// Rows per upsert statement.
const WRITE_CHUNK: usize = 200;

/// The plan's action with each step as it stands.
pub async fn action<C: ConnectionTrait>(db: &C, p: &plan::Model) -> AppResult<PlanAction> {
    let mut action = crate::plans::service::action_of(p)?;
    if let PlanAction::Steps { steps, .. } = &mut action {
        let mut rows = rows_of(db, &[p.id]).await?;
        overlay(steps, rows.remove(&p.id).unwrap_or_default())?;
    }
    Ok(action)
}

/// The actions of a page of plans, in their order, each step as it stands; a plan whose action
/// does not read answers its error. One query reads every step plan's rows.
pub async fn actions<C: ConnectionTrait>(
    db: &C,
    plans: &[plan::Model],
) -> AppResult<Vec<AppResult<PlanAction>>> {
    let decoded: Vec<AppResult<PlanAction>> =
        plans.iter().map(crate::plans::service::action_of).collect();
    let step_plans: Vec<Uuid> = plans
        .iter()
        .zip(&decoded)
        .filter(|(_, a)| matches!(a, Ok(PlanAction::Steps { .. })))
        .map(|(p, _)| p.id)
        .collect();
    let mut rows = rows_of(db, &step_plans).await?;
    let mut out = Vec::with_capacity(plans.len());
    for (p, a) in plans.iter().zip(decoded) {
        out.push(match a {
            Ok(PlanAction::Steps { mode, mut steps }) => {
                overlay(&mut steps, rows.remove(&p.id).unwrap_or_default())
                    .map(|()| PlanAction::Steps { mode, steps })
            }
            other => other,
        });
    }
    Ok(out)
}

/// The rows of these plans' steps, by plan.
async fn rows_of<C: ConnectionTrait>(
    db: &C,
    plan_ids: &[Uuid],
) -> AppResult<HashMap<Uuid, Vec<row::Model>>> {
    let mut by_plan: HashMap<Uuid, Vec<row::Model>> = HashMap::new();
    for ids in plan_ids.chunks(READ_CHUNK) {
        for r in row::Entity::find()
            .filter(row::Column::PlanId.is_in(ids.iter().copied()))
            .all(db)
            .await?
        {
            by_plan.entry(r.plan_id).or_default().push(r);
        }
    }
    Ok(by_plan)
}

/// Puts each step's row over the step as written; a row naming no step of the plan is an
/// error, not something to drop in silence.
fn overlay(steps: &mut [PlanStep], rows: Vec<row::Model>) -> AppResult<()> {
    for r in rows {
        let slot = steps
            .iter_mut()
            .find(|s| s.id == r.step_id)
            .ok_or_else(|| {
                AppError::Internal(format!(
                    "plan {}: a stored step `{}` is not in the plan",
                    r.plan_id, r.step_id
                ))
            })?;
        *slot = serde_json::from_value(r.step).map_err(|e| {
            AppError::Internal(format!(
                "plan {}: step `{}` does not read: {e}",
                r.plan_id, r.step_id
            ))
        })?;
    }
    Ok(())
}

/// Writes these steps' rows as they stand (the others are left as they are).
pub async fn write<C: ConnectionTrait>(
    db: &C,
    plan_id: Uuid,
    steps: &[PlanStep],
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<()> {
    let rows: Vec<row::ActiveModel> = steps
        .iter()
        .map(|s| {
            Ok(row::ActiveModel {
                plan_id: Set(plan_id),
                step_id: Set(s.id.clone()),
                status: Set(s.status.as_str().to_owned()),
                step: Set(serde_json::to_value(s).map_err(|e| AppError::Internal(e.to_string()))?),
                updated_at: Set(now),
            })
        })
        .collect::<AppResult<_>>()?;
    for part in rows.chunks(WRITE_CHUNK) {
        row::Entity::insert_many(part.to_vec())
            .on_conflict(
                OnConflict::columns([row::Column::PlanId, row::Column::StepId])
                    .update_columns([
                        row::Column::Status,
                        row::Column::Step,
                        row::Column::UpdatedAt,
                    ])
                    .to_owned(),
            )
            .exec_without_returning(db)
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::model::StepStatus;
    use serde_json::json;

    fn stored(plan_id: Uuid, s: &PlanStep) -> row::Model {
        row::Model {
            plan_id,
            step_id: s.id.clone(),
            status: s.status.as_str().into(),
            step: serde_json::to_value(s).unwrap(),
            updated_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn a_steps_row_is_the_step_as_it_stands() {
        let plan_id = Uuid::new_v4();
        let mut steps = vec![
            PlanStep::new("find", "Find", "find_contacts", json!({})),
            PlanStep::new("tag", "Tag", "add_tags", json!({"tags": ["a"]})),
        ];
        let mut ran = steps[0].clone();
        ran.status = StepStatus::Completed;
        ran.result = Some(json!({"count": 3}));
        overlay(&mut steps, vec![stored(plan_id, &ran)]).unwrap();
        assert_eq!(steps[0], ran, "the row's step replaces the written one");
        assert_eq!(
            steps[1].status,
            StepStatus::Ready,
            "a step without a row as written"
        );
    }

    #[test]
    fn a_row_for_no_step_of_the_plan_is_an_error() {
        let plan_id = Uuid::new_v4();
        let mut steps = vec![PlanStep::new("find", "Find", "find_contacts", json!({}))];
        let other = PlanStep::new("gone", "Gone", "find_contacts", json!({}));
        let err = overlay(&mut steps, vec![stored(plan_id, &other)]).unwrap_err();
        assert!(err.to_string().contains("`gone`"), "{err}");
    }
}
