//! The agent's tool framework: what a tool is (`AgentTool`), the context and scope a call runs
//! in, and the one execution path that refuses any tool not offered this turn. The tools that
//! reach plans and campaigns, and the catalog that offers them, stand above in `tools`; a turn and
//! a plan's steps get them through `ToolSource`, filled by the composition root.
pub mod effect;
mod escalate;
pub mod output;
pub mod propose;
mod search_knowledge;

pub use escalate::{escalate_to_owner, EscalateToUser, Escalation};
pub use propose::ProposeSmsReplies;
pub use search_knowledge::SearchKnowledge;

use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::llm::{ToolCall, ToolDef};
use crate::auth::session::Member;
use crate::platform::AppState;
use serde_json::Value;
use std::sync::atomic::AtomicU32;
use uuid::Uuid;

/// Where the turn's reply goes: the contact, the message being answered, the number it came to.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplyContext {
    pub contact_id: Uuid,
    pub message_id: Uuid,
    pub phone_number_id: Uuid,
}

/// What a turn may reach. A contact's text is untrusted input: a turn it started is held to that
/// contact, whatever the model asks for. Operator turns (the Assistant, the owner writing in a
/// thread) and approved plans keep the organisation-wide tools.
#[derive(Debug)]
pub enum TurnScope {
    Reply {
        reply: ReplyContext,
        /// Whether the owner let replies read the whole organisation.
        org_wide_reads: bool,
        /// Texts this turn may still send.
        sends_left: AtomicU32,
    },
    Operator,
}

impl TurnScope {
    pub fn reply(reply: ReplyContext, org_wide_reads: bool, send_limit: u32) -> Self {
        TurnScope::Reply {
            reply,
            org_wide_reads,
            sends_left: AtomicU32::new(send_limit),
        }
    }

    /// Refuses reading anyone but the texting contact in a contained reply turn.
    pub fn may_read(&self, contact_id: Uuid) -> Result<(), ToolError> {
        match self {
            TurnScope::Reply {
                reply,
                org_wide_reads: false,
                ..
            } if reply.contact_id != contact_id => Err(ToolError::Refused(
                "In a reply you can read only the contact who texted you.".into(),
            )),
            _ => Ok(()),
        }
    }

    /// Whether org-wide read tools (search, quiet contacts) are available.
    pub fn reads_org_wide(&self) -> bool {
        matches!(
            self,
            TurnScope::Operator
                | TurnScope::Reply {
                    org_wide_reads: true,
                    ..
                }
        )
    }

    pub fn reply_context(&self) -> Option<&ReplyContext> {
        match self {
            TurnScope::Reply { reply, .. } => Some(reply),
            TurnScope::Operator => None,
        }
    }
}

/// The idempotency key of one effect: the same call, re-run after a crash or a failure, has the
/// same key, so the effect (a text, a plan, a suggestion, a notification) happens once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EffectKey(String);

impl EffectKey {
    /// A turn's tool call: the thread, the stored assistant message that made the call, and the
    /// call's id (models reuse ids across turns; the stored message makes the key unique).
    pub fn for_call(thread_id: Uuid, assistant_event: Uuid, call_id: &str) -> Self {
        EffectKey(format!("turn:{thread_id}:{assistant_event}:{call_id}"))
    }

