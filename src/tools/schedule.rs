//! `schedule_text`: a follow-up text for later ("text them again in two days"). It makes the
//! checks a send makes now, and the sweeper makes them again when the text is due (opt-out, and
//! quiet hours hold it until morning). Keyed by the call's effect, so a step run again schedules
//! it once; a person can cancel it from the conversation until it goes.
use crate::ai_agent::llm::ToolDef;
use crate::ai_agent::tools::output::{schema_of, to_json, TextScheduled};
use crate::ai_agent::tools::{contact_arg, AgentTool, EffectKey, ToolCtx, ToolError};
use crate::messaging::model::MAX_SMS_CHARS;
use crate::messaging::scheduled::{schedule, MAX_HOURS};
use crate::plans::model::SCHEDULE_TOOL;
use serde_json::{json, Value};
use uuid::Uuid;

pub struct ScheduleText;

/// The contact, number, body and when, checked.
fn args_of(ctx: &ToolCtx, args: &Value) -> Result<(Uuid, Uuid, String, i64), ToolError> {
    let contact_id = contact_arg(ctx, args)?;
    let number_id: Uuid = args
        .get("phone_number_id")
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| ToolError::BadArguments("phone_number_id is required".into()))?;
    let body = args
        .get("body")
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::BadArguments("body is required".into()))?
        .to_owned();
    let hours = args
        .get("in_hours")
        .and_then(Value::as_i64)
        .filter(|h| (1..=MAX_HOURS).contains(h))
        .ok_or_else(|| {
            ToolError::BadArguments(format!("in_hours is a whole number from 1 to {MAX_HOURS}"))
        })?;
    Ok((contact_id, number_id, body, hours))
}

#[async_trait::async_trait]
impl AgentTool for ScheduleText {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: SCHEDULE_TOOL.into(),
            description: "Schedule a text to a contact for later, in `in_hours` hours. It is held to the contact's daytime hours and is not sent if they opt out meanwhile.".into(),
            parameters: json!({"type": "object", "required": ["contact_id", "body", "in_hours"], "properties": {
                "contact_id": {"type": "string", "format": "uuid"},
                "body": {"type": "string", "minLength": 1, "maxLength": MAX_SMS_CHARS},
                "in_hours": {"type": "integer", "minimum": 1, "maximum": MAX_HOURS},
                "phone_number_id": {"type": "string", "format": "uuid"}
            }}),
        }
    }
    fn output_schema(&self) -> Value {
        schema_of::<TextScheduled>()
    }
    fn mutates(&self) -> bool {
        true
    }
    async fn call(&self, ctx: &ToolCtx, key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        if ctx.scope.reply_context().is_some() {
            return Err(ToolError::Refused(
                "A text for later is scheduled by a plan, not in a reply.".into(),
            ));
        }
        let (contact_id, number_id, body, hours) = args_of(ctx, &args)?;
        let at = ctx.state.clock.now() + chrono::Duration::hours(hours);
        let row = schedule(
            &ctx.state,
            key.uuid(),
            ctx.organization_id,
            contact_id,
            number_id,
            &body,
            at,
            ctx.plan_id,
            None,
        )
        .await?;
        Ok(to_json(&TextScheduled {
            scheduled_id: row.id,
            contact_id,
            send_at: row.send_at,
            status: row.status,
        }))
    }
    async fn simulate(&self, ctx: &ToolCtx, args: Value) -> Result<Value, ToolError> {
        let (contact_id, number_id, body, hours) = args_of(ctx, &args)?;
        crate::messaging::outbound::check_sendable(
            &ctx.state,
            ctx.organization_id,
            contact_id,
            number_id,
            &body,
        )
        .await?;
        Ok(to_json(&TextScheduled {
            scheduled_id: Uuid::nil(),
            contact_id,
            send_at: ctx.state.clock.now() + chrono::Duration::hours(hours),
            status: "simulated".into(),
        }))
    }
}
