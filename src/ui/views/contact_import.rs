//! Importing contacts from any export (a page of its own, out of the first load): choose a file,
//! see each column mapped to a field (guessed from its header, changeable, a new typed field made
//! on the spot), check every row before anything is written, then import a chunk at a time with a
//! running count. Refused rows download as a CSV with their reasons; a stopped import resumes.
use crate::contacts::import_api::{import_rows, preview_import, start_import, unfinished_import};
use crate::contacts::import_map::{
    fingerprint, split_records, ImportField, ImportPreview, ImportProgress, RowProblem, CHUNK_ROWS,
    LISTED_MAX,
};
use crate::format::count;
use crate::ui::app::Route;
use crate::ui::components::{use_act, ErrorBanner};
use crate::ui::views::contact_import_map::MappingTable;
use dioxus::prelude::*;

#[component]
pub fn ContactImport() -> Element {
    rsx! {
        div { class: "page",
            p { Link { to: Route::Contacts {}, "← Contacts" } }
            header { class: "page-head", h1 { "Import contacts" } }
            ImportPanel {}
        }
    }
}

/// The file's text in chunks of at most `CHUNK_ROWS` rows after its header: (first row, text).
fn chunks(text: &str) -> (String, Vec<(usize, String)>) {
    let (header, records) = split_records(text);
    let chunks = records
        .chunks(CHUNK_ROWS)
        .enumerate()
        .map(|(i, c)| (i * CHUNK_ROWS + 2, c.join("\n")))
        .collect();
    (header.to_owned(), chunks)
}

/// Every row checked through the mapping, nothing written: the first chunk's preview with the
/// counts and problems of all.
async fn check_all(
    text: &str,
    mapping: Vec<ImportField>,
) -> Result<ImportPreview, crate::error::AppError> {
    let (header, parts) = chunks(text);
    let mut all: Option<ImportPreview> = None;
    for (first_row, rows) in parts {
        let p = preview_import(format!("{header}\n{rows}"), first_row, Some(mapping.clone())).await?;
        if p.mapping_error.is_some() {
            return Ok(p);
        }
        match all.as_mut() {
            None => all = Some(p),
            Some(a) => {
                a.rows += p.rows;
                a.refused += p.refused;
                let room = LISTED_MAX.saturating_sub(a.problems.len());
                a.problems.extend(p.problems.into_iter().take(room));
            }
        }
    }
    all.ok_or_else(|| crate::error::AppError::validation("The file has no rows after its header."))
}

#[component]
fn ImportPanel() -> Element {
    let mut text = use_signal(String::new);
    let mut file_name = use_signal(|| "pasted rows".to_string());
    let mut mapping = use_signal(Vec::<ImportField>::new);
    let mut guess = use_signal(|| None::<ImportPreview>);
    let mut checked = use_signal(|| None::<ImportPreview>);
    let mut progress = use_signal(|| None::<ImportProgress>);
    let unfinished = use_resource(|| async move { unfinished_import().await.ok().flatten() });
    let act = use_act();
    // A new file: its header's guess, then every row checked through it.
    let read_file = move |s: String| async move {
        text.set(s);
        checked.set(None);
        progress.set(None);
        let (header, parts) = chunks(&text.peek());
        let Some((first_row, rows)) = parts.into_iter().next() else {
            guess.set(None);
            return act.fail("The file has no rows after its header.");
        };
        if let Some(p) = act.run(preview_import(format!("{header}\n{rows}"), first_row, None)).await {
            mapping.set(p.mapping.clone());
            guess.set(Some(p));
            let all = check_all(&text.peek(), mapping()).await;
            checked.set(act.take(all));
        }
    };
    let check = move |_| async move {
        checked.set(None);
        let all = check_all(&text.peek(), mapping()).await;
        checked.set(act.take(all));
    };
    let run = move |_| async move {
        let t = text.peek().clone();
        let (header, parts) = chunks(&t);
        let total = parts.iter().map(|(_, r)| split_records(&format!("h\n{r}")).1.len()).sum();
        let key = fingerprint(&t, &mapping.peek());
        let Some(mut p) = act.run(start_import(file_name(), header, mapping(), total, key)).await else {
            return;
        };
        progress.set(Some(p.clone()));
        for (first_row, rows) in parts {
            if first_row < p.rows_done + 2 {
                continue;
            }
            match act.run(import_rows(p.id, first_row, rows)).await {
                Some(next) => p = next,
                None => return,
            }
            progress.set(Some(p.clone()));
        }
    };
    let busy = act.busy();
    let ready = checked.read().as_ref().is_some_and(|c| c.mapping_error.is_none() && c.rows > c.refused);
    rsx! {
        section { class: "card import", id: "import-panel",
            if let Some(Some(u)) = unfinished() {
                if progress.read().is_none() {
                    p { class: "notice", id: "import-unfinished",
                        "An import of {u.file_name} stopped after {u.rows_done} of {u.total_rows} rows. Choose the same file and import again to go on from there."
                    }
                }
            }
            p { class: "muted small", "Choose an export from any system (CSV). Each column is matched to a field by its header; change any match, or make it a new field. Every row is checked before anything is written: rows with a problem are left out and listed, with a file of them to fix and import again." }
            input { r#type: "file", id: "import-file", accept: ".csv,text/csv", "aria-label": "A CSV file", onchange: move |evt| async move {
                if let Some(file) = evt.files().into_iter().next() {
                    file_name.set(file.name());
                    match file.read_string().await {
                        Ok(s) => read_file(s).await,
                        Err(e) => act.fail(format!("Could not read the file: {e}")),
                    }
                }
            } }
            details { class: "paste",
                summary { "Or paste rows" }
                textarea { id: "import-csv", rows: "6", "aria-label": "CSV rows", placeholder: "name,phone,email,tags", value: "{text}", oninput: move |e| text.set(e.value()) }
                button { id: "import-read", class: "secondary", disabled: text.read().trim().is_empty() || busy,
                    onclick: move |_| async move { file_name.set("pasted rows".into()); read_file(text.peek().clone()).await }, "Read these rows" }
            }
            ErrorBanner { message: act.error() }
            if let Some(g) = guess() {
                MappingTable { preview: g, mapping, on_change: move |_| checked.set(None) }
                button { id: "import-check", class: "secondary", disabled: busy, onclick: check, "Check every row" }
            }
            // Once imported, the result says what was left out; the check's list would repeat it.
            if let Some(c) = checked().filter(|_| !progress.read().as_ref().is_some_and(|p| p.done)) {
                CheckResult { result: c }
            }
            if let Some(p) = progress() {
                Progress { p }
            }
            if ready && !progress.read().as_ref().is_some_and(|p| p.done) {
                button { id: "import-run", disabled: busy, onclick: run,
                    if progress.read().is_some() { "Go on importing" } else {
                        {checked.read().as_ref().map(|c| format!("Import {}", count(c.rows - c.refused, "contact", "contacts"))).unwrap_or_default()}
                    }
                }
            }
        }
    }
}

