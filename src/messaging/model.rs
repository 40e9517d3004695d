//! Message and conversation types shared by the inbox, the composer and the server.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use crate::live_event::{Direction, LiveEvent, LiveTopic};

crate::text_enum! {
    /// Where an outbound text stands in the send ledger; the message row's `send_state` holds it
    /// (the words of `as_str`), None for an inbound text.
    pub enum SendState {
        /// Waiting to leave (a worker claims it).
        Queued = "queued",
        /// Claimed by a worker, on its way to the carrier.
        Sending = "sending",
        /// The carrier took it.
        Sent = "sent",
        /// Refused by the send check, or by the carrier; never retried.
        Failed = "failed",
        /// Sent or not, Herald cannot tell: a person decides.
        Unknown = "unknown",
    }
}

impl SendState {}

/// A text an agent scheduled for later, as the conversation shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduledTextView {
    pub id: Uuid,
    pub contact_id: Uuid,
    pub body: String,
    pub send_at: chrono::DateTime<chrono::Utc>,
    /// scheduled, sending, sent, canceled or failed.
    pub status: String,
    pub error: Option<String>,
    /// Written by a member ("Send later"), not by an agent or a plan.
    #[serde(default)]
    pub by_person: bool,
    /// When it goes on the contact's clock, as `datetime-local` reads it (in a contact's list).
    #[serde(default)]
    pub their_time: Option<String>,
}

/// A member's "Send later": the text, and when it goes in the contact's own time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SendLaterRequest {
    pub contact_id: Uuid,
    pub phone_number_id: Uuid,
    pub body: String,
    /// The date and time on the contact's clock.
    pub at: chrono::NaiveDateTime,
}

/// What the composer says beside "Send later": the contact's zone and time now, and, for a
/// chosen time, when the text will go (later, if that falls in their quiet hours) or why not.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SendLaterWhen {
    /// "Pacific time (from the area code)".
    pub zone: String,
    /// Their clock now, as `datetime-local` reads it ("2026-12-07T14:05").
    pub their_now: String,
    /// "Tue 8 Dec, 08:00 their time".
    pub goes: Option<String>,
    /// Why it waits past the chosen time (quiet hours), in words.
    pub held: Option<String>,
    /// Why that time cannot be chosen.
    pub problem: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MessageView {
    pub id: Uuid,
    pub contact_id: Uuid,
    pub phone_number_id: Uuid,
    pub direction: Direction,
    pub body: String,
    pub media_count: i32,
    pub media_urls: Vec<String>,
    pub status: String,
    pub ai_origin: Option<String>,
    pub keyword: Option<String>,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    /// Outbound only: queued, sending, sent, failed, or unknown (a person decides).
    #[serde(default)]
    pub send_state: Option<SendState>,
    /// Its place in the conversation (the database's insertion order).
    #[serde(default)]
    pub seq: Option<i64>,
    /// Herald's copies of the pictures and files it carried (a conversation's pages fill these).
    #[serde(default)]
    pub media: Vec<crate::media::model::MediaView>,
    /// The business's knowledge an agent's reply used: "From: Pricing FAQ".
    #[serde(default)]
    pub sources: Vec<MessageSource>,
}

/// A passage of the business's knowledge a reply used, by its source's title.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MessageSource {
    pub source_id: Uuid,
    pub passage_id: Uuid,
    pub title: String,
    /// The passage's words as the reply used them, so a member can read it in place.
    #[serde(default)]
    pub excerpt: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConversationSummary {
    pub contact_id: Uuid,
    pub contact_name: String,
    pub contact_phone: Option<String>,
    pub last_body: String,
    pub last_direction: Direction,
    pub last_at: DateTime<Utc>,
    pub unread: u64,
    pub opted_out: bool,
    /// Pictures on the last message (its body may be empty).
    #[serde(default)]
    pub last_media_count: i32,
    /// Open, closed or snoozed, and who it is assigned to.
    #[serde(default)]
    pub triage: crate::messaging::conversation_state::Triage,
}

/// Messages before a point in a conversation, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MessagePage {
    pub messages: Vec<MessageView>,
    /// Where the page before this one starts; None when this page holds the first message.
    pub older: Option<i64>,
}

/// Which conversations the inbox lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InboxFilter {
    #[default]
    All,
    /// With at least one unread inbound text.
    Unread,
    /// Assigned to the member reading.
    Mine,
    /// Assigned to nobody.
    Unassigned,
    /// Open, including snoozes that are due.
    Open,
    Closed,
    /// Snoozed until a time still to come.
    Snoozed,
}

