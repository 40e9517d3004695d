//! Recording the signals both approval gates produce. Lower layers (plans, the review sheet)
//! hand their corrections here; nothing here calls back up.
use crate::ai_agent::learning::entity::learning;
use crate::error::AppResult;
use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, ConnectionTrait, Set};
use serde_json::Value;
use uuid::Uuid;

pub const AUDIENCE_DROP: &str = "audience_drop";
pub const AUDIENCE_INCLUDE: &str = "audience_include";
pub const CONCEPT_REWRITE: &str = "concept_rewrite";
pub const PLAN_APPROVED: &str = "plan_approved";
pub const PLAN_REJECTED: &str = "plan_rejected";
pub const DRAFT_EDIT: &str = "draft_edit";
/// A person changed a waiting step's arguments before it ran (other than a text's words).
pub const STEP_EDIT: &str = "step_edit";

/// One signal: what happened, on which plan or item, by whom.
pub struct Signal {
    pub organization_id: Uuid,
    pub agent_id: Uuid,
    pub kind: &'static str,
    /// "plan" or "item".
    pub subject_kind: &'static str,
    pub subject_id: Uuid,
    pub detail: Value,
    pub actor_user_id: Option<Uuid>,
}

pub async fn record<C: ConnectionTrait>(db: &C, s: Signal, now: DateTime<Utc>) -> AppResult<Uuid> {
    let id = Uuid::new_v4();
    learning::ActiveModel {
        id: Set(id),
        organization_id: Set(s.organization_id),
        agent_id: Set(s.agent_id),
        kind: Set(s.kind.into()),
        subject_kind: Set(s.subject_kind.into()),
        subject_id: Set(s.subject_id),
        detail: Set(s.detail),
        actor_user_id: Set(s.actor_user_id),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(id)
}

/// A short line about a signal, for the lesson's sources.
pub fn summary(kind: &str, detail: &Value) -> String {
    let s = |k: &str| {
        detail
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let tags = detail
        .get("tags")
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    match kind {
        AUDIENCE_DROP => format!("Left {} out (tags: {tags})", s("name")),
        AUDIENCE_INCLUDE => format!("Put {} back in (tags: {tags})", s("name")),
        CONCEPT_REWRITE => format!("Rewrote the concept to \"{}\"", s("after")),
        PLAN_APPROVED => "Approved the plan".into(),
        PLAN_REJECTED => format!("Rejected the plan: {}", s("reason")),
        DRAFT_EDIT => format!(
            "Edited a draft from {} to {} characters",
            s("before").chars().count(),
            s("after").chars().count()
        ),
        STEP_EDIT => format!("Edited step `{}` ({}) before it ran", s("step"), s("tool")),
        other => other.replace('_', " "),
    }
}