    /// Any other effect, named by its caller (a plan's step, a legacy auto-reply).
    pub fn named(key: impl Into<String>) -> Self {
        EffectKey(key.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key as a UUID (v5 of the text), for columns that hold one.
    pub fn uuid(&self) -> Uuid {
        Uuid::new_v5(&Uuid::NAMESPACE_OID, self.0.as_bytes())
    }
}

/// What a tool may use while it runs.
pub struct ToolCtx {
    pub state: AppState,
    pub agent: ai_agent::Model,
    pub organization_id: Uuid,
    pub thread_id: Uuid,
    pub member: Option<Member>,
    pub reply: Option<ReplyContext>,
    pub scope: TurnScope,
    /// The approved plan a step runs for (none in a turn).
    pub plan_id: Option<Uuid>,
    /// Whose words the turn's context holds (`ai_agent::taint`); the runtime keeps it current
    /// before each round of calls. Clean for a plan's steps: a person approved them.
    pub taint: std::sync::Mutex<crate::ai_agent::taint::Taint>,
    /// What the turn found in the business's knowledge (`ai_agent::grounding`), grown by
    /// `search_knowledge`. Empty for a plan's steps.
    pub knowledge: std::sync::Mutex<crate::knowledge::ground::Grounding>,
}

impl ToolCtx {
    /// What the turn knows from the business's knowledge now.
    pub fn knowledge(&self) -> crate::knowledge::ground::Grounding {
        self.knowledge
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Whose words the turn's context holds now.
    pub fn taint(&self) -> crate::ai_agent::taint::Taint {
        self.taint.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[derive(thiserror::Error, Debug, PartialEq)]
pub enum ToolError {
    #[error("invalid arguments: {0}")]
    BadArguments(String),
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    Failed(String),
}

impl From<crate::error::AppError> for ToolError {
    fn from(e: crate::error::AppError) -> Self {
        match e {
            crate::error::AppError::Validation(m) | crate::error::AppError::OptedOut(m) => {
                ToolError::Refused(m)
            }
            crate::error::AppError::NotFound(m) => {
                ToolError::Refused(format!("{m} was not found in this organisation"))
            }
            other => ToolError::Failed(other.to_string()),
        }
    }
}

#[async_trait::async_trait]
pub trait AgentTool: Send + Sync {
    fn def(&self) -> ToolDef;
    /// The JSON schema of what it answers (generated from its output type): step plans check
    /// their references against it.
    fn output_schema(&self) -> Value;
    /// Whether calling it changes anything (a send, a write).
    fn mutates(&self) -> bool;
    /// Whether it reads across the organisation (withheld from contained reply turns).
    fn reads_org_wide(&self) -> bool {
        false
    }
    async fn call(&self, ctx: &ToolCtx, key: &EffectKey, args: Value) -> Result<Value, ToolError>;
    /// What calling it would answer, changing nothing (a plan's dry run). A read simply runs; a
    /// write answers a preview shaped like its result, after every check the write makes.
    async fn simulate(&self, ctx: &ToolCtx, args: Value) -> Result<Value, ToolError> {
        if self.mutates() {
            return Err(ToolError::Failed(format!(
                "`{}` cannot be simulated",
                self.def().name
            )));
        }
        self.call(ctx, &EffectKey::named("simulation"), args).await
    }
}

pub type Toolset = Vec<Box<dyn AgentTool>>;

/// Where a turn's tools and a plan's step tools come from: the catalog above agents, plans and
/// campaigns (`tools::Catalog`, wired in by the server), so that both run the same
/// implementations without this module importing the tools that start plans and campaigns.
pub trait ToolSource: Send + Sync {
    /// An agent's tools for one turn. `planning` is None when the agent does not plan, else
    /// whether this turn is a planning one.
    fn for_turn(
        &self,
        agent: &ai_agent::Model,
        owner: Option<&Member>,
        reply: Option<&ReplyContext>,
        scope: &TurnScope,
        planning: Option<bool>,
    ) -> Toolset;

    /// The tools a plan's steps may call.
    fn for_steps(&self) -> Toolset;
}

impl AppState {
    /// The tools on offer (`ToolSource`).
    pub fn tools(&self) -> &std::sync::Arc<dyn ToolSource> {
        self.part::<std::sync::Arc<dyn ToolSource>>()
    }
}

/// The definitions offered this turn: during planning, mutating tools are withheld.
pub fn definitions(tools: &Toolset, planning: bool) -> Vec<ToolDef> {
    tools
        .iter()
        .filter(|t| !(planning && t.mutates()))
        .map(|t| t.def())
        .collect()
}

/// Runs one tool call. A tool not offered this turn is refused here, whatever the model says;
/// malformed arguments go back to the model as an error, never a crash.
#[tracing::instrument(skip(ctx, tools, call), fields(tool = %call.name))]
pub async fn execute_tool_call(
    ctx: &ToolCtx,
    tools: &Toolset,
    planning: bool,
    call: &ToolCall,
    key: &EffectKey,
) -> Result<Value, ToolError> {
    let tool = tools.iter().find(|t| t.def().name == call.name);
    // Second layer: whatever was offered, a planning turn never runs a mutating tool.
    if planning && tool.is_some_and(|t| t.mutates()) {
        tracing::warn!(tool = %call.name, "refused a write during planning");
        return Err(ToolError::Refused(format!(
            "You are planning: `{}` changes things, and nothing may change until a plan is approved. Use read tools, then present_plan.",
            call.name
        )));
    }
    let Some(tool) = tool else {
        tracing::warn!(tool = %call.name, "refused a tool that was not offered");
        return Err(ToolError::Refused(format!(
            "The tool `{}` is not available to you in this turn.",
            call.name
        )));
    };
    let args: Value = if call.arguments.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str(&call.arguments)
            .map_err(|e| ToolError::BadArguments(format!("arguments are not valid JSON ({e})")))?
    };
    if !args.is_object() {
        return Err(ToolError::BadArguments(
            "arguments must be a JSON object".into(),
        ));
    }
    tool.call(ctx, key, args).await
}

/// Reads an optional uuid argument, falling back to the reply context's contact.
pub(crate) fn contact_arg(ctx: &ToolCtx, args: &Value) -> Result<Uuid, ToolError> {
    match args.get("contact_id") {
        Some(Value::String(s)) => s
            .parse()
            .map_err(|_| ToolError::BadArguments("contact_id is not a uuid".into())),
        Some(Value::Null) | None => ctx
            .reply
            .as_ref()
            .map(|r| r.contact_id)
            .ok_or_else(|| ToolError::BadArguments("contact_id is required".into())),
        Some(_) => Err(ToolError::BadArguments("contact_id is not a uuid".into())),
    }
}

/// The contact a read tool may look at: the argument (or the texting contact), within scope.
pub(crate) fn readable_contact(ctx: &ToolCtx, args: &Value) -> Result<Uuid, ToolError> {
    let id = contact_arg(ctx, args)?;
    ctx.scope.may_read(id)?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effect_keys_are_stable_and_distinct() {
        let (t, a) = (Uuid::new_v4(), Uuid::new_v4());
        assert_eq!(
            EffectKey::for_call(t, a, "c1").uuid(),
            EffectKey::for_call(t, a, "c1").uuid()
        );
        assert_ne!(
            EffectKey::for_call(t, a, "c1").uuid(),
            EffectKey::for_call(t, Uuid::new_v4(), "c1").uuid()
        );
    }
}
