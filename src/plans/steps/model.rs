//! The step plan's data: steps, their statuses and results, and the plan's metadata.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// How the scheduler runs a confirmed plan: every ready step at once, or one per "Continue".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepMode {
    #[default]
    Eager,
    Lazy,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    #[default]
    Ready,
    AwaitingConfirmation,
    Executing,
    Completed,
    Failed,
    /// A step it depends on failed or was skipped; it will not run.
    Blocked,
    /// A person chose not to run it.
    Skipped,
}

impl StepStatus {
    /// Whether the step has reached an end it will not leave (a replan may still copy it).
    pub fn is_final(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Failed | Self::Blocked | Self::Skipped
        )
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Ready => "Ready",
            Self::AwaitingConfirmation => "Awaiting confirmation",
            Self::Executing => "Running",
            Self::Completed => "Completed",
            Self::Failed => "Failed",
            Self::Blocked => "Blocked",
            Self::Skipped => "Skipped",
        }
    }
}

/// One tool call in the plan. `arguments` may hold references (`{{step_id.result.path}}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    pub id: String,
    /// What the step is for, in words a person reads on the card.
    pub intent: String,
    pub tool: String,
    #[serde(default)]
    pub arguments: Value,
    #[serde(default)]
    pub status: StepStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<DateTime<Utc>>,
    /// Who confirmed the step, when, and the hash of the resolved arguments they saw: an edit
    /// or a replan that changes them asks again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<StepConfirmation>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepConfirmation {
    pub by: Uuid,
    pub at: DateTime<Utc>,
    pub arguments_hash: String,
}

impl PlanStep {
    /// A fresh step as a planner writes it.
    pub fn new(id: &str, intent: &str, tool: &str, arguments: Value) -> Self {
        PlanStep {
            id: id.into(),
            intent: intent.into(),
            tool: tool.into(),
            arguments,
            status: StepStatus::Ready,
            result: None,
            error: None,
            started_at: None,
            ended_at: None,
            confirmation: None,
        }
    }
}

/// What the plan records about itself beside its steps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepPlanMeta {
    /// The request the plan answers, in the requester's words.
    pub original_request: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<DateTime<Utc>>,
}

/// Counts of the steps by outcome, for the card's summary and the plan's metadata.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepCounts {
    pub total: usize,
    pub completed: usize,
    pub failed: usize,
    pub blocked: usize,
    pub skipped: usize,
}

impl StepCounts {
    pub fn of(steps: &[PlanStep]) -> Self {
        let n = |s: StepStatus| steps.iter().filter(|x| x.status == s).count();
        StepCounts {
            total: steps.len(),
            completed: n(StepStatus::Completed),
            failed: n(StepStatus::Failed),
            blocked: n(StepStatus::Blocked),
            skipped: n(StepStatus::Skipped),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_planners_step_reads_with_defaults_and_counts() {
        let step: PlanStep = serde_json::from_value(json!({
            "id": "find", "intent": "Find VIPs", "tool": "find_contacts",
            "arguments": {"tag": "vip"}
        }))
        .unwrap();
        assert_eq!(step.status, StepStatus::Ready);
        assert!(step.result.is_none() && step.confirmation.is_none());
        let mut done = step.clone();
        done.status = StepStatus::Completed;
        let mut failed = step.clone();
        failed.status = StepStatus::Failed;
        let counts = StepCounts::of(&[step, done, failed]);
        assert_eq!((counts.total, counts.completed, counts.failed), (3, 1, 1));
        assert_eq!(
            serde_json::to_value(StepStatus::AwaitingConfirmation).unwrap(),
            "awaiting_confirmation"
        );
    }
}
