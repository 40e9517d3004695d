//! `propose_sms_replies`: suggest-mode agents draft 2–3 options for the inline suggestions panel.
use super::output::{to_json, Proposed};
use super::{AgentTool, EffectKey, ToolCtx, ToolError};
use crate::ai_agent::entity::text_agent_suggestion;
use crate::ai_agent::llm::ToolDef;
use crate::messaging::model::LiveEvent;
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect, Set,
};
use serde_json::{json, Value};
use uuid::Uuid;

/// Three segments of GSM-7: long enough for any reply worth suggesting.
pub const MAX_OPTION_CHARS: usize = 459;

pub struct ProposeSmsReplies;

/// Validates the options: 2 or 3, non-empty, each within SMS limits; strings or {body, confidence}.
pub fn parse_options(args: &Value) -> Result<Vec<(String, f64)>, ToolError> {
    let list = args
        .get("options")
        .and_then(Value::as_array)
        .ok_or_else(|| ToolError::BadArguments("options must be a list".into()))?;
    if !(2..=3).contains(&list.len()) {
        return Err(ToolError::BadArguments(format!(
            "give 2 or 3 options, not {}",
            list.len()
        )));
    }
    list.iter()
        .enumerate()
        .map(|(i, o)| {
            let (body, confidence) = match o {
                Value::String(s) => (s.trim().to_owned(), 0.9 - 0.1 * i as f64),
                Value::Object(m) => (
                    m.get("body")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .trim()
                        .to_owned(),
                    m.get("confidence")
                        .and_then(Value::as_f64)
                        .unwrap_or(0.9 - 0.1 * i as f64)
                        .clamp(0.0, 1.0),
                ),
                _ => return Err(ToolError::BadArguments("each option is a string".into())),
            };
            if body.is_empty() {
                return Err(ToolError::BadArguments(format!(
                    "option {} is empty",
                    i + 1
                )));
            }
            if body.chars().count() > MAX_OPTION_CHARS {
                return Err(ToolError::BadArguments(format!(
                    "option {} is over {MAX_OPTION_CHARS} characters",
                    i + 1
                )));
            }
            Ok((body, confidence))
        })
        .collect()
}

/// Like `parse_options`, for the legacy suggester: None instead of an error.
pub fn parse_options_loose(args: &Value) -> Option<Vec<(String, f64)>> {
    parse_options(args).ok()
}

#[async_trait::async_trait]
impl AgentTool for ProposeSmsReplies {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: "propose_sms_replies".into(),
            description: "Draft 2 or 3 reply options for the text you are answering; a person picks one. You cannot send.".into(),
            parameters: json!({"type": "object", "required": ["options"], "properties": {
                "options": {"type": "array", "minItems": 2, "maxItems": 3, "items": {"type": "string"}}
            }}),
        }
    }
    fn output_schema(&self) -> Value {
        super::output::schema_of::<Proposed>()
    }
    fn mutates(&self) -> bool {
        true
    }
    async fn call(&self, ctx: &ToolCtx, key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let reply = ctx
            .reply
            .as_ref()
            .ok_or_else(|| ToolError::Refused("there is no inbound text to answer".into()))?;
        let options = parse_options(&args)?;
        let bodies: Vec<&str> = options.iter().map(|(b, _)| b.as_str()).collect();
        crate::ai_agent::grounding::refuse_invented_each(ctx, &bodies)
            .await
            .map_err(|(i, e)| ToolError::Refused(format!("Option {}: {e}", i + 1)))?;
        // The same call, re-run, proposes once.
        let existing = text_agent_suggestion::Entity::find()
            .filter(text_agent_suggestion::Column::SourceKey.eq(key.as_str()))
            .one(&ctx.state.db)
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        if let Some(row) = existing {
            // A re-run after a failure between the two writes still tells the owner, once.
            notify_owner(ctx, reply.contact_id, row.id, &options).await?;
            return Ok(to_json(&Proposed {
                proposed: options.len(),
                suggestion_id: row.id,
            }));
        }
        let id = Uuid::new_v4();
        text_agent_suggestion::ActiveModel {
            id: Set(id),
            organization_id: Set(ctx.organization_id),
            text_agent_id: Set(None),
            ai_agent_id: Set(Some(ctx.agent.id)),
            message_id: Set(reply.message_id),
            suggestions: Set(json!(options
                .iter()
                .map(|(b, c)| json!({
                    "body": b,
                    "confidence": c,
                    "sources": crate::ai_agent::grounding::cites(ctx, b),
                }))
                .collect::<Vec<_>>())),
            created_at: Set(ctx.state.clock.now()),
            source_key: Set(Some(key.as_str().to_owned())),
            used_by: Set(None),
            used_as: Set(None),
            rolled_up: Set(false),
            use_rolled: Set(false),
        }
        .insert(&ctx.state.db)
        .await
        .map_err(|e| ToolError::Failed(e.to_string()))?;
        ctx.state.live.publish(
            ctx.organization_id,
            LiveEvent::SuggestionsReady {
                contact_id: reply.contact_id,
                message_id: reply.message_id,
            },
        );
        notify_owner(ctx, reply.contact_id, id, &options).await?;
        Ok(to_json(&Proposed {
            proposed: options.len(),
            suggestion_id: id,
        }))
    }
}

