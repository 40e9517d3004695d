//! `find_contacts`: the organisation's contacts filtered by tag, opt-out state and last reply,
//! with the exact count (SQL through `contacts::filter`, at any size) and the first `limit`. Org-wide, so never offered in a contained reply turn.
use crate::ai_agent::llm::ToolDef;
use crate::ai_agent::tools::output::{schema_of, to_json, FoundContact, FoundContacts};
use crate::ai_agent::tools::{AgentTool, EffectKey, ToolCtx, ToolError};
use crate::contacts::model::ContactFilter;
use crate::contacts::{list, opt_out};
use crate::messaging::entity::conversation;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use std::collections::HashMap;
use uuid::Uuid;

pub struct FindContacts;

#[async_trait::async_trait]
impl AgentTool for FindContacts {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: "find_contacts".into(),
            description: "Find contacts by tag, by opt-out state, and by whether they replied in the last N days. Answers the exact count and the first `limit` contacts (name order).".into(),
            parameters: json!({"type": "object", "properties": {
                "tag": {"type": "string"},
                "opted_out": {"type": "boolean"},
                "no_reply_in_days": {"type": "integer", "minimum": 1, "maximum": 3650},
                "replied_in_days": {"type": "integer", "minimum": 1, "maximum": 3650},
                "limit": {"type": "integer", "minimum": 1, "maximum": 5000}
            }}),
        }
    }
    fn output_schema(&self) -> Value {
        schema_of::<FoundContacts>()
    }
    fn mutates(&self) -> bool {
        false
    }
    fn reads_org_wide(&self) -> bool {
        true
    }
    async fn call(&self, ctx: &ToolCtx, _key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        if !ctx.scope.reads_org_wide() {
            return Err(ToolError::Refused(
                "In a reply you can read only the contact who texted you.".into(),
            ));
        }
        let days = |k: &str| -> Result<Option<i64>, ToolError> {
            match args.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_i64()
                    .filter(|d| (1..=3650).contains(d))
                    .map(Some)
                    .ok_or_else(|| ToolError::BadArguments(format!("{k} must be 1 to 3650"))),
            }
        };
        let (quiet, active) = (days("no_reply_in_days")?, days("replied_in_days")?);
        let tag = args
            .get("tag")
            .and_then(Value::as_str)
            .map(|t| t.trim().to_lowercase())
            .filter(|t| !t.is_empty());
        let opted = match args.get("opted_out") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return Err(ToolError::BadArguments("opted_out is true or false".into())),
        };
        let limit = args
            .get("limit")
            .and_then(Value::as_u64)
            .unwrap_or(50)
            .clamp(1, 5000);
        let filter = ContactFilter {
            tags_any: tag.into_iter().collect(),
            opted_out: opted,
            no_reply_within_days: quiet.map(|d| d as u32),
            replied_within_days: active.map(|d| d as u32),
            ..Default::default()
        };
        let db = &ctx.state.db;
        let now = ctx.state.clock.now();
        let count = list::count(db, ctx.organization_id, &filter, now).await?;
        let (people, _) = list::rows(db, ctx.organization_id, &filter, now, None, limit).await?;
        let ids: Vec<Uuid> = people.iter().map(|c| c.id).collect();
        let outs = opt_out::sms_opt_outs(db, &ids).await?;
        let last_reply: HashMap<Uuid, chrono::DateTime<chrono::Utc>> = conversation::Entity::find()
            .filter(conversation::Column::OrganizationId.eq(ctx.organization_id))
            .filter(conversation::Column::ContactId.is_in(ids.clone()))
            .all(db)
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?
            .into_iter()
            .filter_map(|c| c.last_inbound_at.map(|at| (c.contact_id, at)))
            .collect();
        Ok(to_json(&FoundContacts {
            count: count as usize,
            contacts: people
                .into_iter()
                .map(|c| FoundContact {
                    id: c.id,
                    opted_out: outs.contains_key(&c.id),
                    last_reply_at: last_reply.get(&c.id).copied(),
                    tags: serde_json::from_value(c.tags).unwrap_or_default(),
                    name: c.name,
                    phone: c.phone,
                })
                .collect(),
        }))
    }
}
