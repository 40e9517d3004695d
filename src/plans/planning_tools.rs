//! Planning tools: `enter_plan_mode` switches the turn to read-only planning, and `present_plan`
//! (schema generated from the plan types) submits a typed plan and ends the turn.
use crate::ai_agent::llm::ToolDef;
use crate::ai_agent::tools::{AgentTool, EffectKey, ToolCtx, ToolError, TurnScope};
use crate::plans::model::PlanAction;
use serde::Deserialize;
use serde_json::{json, Value};

pub const PLAN_SUBMITTED: &str = "Plan submitted for review";

/// What `present_plan` takes: the AgentPlan envelope an agent fills in.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PresentPlanArgs {
    /// A short headline, e.g. "Tag 12 quiet contacts".
    pub title: String,
    /// Why this plan, in a sentence or two, for the person reviewing it.
    pub summary: String,
    /// The typed, executable action.
    pub action: PlanAction,
    /// When re-planning: the id of the plan this one revises (its completed steps stay frozen).
    #[serde(default)]
    pub revises_plan_id: Option<uuid::Uuid>,
}

pub struct PresentPlan;

/// A contact's text cannot get a plan that texts people, or one that touches anyone else.
fn contain(scope: &TurnScope, action: &PlanAction) -> Result<(), ToolError> {
    let Some(reply) = scope.reply_context() else {
        return Ok(());
    };
    // Its steps' targets are known only when they run: never from a contact's text.
    if matches!(action, PlanAction::Steps { .. }) {
        return Err(ToolError::Refused(
            "A step plan cannot come from a reply to a contact.".into(),
        ));
    }
    if action.audience().is_some() {
        return Err(ToolError::Refused(
            "In a reply, a plan may change only the contact who texted you, not an audience."
                .into(),
        ));
    }
    if action.sends_messages() {
        return Err(ToolError::Refused(
            "A plan that texts people cannot come from a reply to a contact.".into(),
        ));
    }
    if action
        .changes()
        .iter()
        .any(|c| c.include && c.contact_id != reply.contact_id)
    {
        return Err(ToolError::Refused(
            "In a reply, a plan may change only the contact who texted you.".into(),
        ));
    }
    Ok(())
}

#[async_trait::async_trait]
impl AgentTool for PresentPlan {
    fn def(&self) -> ToolDef {
        let schema = schemars::schema_for!(PresentPlanArgs);
        ToolDef {
            name: "present_plan".into(),
            description: "Submit your plan for approval. Nothing changes until it is approved; this ends your turn.".into(),
            parameters: serde_json::to_value(schema).unwrap_or_else(|_| json!({"type": "object"})),
        }
    }
    /// Not a step tool: it ends the turn with the plan's id and status.
    fn output_schema(&self) -> Value {
        json!({"type": "object"})
    }
    /// It proposes; only the executor, after approval, changes anything.
    fn mutates(&self) -> bool {
        false
    }
    async fn call(&self, ctx: &ToolCtx, key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let args: PresentPlanArgs = serde_json::from_value(args)
            .map_err(|e| ToolError::BadArguments(format!("not a plan: {e}")))?;
        contain(&ctx.scope, &args.action)?;
        let plan = crate::plans::service::present_plan(
            &ctx.state,
            &ctx.agent,
            crate::plans::service::Presented {
                thread_id: Some(ctx.thread_id),
                title: &args.title,
                summary: &args.summary,
                action: args.action,
                policy_override: None,
                source_key: Some(key.as_str().to_owned()),
                revises: args.revises_plan_id,
            },
        )
        .await?;
        Ok(json!({
            "result": PLAN_SUBMITTED,
            "plan_id": plan.id,
            "status": plan.status,
            "decision_reason": plan.decision_reason,
        }))
    }
}

pub struct EnterPlanMode;

#[async_trait::async_trait]
impl AgentTool for EnterPlanMode {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: "enter_plan_mode".into(),
            description: "For complex or high-impact work: switch to read-only planning, research, then present_plan.".into(),
            parameters: json!({"type": "object", "properties": {"reason": {"type": "string"}}}),
        }
    }
    /// Not a step tool: it switches the turn to planning.
    fn output_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn mutates(&self) -> bool {
        false
    }
    async fn call(
        &self,
        _ctx: &ToolCtx,
        _key: &EffectKey,
        _args: Value,
    ) -> Result<Value, ToolError> {
        Ok(
            json!({"planning": true, "note": "You are planning: only read tools and present_plan are available until the plan is approved."}),
        )
    }
}
