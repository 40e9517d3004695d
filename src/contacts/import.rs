//! Reading an export through a mapping of its columns (issue 51 §4), and the all-or-nothing
//! import the API keeps: every row is checked first, then all go in one transaction or none do.
//! The page's import, a chunk at a time with refused rows set aside, is `import_job`.
use crate::contacts::consent::ConsentSource;
use crate::contacts::entity::contact;
use crate::contacts::fields;
use crate::contacts::import_map::{guess, FieldKind, ImportField};
use crate::contacts::model::{ContactInput, ImportReport, ImportRowError};
use crate::contacts::service::{self, CleanContact};
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

pub const MAX_ROWS: usize = 20_000;

/// A mapping checked against the header and the organisation's fields: the custom fields it
/// fills (to be created where new), or why it cannot be used.
pub fn check_mapping(
    mapping: &[ImportField],
    columns: usize,
    known: &[(String, FieldKind)],
) -> Result<Vec<(String, FieldKind)>, String> {
    if mapping.len() != columns {
        return Err(format!(
            "The file has {columns} columns but {} are mapped.",
            mapping.len()
        ));
    }
    if !mapping.iter().any(ImportField::identifies) {
        return Err("Map a column to the name, first or last name, phone or mobile.".into());
    }
    let mut custom: Vec<(String, FieldKind)> = Vec::new();
    for (i, f) in mapping.iter().enumerate() {
        let twice =
            mapping[..i].contains(f) && !matches!(f, ImportField::Tags | ImportField::Notes);
        if twice && *f != ImportField::Skip {
            return Err(format!("Two columns fill {}; leave one out.", f.label()));
        }
        if let ImportField::Custom { name, kind } = f {
            fields::check(name, *kind, known)?;
            if custom.iter().any(|(n, _)| n == name) {
                return Err(format!(
                    "Two columns fill the field \"{name}\"; leave one out."
                ));
            }
            custom.push((name.clone(), *kind));
        }
    }
    Ok(custom)
}

/// The mapping a header suggests, with each custom field in the type the organisation gave it.
pub fn guessed(headers: &[String], known: &[(String, FieldKind)]) -> Vec<ImportField> {
    headers
        .iter()
        .map(|h| match guess(h) {
            ImportField::Custom { name, kind } => ImportField::Custom {
                kind: known
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map_or(kind, |(_, k)| *k),
                name,
            },
            other => other,
        })
        .collect()
}

/// A CSV reader over `text`, header first.
pub fn reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes())
}

/// One record through the mapping: a clean contact, or the row's problem in words.
pub fn read_row(
    mapping: &[ImportField],
    record: &csv::StringRecord,
    region: &str,
) -> Result<CleanContact, String> {
    let mut input = ContactInput::default();
    let (mut first, mut last, mut phone, mut mobile) = ("", "", "", "");
    let (mut consent, mut consent_at, mut consent_note) = ("", "", "");
    let mut notes = Vec::new();
    for (i, field) in mapping.iter().enumerate() {
        let v = record.get(i).unwrap_or("").trim();
        match field {
            ImportField::Skip => {}
            ImportField::Name => input.name = v.to_owned(),
            ImportField::FirstName => first = v,
            ImportField::LastName => last = v,
            ImportField::Phone => phone = v,
            ImportField::Mobile => mobile = v,
            ImportField::Email => input.email = v.to_owned(),
            ImportField::Tags => input.tags.push(v.to_owned()),
            ImportField::Consent => consent = v,
            ImportField::ConsentAt => consent_at = v,
            ImportField::ConsentNote => consent_note = v,
            ImportField::TimeZone => input.time_zone = v.to_owned(),
            ImportField::Notes if !v.is_empty() => notes.push(v),
            ImportField::Notes => {}
            ImportField::Custom { name, kind } => {
                if let Some(value) =
                    fields::convert(*kind, v).map_err(|e| format!("{name}: {e}."))?
                {
                    input.custom_fields.insert(name.clone(), value);
                }
            }
        }
    }
    if input.name.is_empty() {
        input.name = [first, last]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
    }
    input.phone = if mobile.is_empty() { phone } else { mobile }.to_owned();
    input.notes = notes.join("\n");
    let consent = read_consent(consent, consent_at, consent_note.to_owned())?;
    let mut c = service::clean(&input, region).map_err(|e| e.to_string())?;
    c.consent = consent;
    Ok(c)
}

/// A file's rows (with their lines) and the custom fields they fill.
pub type Parsed = (Vec<(usize, CleanContact)>, Vec<(String, FieldKind)>);

