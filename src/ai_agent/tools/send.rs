//! `send_sms`: autonomous agents only, curried to the number the contact texted.
use super::{contact_arg, AgentTool, ToolCtx, ToolError};
use crate::ai_agent::llm::ToolDef;
use crate::messaging::outbound::send_sms;
use crate::phone_numbers::service as numbers;
use serde_json::{json, Value};
use uuid::Uuid;

pub struct SendSms;

#[async_trait::async_trait]
impl AgentTool for SendSms {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: "send_sms".into(),
            description: "Send a text to the contact. It leaves from the number they texted unless you name another of our numbers.".into(),
            parameters: json!({"type": "object", "required": ["body"], "properties": {
                "body": {"type": "string"},
                "contact_id": {"type": "string"},
                "phone_number_id": {"type": "string"}
            }}),
        }
    }
    fn mutates(&self) -> bool {
        true
    }
    async fn call(&self, ctx: &ToolCtx, args: Value) -> Result<Value, ToolError> {
        let body = args
            .get("body")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::BadArguments("body is required".into()))?;
        let contact_id = contact_arg(ctx, &args)?;
        let number_id: Uuid = match args.get("phone_number_id").and_then(Value::as_str) {
            Some(s) => {
                let id: Uuid = s
                    .parse()
                    .map_err(|_| ToolError::BadArguments("phone_number_id is not a uuid".into()))?;
                // Another of the organisation's numbers may be named; anything else is refused.
                numbers::find_in_org(&ctx.state.db, ctx.organization_id, id)
                    .await
                    .map_err(|_| {
                        ToolError::Refused(
                            "That number is not one of this organisation's numbers.".into(),
                        )
                    })?;
                id
            }
            None => ctx
                .reply
                .as_ref()
                .map(|r| r.phone_number_id)
                .ok_or_else(|| {
                    ToolError::BadArguments("phone_number_id is required outside a reply".into())
                })?,
        };
        let origin = if ctx.state.model.is_offline() {
            "agent (offline model)"
        } else {
            "agent"
        };
        let sent = send_sms(
            &ctx.state,
            ctx.organization_id,
            contact_id,
            number_id,
            body,
            Some(origin),
        )
        .await?;
        Ok(
            json!({"sent": true, "message_id": sent.id, "status": sent.status, "from_number_id": number_id}),
        )
    }
}
