//! Typed custom fields (issue 51 §4): an organisation's fields by name and type, and a cell read
//! as its type. A date is stored as `YYYY-MM-DD` (with ` HH:MM` when the cell has a time, as an
//! appointment does), a number as a JSON number and yes/no as true or false.
use crate::contacts::edits::{FIELD_NAME_MAX, FIELD_VALUE_MAX};
use crate::contacts::entity::contact_field;
use crate::contacts::import_map::FieldKind;
use crate::error::{AppError, AppResult};
use chrono::{NaiveDate, NaiveDateTime};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, Set};
use serde_json::Value;
use uuid::Uuid;

/// Dates as exports write them; with `region` US a slashed date is month first.
const DATES: [&str; 9] = [
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%m/%d/%Y",
    "%m/%d/%y",
    "%m-%d-%Y",
    "%d.%m.%Y",
    "%B %d, %Y",
    "%b %d, %Y",
    "%d %B %Y",
];
const DATE_TIMES: [&str; 6] = [
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M",
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y %I:%M %p",
];

/// A cell as its field's type; an empty cell is None (the field is not set).
pub fn convert(kind: FieldKind, raw: &str) -> Result<Option<Value>, String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(None);
    }
    if raw.chars().count() > FIELD_VALUE_MAX {
        return Err(format!("a value is at most {FIELD_VALUE_MAX} characters"));
    }
    Ok(Some(match kind {
        FieldKind::Text => Value::String(raw.to_owned()),
        FieldKind::Number => {
            let plain: String = raw
                .chars()
                .filter(|c| !matches!(c, ',' | '$' | ' '))
                .collect();
            let n: f64 = plain
                .parse()
                .map_err(|_| format!("\"{raw}\" is not a number"))?;
            if n.fract() == 0.0 && n.abs() < 9.0e15 {
                Value::from(n as i64)
            } else {
                serde_json::Number::from_f64(n)
                    .map(Value::Number)
                    .ok_or_else(|| format!("\"{raw}\" is not a number"))?
            }
        }
        FieldKind::Date => Value::String(
            date(raw).ok_or_else(|| format!("\"{raw}\" is not a date (for example 1984-03-21)"))?,
        ),
        FieldKind::YesNo => match raw.to_lowercase().as_str() {
            "yes" | "y" | "true" | "1" | "x" => Value::Bool(true),
            "no" | "n" | "false" | "0" => Value::Bool(false),
            _ => return Err(format!("\"{raw}\" is not yes or no")),
        },
    }))
}

/// A date in any of the common forms, as `YYYY-MM-DD` or `YYYY-MM-DD HH:MM`.
pub fn date(raw: &str) -> Option<String> {
    if let Some(t) = DATE_TIMES
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(raw, f).ok())
    {
        return Some(t.format("%Y-%m-%d %H:%M").to_string());
    }
    DATES
        .iter()
        .find_map(|f| NaiveDate::parse_from_str(raw, f).ok())
        .filter(|d| (1850..=2200).contains(&chrono::Datelike::year(d)))
        .map(|d| d.format("%Y-%m-%d").to_string())
}

/// The organisation's custom fields with their types, in name order.
pub async fn known<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
) -> AppResult<Vec<(String, FieldKind)>> {
    Ok(contact_field::Entity::find()
        .filter(contact_field::Column::OrganizationId.eq(org_id))
        .order_by_asc(contact_field::Column::Name)
        .all(db)
        .await?
        .into_iter()
        .map(|f| (f.name, FieldKind::parse(&f.kind).unwrap_or_default()))
        .collect())
}

/// A form's custom fields in the types the organisation gave them: a value typed as text into a
/// date field is stored as a date (or refused with the field's name), and an empty one removes
/// it. A field without a type is kept as it came.
pub async fn typed<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    fields: &mut serde_json::Map<String, Value>,
) -> AppResult<()> {
    if fields.is_empty() {
        return Ok(());
    }
    let known = known(db, org_id).await?;
    let mut out = serde_json::Map::new();
    for (name, value) in std::mem::take(fields) {
        let Some(kind) = known
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| Some(*k))
        else {
            out.insert(name, value);
            continue;
        };
        let raw = match &value {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            Value::Bool(b) if kind == Some(FieldKind::YesNo) => {
                (if *b { "yes" } else { "no" }).into()
            }
            other => other.to_string(),
        };
        let converted = convert(kind.unwrap_or_default(), &raw)
            .map_err(|e| AppError::Validation(format!("{name}: {e}.")))?;
        if let Some(v) = converted {
            crate::contacts::edits::checked_field(&name, &raw)?;
            out.insert(name, v);
        }
    }
    *fields = out;
    Ok(())
}

/// Checks a field's name and that it keeps the type it has: a field is one type for every
/// contact.
pub fn check(name: &str, kind: FieldKind, known: &[(String, FieldKind)]) -> Result<(), String> {
    if name.trim().is_empty() || name.chars().count() > FIELD_NAME_MAX {
        return Err(format!(
            "A field's name is 1 to {FIELD_NAME_MAX} characters."
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-'))
    {
        return Err(format!(
            "\"{name}\" is not a field name (letters, digits, spaces, _ and -)."
        ));
    }
    match known.iter().find(|(n, _)| n == name) {
        Some((_, k)) if *k != kind => Err(format!(
            "\"{name}\" is already a {} field; choose that type or another name.",
            k.label()
        )),
        _ => Ok(()),
    }
}

/// Records the fields an import creates; those the organisation has are left as they are.
pub async fn define<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    fields: &[(String, FieldKind)],
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<()> {
    let known = known(db, org_id).await?;
    for (name, kind) in fields {
        check(name, *kind, &known).map_err(AppError::Validation)?;
        if known.iter().any(|(n, _)| n == name) {
            continue;
        }
        contact_field::Entity::insert(contact_field::ActiveModel {
            organization_id: Set(org_id),
            name: Set(name.clone()),
            kind: Set(kind.as_str().to_owned()),
            created_at: Set(now),
        })
        .on_conflict_do_nothing_on([
            contact_field::Column::OrganizationId,
            contact_field::Column::Name,
        ])
        .exec(db)
        .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_are_read_as_their_type() {
        let d = |s| convert(FieldKind::Date, s).unwrap().unwrap();
        assert_eq!(d("1984-03-21"), json!("1984-03-21"));
        assert_eq!(d("3/21/1984"), json!("1984-03-21"));
        assert_eq!(d("March 21, 1984"), json!("1984-03-21"));
        assert_eq!(d("2027-01-05 14:30"), json!("2027-01-05 14:30"));
        assert!(convert(FieldKind::Date, "soon").is_err());
        assert_eq!(
            convert(FieldKind::Number, "$1,250").unwrap(),
            Some(json!(1250))
        );
        assert_eq!(convert(FieldKind::Number, "2.5").unwrap(), Some(json!(2.5)));
        assert!(convert(FieldKind::Number, "two").is_err());
        assert_eq!(convert(FieldKind::YesNo, "Y").unwrap(), Some(json!(true)));
        assert!(convert(FieldKind::YesNo, "maybe").is_err());
        assert_eq!(convert(FieldKind::Text, "  ").unwrap(), None);
    }

    #[test]
    fn a_field_keeps_its_type() {
        let known = vec![("birthday".to_owned(), FieldKind::Date)];
        assert!(check("birthday", FieldKind::Date, &known).is_ok());
        assert!(check("birthday", FieldKind::Text, &known)
            .unwrap_err()
            .contains("already a date field"));
        assert!(check("a.b", FieldKind::Text, &known).is_err());
    }
}
