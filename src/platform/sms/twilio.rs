//! Twilio's Messages REST API as its OpenAPI description defines it. A create is retried only
//! when it surely did not reach Twilio (a refused connection, a 429); a timeout, a dropped answer
//! or a server error is `Ambiguous`, for the ledger to reconcile with the Messages list and its
//! `To`, `From` and `DateSent>` filters.
use super::{
    FetchedMedia, FoundSms, Lookup, OutboundSms, Ownership, PhoneNumber, ProviderAccount, SentSms,
    SmsTransport, TransportError,
};
use crate::platform::config::TwilioConfig;
use chrono::{DateTime, Utc};
use std::time::Duration;

/// Sent on every create. Twilio does not document honouring it, so nothing relies on it.
pub const IDEMPOTENCY_HEADER: &str = "I-Twilio-Idempotency-Token";

pub struct TwilioTransport {
    config: TwilioConfig,
    http: reqwest::Client,
    /// For media: no system proxy (a picture is fetched from where the URL says, as checked).
    media_http: reqwest::Client,
    max_attempts: u32,
    base_backoff: Duration,
}

#[derive(serde::Deserialize)]
struct MessageResource {
    sid: String,
    status: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    date_created: Option<String>,
}

#[derive(serde::Deserialize)]
struct MessageList {
    messages: Vec<MessageResource>,
}

#[derive(serde::Deserialize)]
struct IncomingNumber {
    sid: String,
    phone_number: String,
}

#[derive(serde::Deserialize)]
struct IncomingNumberList {
    incoming_phone_numbers: Vec<IncomingNumber>,
}

#[derive(serde::Deserialize)]
struct TwilioErrorBody {
    message: Option<String>,
    code: Option<i64>,
}

impl TwilioTransport {
    pub fn new(config: TwilioConfig) -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(|e| format!("HTTP client: {e}"))?;
        let media_http = reqwest::Client::builder()
            .no_proxy()
            .timeout(config.timeout)
            .build()
            .map_err(|e| format!("HTTP client: {e}"))?;
        Ok(Self {
            config,
            http,
            media_http,
            max_attempts: 4,
            base_backoff: Duration::from_millis(250),
        })
    }

    /// Shorter waits between attempts, for tests.
    pub fn with_backoff(mut self, base: Duration) -> Self {
        self.base_backoff = base;
        self
    }

    /// The account a call is for and its credentials: the organisation's own, else the server's.
    fn creds<'a>(&'a self, account: Option<&'a ProviderAccount>) -> (&'a str, &'a str, &'a str) {
        match account {
            Some(a) => (&a.account_sid, &a.username, &a.password),
            None => (
                &self.config.account_sid,
                &self.config.account_sid,
                &self.config.auth_token,
            ),
        }
    }

    fn url(&self, account: Option<&ProviderAccount>, resource: &str) -> String {
        format!(
            "{}/2010-04-01/Accounts/{}{resource}",
            self.config.api_base.trim_end_matches('/'),
            self.creds(account).0
        )
    }

    fn form(&self, sms: &OutboundSms) -> Vec<(&'static str, String)> {
        let mut form = vec![("To", sms.to.to_string()), ("Body", sms.body.clone())];
        if let Some(ms) = &self.config.messaging_service_sid {
            form.push(("MessagingServiceSid", ms.clone()));
        }
        // With a Messaging Service, From still picks the sender within it.
        form.push(("From", sms.from.to_string()));
        if let Some(cb) = &self.config.status_callback_url {
            form.push(("StatusCallback", cb.clone()));
        }
        // An MMS: Twilio fetches each picture from its address (repeatable `MediaUrl`).
        for url in &sms.media_urls {
            form.push(("MediaUrl", url.clone()));
        }
        form
    }

    async fn list(
        &self,
        account: Option<&ProviderAccount>,
        query: &[(&str, String)],
    ) -> Result<Vec<MessageResource>, TransportError> {
        let url = self.url(account, "/Messages.json");
        let list: MessageList = self
            .get_json(account, url, query, "listing messages")
            .await?;
        Ok(list.messages)
    }

    /// A GET of Twilio's REST API, read as JSON; any failure means nothing was learnt.
    async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        account: Option<&ProviderAccount>,
        url: String,
        query: &[(&str, String)],
        what: &str,
    ) -> Result<T, TransportError> {
        let (_, user, password) = self.creds(account);
        let res = self
            .http
            .get(url)
            .basic_auth(user, Some(password))
            .query(query)
            .send()
            .await
            .map_err(|e| TransportError::NotSent(format!("{what}: {e}")))?;
        if !res.status().is_success() {
            return Err(TransportError::NotSent(format!(
                "{what}: HTTP {}",
                res.status()
            )));
        }
        res.json()
            .await
            .map_err(|e| TransportError::NotSent(format!("{what}: {e}")))
    }
}

