//! The `SmsTransport` seam: the local outbox (default) or Twilio's REST API.
pub mod outbox;
pub mod twilio;

use crate::server::config::{Config, TransportKind};
use std::sync::Arc;

/// One message to hand to a provider.
#[derive(Clone, Debug, PartialEq)]
pub struct OutboundSms {
    pub from: String,
    pub to: String,
    pub body: String,
    /// The same on every retry of one send, so the provider sends it once.
    pub idempotency_key: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SentSms {
    pub provider_sid: String,
    pub status: String,
}

#[derive(thiserror::Error, Debug, Clone, PartialEq)]
pub enum TransportError {
    #[error("the provider refused the message: {0}")]
    Rejected(String),
    #[error("the provider could not be reached after {attempts} attempts: {last}")]
    Unavailable { attempts: u32, last: String },
}

#[async_trait::async_trait]
pub trait SmsTransport: Send + Sync {
    fn name(&self) -> &'static str;
    async fn send(&self, sms: &OutboundSms) -> Result<SentSms, TransportError>;
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
