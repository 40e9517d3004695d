//! The AgentPlan envelope, its typed actions, approval policies and statuses, shared by the plan
//! card, the Plans page and the server.
pub use crate::ai_agent::model::ApprovalPolicy;
pub use crate::plans::audience::model::{Audience, AudienceView, HAND_PICKED_MAX};
pub use crate::steps::model::{PlanStep, StepMode};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The step tool that texts a contact: a plan with one always waits for a person.
pub const SEND_TOOL: &str = "send_sms";
/// The step tool that starts a campaign (drafts, a review sheet, then sending).
pub const CAMPAIGN_TOOL: &str = "start_campaign";

/// The step tool that schedules a text for later.
pub const SCHEDULE_TOOL: &str = "schedule_text";

/// Whether a step tool texts people (a text, now or later, or a campaign): never low-risk, an
/// owner's call.
pub fn texts_people(tool: &str) -> bool {
    tool == SEND_TOOL || tool == CAMPAIGN_TOOL || tool == SCHEDULE_TOOL
}

/// The step tools that write to contacts' records.
pub const WRITE_TOOLS: [&str; 3] = ["tag_contacts", "set_custom_field", "add_note"];

crate::text_enum! {
    /// Where a plan stands; the plan row's `status` column holds it (the words of `as_str`).
    pub enum PlanStatus {
        Drafting = "drafting",
        AwaitingApproval = "awaiting_approval",
        Approved = "approved",
        Rejected = "rejected",
        Executing = "executing",
        Done = "done",
        Failed = "failed",
        /// A person stopped it after approval: nothing more of it runs.
        Stopped = "stopped",
    }
}

impl PlanStatus {
    /// The status machine: Drafting → AwaitingApproval → Approved → Executing → Done | Failed,
    /// with Rejected as the other exit; Drafting may go straight to Approved (auto-approval).
    /// A person may stop an approved or executing plan.
    pub fn can_become(self, next: PlanStatus) -> bool {
        use PlanStatus::*;
        matches!(
            (self, next),
            (Drafting, AwaitingApproval)
                | (Drafting, Approved)
                | (AwaitingApproval, Approved)
                | (AwaitingApproval, Rejected)
                | (Approved, Executing)
                | (Executing, Done)
                | (Executing, Failed)
                | (Approved, Stopped)
                | (Executing, Stopped)
        )
    }
}

/// One contact's part in a plan: in or out, why, and (for tagging) which tags change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(schemars::JsonSchema))]
pub struct ContactChange {
    pub contact_id: Uuid,
    pub include: bool,
    pub reason: String,
    #[serde(default)]
    pub add_tags: Vec<String>,
    #[serde(default)]
    pub remove_tags: Vec<String>,
    /// What sort of decision: e.g. "quote_lead", "opted_out", "already_customer".
    #[serde(default)]
    pub kind: String,
}

/// A campaign's audience entry: the same shape as any per-contact plan decision.
pub type ContactDecision = ContactChange;

/// What an approved plan does. Extensible: each variant has one executor handler.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PlanAction {
    /// Per contact, tags to add and remove, each with a reason (at most 500 contacts). For more,
    /// name a `segment` (a saved segment or a filter the server resolves) and give `add_tags` and
    /// `remove_tags` for every member instead.
    TagContacts {
        #[serde(default)]
        changes: Vec<ContactChange>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        segment: Option<Audience>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        add_tags: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        remove_tags: Vec<String>,
    },
    /// Text every included contact a draft written from the concept; always reviewed by a person.
    /// `audience` lists contacts one by one (at most 500); for more, name a `segment` (a saved
    /// segment or a filter the server resolves) instead.
    BulkSmsCampaign {
        #[serde(default)]
        audience: Vec<ContactDecision>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        segment: Option<Audience>,
        message_concept: String,
        /// The number the texts leave from: one of the organisation's. Left out, it becomes the
        /// authoring agent's assigned number, else the organisation's first.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from_number_id: Option<Uuid>,
    },
    /// A graph of calls to your tools whose arguments may refer to earlier steps' results with
    /// `{{step_id.result.path}}` (an argument that is exactly a reference takes the value with its
    /// type; inside text it is written in). Steps that change anything wait for a person to
    /// confirm them, one by one, after the plan is approved.
    Steps {
        /// `eager` runs every step whose inputs are ready at once; `lazy` one step per Continue.
        #[serde(default)]
        mode: StepMode,
        steps: Vec<PlanStep>,
    },
}

