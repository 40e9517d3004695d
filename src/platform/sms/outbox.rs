//! The local outbox: accepts every message, keeps the latest ones in memory, and sends nothing
//! anywhere. Like a real provider it does not deduplicate: two creates are two messages.
use super::{
    FetchedMedia, FoundSms, Lookup, OutboundSms, ProviderAccount, SentSms, SmsTransport,
    TransportError,
};
use chrono::{DateTime, Utc};
use std::collections::VecDeque;
use std::sync::Mutex;

/// How many messages the outbox remembers (the oldest are forgotten first).
pub const OUTBOX_HISTORY: usize = 10_000;

struct Kept {
    sms: OutboundSms,
    sid: String,
    at: DateTime<Utc>,
}

#[derive(Default)]
pub struct OutboxTransport {
    sent: Mutex<VecDeque<Kept>>,
    created: Mutex<u64>,
}

impl OutboxTransport {
    /// Everything accepted and still remembered, oldest first.
    pub fn sent(&self) -> Vec<OutboundSms> {
        self.sent
            .lock()
            .expect("outbox lock")
            .iter()
            .map(|k| k.sms.clone())
            .collect()
    }
}

#[async_trait::async_trait]
impl SmsTransport for OutboxTransport {
    fn name(&self) -> &'static str {
        "outbox"
    }

    /// The outbox reaches no provider: its inbound texts come from this machine (the simulator,
    /// tests), so it fetches media from loopback addresses only, without credentials.
    async fn fetch_media(
        &self,
        url: &str,
        _account: Option<&ProviderAccount>,
        max_bytes: u64,
    ) -> Result<FetchedMedia, TransportError> {
        let host = reqwest::Url::parse(url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned));
        let loopback = match host.as_deref() {
            Some("localhost") => true,
            Some(h) => h
                .trim_matches(['[', ']'])
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback()),
            None => false,
        };
        if !loopback {
            return Err(TransportError::Rejected(
                "the local outbox fetches media from this machine only".into(),
            ));
        }
        // Loopback only, and never through a system proxy (which would fetch it from elsewhere).
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(std::time::Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| TransportError::NotSent(e.to_string()))?;
        super::get_limited(http.get(url), max_bytes).await
    }

    async fn send(&self, sms: &OutboundSms) -> Result<SentSms, TransportError> {
        let n = {
            let mut c = self.created.lock().expect("outbox lock");
            *c += 1;
            *c
        };
        let sid = format!("OB{n:032x}");
        let mut sent = self.sent.lock().expect("outbox lock");
        if sent.len() == OUTBOX_HISTORY {
            sent.pop_front();
        }
        sent.push_back(Kept {
            sms: sms.clone(),
            sid: sid.clone(),
            at: Utc::now(),
        });
        Ok(SentSms {
            provider_sid: sid,
            status: "sent".into(),
        })
    }

    async fn find(&self, lookup: &Lookup) -> Result<Vec<FoundSms>, TransportError> {
        Ok(self
            .sent
            .lock()
            .expect("outbox lock")
            .iter()
            .rev()
            .filter(|k| {
                k.sms.to == lookup.to && k.sms.from == lookup.from && k.sms.body == lookup.body
            })
            .map(|k| FoundSms {
                provider_sid: k.sid.clone(),
                status: "sent".into(),
                created_at: Some(k.at),
            })
            .collect())
    }
}
