//! Twilio's Messages REST API, retried with backoff under one idempotency token.
use super::{OutboundSms, SentSms, SmsTransport, TransportError};
use crate::server::config::TwilioConfig;
use std::time::Duration;

pub const IDEMPOTENCY_HEADER: &str = "I-Twilio-Idempotency-Token";

pub struct TwilioTransport {
    config: TwilioConfig,
    http: reqwest::Client,
    max_attempts: u32,
    base_backoff: Duration,
}

#[derive(serde::Deserialize)]
struct MessageResource {
    sid: String,
    status: String,
}

#[derive(serde::Deserialize)]
struct TwilioErrorBody {
    message: Option<String>,
    code: Option<i64>,
}

impl TwilioTransport {
    pub fn new(config: TwilioConfig) -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(15))
            .build()
            .map_err(|e| format!("HTTP client: {e}"))?;
        Ok(Self {
            config,
            http,
            max_attempts: 4,
            base_backoff: Duration::from_millis(250),
        })
    }

    /// Shorter waits between attempts, for tests.
    pub fn with_backoff(mut self, base: Duration) -> Self {
        self.base_backoff = base;
        self
    }

    fn url(&self) -> String {
        format!(
            "{}/2010-04-01/Accounts/{}/Messages.json",
            self.config.api_base.trim_end_matches('/'),
            self.config.account_sid
        )
    }

    fn form(&self, sms: &OutboundSms) -> Vec<(&'static str, String)> {
        let mut form = vec![("To", sms.to.clone()), ("Body", sms.body.clone())];
        match &self.config.messaging_service_sid {
            // With a Messaging Service, From still picks the sender within it.
            Some(ms) => {
                form.push(("MessagingServiceSid", ms.clone()));
                form.push(("From", sms.from.clone()));
            }
            None => form.push(("From", sms.from.clone())),
        }
        if let Some(cb) = &self.config.status_callback_url {
            form.push(("StatusCallback", cb.clone()));
        }
        form
    }
}

#[async_trait::async_trait]
impl SmsTransport for TwilioTransport {
    fn name(&self) -> &'static str {
        "twilio"
    }

    #[tracing::instrument(skip_all, fields(to = %sms.to, key = %sms.idempotency_key))]
    async fn send(&self, sms: &OutboundSms) -> Result<SentSms, TransportError> {
        let form = self.form(sms);
        let mut last = String::new();
        for attempt in 1..=self.max_attempts {
            let res = self
                .http
                .post(self.url())
                .basic_auth(&self.config.account_sid, Some(&self.config.auth_token))
                .header(IDEMPOTENCY_HEADER, &sms.idempotency_key)
                .form(&form)
                .send()
                .await;
            match res {
                Ok(r) if r.status().is_success() => {
                    let m: MessageResource = r
                        .json()
                        .await
                        .map_err(|e| TransportError::Rejected(format!("unreadable reply: {e}")))?;
                    return Ok(SentSms {
                        provider_sid: m.sid,
                        status: m.status,
                    });
                }
                Ok(r) if r.status().is_server_error() || r.status().as_u16() == 429 => {
                    last = format!("HTTP {}", r.status());
                }
                Ok(r) => {
                    let status = r.status();
                    let body: Option<TwilioErrorBody> = r.json().await.ok();
                    let msg = body
                        .map(|b| {
                            format!(
                                "{} (code {})",
                                b.message.unwrap_or_default(),
                                b.code.unwrap_or(0)
                            )
                        })
                        .unwrap_or_else(|| format!("HTTP {status}"));
                    return Err(TransportError::Rejected(msg));
                }
                Err(e) => last = e.to_string(),
            }
            tracing::warn!(attempt, %last, "Twilio send failed; retrying with the same idempotency token");
            if attempt < self.max_attempts {
                tokio::time::sleep(self.base_backoff * 2u32.pow(attempt - 1)).await;
            }
        }
        Err(TransportError::Unavailable {
            attempts: self.max_attempts,
            last,
        })
    }
}
