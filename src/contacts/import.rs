//! CSV import (name, phone, email, tags): every row is checked first, then all go in one transaction or none do.
use crate::contacts::consent::ConsentSource;
use crate::contacts::entity::contact;
use crate::contacts::model::{ContactInput, ImportReport, ImportRowError};
use crate::contacts::service::{self, CleanContact};
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

pub const MAX_ROWS: usize = 20_000;

/// Parses and validates the file; each bad row is reported with its line number.
pub fn parse_csv(
    text: &str,
    region: &str,
) -> Result<Vec<(usize, CleanContact)>, Vec<ImportRowError>> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = match reader.headers() {
        Ok(h) => h.iter().map(|h| h.to_lowercase()).collect::<Vec<_>>(),
        Err(e) => {
            return Err(vec![ImportRowError {
                line: 1,
                message: format!("Unreadable header: {e}"),
            }])
        }
    };
    let col = |name: &str| headers.iter().position(|h| h == name);
    let (name_i, phone_i, email_i, tags_i) = (col("name"), col("phone"), col("email"), col("tags"));
    // Consent columns: `consent` (web_form, imported, verbal, texted_first, none; "yes" means
    // imported with consent), `consent_at` (RFC 3339 or YYYY-MM-DD) and `consent_note`.
    let (consent_i, consent_at_i, consent_note_i) =
        (col("consent"), col("consent_at"), col("consent_note"));
    if name_i.is_none() && phone_i.is_none() {
        return Err(vec![ImportRowError {
            line: 1,
            message: "The header must name the columns: name, phone, email, tags.".into(),
        }]);
    }
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
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                errors.push(ImportRowError {
                    line,
                    message: format!("Unreadable row: {e}"),
                });
                continue;
            }
        };
        let get = |i: Option<usize>| i.and_then(|i| record.get(i)).unwrap_or("").to_owned();
        let input = ContactInput {
            name: get(name_i),
            phone: get(phone_i),
            email: get(email_i),
            tags: vec![get(tags_i)],
            ..Default::default()
        };
        let consent = match read_consent(&get(consent_i), &get(consent_at_i), get(consent_note_i)) {
            Ok(c) => c,
            Err(message) => {
                errors.push(ImportRowError { line, message });
                continue;
            }
        };
        match service::clean(&input, region) {
            Ok(mut c) => {
                c.consent = consent;
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
            Err(e) => errors.push(ImportRowError {
                line,
                message: e.to_string(),
            }),
        }
    }
    if errors.is_empty() {
        Ok(rows)
    } else {
        Err(errors)
    }
}

/// A row's consent columns; an empty `consent` is none on record.
fn read_consent(source: &str, at: &str, note: String) -> Result<service::CleanConsent, String> {
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
    let rows = match parse_csv(text, &state.config.default_region) {
        Ok(rows) => rows,
        Err(errors) => {
            return Ok(ImportReport {
                imported: 0,
                errors,
            })
        }
    };
    let phones: Vec<String> = rows.iter().filter_map(|(_, c)| c.phone.clone()).collect();
    let mut existing = HashSet::new();
    for chunk in phones.chunks(500) {
        let found: Vec<Option<String>> = contact::Entity::find()
            .select_only()
            .column(contact::Column::Phone)
            .filter(contact::Column::OrganizationId.eq(org_id))
            .filter(contact::Column::Phone.is_in(chunk.iter().cloned()))
            .into_tuple()
            .all(&state.db)
            .await?;
        existing.extend(found.into_iter().flatten());
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bad_row_is_reported_with_its_line() {
        let csv = "name,phone,email,tags\nAda,+14155552671,ada@x.io,vip\nBad,12,,\nDup,(415) 555-2671,,\nNo Mail,+14155552672,nope,\n";
        let errs = parse_csv(csv, "US").err().expect("errors");
        let lines: Vec<usize> = errs.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![3, 4, 5]);
        assert!(errs[1].message.contains("line 2"));
    }

    #[test]
    fn a_clean_file_parses() {
        let rows = parse_csv("Name,Phone,Tags\nAda,415 555 2671,\"vip, lead\"\n", "US").unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].1.phone.as_deref(), Some("+14155552671"));
        assert_eq!(rows[0].1.tags, vec!["vip", "lead"]);
        assert_eq!(rows[0].1.consent.source, ConsentSource::None);
    }

    #[test]
    fn consent_columns_are_read_and_checked() {
        let csv = "name,phone,consent,consent_at,consent_note\nAda,+14155552671,web_form,2026-03-01,signup form #12\nBob,+14155552672,yes,,\nCy,+14155552673,maybe,,\nDi,+14155552674,verbal,March,\n";
        let errs = parse_csv(csv, "US").err().expect("errors");
        assert_eq!(errs.iter().map(|e| e.line).collect::<Vec<_>>(), vec![4, 5]);
        let rows = parse_csv(&csv.lines().take(3).collect::<Vec<_>>().join("\n"), "US").unwrap();
        assert_eq!(rows[0].1.consent.source, ConsentSource::WebForm);
        assert_eq!(rows[0].1.consent.note.as_deref(), Some("signup form #12"));
        assert!(rows[0].1.consent.at.is_some());
        assert_eq!(rows[1].1.consent.source, ConsentSource::Imported);
    }
}
