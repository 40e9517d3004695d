//! The step plan's data: steps, their statuses and results, and the plan's metadata.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// How the scheduler runs a confirmed plan: every ready step at once, or one per "Continue".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(schemars::JsonSchema))]
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

    /// The status as stored and as the card's `data-status` names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ready => "ready",
            Self::AwaitingConfirmation => "awaiting_confirmation",
            Self::Executing => "executing",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Blocked => "blocked",
            Self::Skipped => "skipped",
        }
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

/// Which outcome of the step it reads a step waits for (seed 004's "receipt or error").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StepOn {
    /// Only when the step it reads fails.
    Failure,
}

/// One tool call in the plan. `arguments` may hold references (`{{step_id.result.path}}`).
/// The planner writes the first four fields; the rest are the run's, never the model's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(schemars::JsonSchema))]
pub struct PlanStep {
    /// A short unique name other steps refer to, e.g. `find_vips`.
    pub id: String,
    /// What the step is for, in words a person reads on the card.
    pub intent: String,
    /// One of your tools.
    pub tool: String,
    /// The tool's arguments; a value may be a reference to an earlier step's result. With
    /// `for_each`, `{{item.…}}` is the item the call runs on (e.g. `{{item.id}}`).
    #[serde(default)]
    pub arguments: Value,
    /// Run the tool once per item of a list, whatever its length: a reference to a list
    /// (`"{{find.result.contacts}}"`), another for_each step's items (`"{{text.result.items}}"`:
    /// only those that step completed, and inside the arguments `{{text.result.…}}` is that
    /// item's result), or an audience the server resolves (`{"segment": "VIPs"}` or
    /// `{"filter": {…}}`, each item a contact with id, name, first_name and phone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub for_each: Option<Value>,
    /// Run only if this holds, checked once the step's inputs are ready: a comparison
    /// (`"{{check.result.count}} > 0"`, `"{{get.result.status}} == 'open'"`; `==` `!=` `>`
    /// `>=` `<` `<=` against a number, a quoted text, true, false or null) or a reference alone
    /// (`"{{find.result.contacts}}"`: there and not empty, false or 0). When it does not hold the
    /// step is skipped, saying why, and so are the steps that read its result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// `failure`: run only if the one step this one reads fails, whose error it may name as
    /// `{{step.error}}` (e.g. a note "could not text: {{send.error}}"); skipped if it completes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<StepOn>,
    #[serde(default)]
    #[cfg_attr(feature = "server", schemars(skip))]
    pub status: StepStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "server", schemars(skip))]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "server", schemars(skip))]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "server", schemars(skip))]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "server", schemars(skip))]
    pub ended_at: Option<DateTime<Utc>>,
    /// Who confirmed the step, when, and the hash of the resolved arguments they saw: an edit
    /// or a replan that changes them asks again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "server", schemars(skip))]
    pub confirmation: Option<StepConfirmation>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepConfirmation {
    pub by: Uuid,
    pub at: DateTime<Utc>,
    pub arguments_hash: String,
}

impl PlanStep {
    /// The step as a planner may hand it in: whatever else it claimed (a status, a result, a
    /// confirmation) is dropped, so a model cannot pre-complete or pre-confirm a step.
    pub fn as_planned(&self) -> Self {
        let mut s = Self::new(&self.id, &self.intent, &self.tool, self.arguments.clone());
        s.for_each = self.for_each.clone();
        s.when = self.when.clone();
        s.on = self.on;
        s
    }

    /// The same step, run once per item of `source` (see `for_each`).
    pub fn each(mut self, source: Value) -> Self {
        self.for_each = Some(source);
        self
    }

    /// A fresh step as a planner writes it.
    pub fn new(id: &str, intent: &str, tool: &str, arguments: Value) -> Self {
        PlanStep {
            id: id.into(),
            intent: intent.into(),
            tool: tool.into(),
            arguments,
            for_each: None,
            when: None,
            on: None,
            status: StepStatus::Ready,
            result: None,
            error: None,
            started_at: None,
            ended_at: None,
            confirmation: None,
        }
    }
}

/// What the plan records about itself beside its steps: the request it answers, when its first
/// step started and its last ended (once every step has), and its steps by outcome.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepPlanMeta {
    /// The request the plan answers, in the requester's words.
    #[serde(default)]
    pub original_request: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub counts: StepCounts,
    /// Start, counts and end in a line, as the card shows them (written by the server).
    #[serde(default)]
    pub line: String,
}

#[cfg(feature = "server")]
impl StepPlanMeta {
    pub fn of(request: Option<String>, steps: &[PlanStep]) -> Self {
        let done = !steps.is_empty() && steps.iter().all(|s| s.status.is_final());
        StepPlanMeta {
            original_request: request,
            started_at: steps.iter().filter_map(|s| s.started_at).min(),
            completed_at: done
                .then(|| steps.iter().filter_map(|s| s.ended_at).max())
                .flatten(),
            counts: StepCounts::of(steps),
            line: String::new(),
        }
        .with_line()
    }

