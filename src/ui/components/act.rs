//! One helper for what a component's buttons do: run a server call, say that it is under way,
//! keep its error for the banner (a success clears the last one), and hand the answer on.
//! It replaces the busy and error signals each component kept by hand.
use crate::error::AppError;
use dioxus::prelude::*;
use std::future::Future;

/// A component's actions: whether one is under way, and the last one's error.
#[derive(Clone, Copy, PartialEq)]
pub struct Act {
    busy: Signal<bool>,
    error: Signal<Option<String>>,
}

/// Uploads a picture chosen in a file input, for a text or a campaign.
pub async fn upload_picture(
    file: &dioxus::html::FileData,
) -> Result<crate::media::model::UploadView, AppError> {
    let name = file.name();
    let kind = file.content_type().unwrap_or_default();
    match file.read_bytes().await {
        Ok(bytes) => crate::rpc::upload("/api/media/upload", &kind, bytes.to_vec()).await,
        Err(e) => Err(AppError::Validation(format!("Could not read {name}: {e}"))),
    }
}

/// The component's `Act`, with nothing under way and no error.
pub fn use_act() -> Act {
    Act {
        busy: use_signal(|| false),
        error: use_signal(|| None),
    }
}

impl Act {
    /// Runs `work`: busy until it answers; its answer on success, else None with its error kept.
    pub async fn run<T>(mut self, work: impl Future<Output = Result<T, AppError>>) -> Option<T> {
        self.busy.set(true);
        let answer = work.await;
        self.busy.set(false);
        self.take(answer)
    }

    /// Keeps the error of an answer already had (one a child component handed up); answers its
    /// value on success.
    pub fn take<T>(mut self, answer: Result<T, AppError>) -> Option<T> {
        match answer {
            Ok(v) => {
                self.error.set(None);
                Some(v)
            }
            Err(e) => {
                self.error.set(Some(e.to_string()));
                None
            }
        }
    }

    /// Whether an action is under way (its buttons wait).
    pub fn busy(&self) -> bool {
        (self.busy)()
    }

    /// The last action's error, for `ErrorBanner`.
    pub fn error(&self) -> Option<String> {
        (self.error)()
    }

    /// Shows a problem found before any call (a field left empty).
    pub fn fail(mut self, message: impl Into<String>) {
        self.error.set(Some(message.into()));
    }

    /// Clears the error.
    pub fn clear(mut self) {
        self.error.set(None);
    }
}
