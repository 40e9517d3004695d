//! The import page's import (issue 51 §4): a file read through a mapping, a chunk at a time.
//! Each chunk's contacts, its refused rows and the import's progress commit together, so an import
//! that stops (a closed tab, a lost connection, a restart) resumes at the next row when the same
//! file is chosen again, and a chunk sent twice counts once. A refused row keeps its cells and its
//! reason in a CSV a person downloads, fixes and imports again.
use crate::auth::session::Member;
use crate::contacts::entity::contact_import;
use crate::contacts::import::{check_mapping, existing_phones, guessed, read_row, reader};
use crate::contacts::import_map::{
    split_records, FieldKind, ImportField, ImportPreview, ImportProgress, PreviewRow, RowProblem,
    CHUNK_ROWS, LISTED_MAX, MAPPED_ROWS_MAX,
};
use crate::contacts::service::{self, CleanContact};
use crate::contacts::{export::cell, fields};
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use axum::extract::Query;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use dioxus::fullstack::AsStatusCode;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Set};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

pub const REFUSED_PATH: &str = "/api/contacts/import/refused.csv";
/// Rows shown as they will be stored.
const SAMPLE_ROWS: usize = 5;

/// One chunk read: each row as a contact or its problem, numbered from `first_row`.
struct Chunk {
    headers: Vec<String>,
    rows: Vec<(usize, csv::StringRecord, Result<CleanContact, String>)>,
}

fn read_chunk(
    text: &str,
    first_row: usize,
    mapping: Option<&[ImportField]>,
    known: &[(String, FieldKind)],
    region: &str,
) -> Result<(Chunk, Vec<ImportField>), String> {
    let mut r = reader(text);
    let headers: Vec<String> = r
        .headers()
        .map_err(|e| format!("The header cannot be read: {e}"))?
        .iter()
        .map(str::to_owned)
        .collect();
    let mapping = mapping.map_or_else(|| guessed(&headers, known), <[_]>::to_vec);
    check_mapping(&mapping, headers.len(), known)?;
    let mut rows = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, record) in r.records().enumerate() {
        let row = first_row + i;
        let record = record.unwrap_or_default();
        let mut read = read_row(&mapping, &record, region);
        if let Ok(Some(p)) = read.as_ref().map(|c| c.phone.clone()) {
            if let Some(first) = seen.insert(p.clone(), row) {
                read = Err(format!("{p} is also on row {first}."));
            }
        }
        rows.push((row, record, read));
    }
    Ok((Chunk { headers, rows }, mapping))
}

/// What importing `text` (the header and up to a chunk of rows, the first numbered `first_row`)
/// would do, writing nothing: the guessed or given mapping, the first rows as stored, and each
/// refused row with its reason (a number the organisation has already is one).
pub async fn preview(
    state: &AppState,
    m: &Member,
    text: &str,
    first_row: usize,
    mapping: Option<Vec<ImportField>>,
) -> AppResult<ImportPreview> {
    let org = m.organization_id;
    let known = fields::known(&state.db, org).await?;
    let (header, records) = split_records(text);
    if records.len() > CHUNK_ROWS {
        return Err(AppError::Validation(format!(
            "Send at most {CHUNK_ROWS} rows at a time."
        )));
    }
    let headers = header_cells(header);
    let examples: Vec<String> = reader(text)
        .records()
        .next()
        .and_then(Result::ok)
        .map(|r| r.iter().map(str::to_owned).collect())
        .unwrap_or_default();
    let empty = |mapping_error: String, mapping: Vec<ImportField>| ImportPreview {
        headers: headers.clone(),
        examples: examples.clone(),
        mapping,
        known_fields: known.clone(),
        sample: vec![],
        rows: records.len(),
        refused: 0,
        problems: vec![],
        mapping_error: Some(mapping_error),
    };
    let region = &state.config.default_region;
    let (chunk, mapping) = match read_chunk(text, first_row, mapping.as_deref(), &known, region) {
        Ok(read) => read,
        Err(e) => {
            let shown = mapping.unwrap_or_else(|| guessed(&headers, &known));
            return Ok(empty(e, shown));
        }
    };
    let phones: Vec<String> = chunk
        .rows
        .iter()
        .filter_map(|(_, _, r)| r.as_ref().ok().and_then(|c| c.phone.clone()))
        .collect();
    let existing = existing_phones(&state.db, org, &phones).await?;
    let mut problems = Vec::new();
    let mut sample = Vec::new();
    for (row, _, read) in &chunk.rows {
        match refusal(read, &existing) {
            Some(message) => problems.push(RowProblem { row: *row, message }),
            None if sample.len() < SAMPLE_ROWS => {
                if let Ok(c) = read {
                    sample.push(preview_row(*row, c));
                }
            }
            None => {}
        }
    }
    let refused = problems.len();
    problems.truncate(LISTED_MAX);
    Ok(ImportPreview {
        headers: chunk.headers,
        examples,
        mapping,
        known_fields: known,
        sample,
        rows: chunk.rows.len(),
        refused,
        problems,
        mapping_error: None,
    })
}

