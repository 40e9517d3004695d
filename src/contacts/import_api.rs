//! Server functions behind the import page (a page out of the first load, so these are too).
use crate::contacts::import_map::{ImportField, ImportPreview, ImportProgress};
use crate::error::AppError;
use dioxus::prelude::*;
use uuid::Uuid;

server_fn! {
    #[post("/api/contacts/import/preview")]
    /// What importing the header and up to a chunk of rows (the first numbered `first_row`)
    /// would do, through `mapping` or the one the header suggests; nothing is written.
    pub async fn preview_import(
        text: String,
        first_row: usize,
        mapping: Option<Vec<ImportField>>,
    ) -> Result<ImportPreview, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::import_job::preview(&state, &m, &text, first_row, mapping).await
    }
}

server_fn! {
    #[post("/api/contacts/import/start")]
    /// Starts a mapped import, or finds the same file's import that stopped part way.
    pub async fn start_import(
        file_name: String,
        header: String,
        mapping: Vec<ImportField>,
        total_rows: usize,
        fingerprint: String,
    ) -> Result<ImportProgress, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::import_job::start(
            &state, &m, &file_name, &header, mapping, total_rows, &fingerprint,
        )
        .await
    }
}

server_fn! {
    #[post("/api/contacts/import/rows")]
    /// Imports a chunk of rows, the first numbered `first_row`; a chunk sent twice counts once.
    pub async fn import_rows(
        id: Uuid,
        first_row: usize,
        rows: String,
    ) -> Result<ImportProgress, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::import_job::chunk(&state, &m, id, first_row, &rows).await
    }
}

server_fn! {
    #[post("/api/contacts/import/unfinished")]
    /// The newest import that stopped part way, to resume.
    pub async fn unfinished_import() -> Result<Option<ImportProgress>, AppError> {
        let (state, m) = crate::auth::session::require_member().await?;
        crate::contacts::import_job::unfinished(&state, &m).await
    }
}
