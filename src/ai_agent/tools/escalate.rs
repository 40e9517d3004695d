//! `escalate_to_user`: hands the conversation to the agent's owner, with a draft, as a notification;
//! in a reply, the conversation is assigned to the owner and the agents pause there.
use super::{AgentTool, EffectKey, ToolCtx, ToolError};
use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::llm::ToolDef;
use crate::error::AppResult;
use crate::platform::AppState;
use serde_json::{json, Value};
use uuid::Uuid;

pub struct EscalateToUser;

/// What an escalation says, and the effect it belongs to (so a re-run escalates once).
pub struct Escalation {
    pub title: String,
    pub body: String,
    pub link: Option<String>,
    pub source_key: Option<String>,
}

/// Notifies the agent's owner (or nobody, for platform agents without one).
pub async fn escalate_to_owner(
    state: &AppState,
    agent: &ai_agent::Model,
    organization_id: Uuid,
    e: Escalation,
) -> AppResult<Option<Uuid>> {
    let Some(user_id) = agent.user_id else {
        return Ok(None);
    };
    let id = crate::notifications::service::notify(
        state,
        crate::notifications::service::Notice {
            agent_id: Some(agent.id),
            organization_id,
            user_id,
            kind: "escalation",
            title: e.title,
            body: e.body,
            link: e.link,
            source_key: e.source_key,
        },
    )
    .await?;
    Ok(Some(id))
}

#[async_trait::async_trait]
impl AgentTool for EscalateToUser {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: "escalate_to_user".into(),
            description: "Hand this to your owner when you are unsure or cannot act; include your draft reply.".into(),
            parameters: json!({"type": "object", "required": ["reason"], "properties": {
                "reason": {"type": "string"},
                "draft": {"type": "string"}
            }}),
        }
    }
    fn output_schema(&self) -> Value {
        super::output::schema_of::<super::output::Escalated>()
    }
    fn mutates(&self) -> bool {
        false
    }
    async fn call(&self, ctx: &ToolCtx, key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let reason = args
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        if reason.is_empty() {
            return Err(ToolError::BadArguments("reason is required".into()));
        }
        let draft = args
            .get("draft")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|d| !d.is_empty());
        let body = match draft {
            Some(d) => format!("{reason}\n\nDraft: {d}"),
            None => reason.to_owned(),
        };
        let link = ctx
            .reply
            .as_ref()
            .map(|r| format!("/messaging/{}", r.contact_id));
        let id = escalate_to_owner(
            &ctx.state,
            &ctx.agent,
            ctx.organization_id,
            Escalation {
                title: format!("{} needs you", ctx.agent.name),
                body,
                link,
                source_key: Some(key.as_str().to_owned()),
            },
        )
        .await?;
        // In a reply, the conversation goes to the owner and the agents step back (the handoff).
        if let (Some(r), Some(owner)) = (ctx.reply.as_ref(), ctx.agent.user_id) {
            crate::inbox::service::hand_over(&ctx.state, ctx.organization_id, r.contact_id, owner)
                .await?;
        }
        Ok(super::output::to_json(&super::output::Escalated {
            escalated: id.is_some(),
            notification_id: id,
        }))
    }
}
