//! Small edits to one contact's record that agents make (through plans and plan steps): tags,
//! a custom field, a note. Each is scoped to the organisation and runs on any connection, so a
//! caller can put it in a transaction with its own bookkeeping.
use crate::contacts::entity::contact;
use crate::contacts::service::find_in_org;
use crate::error::{AppError, AppResult};
use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, ConnectionTrait, Set};
use uuid::Uuid;

/// Longest custom-field name and value, and note, an agent may write.
pub const FIELD_NAME_MAX: usize = 64;
pub const FIELD_VALUE_MAX: usize = 500;
pub const NOTE_MAX: usize = 2_000;

/// A tag as stored: trimmed and lower case.
pub fn clean_tag(tag: &str) -> String {
    tag.trim().to_lowercase()
}

/// Removes then adds tags (case-insensitively, no duplicates); answers the contact's tags after.
pub async fn retag<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    id: Uuid,
    add: &[String],
    remove: &[String],
    now: DateTime<Utc>,
) -> AppResult<Vec<String>> {
    let row = find_in_org(db, org_id, id).await?;
    let before: Vec<String> = serde_json::from_value(row.tags.clone()).unwrap_or_default();
    let tags = tags_after(&before, add, remove);
    if tags != before {
        let mut am: contact::ActiveModel = row.into();
        am.tags = Set(serde_json::json!(tags));
        am.updated_at = Set(now);
        am.update(db).await?;
    }
    Ok(tags)
}

/// `retag` for many contacts at once (a batch of an audience): one read, and one update per
/// distinct result (contacts that end with the same tags are written together). Contacts not
/// in the organisation, or gone, are passed over. Answers how many changed.
pub async fn retag_many<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    ids: &[Uuid],
    add: &[String],
    remove: &[String],
    now: DateTime<Utc>,
) -> AppResult<usize> {
    use sea_orm::sea_query::Expr;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
    let rows: Vec<(Uuid, serde_json::Value)> = contact::Entity::find()
        .select_only()
        .column(contact::Column::Id)
        .column(contact::Column::Tags)
        .filter(contact::Column::OrganizationId.eq(org_id))
        .filter(contact::Column::Id.is_in(ids.to_vec()))
        .into_tuple()
        .all(db)
        .await?;
    let mut by_result: std::collections::BTreeMap<String, (Vec<String>, Vec<Uuid>)> =
        std::collections::BTreeMap::new();
    for (id, tags) in rows {
        let before: Vec<String> = serde_json::from_value(tags).unwrap_or_default();
        let after = tags_after(&before, add, remove);
        if after != before {
            let key = after.join("\u{1f}");
            by_result
                .entry(key)
                .or_insert_with(|| (after, vec![]))
                .1
                .push(id);
        }
    }
    let mut changed = 0;
    for (_, (tags, ids)) in by_result {
        changed += ids.len();
        contact::Entity::update_many()
            .col_expr(contact::Column::Tags, Expr::value(serde_json::json!(tags)))
            .col_expr(contact::Column::UpdatedAt, Expr::value(now))
            .filter(contact::Column::OrganizationId.eq(org_id))
            .filter(contact::Column::Id.is_in(ids))
            .exec(db)
            .await?;
    }
    Ok(changed)
}

/// A contact's tags after removing then adding some (what `retag` writes).
pub fn tags_after(before: &[String], add: &[String], remove: &[String]) -> Vec<String> {
    let mut tags = before.to_vec();
    tags.retain(|t| !remove.iter().any(|r| r.trim().eq_ignore_ascii_case(t)));
    for t in add.iter().map(|t| clean_tag(t)) {
        if !t.is_empty() && !tags.contains(&t) {
            tags.push(t);
        }
    }
    tags
}

/// A custom field's name as stored, if the name and value are within bounds.
pub fn checked_field<'a>(field: &'a str, value: &str) -> AppResult<&'a str> {
    let field = field.trim();
    if field.is_empty() || field.chars().count() > FIELD_NAME_MAX {
        return Err(AppError::validation(format!(
            "a custom field's name is 1 to {FIELD_NAME_MAX} characters"
        )));
    }
    if value.chars().count() > FIELD_VALUE_MAX {
        return Err(AppError::validation(format!(
            "a custom field's value is at most {FIELD_VALUE_MAX} characters"
        )));
    }
    Ok(field)
}

/// The notes after appending a dated line (what `append_note` writes).
pub fn notes_after(before: &str, note: &str, now: DateTime<Utc>) -> AppResult<String> {
    let note = note.trim();
    if note.is_empty() || note.chars().count() > NOTE_MAX {
        return Err(AppError::validation(format!(
            "a note is 1 to {NOTE_MAX} characters"
        )));
    }
    let line = format!("{}: {note}", now.format("%Y-%m-%d"));
    Ok(if before.trim().is_empty() {
        line
    } else {
        format!("{}\n{line}", before.trim_end())
    })
}

/// Sets one custom field to a text value.
pub async fn set_field<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    id: Uuid,
    field: &str,
    value: &str,
    now: DateTime<Utc>,
) -> AppResult<()> {
    let field = checked_field(field, value)?;
    let row = find_in_org(db, org_id, id).await?;
    let mut fields = match row.custom_fields.clone() {
        serde_json::Value::Object(m) => m,
        _ => Default::default(),
    };
    fields.insert(
        field.to_owned(),
        serde_json::Value::String(value.to_owned()),
    );
    let mut am: contact::ActiveModel = row.into();
    am.custom_fields = Set(serde_json::Value::Object(fields));
    am.updated_at = Set(now);
    am.update(db).await?;
    Ok(())
}

/// Appends a dated line to the contact's notes; answers the notes after.
pub async fn append_note<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    id: Uuid,
    note: &str,
    now: DateTime<Utc>,
) -> AppResult<String> {
    let row = find_in_org(db, org_id, id).await?;
    let notes = notes_after(&row.notes, note, now)?;
    let mut am: contact::ActiveModel = row.into();
    am.notes = Set(notes.clone());
    am.updated_at = Set(now);
    am.update(db).await?;
    Ok(notes)
}
