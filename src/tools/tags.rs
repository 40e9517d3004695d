//! Tags: `list_tags` reads every tag in use; `tag_contacts` adds and removes tags on a list of
//! contacts. Both are org-wide; the write is a keyed effect and, like every write, is withheld
//! while planning (it runs as an approved plan's step).
use super::read::org_wide;
use crate::ai_agent::llm::ToolDef;
use crate::ai_agent::tools::effect::{self, Begun};
use crate::ai_agent::tools::output::{
    schema_of, to_json, ContactTags, Retagged, TagCount, TagList,
};
use crate::ai_agent::tools::{AgentTool, EffectKey, ToolCtx, ToolError};
use crate::contacts::edits::{clean_tag, retag, tags_after};
use crate::contacts::entity::{contact, contact_tag};
use crate::error::AppError;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::{json, Value};
use uuid::Uuid;

/// Contacts one `tag_contacts` call may change.
pub const TAG_BATCH_MAX: usize = 5_000;

pub struct ListTags;

#[async_trait::async_trait]
impl AgentTool for ListTags {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: "list_tags".into(),
            description: "Every tag in use, with how many contacts carry it.".into(),
            parameters: json!({"type": "object", "properties": {}}),
        }
    }
    fn output_schema(&self) -> Value {
        schema_of::<TagList>()
    }
    fn mutates(&self) -> bool {
        false
    }
    fn reads_org_wide(&self) -> bool {
        true
    }
    async fn call(
        &self,
        ctx: &ToolCtx,
        _key: &EffectKey,
        _args: Value,
    ) -> Result<Value, ToolError> {
        org_wide(ctx)?;
        // One row per (contact, tag), kept by the database (migration 31): counted by index.
        let rows: Vec<(String, i64)> = contact_tag::Entity::find()
            .select_only()
            .column(contact_tag::Column::Tag)
            .column_as(contact_tag::Column::ContactId.count(), "n")
            .filter(contact_tag::Column::OrganizationId.eq(ctx.organization_id))
            .group_by(contact_tag::Column::Tag)
            .order_by_asc(contact_tag::Column::Tag)
            .into_tuple()
            .all(&ctx.state.db)
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        let tags = rows
            .into_iter()
            .map(|(tag, contacts)| TagCount {
                tag,
                contacts: contacts as usize,
            })
            .collect();
        Ok(to_json(&TagList { tags }))
    }
}

pub struct TagContacts;

/// The contacts a write names: ids, or contact objects with an `id` (a step can pass another
/// step's list of contacts as it is).
pub fn contact_ids(args: &Value, key: &str) -> Result<Vec<Uuid>, ToolError> {
    let bad = || ToolError::BadArguments(format!("{key} is a list of contact ids or contacts"));
    let list = args.get(key).and_then(Value::as_array).ok_or_else(bad)?;
    let mut ids = Vec::with_capacity(list.len());
    for v in list {
        let text = match v {
            Value::String(s) => s.as_str(),
            Value::Object(o) => o.get("id").and_then(Value::as_str).ok_or_else(bad)?,
            _ => return Err(bad()),
        };
        let id: Uuid = text.parse().map_err(|_| bad())?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// The schema of a `contacts` argument: ids, or the contacts another step found.
pub fn contacts_schema(max: usize) -> Value {
    json!({"type": "array", "minItems": 1, "maxItems": max, "items": {
        "anyOf": [
            {"type": "string", "format": "uuid"},
            {"type": "object", "required": ["id"], "properties": {"id": {"type": "string", "format": "uuid"}}}
        ]
    }})
}

fn tag_list(args: &Value, key: &str) -> Result<Vec<String>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|t| {
                t.as_str()
                    .map(clean_tag)
                    .filter(|t| !t.is_empty() && t.chars().count() <= 64)
                    .ok_or_else(|| {
                        ToolError::BadArguments(format!("{key} holds tags of 1 to 64 characters"))
                    })
            })
            .collect(),
        Some(_) => Err(ToolError::BadArguments(format!("{key} is a list of tags"))),
    }
}

/// The contacts and the tags to add and remove, checked.
type RetagArgs = (Vec<Uuid>, Vec<String>, Vec<String>);

fn retag_args(ctx: &ToolCtx, args: &Value) -> Result<RetagArgs, ToolError> {
    org_wide(ctx)?;
    let ids = contact_ids(args, "contacts")?;
    let (add, remove) = (tag_list(args, "add")?, tag_list(args, "remove")?);
    if add.is_empty() && remove.is_empty() {
        return Err(ToolError::BadArguments(
            "name at least one tag to add or remove".into(),
        ));
    }
    if ids.len() > TAG_BATCH_MAX {
        return Err(ToolError::BadArguments(format!(
            "at most {TAG_BATCH_MAX} contacts at once"
        )));
    }
    Ok((ids, add, remove))
}

#[async_trait::async_trait]
impl AgentTool for TagContacts {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: "tag_contacts".into(),
            description: "Add and remove tags on contacts. `contacts` takes contact ids or the contacts another step found.".into(),
            parameters: json!({"type": "object", "required": ["contacts"], "properties": {
                "contacts": contacts_schema(TAG_BATCH_MAX),
                "add": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 64}},
                "remove": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 64}}
            }}),
        }
    }
    fn output_schema(&self) -> Value {
        schema_of::<Retagged>()
    }
    fn mutates(&self) -> bool {
        true
    }
    fn reads_org_wide(&self) -> bool {
        true
    }
    async fn call(&self, ctx: &ToolCtx, key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let (ids, add, remove) = retag_args(ctx, &args)?;
        let txn = match effect::begin(&ctx.state, key).await? {
            Begun::Done(result) => return Ok(result),
            Begun::Fresh(txn) => txn,
        };
        let now = ctx.state.clock.now();
        let mut contacts = Vec::with_capacity(ids.len());
        for id in ids {
            let tags = retag(&txn, ctx.organization_id, id, &add, &remove, now).await?;
            contacts.push(ContactTags { id, tags });
        }
        let result = to_json(&Retagged {
            changed: contacts.len(),
            contacts,
        });
        effect::finish(
            &ctx.state,
            txn,
            key,
            ctx.organization_id,
            "tag_contacts",
            result,
        )
        .await
    }
    /// Each contact's tags as they would be, read and computed, nothing written.
    async fn simulate(&self, ctx: &ToolCtx, args: Value) -> Result<Value, ToolError> {
        let (ids, add, remove) = retag_args(ctx, &args)?;
        let mut found = std::collections::HashMap::with_capacity(ids.len());
        for part in ids.chunks(1_000) {
            let rows = contact::Entity::find()
                .filter(contact::Column::OrganizationId.eq(ctx.organization_id))
                .filter(contact::Column::Id.is_in(part.iter().copied()))
                .all(&ctx.state.db)
                .await
                .map_err(|e| ToolError::Failed(e.to_string()))?;
            found.extend(rows.into_iter().map(|c| (c.id, c.tags)));
        }
        let mut contacts = Vec::with_capacity(ids.len());
        for id in ids {
            let before: Vec<String> = found
                .get(&id)
                .cloned()
                .map(|t| serde_json::from_value(t).unwrap_or_default())
                .ok_or_else(|| ToolError::from(AppError::not_found("Contact")))?;
            contacts.push(ContactTags {
                id,
                tags: tags_after(&before, &add, &remove),
            });
        }
        Ok(to_json(&Retagged {
            changed: contacts.len(),
            contacts,
        }))
    }
}