/// Parses and validates the file through the mapping its header suggests; each bad row is
/// reported with its line number. Returns the rows and the custom fields they fill.
pub fn parse_csv(
    text: &str,
    region: &str,
    known: &[(String, FieldKind)],
) -> Result<Parsed, Vec<ImportRowError>> {
    let header_error = |message: String| vec![ImportRowError { line: 1, message }];
    let mut reader = reader(text);
    let headers: Vec<String> = match reader.headers() {
        Ok(h) => h.iter().map(str::to_owned).collect(),
        Err(e) => return Err(header_error(format!("Unreadable header: {e}"))),
    };
    let mapping = guessed(&headers, known);
    let custom = check_mapping(&mapping, headers.len(), known).map_err(|_| {
        header_error("The header must name the columns: name, phone, email, tags.".into())
    })?;
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        if rows.len() + errors.len() >= MAX_ROWS {
            errors.push(ImportRowError {
                line,
                message: format!("A file may hold at most {MAX_ROWS} rows."),
            });
            break;
        }
        let read = record
            .map_err(|e| format!("Unreadable row: {e}"))
            .and_then(|r| read_row(&mapping, &r, region));
        match read {
            Ok(c) => {
                if let Some(p) = &c.phone {
                    if let Some(first) = seen.insert(p.clone(), line) {
                        errors.push(ImportRowError {
                            line,
                            message: format!("{p} is also on line {first}."),
                        });
                        continue;
                    }
                }
                rows.push((line, c));
            }
            Err(message) => errors.push(ImportRowError { line, message }),
        }
    }
    if errors.is_empty() {
        Ok((rows, custom))
    } else {
        Err(errors)
    }
}

/// A row's consent columns; an empty `consent` is none on record.
pub fn read_consent(source: &str, at: &str, note: String) -> Result<service::CleanConsent, String> {
    let source = match source.trim().to_lowercase().as_str() {
        "" | "no" | "false" => ConsentSource::None,
        "yes" | "true" | "y" => ConsentSource::Imported,
        other => ConsentSource::parse(other).ok_or_else(|| {
            format!("\"{other}\" is not a consent; use web_form, imported, verbal, texted_first or none.")
        })?,
    };
    let at = at.trim();
    let at = if at.is_empty() {
        None
    } else {
        Some(
            chrono::DateTime::parse_from_rfc3339(at)
                .map(|t| t.with_timezone(&chrono::Utc))
                .or_else(|_| {
                    chrono::NaiveDate::parse_from_str(at, "%Y-%m-%d")
                        .map(|d| d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc())
                })
                .map_err(|_| {
                    format!("consent_at \"{at}\" is not a date (YYYY-MM-DD or RFC 3339).")
                })?,
        )
    };
    let note = note.trim().to_owned();
    Ok(service::CleanConsent {
        source,
        at,
        note: (!note.is_empty()).then_some(note),
    })
}

/// Imports the file into the organisation, or nothing with a report of every row's error.
#[tracing::instrument(skip(state, text), fields(bytes = text.len()))]
pub async fn import_csv(state: &AppState, org_id: Uuid, text: &str) -> AppResult<ImportReport> {
    let known = fields::known(&state.db, org_id).await?;
    let (rows, custom) = match parse_csv(text, &state.config.default_region, &known) {
        Ok(parsed) => parsed,
        Err(errors) => {
            return Ok(ImportReport {
                imported: 0,
                errors,
            })
        }
    };
    let phones: Vec<String> = rows.iter().filter_map(|(_, c)| c.phone.clone()).collect();
    let existing = existing_phones(&state.db, org_id, &phones).await?;
    let errors: Vec<ImportRowError> = rows
        .iter()
        .filter_map(|(line, c)| {
            c.phone
                .as_ref()
                .filter(|p| existing.contains(*p))
                .map(|p| ImportRowError {
                    line: *line,
                    message: format!("A contact with {p} already exists."),
                })
        })
        .collect();
    if !errors.is_empty() {
        return Ok(ImportReport {
            imported: 0,
            errors,
        });
    }
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let count = rows.len();
    let now = state.clock.now();
    fields::define(&txn, org_id, &custom, now).await?;
    // Each row alone, then every `contact.created` event in one go: one subscription lookup for
    // the file, not one a row.
    let mut events = Vec::with_capacity(count);
    for (line, c) in rows {
        let row = service::insert_row(&txn, org_id, c, now)
            .await
            .map_err(|e| {
                AppError::Validation(format!("Line {line}: {e}. Nothing was imported."))
            })?;
        events.push(service::created_event(&row));
    }
    crate::webhooks::emit::emit_each(&txn, org_id, "contact.created", &events, now).await?;
    txn.commit().await?;
    Ok(ImportReport {
        imported: count,
        errors: vec![],
    })
}