/// A header line's cells.
fn header_cells(header: &str) -> Vec<String> {
    reader(header)
        .headers()
        .map(|h| h.iter().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Rows of cells as CSV text.
fn csv_lines(rows: impl IntoIterator<Item = Vec<String>>) -> AppResult<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.write_record(&r)
            .map_err(|e| AppError::Internal(e.to_string()))?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| AppError::Internal(e.to_string()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Why a row is refused, if it is.
fn refusal(read: &Result<CleanContact, String>, existing: &HashSet<String>) -> Option<String> {
    match read {
        Err(e) => Some(e.clone()),
        Ok(c) => c
            .phone
            .as_ref()
            .filter(|p| existing.contains(*p))
            .map(|p| format!("A contact with {p} already exists.")),
    }
}

fn preview_row(row: usize, c: &CleanContact) -> PreviewRow {
    PreviewRow {
        row,
        name: c.name.clone(),
        phone: c.phone.clone().unwrap_or_default(),
        email: c.email.clone().unwrap_or_default(),
        tags: c.tags.clone(),
        fields: c
            .custom_fields
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                )
            })
            .collect(),
    }
}

fn progress(j: &contact_import::Model) -> ImportProgress {
    ImportProgress {
        id: j.id,
        file_name: j.file_name.clone(),
        total_rows: j.total_rows as usize,
        rows_done: j.rows_done as usize,
        imported: j.imported as usize,
        refused: j.refused as usize,
        problems: serde_json::from_value(j.problems.clone()).unwrap_or_default(),
        done: j.done,
        created_at: j.created_at,
    }
}

/// The import without its refused rows' CSV, which only grows and only its download reads: a
/// chunk reads the import's state in the same few bytes whatever it has refused so far, and
/// appends its own refused rows in the database (`refused_appended`).
async fn find_state(state: &AppState, org: Uuid, id: Uuid) -> AppResult<contact_import::Model> {
    use sea_orm::{Iterable, QuerySelect};
    contact_import::Entity::find_by_id(id)
        .select_only()
        .columns(
            contact_import::Column::iter()
                .filter(|c| !matches!(c, contact_import::Column::RefusedCsv)),
        )
        .column_as(Expr::value(""), "refused_csv")
        .filter(contact_import::Column::OrganizationId.eq(org))
        .into_model::<contact_import::Model>()
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("The import"))
}

/// The refused rows' CSV with `lines` after it, written by the database: a chunk never reads or
/// rewrites the rows refused before it.
fn refused_appended(lines: String) -> sea_orm::sea_query::SimpleExpr {
    use sea_orm::sea_query::{BinOper, ExprTrait};
    // `||` joins text on SQLite and PostgreSQL alike.
    Expr::col(contact_import::Column::RefusedCsv).binary(BinOper::Custom("||"), Expr::val(lines))
}

async fn find(state: &AppState, org: Uuid, id: Uuid) -> AppResult<contact_import::Model> {
    contact_import::Entity::find_by_id(id)
        .filter(contact_import::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("The import"))
}

