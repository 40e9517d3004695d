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
    /// The database failed; the kind is kept so that callers match it, never its words.
    #[error("Something went wrong on the server (database). It has been logged.")]
    Database(DbFault),
    #[error("Could not reach the server: {0}")]
    ServerFn(String),
}

/// The kind of a database failure (`From<DbErr>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DbFault {
    /// A unique constraint refused the row.
    Unique,
    /// A foreign key refused the row.
    ForeignKey,
    /// Transient: the database was busy or locked, a transaction lost a serialisation race, or
    /// no connection was to be had in time. Trying again may work.
    Busy,
    /// Anything else: trying again would fail the same way.
    Other,
}

impl AppError {
    /// Whether trying again may succeed: a busy database, not a broken request or a bug.
    pub fn is_transient(&self) -> bool {
        matches!(self, AppError::Database(DbFault::Busy))
    }
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
            AppError::Internal(_) | AppError::ServerFn(_) | AppError::Database(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        }
    }
}

#[cfg(feature = "server")]
impl From<sea_orm::DbErr> for AppError {
    fn from(err: sea_orm::DbErr) -> Self {
        let fault = DbFault::of(&err);
        tracing::error!(error = %err, ?fault, "database error");
        AppError::Database(fault)
    }
}

#[cfg(feature = "server")]
impl DbFault {
    /// The kind of `err`: constraint violations as sea-orm classifies them, and the codes of a
    /// busy database (SQLite's BUSY and LOCKED families; PostgreSQL's serialization failure,
    /// deadlock and lock-not-available), or a connection not to be had, as transient.
    pub fn of(err: &sea_orm::DbErr) -> Self {
        use sea_orm::{DbErr, RuntimeErr, SqlErr};
        match err.sql_err() {
            Some(SqlErr::UniqueConstraintViolation(_)) => return DbFault::Unique,
            Some(SqlErr::ForeignKeyConstraintViolation(_)) => return DbFault::ForeignKey,
            _ => {}
        }
        let sqlx = match err {
            DbErr::ConnectionAcquire(_) => return DbFault::Busy,
            DbErr::Conn(RuntimeErr::SqlxError(e))
            | DbErr::Exec(RuntimeErr::SqlxError(e))
            | DbErr::Query(RuntimeErr::SqlxError(e)) => e,
            _ => return DbFault::Other,
        };
        match &**sqlx {
            sea_orm::sqlx::Error::PoolTimedOut | sea_orm::sqlx::Error::Io(_) => DbFault::Busy,
            sea_orm::sqlx::Error::Database(d) => match d.code().as_deref() {
                Some("5" | "6" | "261" | "262" | "517" | "40001" | "40P01" | "55P03") => {
                    DbFault::Busy
                }
                _ => DbFault::Other,
            },
            _ => DbFault::Other,
        }
    }
}

pub type AppResult<T> = Result<T, AppError>;