/// Which of these numbers the organisation's contacts already have.
pub async fn existing_phones<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    phones: &[String],
) -> AppResult<HashSet<String>> {
    let mut existing = HashSet::new();
    for chunk in phones.chunks(500) {
        let found: Vec<Option<String>> = contact::Entity::find()
            .select_only()
            .column(contact::Column::Phone)
            .filter(contact::Column::OrganizationId.eq(org_id))
            .filter(contact::Column::Phone.is_in(chunk.iter().cloned()))
            .into_tuple()
            .all(db)
            .await?;
        existing.extend(found.into_iter().flatten());
    }
    Ok(existing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bad_row_is_reported_with_its_line() {
        let csv = "name,phone,email,tags\nAda,+14155552671,ada@x.io,vip\nBad,12,,\nDup,(415) 555-2671,,\nNo Mail,+14155552672,nope,\n";
        let errs = parse_csv(csv, "US", &[]).err().expect("errors");
        let lines: Vec<usize> = errs.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![3, 4, 5]);
        assert!(errs[1].message.contains("line 2"));
    }

    #[test]
    fn a_clean_file_parses() {
        let (rows, _) = parse_csv(
            "Name,Phone,Tags\nAda,415 555 2671,\"vip, lead\"\n",
            "US",
            &[],
        )
        .unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].1.phone.as_deref(), Some("+14155552671"));
        assert_eq!(rows[0].1.tags, vec!["vip", "lead"]);
        assert_eq!(rows[0].1.consent.source, ConsentSource::None);
    }

    #[test]
    fn consent_columns_are_read_and_checked() {
        let csv = "name,phone,consent,consent_at,consent_note\nAda,+14155552671,web_form,2026-03-01,signup form #12\nBob,+14155552672,yes,,\nCy,+14155552673,maybe,,\nDi,+14155552674,verbal,March,\n";
        let errs = parse_csv(csv, "US", &[]).err().expect("errors");
        assert_eq!(errs.iter().map(|e| e.line).collect::<Vec<_>>(), vec![4, 5]);
        let (rows, _) = parse_csv(
            &csv.lines().take(3).collect::<Vec<_>>().join("\n"),
            "US",
            &[],
        )
        .unwrap();
        assert_eq!(rows[0].1.consent.source, ConsentSource::WebForm);
        assert_eq!(rows[0].1.consent.note.as_deref(), Some("signup form #12"));
        assert!(rows[0].1.consent.at.is_some());
        assert_eq!(rows[1].1.consent.source, ConsentSource::Imported);
    }

    #[test]
    fn a_practice_export_maps_by_its_headers() {
        let csv = "Patient First Name,Patient Last Name,Mobile Phone,Home Phone,Birthdate,Balance\nAda,Lovelace,415 555 2671,415 555 0000,12/10/1985,12\nAlan,Turing,,(415) 555-2672,1912-06-23,\n";
        let (rows, custom) = parse_csv(csv, "US", &[]).unwrap();
        assert_eq!(rows[0].1.name, "Ada Lovelace");
        assert_eq!(
            rows[0].1.phone.as_deref(),
            Some("+14155552671"),
            "mobile first"
        );
        assert_eq!(
            rows[1].1.phone.as_deref(),
            Some("+14155552672"),
            "then the phone"
        );
        assert_eq!(rows[0].1.custom_fields["birthday"], "1985-12-10");
        assert_eq!(rows[0].1.custom_fields["balance"], "12");
        assert_eq!(
            custom,
            vec![
                ("birthday".into(), FieldKind::Date),
                ("balance".into(), FieldKind::Text)
            ]
        );
    }

    #[test]
    fn a_mapping_is_checked() {
        let known = vec![("birthday".to_owned(), FieldKind::Date)];
        let m = vec![ImportField::Phone, ImportField::Phone];
        assert!(check_mapping(&m, 2, &known)
            .unwrap_err()
            .contains("Two columns"));
        assert!(check_mapping(&[ImportField::Email], 1, &known)
            .unwrap_err()
            .contains("Map a column"));
        let text = ImportField::Custom {
            name: "birthday".into(),
            kind: FieldKind::Text,
        };
        assert!(check_mapping(&[ImportField::Name, text], 2, &known)
            .unwrap_err()
            .contains("already a date"));
        assert!(check_mapping(&[ImportField::Name], 2, &known)
            .unwrap_err()
            .contains("2 columns"));
    }
}