fn created(m: &MessageResource) -> Option<DateTime<Utc>> {
    m.date_created
        .as_deref()
        .and_then(|d| DateTime::parse_from_rfc2822(d).ok())
        .map(|d| d.with_timezone(&Utc))
}

#[async_trait::async_trait]
impl SmsTransport for TwilioTransport {
    fn name(&self) -> &'static str {
        "twilio"
    }

    /// Twilio's media URLs are under its REST API and, with HTTP authentication on media (which
    /// an account may require), need the account's credentials. Twilio answers with a redirect
    /// to its media host; reqwest drops the credentials when a redirect leaves the API's host.
    /// A URL anywhere else is refused: the webhook's URL is Twilio's word, but only its own host
    /// is fetched with the account's credentials.
    async fn fetch_media(
        &self,
        url: &str,
        account: Option<&ProviderAccount>,
        max_bytes: u64,
    ) -> Result<FetchedMedia, TransportError> {
        let base = format!("{}/", self.config.api_base.trim_end_matches('/'));
        if !url.starts_with(&base) {
            return Err(TransportError::Rejected(
                "the media URL is not Twilio's".into(),
            ));
        }
        let (_, user, password) = self.creds(account);
        super::get_limited(
            self.media_http.get(url).basic_auth(user, Some(password)),
            max_bytes,
        )
        .await
    }

    #[tracing::instrument(skip_all, fields(to = %sms.to, key = %sms.idempotency_key))]
    async fn send(&self, sms: &OutboundSms) -> Result<SentSms, TransportError> {
        let form = self.form(sms);
        let (_, user, password) = self.creds(sms.account.as_ref());
        let url = self.url(sms.account.as_ref(), "/Messages.json");
        let mut last = String::new();
        for attempt in 1..=self.max_attempts {
            let res = self
                .http
                .post(&url)
                .basic_auth(user, Some(password))
                .header(IDEMPOTENCY_HEADER, &sms.idempotency_key)
                .form(&form)
                .send()
                .await;
            match res {
                Ok(r) if r.status().is_success() => {
                    // Accepted: a body we cannot read still means Twilio has the text.
                    return match r.json::<MessageResource>().await {
                        Ok(m) => Ok(SentSms {
                            provider_sid: m.sid,
                            status: m.status,
                        }),
                        Err(e) => Err(TransportError::Ambiguous(format!(
                            "accepted, but the answer was unreadable: {e}"
                        ))),
                    };
                }
                // Too many requests: Twilio did not take it; waiting and trying again is safe.
                Ok(r) if r.status().as_u16() == 429 => last = "HTTP 429".into(),
                Ok(r) if r.status().is_server_error() => {
                    return Err(TransportError::Ambiguous(format!("HTTP {}", r.status())))
                }
                Ok(r) => {
                    let status = r.status();
                    let body: Option<TwilioErrorBody> = r.json().await.ok();
                    // A code Herald knows reads in plain words; another as Twilio put it.
                    let msg = body
                        .map(|b| {
                            let code = b.code.unwrap_or(0).to_string();
                            match crate::platform::carrier_errors::lookup(&code) {
                                Some(e) => crate::platform::carrier_errors::explain(e.code),
                                None => {
                                    format!("{} (code {code})", b.message.unwrap_or_default())
                                }
                            }
                        })
                        .unwrap_or_else(|| format!("HTTP {status}"));
                    return Err(TransportError::Rejected(msg));
                }
                // The connection was never made: nothing reached Twilio.
                Err(e) if e.is_connect() => last = e.to_string(),
                // A timeout or a connection lost mid-request: Twilio may have it.
                Err(e) => return Err(TransportError::Ambiguous(e.to_string())),
            }
            tracing::warn!(attempt, %last, "Twilio did not take the text; trying again");
            if attempt < self.max_attempts {
                tokio::time::sleep(self.base_backoff * 2u32.pow(attempt - 1)).await;
            }
        }
        Err(TransportError::NotSent(format!(
            "after {} attempts: {last}",
            self.max_attempts
        )))
    }

    /// The account's `IncomingPhoneNumbers` list, filtered by `PhoneNumber`. The filter also
    /// matches partial numbers, so only an exact `phone_number` counts.
    async fn ownership(
        &self,
        number: &PhoneNumber,
        account: Option<&ProviderAccount>,
    ) -> Result<Ownership, TransportError> {
        let url = self.url(account, "/IncomingPhoneNumbers.json");
        let query = [
            ("PhoneNumber", number.to_string()),
            ("PageSize", "50".to_owned()),
        ];
        let list: IncomingNumberList = self
            .get_json(account, url, &query, "listing the account's numbers")
            .await?;
        Ok(list
            .incoming_phone_numbers
            .into_iter()
            .find(|n| number == n.phone_number.as_str())
            .map_or(Ownership::NotOwned, |n| Ownership::Owned {
                provider_sid: n.sid,
            }))
    }

    /// Fetches the account's own resource with these credentials: Twilio answers 401 to wrong
    /// ones.
    async fn check_account(&self, account: &ProviderAccount) -> Result<(), TransportError> {
        let (_, user, password) = self.creds(Some(account));
        let res = self
            .http
            .get(self.url(Some(account), ".json"))
            .basic_auth(user, Some(password))
            .send()
            .await
            .map_err(|e| TransportError::NotSent(format!("checking the account: {e}")))?;
        match res.status().as_u16() {
            200..=299 => Ok(()),
            401 | 403 | 404 => Err(TransportError::Rejected(
                "Twilio refused these credentials for this account".into(),
            )),
            s => Err(TransportError::NotSent(format!(
                "checking the account: HTTP {s}"
            ))),
        }
    }

    /// Sent texts come from the list filtered by `To`, `From` and `DateSent>`. A text still
    /// queued at Twilio has no send date, so the newest texts to the recipient are read too.
    async fn find(&self, l: &Lookup) -> Result<Vec<FoundSms>, TransportError> {
        let day = (l.since - chrono::Duration::days(1))
            .format("%Y-%m-%d")
            .to_string();
        let base = vec![
            ("To", l.to.to_string()),
            ("From", l.from.to_string()),
            ("PageSize", "50".to_owned()),
        ];
        let mut dated = base.clone();
        dated.push(("DateSent>", day));
        let mut found = Vec::new();
        let margin = chrono::Duration::minutes(10);
        for query in [dated, base] {
            for m in self.list(l.account.as_ref(), &query).await? {
                let at = created(&m);
                let recent = at.is_none_or(|at| at >= l.since - margin);
                if m.body.as_deref() == Some(l.body.as_str())
                    && recent
                    && !found.iter().any(|f: &FoundSms| f.provider_sid == m.sid)
                {
                    found.push(FoundSms {
                        provider_sid: m.sid,
                        status: m.status,
                        created_at: at,
                    });
                }
            }
        }
        Ok(found)
    }
}