/// What the check found: the mapping's problem, or the first rows as stored and each refusal.
#[component]
fn CheckResult(result: ImportPreview) -> Element {
    if let Some(e) = result.mapping_error {
        return rsx! { p { class: "error-banner", id: "import-mapping-error", role: "alert", "{e}" } };
    }
    let fields: Vec<String> = result.sample.first().map(|r| r.fields.iter().map(|(k, _)| k.clone()).collect()).unwrap_or_default();
    let will = result.rows - result.refused;
    rsx! {
        div { id: "import-check-result",
            p { id: "import-counts",
                strong { {format!("{}: {} will be imported", count(result.rows, "row", "rows"), crate::format::grouped(will as u64))} }
                if result.refused > 0 { {format!(", {} left out (below)", crate::format::grouped(result.refused as u64))} }
                "."
            }
            div { class: "table-scroll", tabindex: "0", "aria-label": "The first rows as they will be stored",
                table { class: "import-sample",
                    thead { tr {
                        th { "Row" } th { "Name" } th { "Phone" } th { "Email" } th { "Tags" }
                        for f in fields.iter() { th { "{f}" } }
                    } }
                    tbody {
                        for r in result.sample.iter() {
                            tr {
                                td { "{r.row}" } td { "{r.name}" } td { "{r.phone}" } td { "{r.email}" } td { {r.tags.join(", ")} }
                                for f in fields.iter() { td { {r.fields.iter().find(|(k, _)| k == f).map(|(_, v)| v.clone()).unwrap_or_default()} } }
                            }
                        }
                    }
                }
            }
            Problems { problems: result.problems, count: result.refused }
        }
    }
}

#[component]
fn Problems(problems: Vec<RowProblem>, count: usize) -> Element {
    if problems.is_empty() {
        return rsx! {};
    }
    rsx! {
        div { class: "import-problems", id: "import-problems",
            p { "Left out, with the reason:" }
            ul { for e in problems.iter() { li { "Row {e.row}: {e.message}" } } }
            if count > problems.len() { p { class: "muted small", {format!("and {} more, all in the file of refused rows.", crate::format::grouped((count - problems.len()) as u64))} } }
        }
    }
}

/// An import's running count, then its result with the refused rows to download.
#[component]
fn Progress(p: ImportProgress) -> Element {
    let href = format!("/api/contacts/import/refused.csv?id={}", p.id);
    rsx! {
        div { id: "import-progress", role: "status",
            if p.done {
                p { class: "ok", id: "import-done",
                    {format!("Imported {}. ", count(p.imported, "contact", "contacts"))}
                    Link { to: Route::Contacts {}, "See them" }
                }
                if p.refused > 0 {
                    p { id: "import-refused",
                        {if p.refused == 1 { "1 row was left out. ".to_owned() } else { format!("{} rows were left out. ", crate::format::grouped(p.refused as u64)) }}
                        a { id: "import-refused-csv", href: "{href}", download: "refused-rows.csv", "Download the refused rows" }
                        " to fix them and import that file."
                    }
                    Problems { problems: p.problems.clone(), count: p.refused }
                }
            } else {
                progress { max: "{p.total_rows}", value: "{p.rows_done}", "aria-label": "Rows imported" }
                p { {format!("Importing: {} of {} ({} imported, {} left out).", crate::format::grouped(p.rows_done as u64), count(p.total_rows, "row", "rows"), crate::format::grouped(p.imported as u64), crate::format::grouped(p.refused as u64))} }
            }
        }
    }
}
