//! Contacts as CSV: `GET /api/contacts/export.csv?filter=<the contacts filter as JSON>`, for an
//! owner. Every field, the tags, consent and the opt-out, for the contacts the filter (or the
//! segment's filter) matches, streamed a thousand rows at a time in name order (keyset pages: no
//! query reads the whole table and the response is never held in memory). The export is
//! audited with its exact count. A cell that a spreadsheet would run as a formula is written as
//! text (a leading `'`).
use crate::audit::model::AuditAction;
use crate::audit::service::{record, Entry};
use crate::auth::session::Member;
use crate::contacts::entity::contact;
use crate::contacts::model::{ContactCursor, ContactFilter};
use crate::contacts::{filter, list, opt_out};
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use axum::body::Body;
use axum::extract::Query;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use dioxus::fullstack::AsStatusCode;
use futures::StreamExt;
use sea_orm::ConnectionTrait;

pub const EXPORT_PATH: &str = "/api/contacts/export.csv";

/// Rows read and written per step.
const EXPORT_PAGE: u64 = 1000;

const COLUMNS: [&str; 13] = [
    "name",
    "phone",
    "email",
    "tags",
    "notes",
    "time_zone",
    "consent_source",
    "consent_at",
    "consent_note",
    "opted_out",
    "opt_out_source",
    "created_at",
    "custom_fields",
];

#[derive(serde::Deserialize)]
pub struct ExportQuery {
    /// The contacts filter as JSON; none: every contact.
    #[serde(default)]
    filter: Option<String>,
}

/// Text a spreadsheet would not run: a leading `=`, `+`, `-`, `@`, tab or return gets a `'`.
pub fn cell(s: &str) -> String {
    // A phone number in E.164 starts with `+` but is only digits: a spreadsheet runs nothing.
    let e164 = s
        .strip_prefix('+')
        .is_some_and(|d| (6..=15).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit()));
    match s.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') if !e164 => format!("'{s}"),
        _ => s.to_owned(),
    }
}

/// One page of contacts as CSV lines.
async fn lines<C: ConnectionTrait>(db: &C, rows: &[contact::Model]) -> AppResult<Vec<u8>> {
    let ids: Vec<uuid::Uuid> = rows.iter().map(|c| c.id).collect();
    let outs = opt_out::sms_opt_outs(db, &ids).await?;
    let mut w = csv::Writer::from_writer(Vec::new());
    for c in rows {
        let tags: Vec<String> = serde_json::from_value(c.tags.clone()).unwrap_or_default();
        let out = outs.get(&c.id);
        let record = [
            cell(&c.name),
            // A phone is E.164 or a sender's ID: guarded like any cell (E.164 passes as it is).
            cell(c.phone.as_deref().unwrap_or_default()),
            cell(c.email.as_deref().unwrap_or_default()),
            cell(&tags.join("; ")),
            cell(&c.notes),
            c.time_zone.clone().unwrap_or_default(),
            c.consent_source.clone(),
            c.consent_at.map(|t| t.to_rfc3339()).unwrap_or_default(),
            cell(c.consent_note.as_deref().unwrap_or_default()),
            if out.is_some() { "yes" } else { "no" }.to_owned(),
            out.cloned().unwrap_or_default(),
            c.created_at.to_rfc3339(),
            cell(&c.custom_fields.to_string()),
        ];
        w.write_record(&record)
            .map_err(|e| AppError::Internal(e.to_string()))?;
    }
    w.into_inner()
        .map_err(|e| AppError::Internal(e.to_string()))
}

/// Checks the caller and the filter, audits the export, and answers the stream.
async fn start(state: AppState, headers: &HeaderMap, q: ExportQuery) -> AppResult<Response> {
    let cookies = headers.get(header::COOKIE).and_then(|v| v.to_str().ok());
    let m: Member = crate::auth::session::member_from_cookie_header(&state, cookies).await?;
    m.require_owner()?;
    let f: ContactFilter = match q.filter.as_deref().filter(|s| !s.trim().is_empty()) {
        None => ContactFilter::default(),
        Some(json) => serde_json::from_str(json).map_err(|e| {
            AppError::Validation(format!("The filter is not one Herald reads: {e}"))
        })?,
    };
    let now = state.clock.now();
    let cond = filter::condition(&f, m.organization_id, state.db.get_database_backend(), now)?;
    let total = list::count(&state.db, m.organization_id, &f, now).await?;
    record(
        &state.db,
        Entry {
            organization_id: Some(m.organization_id),
            actor: Some(m.user_id),
            action: AuditAction::ContactsExported,
            target: &f.describe(),
            detail: Some(format!("{total} contacts as CSV")),
        },
        now,
    )
    .await?;
    tracing::info!(total, "contacts exported");
    let header_line = {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(COLUMNS)
            .map_err(|e| AppError::Internal(e.to_string()))?;
        w.into_inner()
            .map_err(|e| AppError::Internal(e.to_string()))?
    };
    let pages = futures::stream::unfold(
        Some((state, cond, None::<ContactCursor>)),
        |step| async move {
            let (state, cond, after) = step?;
            let page: AppResult<(Vec<u8>, Option<ContactCursor>)> = async {
                let (rows, more) =
                    list::rows_where(&state.db, cond.clone(), after.as_ref(), EXPORT_PAGE).await?;
                let bytes = lines(&state.db, &rows).await?;
                let next = more.then(|| rows.last()).flatten().map(|c| ContactCursor {
                    name: c.name.clone(),
                    id: c.id,
                });
                Ok((bytes, next))
            }
            .await;
            match page {
                Ok((bytes, Some(next))) => Some((Ok(bytes), Some((state, cond, Some(next))))),
                Ok((bytes, None)) => Some((Ok(bytes), None)),
                Err(e) => {
                    // The response has begun: cut it short, so the file is visibly incomplete.
                    tracing::error!(error = %e, "contacts export failed part way");
                    Some((Err(std::io::Error::other(e.to_string())), None))
                }
            }
        },
    );
    let body =
        futures::stream::once(async move { Ok::<_, std::io::Error>(header_line) }).chain(pages);
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"contacts.csv\"",
            ),
        ],
        Body::from_stream(body),
    )
        .into_response())
}

/// The route's handler: the CSV, or the error's status and words.
pub async fn export(
    Extension(state): Extension<AppState>,
    headers: HeaderMap,
    Query(q): Query<ExportQuery>,
) -> Response {
    match start(state, &headers, q).await {
        Ok(r) => r,
        Err(e) => (e.as_status_code(), e.to_string()).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn formulas_are_written_as_text() {
        assert_eq!(cell("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(cell("-2+3"), "'-2+3");
        assert_eq!(cell("Ada Lovelace"), "Ada Lovelace");
        assert_eq!(cell("+14155552671"), "+14155552671");
        assert_eq!(cell("+1415=HYPERLINK()"), "'+1415=HYPERLINK()");
        assert_eq!(cell("+12"), "'+12");
    }
}
