//! Agent, thread and suggestion types shared by the agent pages and the server.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The well-known id of the "Text Reply" platform agent (mirrored in the seed migration).
pub const TEXT_REPLY_AGENT_ID: Uuid = Uuid::from_u128(0xa1a1a1a1_0000_4000_8000_000000000005);
/// The well-known id of the "Assistant" platform agent (mirrored in its seed migration).
pub const ASSISTANT_AGENT_ID: Uuid = Uuid::from_u128(0xa1a1a1a1_0000_4000_8000_000000000001);

/// How an agent's plans are approved (seed 002): each agent has its own, and the plan engine
/// (`plans::approval`) applies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalPolicy {
    HumanReview,
    Auto,
    RiskGated,
}

impl ApprovalPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::HumanReview => "human_review",
            Self::Auto => "auto",
            Self::RiskGated => "risk_gated",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "human_review" => Some(Self::HumanReview),
            "auto" => Some(Self::Auto),
            "risk_gated" => Some(Self::RiskGated),
            _ => None,
        }
    }
    /// What the agent config page calls it.
    pub fn label(self) -> &'static str {
        match self {
            Self::HumanReview => "Always review my agent's plans",
            Self::RiskGated => "Let it proceed on low-risk plans",
            Self::Auto => "Approve automatically (texts and campaigns still wait for me)",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SendMode {
    /// Sends replies itself, from the number the contact texted.
    Autonomous,
    /// Cannot send: drafts 2–3 options for a person to pick.
    Suggest,
}

impl SendMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SendMode::Autonomous => "autonomous",
            SendMode::Suggest => "suggest",
        }
    }

    /// Anything unknown is treated as the safe mode.
    pub fn parse(s: &str) -> Self {
        if s == "autonomous" {
            SendMode::Autonomous
        } else {
            SendMode::Suggest
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentView {
    pub id: Uuid,
    pub name: String,
    pub persona: String,
    pub goals: String,
    pub rules: String,
    pub send_mode: SendMode,
    pub owner_name: Option<String>,
    pub is_mine: bool,
    /// The organisation's numbers this agent answers.
    pub number_ids: Vec<Uuid>,
    pub planning_enabled: bool,
    pub plan_approval: ApprovalPolicy,
    /// Texts a turn that answers a contact may send.
    pub reply_send_limit: u32,
    /// Whether a reply turn may read the whole organisation (off: only the texting contact).
    pub reply_reads_org_wide: bool,
    /// Whether a hosted model with vision is shown the pictures contacts send.
    pub sees_pictures: bool,
    /// "Answer only from knowledge": a question the knowledge does not answer gets the holding
    /// reply and goes to the agent's owner.
    #[serde(default)]
    pub answer_only: bool,
    /// The knowledge sources it answers from; None: all of them.
    #[serde(default)]
    pub knowledge_sources: Option<Vec<Uuid>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentInput {
    pub name: String,
    pub persona: String,
    pub goals: String,
    pub rules: String,
    pub send_mode: SendMode,
    #[serde(default)]
    pub planning_enabled: bool,
    #[serde(default = "default_plan_approval")]
    pub plan_approval: ApprovalPolicy,
    #[serde(default = "default_reply_send_limit")]
    pub reply_send_limit: u32,
    #[serde(default)]
    pub reply_reads_org_wide: bool,
    #[serde(default)]
    pub sees_pictures: bool,
    /// "Answer only from knowledge". Unsaid (None): on for a new agent, unchanged for an edit.
    #[serde(default)]
    pub answer_only: Option<bool>,
}

fn default_reply_send_limit() -> u32 {
    2
}

fn default_plan_approval() -> ApprovalPolicy {
    ApprovalPolicy::HumanReview
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadSummary {
    pub id: Uuid,
    pub agent_id: Uuid,
    pub contact_id: Option<Uuid>,
    pub contact_name: Option<String>,
    pub state: String,
    pub last_error: Option<String>,
    pub updated_at: DateTime<Utc>,
}

/// Where the next page of an agent's threads starts: after this one, most recent first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadCursor {
    pub updated_at: DateTime<Utc>,
    pub id: Uuid,
}

/// One page of an agent's threads the member may see, with how many there are.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadPage {
    pub items: Vec<ThreadSummary>,
    pub total: u64,
    pub next: Option<ThreadCursor>,
}

/// Longest operator instruction to an agent, in characters.
pub const MAX_INSTRUCTION_CHARS: usize = 4_000;

/// What a thread's composer needs: whose agent it is, whether it plans, and whether the person
/// looking may instruct it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OperatorView {
    pub agent_id: Uuid,
    pub agent_name: String,
    pub planning_enabled: bool,
    pub can_instruct: bool,
}

/// One entry of a thread's history, as the thread view shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadEventView {
    pub id: Uuid,
    pub kind: String,
    pub summary: String,
    pub detail: Option<String>,
    pub processed: bool,
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuggestionOption {
    pub body: String,
    pub confidence: f64,
    /// The business's knowledge the option uses: "From: Pricing FAQ".
    #[serde(default)]
    pub sources: Vec<crate::messaging::model::MessageSource>,
}

/// Reply options for one inbound message, from an agent or the legacy suggester.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuggestionSet {
    pub id: Uuid,
    pub message_id: Uuid,
    pub source: String,
    pub offline: bool,
    pub options: Vec<SuggestionOption>,
}

