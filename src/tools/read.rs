//! Read-only CRM tools: the contact, a contact search, recent messages and opt-out status.
use crate::ai_agent::llm::ToolDef;
use crate::ai_agent::tools::output::{
    schema_of, to_json, ContactBrief, ContactRecord, ContactsFound, MessageBrief, OptOutState,
    QuietContact, QuietContacts,
};
use crate::ai_agent::tools::{readable_contact, AgentTool, EffectKey, ToolCtx, ToolError};
use crate::contacts::entity::contact;
use crate::contacts::model::{ContactFilter, FieldOp, FieldTest};
use crate::contacts::{list, opt_out, service as contacts};
use crate::messaging::entity as message;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::{json, Value};

fn def(name: &str, description: &str, parameters: Value) -> ToolDef {
    ToolDef {
        name: name.into(),
        description: description.into(),
        parameters,
    }
}

fn optional_contact() -> Value {
    json!({"type": "object", "properties": {"contact_id": {"type": "string", "description": "Defaults to the contact who texted."}}})
}

/// Second layer: an org-wide tool refuses to run in a contained reply turn, offered or not.
pub(super) fn org_wide(ctx: &ToolCtx) -> Result<(), ToolError> {
    if ctx.scope.reads_org_wide() {
        Ok(())
    } else {
        Err(ToolError::Refused(
            "In a reply you can read only the contact who texted you.".into(),
        ))
    }
}

pub struct GetContact;

#[async_trait::async_trait]
impl AgentTool for GetContact {
    fn def(&self) -> ToolDef {
        def(
            "get_contact",
            "The contact's record: name, phone, email, tags, custom fields, notes.",
            optional_contact(),
        )
    }
    fn output_schema(&self) -> Value {
        schema_of::<ContactRecord>()
    }
    fn mutates(&self) -> bool {
        false
    }
    async fn call(&self, ctx: &ToolCtx, _key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let id = readable_contact(ctx, &args)?;
        let c = contacts::view(&ctx.state, ctx.organization_id, id).await?;
        Ok(to_json(&ContactRecord::from(c)))
    }
}

pub struct SearchContacts;

#[async_trait::async_trait]
impl AgentTool for SearchContacts {
    fn def(&self) -> ToolDef {
        def(
            "search_contacts",
            "Find contacts by name, phone or tag, or by a custom field's value. Answers the exact count and the first 50 (name order).",
            json!({"type": "object", "properties": {
                "query": {"type": "string"},
                "custom_field": {"type": "string"},
                "value": {"type": "string"}
            }}),
        )
    }
    fn output_schema(&self) -> Value {
        schema_of::<ContactsFound>()
    }
    fn mutates(&self) -> bool {
        false
    }
    fn reads_org_wide(&self) -> bool {
        true
    }
    async fn call(&self, ctx: &ToolCtx, _key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        org_wide(ctx)?;
        let query = args.get("query").and_then(Value::as_str).unwrap_or("");
        let mut filter = ContactFilter {
            search: Some(query.to_owned()),
            ..Default::default()
        };
        if let (Some(field), Some(value)) = (
            args.get("custom_field").and_then(Value::as_str),
            args.get("value").and_then(Value::as_str),
        ) {
            filter.fields.push(FieldTest {
                field: field.to_owned(),
                op: FieldOp::Equals,
                value: value.to_owned(),
            });
        }
        let db = &ctx.state.db;
        let now = ctx.state.clock.now();
        let count = list::count(db, ctx.organization_id, &filter, now).await?;
        let (rows, _) = list::rows(db, ctx.organization_id, &filter, now, None, 50).await?;
        let ids: Vec<_> = rows.iter().map(|c| c.id).collect();
        let outs = opt_out::sms_opt_outs(db, &ids).await?;
        let contacts = rows
            .into_iter()
            .map(|c| ContactBrief {
                opted_out: outs.contains_key(&c.id),
                tags: serde_json::from_value(c.tags).unwrap_or_default(),
                id: c.id,
                name: c.name,
                phone: c.phone,
            })
            .collect();
        Ok(to_json(&ContactsFound {
            count: count as usize,
            contacts,
        }))
    }
}

pub struct RecentMessages;