impl InboxFilter {
    /// The views in the order the inbox shows them, with their labels.
    pub const ALL: [(InboxFilter, &'static str); 7] = [
        (InboxFilter::Open, "Open"),
        (InboxFilter::Mine, "Mine"),
        (InboxFilter::Unassigned, "Unassigned"),
        (InboxFilter::Unread, "Unread"),
        (InboxFilter::Snoozed, "Snoozed"),
        (InboxFilter::Closed, "Closed"),
        (InboxFilter::All, "All"),
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            InboxFilter::All => "all",
            InboxFilter::Unread => "unread",
            InboxFilter::Mine => "mine",
            InboxFilter::Unassigned => "unassigned",
            InboxFilter::Open => "open",
            InboxFilter::Closed => "closed",
            InboxFilter::Snoozed => "snoozed",
        }
    }
}

/// Where the next inbox page starts: after this conversation (newest activity first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InboxCursor {
    pub last_at: DateTime<Utc>,
    pub contact_id: Uuid,
}

/// One page of the inbox, newest activity first, with the exact number of conversations in the
/// view: a list that stops says how many there are in all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InboxPage {
    pub items: Vec<ConversationSummary>,
    pub total: u64,
    /// The next page's start; None on the last page.
    pub next: Option<InboxCursor>,
}

/// Why an outbound text is sent; it decides what the send ledger checks as the text leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Purpose {
    /// An answer in a conversation the contact started: no quiet hours, no marketing consent.
    Reply,
    /// A text the business starts (campaigns, plans, scheduled texts, a first text): consent,
    /// quiet hours and the state rules apply.
    Outreach,
    /// The one opt-out confirmation, or the answer to HELP.
    Compliance,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Reply => "reply",
            Purpose::Outreach => "outreach",
            Purpose::Compliance => "compliance",
        }
    }

    /// A stored value; anything unknown (texts from before purposes) is held to outreach's rules.
    pub fn parse(s: Option<&str>) -> Purpose {
        match s {
            Some("reply") => Purpose::Reply,
            Some("compliance") => Purpose::Compliance,
            _ => Purpose::Outreach,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SendSmsRequest {
    pub contact_id: Uuid,
    pub phone_number_id: Uuid,
    pub body: String,
    /// `Some("suggestion")` when the body came from a suggestion card.
    #[serde(default)]
    pub ai_origin: Option<String>,
    /// Pictures uploaded for it (`/api/media/upload`): the text goes as one MMS.
    #[serde(default)]
    pub media_ids: Vec<Uuid>,
    /// The suggestion set the body came from (the person may have edited it): the text is
    /// marked as from a suggestion, and the reports count the set as used.
    #[serde(default)]
    pub suggestion_id: Option<Uuid>,
}

/// A person's decision on a text Herald cannot tell was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// Send it (again): the person accepts the risk of a second copy.
    SendAnyway,
    /// It went: stop asking.
    MarkSent,
}

/// What the phone simulator sends: from a contact or a typed number, to one of the organisation's numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulatedText {
    pub from: String,
    pub to_number_id: Uuid,
    pub body: String,
}

/// The longest body Herald sends: ten concatenated segments, as Twilio allows.
pub const MAX_SMS_CHARS: usize = 1600;

/// A text a message search found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MessageHit {
    pub message_id: Uuid,
    pub contact_id: Uuid,
    pub contact_name: String,
    pub body: String,
    pub direction: String,
    pub at: DateTime<Utc>,
    /// Its place in the order texts were stored; the next page starts below it.
    pub seq: i64,
}

/// One page of the texts a search found, newest first, with the exact number found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MessageSearchPage {
    pub items: Vec<MessageHit>,
    pub total: u64,
    /// The `seq` to continue below; None on the last page.
    pub next: Option<i64>,
}

/// What an agent reads for an inbound text: its words, then a line per picture or file it
/// carries ("[photo: image/jpeg]"), so a media-only text still gets an answer.
pub fn agent_text(body: &str, media_count: usize, media_types: &[String]) -> String {
    let mut lines: Vec<String> = Vec::new();
    if !body.trim().is_empty() {
        lines.push(body.trim().to_owned());
    }
    for i in 0..media_count {
        let t = media_types
            .get(i)
            .map(String::as_str)
            .unwrap_or("application/octet-stream");
        let what = match t.split('/').next() {
            Some("image") => "photo",
            Some("video") => "video",
            Some("audio") => "audio",
            _ => "file",
        };
        lines.push(format!("[{what}: {t}]"));
    }
    lines.join("\n")
}

#[cfg(test)]
mod agent_text_tests {
    use super::agent_text;

    #[test]
    fn pictures_become_lines_an_agent_can_read() {
        assert_eq!(agent_text("hi", 0, &[]), "hi");
        assert_eq!(
            agent_text("  ", 2, &["image/jpeg".into(), "video/mp4".into()]),
            "[photo: image/jpeg]\n[video: video/mp4]"
        );
        assert_eq!(
            agent_text("look", 1, &[]),
            "look\n[file: application/octet-stream]"
        );
    }
}
