//! Writes to one contact's record: `set_custom_field` and `add_note`. Each is a keyed effect
//! (a re-run answers the recorded result; a note is never added twice) and, like every write,
//! withheld while planning.
use crate::ai_agent::llm::ToolDef;
use crate::ai_agent::tools::effect::{self, Begun};
use crate::ai_agent::tools::output::{schema_of, to_json, FieldSet, NoteAdded};
use crate::ai_agent::tools::{contact_arg, AgentTool, EffectKey, ToolCtx, ToolError};
use crate::contacts::edits::{
    append_note, checked_field, notes_after, set_field, FIELD_NAME_MAX, FIELD_VALUE_MAX, NOTE_MAX,
};
use crate::contacts::service::find_in_org;
use serde_json::{json, Value};

fn text<'a>(args: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::BadArguments(format!("{key} is required text")))
}

/// The contact a write reaches: in a reply, only the contact who texted.
fn writable_contact(ctx: &ToolCtx, args: &Value) -> Result<uuid::Uuid, ToolError> {
    let id = contact_arg(ctx, args)?;
    match ctx.scope.reply_context() {
        Some(r) if r.contact_id != id => Err(ToolError::Refused(
            "In a reply you can change only the contact who texted you.".into(),
        )),
        _ => Ok(id),
    }
}

pub struct SetCustomField;

#[async_trait::async_trait]
impl AgentTool for SetCustomField {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: "set_custom_field".into(),
            description: "Set one custom field on a contact to a text value.".into(),
            parameters: json!({"type": "object", "required": ["contact_id", "field", "value"], "properties": {
                "contact_id": {"type": "string", "format": "uuid"},
                "field": {"type": "string", "minLength": 1, "maxLength": FIELD_NAME_MAX},
                "value": {"type": "string", "maxLength": FIELD_VALUE_MAX}
            }}),
        }
    }
    fn output_schema(&self) -> Value {
        schema_of::<FieldSet>()
    }
    fn mutates(&self) -> bool {
        true
    }
    async fn call(&self, ctx: &ToolCtx, key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let contact_id = writable_contact(ctx, &args)?;
        let (field, value) = (text(&args, "field")?, text(&args, "value")?);
        let txn = match effect::begin(&ctx.state, key).await? {
            Begun::Done(result) => return Ok(result),
            Begun::Fresh(txn) => txn,
        };
        let now = ctx.state.clock.now();
        set_field(&txn, ctx.organization_id, contact_id, field, value, now).await?;
        let result = to_json(&FieldSet {
            contact_id,
            field: field.trim().to_owned(),
            value: value.to_owned(),
        });
        effect::finish(
            &ctx.state,
            txn,
            key,
            ctx.organization_id,
            "set_custom_field",
            result,
        )
        .await
    }
    async fn simulate(&self, ctx: &ToolCtx, args: Value) -> Result<Value, ToolError> {
        let contact_id = writable_contact(ctx, &args)?;
        let (field, value) = (text(&args, "field")?, text(&args, "value")?);
        let field = checked_field(field, value)?;
        find_in_org(&ctx.state.db, ctx.organization_id, contact_id).await?;
        Ok(to_json(&FieldSet {
            contact_id,
            field: field.to_owned(),
            value: value.to_owned(),
        }))
    }
}

pub struct AddNote;

#[async_trait::async_trait]
impl AgentTool for AddNote {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: "add_note".into(),
            description: "Add a dated line to a contact's notes.".into(),
            parameters: json!({"type": "object", "required": ["contact_id", "note"], "properties": {
                "contact_id": {"type": "string", "format": "uuid"},
                "note": {"type": "string", "minLength": 1, "maxLength": NOTE_MAX}
            }}),
        }
    }
    fn output_schema(&self) -> Value {
        schema_of::<NoteAdded>()
    }
    fn mutates(&self) -> bool {
        true
    }
    async fn call(&self, ctx: &ToolCtx, key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let contact_id = writable_contact(ctx, &args)?;
        let note = text(&args, "note")?;
        let txn = match effect::begin(&ctx.state, key).await? {
            Begun::Done(result) => return Ok(result),
            Begun::Fresh(txn) => txn,
        };
        let now = ctx.state.clock.now();
        let notes = append_note(&txn, ctx.organization_id, contact_id, note, now).await?;
        let result = to_json(&NoteAdded { contact_id, notes });
        effect::finish(
            &ctx.state,
            txn,
            key,
            ctx.organization_id,
            "add_note",
            result,
        )
        .await
    }
    async fn simulate(&self, ctx: &ToolCtx, args: Value) -> Result<Value, ToolError> {
        let contact_id = writable_contact(ctx, &args)?;
        let row = find_in_org(&ctx.state.db, ctx.organization_id, contact_id).await?;
        let notes = notes_after(&row.notes, text(&args, "note")?, ctx.state.clock.now())?;
        Ok(to_json(&NoteAdded { contact_id, notes }))
    }
}