/// Starts an import of `total_rows` rows under `header` through `mapping`, or finds the one of
/// the same file and mapping that stopped part way (to resume at its `rows_done`). The custom
/// fields it fills are created with their types.
pub async fn start(
    state: &AppState,
    m: &Member,
    file_name: &str,
    header: &str,
    mapping: Vec<ImportField>,
    total_rows: usize,
    fingerprint: &str,
) -> AppResult<ImportProgress> {
    let org = m.organization_id;
    if total_rows == 0 || total_rows > MAPPED_ROWS_MAX {
        return Err(AppError::Validation(format!(
            "A file holds 1 to {MAPPED_ROWS_MAX} rows; this one has {total_rows}."
        )));
    }
    if let Some(j) = contact_import::Entity::find()
        .filter(contact_import::Column::OrganizationId.eq(org))
        .filter(contact_import::Column::Fingerprint.eq(fingerprint))
        .filter(contact_import::Column::Done.eq(false))
        .one(&state.db)
        .await?
    {
        return Ok(progress(&j));
    }
    let known = fields::known(&state.db, org).await?;
    let mut head = header_cells(header);
    let custom = check_mapping(&mapping, head.len(), &known).map_err(AppError::Validation)?;
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    fields::define(&txn, org, &custom, now).await?;
    head.push("problem".into());
    let refused_csv = csv_lines([head])?;
    let j = contact_import::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(org),
        created_by: Set(Some(m.user_id)),
        fingerprint: Set(fingerprint.chars().take(32).collect()),
        file_name: Set(file_name.chars().take(255).collect()),
        mapping: Set(serde_json::to_value(&mapping).unwrap_or_default()),
        header: Set(header.to_owned()),
        total_rows: Set(total_rows as i32),
        rows_done: Set(0),
        imported: Set(0),
        refused: Set(0),
        problems: Set(serde_json::json!([])),
        refused_csv: Set(refused_csv),
        done: Set(false),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    txn.commit().await?;
    tracing::info!(import = %j.id, total_rows, "contact import started");
    Ok(progress(&j))
}