impl PlanAction {
    /// A tag plan over hand-picked contacts.
    pub fn tagging(changes: Vec<ContactChange>) -> Self {
        PlanAction::TagContacts {
            changes,
            segment: None,
            add_tags: vec![],
            remove_tags: vec![],
        }
    }
    /// A campaign over hand-picked contacts.
    pub fn campaign(
        audience: Vec<ContactDecision>,
        message_concept: String,
        from_number_id: Option<Uuid>,
    ) -> Self {
        PlanAction::BulkSmsCampaign {
            audience,
            segment: None,
            message_concept,
            from_number_id,
        }
    }
    /// The audience the server resolves, when the plan names one.
    pub fn audience(&self) -> Option<&Audience> {
        match self {
            PlanAction::TagContacts { segment, .. }
            | PlanAction::BulkSmsCampaign { segment, .. } => segment.as_ref(),
            PlanAction::Steps { .. } => None,
        }
    }
    pub fn audience_mut(&mut self) -> Option<&mut Audience> {
        match self {
            PlanAction::TagContacts { segment, .. }
            | PlanAction::BulkSmsCampaign { segment, .. } => segment.as_mut(),
            PlanAction::Steps { .. } => None,
        }
    }
    /// Members of its resolved audience, when it names one.
    fn members(&self) -> Option<usize> {
        self.audience().map(|a| a.members.unwrap_or(0) as usize)
    }
    pub fn type_name(&self) -> &'static str {
        match self {
            PlanAction::TagContacts { .. } => "tag_contacts",
            PlanAction::BulkSmsCampaign { .. } => "bulk_sms_campaign",
            PlanAction::Steps { .. } => "steps",
        }
    }
    /// The per-contact decisions; a step plan has none (its contacts come from its steps).
    pub fn changes(&self) -> &[ContactChange] {
        match self {
            PlanAction::TagContacts { changes, .. } => changes,
            PlanAction::BulkSmsCampaign { audience, .. } => audience,
            PlanAction::Steps { .. } => &[],
        }
    }
    pub fn changes_mut(&mut self) -> Option<&mut Vec<ContactChange>> {
        match self {
            PlanAction::TagContacts { changes, .. } => Some(changes),
            PlanAction::BulkSmsCampaign { audience, .. } => Some(audience),
            PlanAction::Steps { .. } => None,
        }
    }
    /// A step plan's steps.
    pub fn steps(&self) -> &[PlanStep] {
        match self {
            PlanAction::Steps { steps, .. } => steps,
            _ => &[],
        }
    }
    /// The action's own policy, overriding the agent's default: anything that texts people is
    /// hard-wired to human review, and so is anything over an audience the server resolves
    /// (its size is whatever the data says at approval).
    pub fn policy_override(&self) -> Option<ApprovalPolicy> {
        (self.sends_messages() || self.audience().is_some()).then_some(ApprovalPolicy::HumanReview)
    }

    /// Whether executing it texts people.
    pub fn sends_messages(&self) -> bool {
        match self {
            PlanAction::BulkSmsCampaign { .. } => true,
            // A re-plan's frozen texts have gone already: only the texts still to send count.
            PlanAction::Steps { steps, .. } => steps
                .iter()
                .any(|s| texts_people(&s.tool) && !s.status.is_final()),
            PlanAction::TagContacts { .. } => false,
        }
    }
    /// A campaign's from-number, once chosen.
    pub fn from_number_id(&self) -> Option<Uuid> {
        match self {
            PlanAction::BulkSmsCampaign { from_number_id, .. } => *from_number_id,
            PlanAction::TagContacts { .. } | PlanAction::Steps { .. } => None,
        }
    }
    pub fn message_concept(&self) -> Option<&str> {
        match self {
            PlanAction::BulkSmsCampaign {
                message_concept, ..
            } => Some(message_concept),
            PlanAction::TagContacts { .. } | PlanAction::Steps { .. } => None,
        }
    }
    /// What running it would cost: texts, SMS segments and dollars (segments × price). A
    /// campaign's drafts are written from its concept, so the concept's segments stand for each.
    pub fn estimated_cost(&self) -> CostEstimate {
        match self {
            PlanAction::TagContacts { .. } => CostEstimate::default(),
            // Each text step, as its body is written (a reference inside counts as its text).
            PlanAction::Steps { steps, .. } => {
                let bodies: Vec<&str> = steps
                    .iter()
                    .filter(|s| {
                        (s.tool == SEND_TOOL || s.tool == SCHEDULE_TOOL) && !s.status.is_final()
                    })
                    .map(|s| {
                        s.arguments
                            .get("body")
                            .and_then(|b| b.as_str())
                            .unwrap_or("")
                    })
                    .collect();
                let mut segments: usize = bodies
                    .iter()
                    .map(|b| crate::campaign::segments::segments(b).count.max(1))
                    .sum();
                let mut texts = bodies.len();
                // A campaign step: its audience as written (a reference counts as one) times its
                // concept's segments.
                for s in steps
                    .iter()
                    .filter(|s| s.tool == CAMPAIGN_TOOL && !s.status.is_final())
                {
                    let people = match s.arguments.get("contacts") {
                        Some(serde_json::Value::Array(l)) => l.len().max(1),
                        _ => 1,
                    };
                    let concept = s.arguments["message_concept"].as_str().unwrap_or("");
                    texts += people;
                    segments += people * crate::campaign::segments::segments(concept).count.max(1);
                }
                CostEstimate::of(texts, segments)
            }
            PlanAction::BulkSmsCampaign {
                audience,
                message_concept,
                ..
            } => {
                let texts = self
                    .members()
                    .unwrap_or_else(|| audience.iter().filter(|c| c.include).count());
                let per_text = crate::campaign::segments::segments(message_concept)
                    .count
                    .max(1);
                CostEstimate::of(texts, texts * per_text)
            }
        }
    }
    /// How many rows the plan would change (a step plan: each step that writes, at least one).
    pub fn rows_mutated(&self) -> usize {
        if let PlanAction::Steps { steps, .. } = self {
            return steps
                .iter()
                .filter(|s| WRITE_TOOLS.contains(&s.tool.as_str()) && !s.status.is_final())
                .map(|s| match s.arguments.get("contacts") {
                    Some(serde_json::Value::Array(list)) => list.len().max(1),
                    _ => 1,
                })
                .sum();
        }
        if let Some(n) = self.members() {
            return n;
        }
        self.changes()
            .iter()
            .filter(|c| c.include && (!c.add_tags.is_empty() || !c.remove_tags.is_empty()))
            .count()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Gate,
    Proceed,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub kind: String,
    pub actor: String,
    pub actor_name: Option<String>,
    pub policy: Option<String>,
    pub decision: Option<String>,
    pub reason: Option<String>,
    pub before: Option<serde_json::Value>,
    pub after: Option<serde_json::Value>,
    pub at: DateTime<Utc>,
}

