//! `AppError`: the one typed error every server function returns, shared by client and server.
use dioxus::fullstack::{AsStatusCode, StatusCode};
use dioxus::prelude::ServerFnError;
use serde::{Deserialize, Serialize};

#[derive(thiserror::Error, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AppError {
    #[error("Please sign in to continue.")]
    Unauthorized,
    #[error("Only an organisation owner can do that.")]
    Forbidden,
    /// Refused with a reason of its own (sign-up closed, say).
    #[error("{0}")]
    NotPermitted(String),
    #[error("{0} was not found.")]
    NotFound(String),
    #[error("{0}")]
    Validation(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    RateLimited(String),
    #[error("{0}")]
    OptedOut(String),
    #[error("The message could not be sent: {0}")]
    Transport(String),
    #[error("Something went wrong on the server ({0}). It has been logged.")]
    Internal(String),
    #[error("Could not reach the server: {0}")]
    ServerFn(String),
}

impl AppError {
    pub fn validation(msg: impl Into<String>) -> Self {
        Self::Validation(msg.into())
    }
    pub fn not_found(what: impl Into<String>) -> Self {
        Self::NotFound(what.into())
    }
    /// The error for an HTTP status that came without Herald's own error in its body.
    pub fn from_status(code: u16, message: String) -> Self {
        match code {
            401 => AppError::Unauthorized,
            403 => AppError::Forbidden,
            404 => AppError::NotFound(message),
            400 | 422 => AppError::Validation(message),
            _ => AppError::ServerFn(message),
        }
    }
}

impl From<ServerFnError> for AppError {
    fn from(value: ServerFnError) -> Self {
        match value {
            ServerFnError::ServerError { message, code, .. } => {
                AppError::from_status(code, message)
            }
            other => AppError::ServerFn(other.to_string()),
        }
    }
}

impl AsStatusCode for AppError {
    fn as_status_code(&self) -> StatusCode {
        match self {
            AppError::Unauthorized => StatusCode::UNAUTHORIZED,
            AppError::Forbidden | AppError::NotPermitted(_) => StatusCode::FORBIDDEN,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::Validation(_) => StatusCode::BAD_REQUEST,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            AppError::OptedOut(_) => StatusCode::UNPROCESSABLE_ENTITY,
            AppError::Transport(_) => StatusCode::BAD_GATEWAY,
            AppError::Internal(_) | AppError::ServerFn(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

#[cfg(feature = "server")]
impl From<sea_orm::DbErr> for AppError {
    fn from(err: sea_orm::DbErr) -> Self {
        tracing::error!(error = %err, "database error");
        AppError::Internal("database".into())
    }
}

pub type AppResult<T> = Result<T, AppError>;