/// Imports the rows `rows` (records after the header), the first being row `first_row` of the
/// file. A chunk already imported is not imported again; one past the progress is refused.
pub async fn chunk(
    state: &AppState,
    m: &Member,
    id: Uuid,
    first_row: usize,
    rows: &str,
) -> AppResult<ImportProgress> {
    let org = m.organization_id;
    let j = find_state(state, org, id).await?;
    let next = j.rows_done as usize + 2;
    if j.done || first_row < next {
        return Ok(progress(&j));
    }
    if first_row > next {
        return Err(AppError::Validation(format!(
            "The import is at row {next}; send the rows from there."
        )));
    }
    let mapping: Vec<ImportField> = serde_json::from_value(j.mapping.clone())
        .map_err(|e| AppError::Internal(format!("an import's mapping: {e}")))?;
    let known = fields::known(&state.db, org).await?;
    let text = format!("{}\n{rows}", j.header);
    let region = &state.config.default_region;
    let (chunk, _) = read_chunk(&text, first_row, Some(&mapping), &known, region)
        .map_err(AppError::Validation)?;
    let n = chunk.rows.len();
    if n > CHUNK_ROWS || j.rows_done as usize + n > j.total_rows as usize {
        return Err(AppError::Validation(format!(
            "A chunk holds at most {CHUNK_ROWS} rows, and the file {} in all.",
            j.total_rows
        )));
    }
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    // Rows go in unless their number is taken (ON CONFLICT DO NOTHING on the organisation's
    // numbers: no lookup first, and no race with a contact added meanwhile); a row left out
    // that way is refused like a row that did not read.
    let mut refusals: Vec<(usize, csv::StringRecord, String)> = Vec::new();
    let mut models = Vec::new();
    let mut pending: Vec<(Uuid, usize, csv::StringRecord, Option<String>)> = Vec::new();
    for (row, record, read) in chunk.rows {
        match read {
            Err(message) => refusals.push((row, record, message)),
            Ok(c) => {
                let model = service::new_row(org, c, now);
                let phone = model.phone.clone().unwrap();
                pending.push((*model.id.as_ref(), row, record, phone));
                models.push(model);
            }
        }
    }
    let (events, inserted) = service::insert_many_new(&txn, models).await?;
    let imported = inserted.len();
    for (id, row, record, phone) in pending {
        if !inserted.contains(&id) {
            let p = phone.unwrap_or_default();
            refusals.push((row, record, format!("A contact with {p} already exists.")));
        }
    }
    refusals.sort_by_key(|(row, _, _)| *row);
    let mut problems: Vec<RowProblem> =
        serde_json::from_value(j.problems.clone()).unwrap_or_default();
    let refused_n = refusals.len();
    let mut lines = Vec::with_capacity(refused_n);
    for (row, record, message) in refusals {
        let mut cells: Vec<String> = record.iter().map(cell).collect();
        cells.resize(chunk.headers.len(), String::new());
        cells.push(format!("Row {row}: {message}"));
        lines.push(cells);
        if problems.len() < LISTED_MAX {
            problems.push(RowProblem { row, message });
        }
    }
    crate::webhooks::emit::emit_each(&txn, org, "contact.created", &events, now).await?;
    let refused_text = csv_lines(lines)?;
    let rows_done = j.rows_done + n as i32;
    let moved = contact_import::Entity::update_many()
        .col_expr(contact_import::Column::RowsDone, Expr::value(rows_done))
        .col_expr(
            contact_import::Column::Imported,
            Expr::value(j.imported + imported as i32),
        )
        .col_expr(
            contact_import::Column::Refused,
            Expr::value(j.refused + refused_n as i32),
        )
        .col_expr(
            contact_import::Column::Problems,
            Expr::value(serde_json::to_value(&problems).unwrap_or_default()),
        )
        .col_expr(
            contact_import::Column::RefusedCsv,
            refused_appended(refused_text),
        )
        .col_expr(
            contact_import::Column::Done,
            Expr::value(rows_done >= j.total_rows),
        )
        .col_expr(contact_import::Column::UpdatedAt, Expr::value(now))
        .filter(contact_import::Column::Id.eq(id))
        .filter(contact_import::Column::RowsDone.eq(j.rows_done))
        .exec(&txn)
        .await?;
    if moved.rows_affected != 1 {
        // The same chunk, sent twice at once: the other call imported it.
        txn.rollback().await?;
    } else {
        txn.commit().await?;
    }
    Ok(progress(&find_state(state, org, id).await?))
}

/// The organisation's newest import that stopped part way, to offer resuming it.
pub async fn unfinished(state: &AppState, m: &Member) -> AppResult<Option<ImportProgress>> {
    Ok(contact_import::Entity::find()
        .filter(contact_import::Column::OrganizationId.eq(m.organization_id))
        .filter(contact_import::Column::Done.eq(false))
        .order_by_desc(contact_import::Column::CreatedAt)
        .one(&state.db)
        .await?
        .as_ref()
        .map(progress))
}

#[derive(serde::Deserialize)]
pub struct RefusedQuery {
    id: Uuid,
}

/// The route's handler: an import's refused rows as CSV, each with its problem.
pub async fn refused_csv(
    Extension(state): Extension<AppState>,
    headers: HeaderMap,
    Query(q): Query<RefusedQuery>,
) -> Response {
    let cookies = headers.get(header::COOKIE).and_then(|v| v.to_str().ok());
    let found = async {
        let m = crate::auth::session::member_from_cookie_header(&state, cookies).await?;
        find(&state, m.organization_id, q.id).await
    }
    .await;
    match found {
        Ok(j) => (
            [
                (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
                (
                    header::CONTENT_DISPOSITION,
                    "attachment; filename=\"refused-rows.csv\"",
                ),
            ],
            j.refused_csv,
        )
            .into_response(),
        Err(e) => (e.as_status_code(), e.to_string()).into_response(),
    }
}