#[async_trait::async_trait]
impl AgentTool for RecentMessages {
    fn def(&self) -> ToolDef {
        def(
            "recent_messages",
            "The latest texts with a contact, oldest first.",
            json!({"type": "object", "properties": {"contact_id": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 50}}}),
        )
    }
    fn output_schema(&self) -> Value {
        schema_of::<Vec<MessageBrief>>()
    }
    fn mutates(&self) -> bool {
        false
    }
    async fn call(&self, ctx: &ToolCtx, _key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let id = readable_contact(ctx, &args)?;
        contacts::find_in_org(&ctx.state.db, ctx.organization_id, id).await?;
        let limit = args
            .get("limit")
            .and_then(Value::as_u64)
            .unwrap_or(10)
            .clamp(1, 50);
        let mut rows = message::Entity::find()
            .filter(message::Column::OrganizationId.eq(ctx.organization_id))
            .filter(message::Column::ContactId.eq(id))
            .order_by_desc(message::Column::CreatedAt)
            .limit(limit)
            .all(&ctx.state.db)
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        rows.reverse();
        let texts: Vec<MessageBrief> = rows
            .into_iter()
            .map(|m| MessageBrief {
                direction: m.direction,
                body: m.body,
                at: m.created_at,
            })
            .collect();
        Ok(to_json(&texts))
    }
}

pub struct CheckOptOut;

#[async_trait::async_trait]
impl AgentTool for CheckOptOut {
    fn def(&self) -> ToolDef {
        def(
            "check_opt_out",
            "Whether the contact has opted out of texts.",
            optional_contact(),
        )
    }
    fn output_schema(&self) -> Value {
        schema_of::<OptOutState>()
    }
    fn mutates(&self) -> bool {
        false
    }
    async fn call(&self, ctx: &ToolCtx, _key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let id = readable_contact(ctx, &args)?;
        let c: contact::Model =
            contacts::find_in_org(&ctx.state.db, ctx.organization_id, id).await?;
        let out = opt_out::sms_opt_out(&ctx.state.db, c.id).await?;
        Ok(to_json(&OptOutState {
            contact_id: c.id,
            opted_out: out.is_some(),
            source: out.map(|o| o.source),
        }))
    }
}

pub struct FindQuietContacts;

#[async_trait::async_trait]
impl AgentTool for FindQuietContacts {
    fn def(&self) -> ToolDef {
        def(
            "find_quiet_contacts",
            "Contacts with no text from them in the last N days (or ever), with their opt-out status.",
            json!({"type": "object", "required": ["days"], "properties": {"days": {"type": "integer", "minimum": 1, "maximum": 3650}}}),
        )
    }
    fn output_schema(&self) -> Value {
        schema_of::<QuietContacts>()
    }
    fn mutates(&self) -> bool {
        false
    }
    fn reads_org_wide(&self) -> bool {
        true
    }
    async fn call(&self, ctx: &ToolCtx, _key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        org_wide(ctx)?;
        let days = args
            .get("days")
            .and_then(Value::as_i64)
            .filter(|d| (1..=3650).contains(d))
            .ok_or_else(|| ToolError::BadArguments("days must be 1 to 3650".into()))?;
        let db = &ctx.state.db;
        let now = ctx.state.clock.now();
        let quiet_filter = ContactFilter {
            no_reply_within_days: Some(days as u32),
            ..Default::default()
        };
        let count = list::count(db, ctx.organization_id, &quiet_filter, now).await?;
        let shown = crate::plans::model::HAND_PICKED_MAX as u64;
        let (people, _) =
            list::rows(db, ctx.organization_id, &quiet_filter, now, None, shown).await?;
        let replied = ContactFilter {
            replied_within_days: Some(days as u32),
            ..Default::default()
        };
        let replied_recently = list::count(db, ctx.organization_id, &replied, now).await?;
        let ids: Vec<uuid::Uuid> = people.iter().map(|c| c.id).collect();
        let outs = opt_out::sms_opt_outs(db, &ids).await?;
        let quiet: Vec<QuietContact> = people
            .into_iter()
            .map(|c| QuietContact {
                opted_out: outs.contains_key(&c.id),
                tags: serde_json::from_value(c.tags).unwrap_or_default(),
                id: c.id,
                name: c.name,
            })
            .collect();
        let note = (count > quiet.len() as u64).then(|| {
            format!(
                "Showing the first {} of {count}. To act on all of them, plan over the filter {{\"no_reply_within_days\": {days}}} as the audience.",
                quiet.len()
            )
        });
        Ok(to_json(&QuietContacts {
            days,
            count,
            quiet,
            replied_recently,
            note,
        }))
    }
}
