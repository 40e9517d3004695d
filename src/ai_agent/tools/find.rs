//! `find_contacts`: the organisation's contacts filtered by tag, opt-out state and last reply,
//! with an exact count. Org-wide, so never offered in a contained reply turn.
use super::output::{schema_of, to_json, FoundContact, FoundContacts};
use super::{AgentTool, EffectKey, ToolCtx, ToolError};
use crate::ai_agent::llm::ToolDef;
use crate::contacts::entity::contact;
use crate::contacts::opt_out;
use crate::messaging::entity as message;
use sea_orm::sea_query::{Expr, Func};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::{json, Value};
use std::collections::HashMap;
use uuid::Uuid;

/// Contacts an organisation may have that one call looks through.
const SCAN_LIMIT: u64 = 20_000;

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
            .clamp(1, 5000) as usize;
        let db = &ctx.state.db;
        let fail = |e: sea_orm::DbErr| ToolError::Failed(e.to_string());
        let people = contact::Entity::find()
            .filter(contact::Column::OrganizationId.eq(ctx.organization_id))
            .order_by_asc(contact::Column::Name)
            .limit(SCAN_LIMIT)
            .all(db)
            .await
            .map_err(fail)?;
        let ids: Vec<Uuid> = people.iter().map(|c| c.id).collect();
        let outs = opt_out::sms_opt_outs(db, &ids).await?;
        let last_reply: HashMap<Uuid, chrono::DateTime<chrono::Utc>> = message::Entity::find()
            .select_only()
            .column(message::Column::ContactId)
            .column_as(
                Expr::expr(Func::max(Expr::col(message::Column::CreatedAt))),
                "last",
            )
            .filter(message::Column::OrganizationId.eq(ctx.organization_id))
            .filter(message::Column::Direction.eq("inbound"))
            .group_by(message::Column::ContactId)
            .into_tuple::<(Uuid, chrono::DateTime<chrono::Utc>)>()
            .all(db)
            .await
            .map_err(fail)?
            .into_iter()
            .collect();
        let now = ctx.state.clock.now();
        let within = |id: &Uuid, d: i64| {
            last_reply
                .get(id)
                .is_some_and(|at| *at >= now - chrono::Duration::days(d))
        };
        let matching: Vec<&contact::Model> = people
            .iter()
            .filter(|c| {
                let tags: Vec<String> = serde_json::from_value(c.tags.clone()).unwrap_or_default();
                tag.as_ref()
                    .is_none_or(|t| tags.iter().any(|x| x.eq_ignore_ascii_case(t)))
                    && opted.is_none_or(|o| outs.contains_key(&c.id) == o)
                    && quiet.is_none_or(|d| !within(&c.id, d))
                    && active.is_none_or(|d| within(&c.id, d))
            })
            .collect();
        Ok(to_json(&FoundContacts {
            count: matching.len(),
            contacts: matching
                .iter()
                .take(limit)
                .map(|c| FoundContact {
                    id: c.id,
                    name: c.name.clone(),
                    phone: c.phone.clone(),
                    tags: serde_json::from_value(c.tags.clone()).unwrap_or_default(),
                    opted_out: outs.contains_key(&c.id),
                    last_reply_at: last_reply.get(&c.id).copied(),
                })
                .collect(),
        }))
    }
}
