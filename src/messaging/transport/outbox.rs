//! The local outbox: accepts every message, keeps it in memory, and sends nothing anywhere.
use super::{OutboundSms, SentSms, SmsTransport, TransportError};
use std::sync::Mutex;

#[derive(Default)]
pub struct OutboxTransport {
    sent: Mutex<Vec<OutboundSms>>,
}

impl OutboxTransport {
    /// Everything accepted so far, oldest first.
    pub fn sent(&self) -> Vec<OutboundSms> {
        self.sent.lock().expect("outbox lock").clone()
    }
}

#[async_trait::async_trait]
impl SmsTransport for OutboxTransport {
    fn name(&self) -> &'static str {
        "outbox"
    }

    async fn send(&self, sms: &OutboundSms) -> Result<SentSms, TransportError> {
        let mut sent = self.sent.lock().expect("outbox lock");
        // Idempotent like a real provider: a retry with the same key is the same message.
        if !sent
            .iter()
            .any(|s| s.idempotency_key == sms.idempotency_key)
        {
            sent.push(sms.clone());
        }
        Ok(SentSms {
            provider_sid: format!("OB{}", sms.idempotency_key.replace('-', "")),
            status: "sent".into(),
        })
    }
}
