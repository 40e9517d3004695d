//! Lessons and their signals as the agent page shows them.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Longest lesson, in characters: it rides in every prompt of its agent.
pub const MAX_LESSON_CHARS: usize = 500;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LessonView {
    pub id: Uuid,
    pub rule_key: String,
    pub text: String,
    pub enabled: bool,
    pub version: i32,
    pub history: Vec<LessonVersion>,
    /// The corrections it came from.
    pub sources: Vec<SignalView>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LessonVersion {
    pub version: i32,
    pub text: String,
    /// "review" (the distillation job) or a person's name.
    pub by: String,
    pub at: DateTime<Utc>,
}

/// One correction a person made at an approval gate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SignalView {
    pub id: Uuid,
    pub kind: String,
    pub summary: String,
    /// The plan or campaign it was made on.
    pub link: Option<String>,
    pub at: DateTime<Utc>,
}

/// What a "Review lessons" run did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReviewReport {
    pub signals: usize,
    pub created: usize,
    pub updated: usize,
}
