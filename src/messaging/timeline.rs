//! A text's timeline (issue 30 §1): what became of it, from the send ledger (queued, each
//! attempt, the provider's SID) and from the carrier's status callbacks (sent, delivered,
//! undelivered, failed), each with its time and, for a failure, the carrier's code in plain
//! words with what to do about it. Only the organisation's own texts.
use crate::error::{AppError, AppResult};
use crate::messaging::entity::{self as message, status_event};
use crate::messaging::model::SendState;
use crate::platform::carrier_errors;
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

/// Callback entries shown; a text gets a handful, so more says something odd is going on.
const EVENTS_SHOWN: u64 = 50;

/// One step of a text's way.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// When, if Herald knows.
    pub at: Option<DateTime<Utc>>,
    /// What happened, in words.
    pub what: String,
    /// The carrier's code with its words and remedy, for a failure.
    pub why: Option<String>,
}

/// A text with its timeline.
pub struct Timeline {
    pub message: message::Model,
    pub entries: Vec<Entry>,
    /// Callback entries not shown (past `EVENTS_SHOWN`).
    pub more: bool,
}

/// Words for a delivery status.
pub fn status_words(status: &str) -> &'static str {
    match status {
        "queued" | "accepted" | "scheduled" => "Queued at the provider",
        "sending" => "Sending to the carrier",
        "sent" => "Sent: the carrier has it",
        "delivered" => "Delivered to the phone",
        "undelivered" => "Not delivered",
        "failed" => "Failed",
        "canceled" => "Cancelled before sending",
        "read" => "Read",
        _ => "Status changed",
    }
}

/// The organisation's text `id` with its timeline; another organisation's is not found.
pub async fn timeline(state: &AppState, org: Uuid, id: Uuid) -> AppResult<Timeline> {
    let m = message::Entity::find_by_id(id)
        .filter(message::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("That text"))?;
    let events = status_event::Entity::find()
        .filter(status_event::Column::MessageId.eq(m.id))
        .filter(status_event::Column::OrganizationId.eq(org))
        .order_by_asc(status_event::Column::At)
        .limit(EVENTS_SHOWN + 1)
        .all(&state.db)
        .await?;
    let more = events.len() as u64 > EVENTS_SHOWN;
    let mut entries = ledger_entries(&m);
    entries.extend(
        events
            .into_iter()
            .take(EVENTS_SHOWN as usize)
            .map(|e| Entry {
                at: Some(e.at),
                what: status_words(&e.status).to_owned(),
                why: e.error_code.as_deref().map(carrier_errors::explain),
            }),
    );
    Ok(Timeline {
        message: m,
        entries,
        more,
    })
}

/// The ledger's part: queued by Herald, its attempts, the provider's SID or why not.
fn ledger_entries(m: &message::Model) -> Vec<Entry> {
    let mut out = vec![Entry {
        at: Some(m.created_at),
        what: "Queued in Herald".into(),
        why: None,
    }];
    if let Some(at) = m.attempt_started_at {
        let what = match m.send_attempts {
            n if n > 1 => format!("Handed to the provider (attempt {n})"),
            _ => "Handed to the provider".to_owned(),
        };
        out.push(Entry {
            at: Some(at),
            what,
            why: None,
        });
    }
    match (m.provider_sid.as_deref(), m.send_state) {
        (Some(sid), _) => out.push(Entry {
            at: None,
            what: format!("Accepted by the provider as {sid}"),
            why: None,
        }),
        (None, Some(SendState::Failed)) => out.push(Entry {
            at: None,
            what: "Not sent".into(),
            why: m.error.clone(),
        }),
        (None, Some(SendState::Unknown)) => out.push(Entry {
            at: None,
            what: "In doubt: Herald cannot tell whether the provider took it".into(),
            why: None,
        }),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_callback_status_has_words() {
        for s in [
            "queued",
            "sending",
            "sent",
            "delivered",
            "undelivered",
            "failed",
        ] {
            assert_ne!(status_words(s), "Status changed", "{s}");
        }
    }
}