/// How many suggested replies wait on one inbound message (its newest set's options), for the
/// "3 suggested replies" under its bubble.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuggestedCount {
    pub message_id: Uuid,
    pub replies: u32,
}

/// A conversation's page as it opens: its newest texts and how many suggested replies wait on
/// each of its inbound ones (one call, so the page loads once).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConversationWithDrafts {
    pub conversation: crate::inbox::model::ConversationView,
    pub suggested: Vec<SuggestedCount>,
}

/// Which model answers, for the "offline model" label in the UI.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub label: String,
    pub offline: bool,
}

/// Longest legacy suggester name, in characters.
pub const MAX_TEXT_AGENT_NAME: usize = 120;
/// Longest legacy suggester persona (its instructions), in characters.
pub const MAX_TEXT_AGENT_PERSONA: usize = 4_000;

/// A legacy suggester (`text_agent`) as the owner writes it: the persona it suggests replies
/// in, whether it sends its best option itself, and how sure it must be to do so.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextAgentInput {
    pub name: String,
    pub persona: String,
    pub auto_reply: bool,
    /// 0 to 1: with `auto_reply`, the best option is sent only at or above this confidence.
    pub confidence_threshold: f64,
}

impl Default for TextAgentInput {
    fn default() -> Self {
        Self {
            name: String::new(),
            persona: String::new(),
            auto_reply: false,
            confidence_threshold: 0.9,
        }
    }
}

impl TextAgentInput {
    /// Trimmed and checked, or why not.
    pub fn cleaned(&self) -> Result<TextAgentInput, String> {
        let name = self.name.trim();
        if name.is_empty() {
            return Err("A suggester needs a name.".into());
        }
        if name.chars().count() > MAX_TEXT_AGENT_NAME {
            return Err(format!(
                "The name is longer than {MAX_TEXT_AGENT_NAME} characters."
            ));
        }
        let persona = self.persona.trim();
        if persona.chars().count() > MAX_TEXT_AGENT_PERSONA {
            return Err(format!(
                "The persona is longer than {MAX_TEXT_AGENT_PERSONA} characters."
            ));
        }
        if !(0.0..=1.0).contains(&self.confidence_threshold) {
            return Err("The confidence threshold is between 0 and 1.".into());
        }
        Ok(TextAgentInput {
            name: name.to_owned(),
            persona: persona.to_owned(),
            auto_reply: self.auto_reply,
            confidence_threshold: self.confidence_threshold,
        })
    }
}

/// A legacy suggester with what it answers: numbers (without an AI agent) and contacts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextAgentView {
    pub id: Uuid,
    pub name: String,
    pub persona: String,
    pub auto_reply: bool,
    pub confidence_threshold: f64,
    pub number_ids: Vec<Uuid>,
    pub contacts: Vec<(Uuid, String)>,
}

/// What "Try a question" shows for one agent: the reply it would give, from which knowledge, or
/// what it refused and whom it would ask.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentTry {
    pub agent_id: Uuid,
    pub agent: String,
    /// Whether it drafts for a person (suggest mode) rather than sending.
    pub suggests: bool,
    /// The model it runs on.
    pub model: String,
    pub answer_only: bool,
    pub reply: Option<String>,
    /// The knowledge the reply used, by title.
    pub sources: Vec<String>,
    /// Replies the check refused (figures from nowhere).
    pub refused: Vec<String>,
    /// Why it would hand the conversation to its owner.
    pub escalation: Option<String>,
}