/// A contact as the plan card shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanContact {
    pub change: ContactChange,
    pub name: String,
    pub opted_out: bool,
    /// No written consent on record: a campaign leaves them out.
    #[serde(default)]
    pub no_marketing_consent: bool,
}

/// A plan's estimated spend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CostEstimate {
    pub texts: usize,
    pub segments: usize,
    /// US dollars at the estimate's price per segment.
    pub dollars: f64,
}

impl CostEstimate {
    pub fn of(texts: usize, segments: usize) -> Self {
        Self {
            texts,
            segments,
            dollars: segments as f64 * crate::campaign::segments::COST_PER_SEGMENT,
        }
    }
    /// "12 texts · 24 segments · about $0.19".
    pub fn label(&self) -> String {
        let dollars = dollars(self.dollars);
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        format!(
            "{} text{} · {} segment{} · about ${dollars}",
            self.texts,
            plural(self.texts),
            self.segments,
            plural(self.segments),
        )
    }
}

/// US dollars as people write them: cents from a dollar up, and the digits that matter below
/// ("0.0158", never a rounded "0.02" beside a two-cent limit).
pub fn dollars(d: f64) -> String {
    if d >= 1.0 {
        return format!("{d:.2}");
    }
    let s = format!("{d:.4}");
    let s = s.trim_end_matches('0');
    match s.split_once('.') {
        Some((_, frac)) if frac.len() < 2 => format!("{d:.2}"),
        _ => s.to_owned(),
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanView {
    pub id: Uuid,
    pub agent_id: Uuid,
    pub agent_name: String,
    pub thread_id: Option<Uuid>,
    pub title: String,
    pub summary: String,
    pub action: PlanAction,
    pub contacts: Vec<PlanContact>,
    pub approval_policy: ApprovalPolicy,
    pub status: PlanStatus,
    pub decision: Option<Decision>,
    pub decision_reason: Option<String>,
    pub approved_by_name: Option<String>,
    pub approved_at: Option<DateTime<Utc>>,
    pub executed_ref: Option<Uuid>,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub audit: Vec<AuditEntry>,
    /// Set when the stored action can no longer be read (an older or damaged payload): the card
    /// says so and offers only rejection; `action` and `contacts` are then empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    /// What running it would spend, when it spends anything.
    #[serde(default)]
    pub estimated_cost: Option<CostEstimate>,
    /// A campaign's from-number, as the organisation knows it ("+14155550100").
    #[serde(default)]
    pub from_number: Option<String>,
    /// A step plan's steps as the card shows them, in the plan's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step_views: Vec<crate::steps::model::StepView>,
    /// Its number in its line of re-plans (1: the first plan), and the plan it revises.
    #[serde(default = "first_revision")]
    pub revision: i32,
    #[serde(default)]
    pub revision_of: Option<Uuid>,
    /// The plan that revised this one, if any.
    #[serde(default)]
    pub revised_by: Option<Uuid>,
    /// A step plan's request, start and end, and counts.
    #[serde(default)]
    pub step_meta: Option<crate::steps::model::StepPlanMeta>,
    /// Whether a person may ask its agent to re-plan it now.
    #[serde(default)]
    pub replannable: bool,
    /// The audience the server resolved, when the plan names a segment or a filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<AudienceView>,
}

fn first_revision() -> i32 {
    1
}

impl PlanView {
    /// Whether it belongs to a line of re-plans (the Plans page shows them side by side).
    pub fn has_revisions(&self) -> bool {
        self.revision > 1 || self.revised_by.is_some()
    }
    pub fn included(&self) -> usize {
        self.contacts.iter().filter(|c| c.change.include).count()
    }
    pub fn excluded(&self) -> usize {
        self.contacts.len() - self.included()
    }
    /// Excluded contacts grouped by the decision's `kind`, largest group first. A model words
    /// each reason its own way, so grouping by reason split one kind into many one-name groups;
    /// the reasons now show inside the group, beside each name, where they differ from its label.
    /// A decision without a kind is grouped by its reason.
    pub fn exclusions_by_kind(&self) -> Vec<(String, Vec<String>)> {
        exclusions_by_kind(&self.contacts)
    }
}

/// `PlanView::exclusions_by_kind`, over the card's contacts.
pub fn exclusions_by_kind(contacts: &[PlanContact]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    // A campaign leaves out everyone without written consent, whatever the plan says.
    const NO_CONSENT: &str = "no marketing consent on record (left out when sending)";
    for c in contacts {
        let (label, reason) = if !c.change.include {
            let kind = c.change.kind.trim().replace('_', " ");
            let reason = c.change.reason.trim();
            if kind.is_empty() {
                (reason.to_owned(), reason)
            } else {
                (kind, reason)
            }
        } else if c.no_marketing_consent {
            (NO_CONSENT.to_owned(), NO_CONSENT)
        } else {
            continue;
        };
        let entry = if reason.is_empty() || reason == label {
            c.name.clone()
        } else {
            format!("{} ({reason})", c.name)
        };
        match groups.iter_mut().find(|(l, _)| *l == label) {
            Some((_, names)) => names.push(entry),
            None => groups.push((label, vec![entry])),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.1.len()));
    groups
}

/// Where the next page of plans starts: after this one, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanCursor {
    pub created_at: DateTime<Utc>,
    pub id: Uuid,
}

/// One page of plans, newest first, with the exact number the filters match.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanPage {
    pub items: Vec<PlanView>,
    pub total: u64,
    /// The next page's start; None on the last page.
    pub next: Option<PlanCursor>,
}

