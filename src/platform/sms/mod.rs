//! The `SmsTransport` seam: the local outbox (default) or Twilio's REST API. A provider is not
//! trusted to deduplicate creates: every failure says whether the text surely did not go
//! (`Rejected`, `NotSent`) or might have (`Ambiguous`), and `find` looks a text up afterwards so
//! the send ledger can reconcile instead of resending blindly.
pub mod outbox;
pub mod twilio;

pub use crate::phone::PhoneNumber;
use crate::platform::config::{Config, TransportKind};
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// An organisation's own provider account: REST calls go to `account_sid`, authenticated as
/// `username` (the Account SID or an API key SID) with `password` (the Auth Token or the key's
/// secret). None on a call: the server's own account from the environment.
#[derive(Clone, PartialEq)]
pub struct ProviderAccount {
    pub account_sid: String,
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for ProviderAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderAccount")
            .field("account_sid", &self.account_sid)
            .field("username", &self.username)
            .field("password", &"<hidden>")
            .finish()
    }
}

/// One message to hand to a provider.
#[derive(Clone, Debug, PartialEq)]
pub struct OutboundSms {
    pub from: PhoneNumber,
    pub to: PhoneNumber,
    pub body: String,
    /// This attempt's key; providers may ignore it (Twilio does not promise to honour it).
    pub idempotency_key: String,
    /// The sending organisation's own account, if it connected one.
    pub account: Option<ProviderAccount>,
    /// Addresses the provider fetches the text's pictures from (an MMS); empty for an SMS.
    pub media_urls: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SentSms {
    pub provider_sid: String,
    pub status: String,
}

/// A text the provider has, found by `find`.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundSms {
    pub provider_sid: String,
    pub status: String,
    pub created_at: Option<DateTime<Utc>>,
}

/// What to look for: the recipient, the sender, the body, and when the attempt began.
#[derive(Clone, Debug, PartialEq)]
pub struct Lookup {
    pub to: PhoneNumber,
    pub from: PhoneNumber,
    pub body: String,
    pub since: DateTime<Utc>,
    pub account: Option<ProviderAccount>,
}

#[derive(thiserror::Error, Debug, Clone, PartialEq)]
pub enum TransportError {
    /// The provider answered no: the text was not sent.
    #[error("the provider refused the message: {0}")]
    Rejected(String),
    /// The request never reached the provider, or the provider said it did not take it (rate
    /// limited): the text was not sent, and trying again is safe.
    #[error("the provider could not be reached: {0}")]
    NotSent(String),
    /// The provider may have the text (a timeout, a lost answer, a server error): only a lookup
    /// can tell.
    #[error("the provider's answer was lost ({0}); the text may or may not have gone")]
    Ambiguous(String),
}

/// Whether the provider account has a number to send from and receive on.
#[derive(Clone, Debug, PartialEq)]
pub enum Ownership {
    /// The transport sends nowhere (the local outbox): numbers are free-form, for demos.
    Unchecked,
    /// The account has it, under this provider id.
    Owned { provider_sid: String },
    /// The account does not have it.
    NotOwned,
}

#[async_trait::async_trait]
pub trait SmsTransport: Send + Sync {
    fn name(&self) -> &'static str;
    /// One create request. A transport may retry only what surely did not reach the provider.
    async fn send(&self, sms: &OutboundSms) -> Result<SentSms, TransportError>;
    /// Texts the provider has that match, newest first.
    async fn find(&self, lookup: &Lookup) -> Result<Vec<FoundSms>, TransportError>;
    /// Whether the account (the organisation's own, or the server's) has `number` (E.164). A
    /// transport that sends nowhere checks nothing.
    async fn ownership(
        &self,
        _number: &PhoneNumber,
        _account: Option<&ProviderAccount>,
    ) -> Result<Ownership, TransportError> {
        Ok(Ownership::Unchecked)
    }
    /// Fetches a media file the provider kept for an inbound text (`MediaUrl{i}`), with the
    /// account's credentials, reading at most `max_bytes`.
    async fn fetch_media(
        &self,
        _url: &str,
        _account: Option<&ProviderAccount>,
        _max_bytes: u64,
    ) -> Result<FetchedMedia, TransportError> {
        Err(TransportError::Rejected(format!(
            "the {} transport keeps no media",
            self.name()
        )))
    }
    /// Whether the provider accepts these credentials for this account. A transport that sends
    /// nowhere cannot use them: `Rejected`.
    async fn check_account(&self, _account: &ProviderAccount) -> Result<(), TransportError> {
        Err(TransportError::Rejected(format!(
            "this server sends through the {} transport; an organisation's own Twilio account \
             needs SMS_TRANSPORT=twilio",
            self.name()
        )))
    }
}

/// A media file a provider kept for an inbound text, as fetched.
#[derive(Clone, Debug, PartialEq)]
pub struct FetchedMedia {
    pub bytes: Vec<u8>,
    /// The `Content-Type` the provider answered with.
    pub content_type: Option<String>,
}

/// GETs `req` and reads at most `max_bytes` of its body: a larger file is `Rejected` as soon as
/// its length or its bytes say so, without reading the rest. 4xx answers are `Rejected`, other
/// failures `NotSent` (worth another try later).
pub async fn get_limited(
    req: reqwest::RequestBuilder,
    max_bytes: u64,
) -> Result<FetchedMedia, TransportError> {
    let too_large = || {
        TransportError::Rejected(format!(
            "the file is larger than {} MB",
            max_bytes as f64 / 1_048_576.0
        ))
    };
    let mut res = req
        .send()
        .await
        .map_err(|e| TransportError::NotSent(e.to_string()))?;
    let status = res.status();
    if status.is_client_error() {
        return Err(TransportError::Rejected(format!(
            "the provider answered {status}"
        )));
    }
    if !status.is_success() {
        return Err(TransportError::NotSent(format!(
            "the provider answered {status}"
        )));
    }
    if res.content_length().is_some_and(|n| n > max_bytes) {
        return Err(too_large());
    }
    let content_type = res
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or(v).trim().to_ascii_lowercase());
    let mut bytes = Vec::new();
    while let Some(chunk) = res
        .chunk()
        .await
        .map_err(|e| TransportError::NotSent(e.to_string()))?
    {
        if (bytes.len() + chunk.len()) as u64 > max_bytes {
            return Err(too_large());
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(FetchedMedia {
        bytes,
        content_type,
    })
}

pub fn from_config(config: &Config) -> Result<Arc<dyn SmsTransport>, String> {
    match (&config.transport, &config.twilio) {
        (TransportKind::Twilio, Some(t)) => Ok(Arc::new(twilio::TwilioTransport::new(t.clone())?)),
        (TransportKind::Twilio, None) => {
            Err("the Twilio transport needs TWILIO_ACCOUNT_SID".into())
        }
        (TransportKind::Outbox, _) => Ok(Arc::new(outbox::OutboxTransport::default())),
    }
}