    fn with_line(mut self) -> Self {
        let c = self.counts;
        let at = |t: DateTime<Utc>| t.format("%b %-d, %H:%M").to_string();
        let mut line = format!(
            "{} of {} steps completed · {} failed · {} blocked · {} skipped",
            c.completed, c.total, c.failed, c.blocked, c.skipped
        );
        if let Some(t) = self.started_at {
            line = format!("Started {} · {line}", at(t));
        }
        if let Some(t) = self.completed_at {
            line = format!("{line} · ended {}", at(t));
        }
        self.line = line;
        self
    }
}

/// A person's decision about a running step plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepAction {
    /// Run this step with the arguments whose hash the person was shown.
    Confirm {
        step: String,
        arguments_hash: String,
    },
    /// Confirm every step still to run, now and as its inputs arrive.
    ConfirmAll,
    /// Do not run it; the steps that need its result are blocked.
    Skip { step: String },
    /// Lazy mode: run the next step.
    Continue,
    /// Change some of a waiting write step's arguments (field → value, as a person typed it),
    /// and confirm it as edited when `confirm` says so.
    Edit {
        step: String,
        arguments: Value,
        #[serde(default)]
        confirm: bool,
    },
}

/// What the card shows of a step beside the step itself: its layer in the graph, whether it
/// writes, and (once the steps it reads have run) its arguments as they would run, with the hash
/// a confirmation is bound to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepView {
    pub id: String,
    pub layer: usize,
    pub mutates: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_hash: Option<String>,
    /// A `for_each` step: its items, a sample rendered, the cost, and its progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub each: Option<EachView>,
    /// Its arguments as a person reads them (the raw form is behind the card's "Details").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub readable: Vec<ArgLine>,
    /// A text the send check would refuse at any hour, and why ("opted out"): shown on the card
    /// and left out of the estimate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wont_send: Option<String>,
    /// Once it has run: its result in words ("Found 2 contacts: Ada Lovelace, Alan Turing").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_words: Option<String>,
}

/// One argument as a person reads it: "To Dana Reyes, Lee Park and 3 others (5 contacts)",
/// "From Front desk · +15550100001", a text with the places a reference fills marked, tags as
/// chips. `arg` names the argument it shows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ArgLine {
    pub arg: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<ArgPart>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chips: Vec<String>,
}

/// A run of words in an argument; `filled` where a reference (to an earlier step's result or
/// to the item) puts it there.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ArgPart {
    pub text: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub filled: bool,
}

/// What the card shows of a `for_each` step: what confirming it covers (the item count, a
/// few items rendered, what the texts would cost) and, once it runs, its progress in a line
/// ("2,140 of 18,440 done · 12 refused: opted out").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EachView {
    /// The items it runs over, in words ("the 3 contacts from find", "segment VIPs").
    pub over: String,
    /// How many items, when known before it runs (exact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// The first few items' arguments as they would run.
    #[serde(default)]
    pub sample: Vec<Value>,
    /// Those items as a person reads them: to whom, and the words each gets, what the item
    /// fills marked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub readable: Vec<ArgLine>,
    /// For texts: the estimated cost of them all, in a line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<String>,
}

/// A dry run's prediction for one step: reads ran for real, writes went through their
/// simulators. `status` is what would happen (completed: it would run; failed: it would be
/// refused, with `error`); a step that had already run keeps its real outcome (`already`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepPrediction {
    pub id: String,
    pub status: StepStatus,
    #[serde(default)]
    pub already: bool,
    /// What it would do, in a line (writes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A dry run of a step plan: each step's prediction and the plan's totals. Nothing was written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Simulation {
    pub steps: Vec<StepPrediction>,
    /// Texts that would go, their SMS segments and cost.
    pub texts: usize,
    pub segments: usize,
    pub cost_usd: f64,
    /// Writes (texts included) that would happen, would be refused, or would not run.
    pub writes: usize,
    pub refused: usize,
    pub blocked: usize,
    /// The totals in a line, as the card shows them (written by the server).
    #[serde(default)]
    pub summary: String,
}

#[cfg(feature = "server")]
impl Simulation {
    /// The totals in a line, as the card shows them.
    pub fn summary(&self) -> String {
        let plural = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
        let mut parts = vec![
            plural(self.texts, "text"),
            format!(
                "{} · ${:.4}",
                plural(self.segments, "segment"),
                self.cost_usd
            ),
            plural(self.writes, "write"),
        ];
        if self.refused > 0 {
            parts.push(format!("{} refused", self.refused));
        }
        if self.blocked > 0 {
            parts.push(format!("{} would not run", self.blocked));
        }
        format!("Simulated: {}. Nothing was changed.", parts.join(" · "))
    }
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
        use StepStatus::*;
        for s in [
            Ready,
            AwaitingConfirmation,
            Executing,
            Completed,
            Failed,
            Blocked,
            Skipped,
        ] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str(), "{s:?}");
        }
    }
}