/// What an operator may change before approving.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanEdit {
    pub title: Option<String>,
    pub summary: Option<String>,
    /// Contacts to switch in (true) or out (false).
    #[serde(default)]
    pub include: Vec<(Uuid, bool)>,
    /// A campaign's message concept.
    #[serde(default)]
    pub message_concept: Option<String>,
    /// A campaign's from-number: one of the organisation's numbers.
    #[serde(default)]
    pub from_number_id: Option<Uuid>,
}

/// The operator's assistant: its thread, history and plans.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AssistantView {
    pub agent_id: Uuid,
    pub thread_id: Option<Uuid>,
    pub planning_enabled: bool,
    pub events: Vec<crate::ai_agent::model::ThreadEventView>,
    /// The thread's newest plans (a page), and how many it has.
    pub plans: Vec<PlanView>,
    #[serde(default)]
    pub plans_total: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusions_group_by_kind_with_each_reason_inside() {
        let out = |name: &str, reason: &str, kind: &str| PlanContact {
            change: ContactChange {
                contact_id: Uuid::new_v4(),
                include: false,
                reason: reason.into(),
                add_tags: vec![],
                remove_tags: vec![],
                kind: kind.into(),
            },
            name: name.into(),
            opted_out: false,
            no_marketing_consent: false,
        };
        let mut kept = out("Ada", "", "");
        kept.change.include = true;
        kept.no_marketing_consent = true;
        let contacts = [
            out("Boris", "replied STOP in March", "opted_out"),
            out("Cleo", "opted out", "opted_out"),
            out("Dev", "Texted us last week", "active"),
            out("Eve", "texted recently", ""),
            kept,
        ];
        assert_eq!(
            exclusions_by_kind(&contacts),
            [
                (
                    "opted out".to_owned(),
                    vec![
                        "Boris (replied STOP in March)".to_owned(),
                        "Cleo".to_owned()
                    ]
                ),
                (
                    "active".to_owned(),
                    vec!["Dev (Texted us last week)".to_owned()]
                ),
                ("texted recently".to_owned(), vec!["Eve".to_owned()]),
                (
                    "no marketing consent on record (left out when sending)".to_owned(),
                    vec!["Ada".to_owned()]
                ),
            ]
        );
    }

    #[test]
    fn the_status_machine() {
        use PlanStatus::*;
        assert!(AwaitingApproval.can_become(Approved));
        assert!(AwaitingApproval.can_become(Rejected));
        assert!(Approved.can_become(Executing));
        assert!(Executing.can_become(Done) && Executing.can_become(Failed));
        assert!(!Rejected.can_become(Approved));
        assert!(!Done.can_become(Executing));
        assert!(!AwaitingApproval.can_become(Done));
        assert!(!Approved.can_become(Approved));
    }
}