/// How long one "drafted replies" notification gathers an agent's suggestion sets.
const ROLL_UP_MINUTES: i64 = 15;

/// "{Agent} drafted 3 replies for {contact}", for the agent's owner, linking to the
/// conversation; within a quarter hour, later sets roll into the same notification ("{Agent}
/// drafted replies for 37 conversations", linking to the unread inbox). A re-run counts the same
/// sets, so it changes nothing.
async fn notify_owner(
    ctx: &ToolCtx,
    contact_id: Uuid,
    _set_id: Uuid,
    options: &[(String, f64)],
) -> Result<(), ToolError> {
    let Some(user_id) = ctx.agent.user_id else {
        return Ok(());
    };
    let fail = |e: crate::error::AppError| ToolError::Failed(e.to_string());
    let db_fail = |e: sea_orm::DbErr| ToolError::Failed(e.to_string());
    let name = crate::contacts::entity::contact::Entity::find_by_id(contact_id)
        .filter(crate::contacts::entity::contact::Column::OrganizationId.eq(ctx.organization_id))
        .one(&ctx.state.db)
        .await
        .map_err(db_fail)?
        .map(|c| c.name)
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "a contact".into());
    let window = ROLL_UP_MINUTES * 60;
    let start_secs = ctx.state.clock.now().timestamp().div_euclid(window) * window;
    let start = chrono::DateTime::from_timestamp(start_secs, 0).unwrap_or_default();
    let end = start + chrono::Duration::seconds(window);
    // The conversations this agent drafted for in the window (this set included).
    let sets = Query::select()
        .column(text_agent_suggestion::Column::MessageId)
        .from(text_agent_suggestion::Entity)
        .and_where(Expr::col(text_agent_suggestion::Column::AiAgentId).eq(ctx.agent.id))
        .and_where(Expr::col(text_agent_suggestion::Column::CreatedAt).gte(start))
        .and_where(Expr::col(text_agent_suggestion::Column::CreatedAt).lt(end))
        .to_owned();
    let conversations = crate::messaging::entity::Entity::find()
        .select_only()
        .column(crate::messaging::entity::Column::ContactId)
        .distinct()
        .filter(crate::messaging::entity::Column::OrganizationId.eq(ctx.organization_id))
        .filter(crate::messaging::entity::Column::Id.in_subquery(sets))
        .count(&ctx.state.db)
        .await
        .map_err(db_fail)?;
    let first = options.first().map(|(b, _)| b.clone()).unwrap_or_default();
    let (title, body, link) = if conversations <= 1 {
        (
            format!(
                "{} drafted {} replies for {name}",
                ctx.agent.name,
                options.len()
            ),
            first,
            format!("/messaging/{contact_id}"),
        )
    } else {
        (
            format!(
                "{} drafted replies for {conversations} conversations",
                ctx.agent.name
            ),
            format!("Latest, for {name}: {first}"),
            "/messaging".to_owned(),
        )
    };
    crate::notifications::service::roll_up(
        &ctx.state,
        crate::notifications::service::Notice {
            agent_id: None,
            organization_id: ctx.organization_id,
            user_id,
            kind: "drafts",
            title,
            body,
            link: Some(link),
            source_key: Some(format!("drafts:{}:{start_secs}", ctx.agent.id)),
        },
    )
    .await
    .map_err(fail)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_validated() {
        assert_eq!(
            parse_options(&json!({"options": ["a", "b"]}))
                .unwrap()
                .len(),
            2
        );
        assert!(parse_options(&json!({"options": ["a"]})).is_err());
        assert!(parse_options(&json!({"options": ["a", "b", "c", "d"]})).is_err());
        assert!(parse_options(&json!({"options": ["a", "  "]})).is_err());
        assert!(parse_options(&json!({"options": ["a", "x".repeat(500)]})).is_err());
        assert!(parse_options(&json!({"options": "a"})).is_err());
        let o =
            parse_options(&json!({"options": [{"body": "a", "confidence": 0.7}, "b"]})).unwrap();
        assert_eq!(o[0], ("a".into(), 0.7));
    }
}
