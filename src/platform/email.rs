//! Email through SMTP (issue 51 §5): `SMTP_URL` (`smtp://user:pass@host:587` for STARTTLS,
//! `smtps://…:465` for TLS, `smtp://host:25?tls=none` for a local relay) and `SMTP_FROM` (the
//! sender, `Herald <no-reply@clinic.example>`). Without them Herald sends no email, and the pages
//! that would show the link to copy instead say that email is not set up.
use crate::platform::config::{var, Problems};
use lettre::message::Mailbox;
use lettre::transport::smtp::AsyncSmtpTransport;
use lettre::{AsyncTransport, Message, Tokio1Executor};

/// What the settings say.
#[derive(Clone, PartialEq)]
pub struct EmailSettings {
    pub smtp_url: String,
    pub from: String,
}

impl std::fmt::Debug for EmailSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The address may carry a password.
        f.debug_struct("EmailSettings")
            .field("smtp_url", &redacted(&self.smtp_url))
            .field("from", &self.from)
            .finish()
    }
}

/// The address without its user and password.
fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://***{}", &url[..s], &url[at..]),
        _ => url.to_owned(),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EmailError {
    #[error("{0} is not an email address")]
    Address(String),
    #[error("the email could not be written: {0}")]
    Build(String),
    #[error("the mail server refused or could not be reached: {0}")]
    Smtp(String),
}

impl EmailSettings {
    /// `SMTP_URL` and `SMTP_FROM`, both or neither.
    pub(crate) fn from_env(p: &mut Problems) -> Option<Self> {
        let (url, from) = (var("SMTP_URL"), var("SMTP_FROM"));
        let settings = match (url, from) {
            (None, None) => return None,
            (Some(smtp_url), Some(from)) => Self { smtp_url, from },
            (Some(_), None) => {
                p.0.push("SMTP_FROM: set the sender's address (as `Herald <no-reply@example.com>`) with SMTP_URL.".into());
                return None;
            }
            (None, Some(_)) => {
                p.0.push("SMTP_URL: set the mail server (as `smtp://user:pass@mail.example.com:587`) with SMTP_FROM.".into());
                return None;
            }
        };
        match Mailer::new(&settings) {
            Ok(_) => Some(settings),
            Err(e) => {
                p.0.push(format!("SMTP_URL / SMTP_FROM: {e}"));
                None
            }
        }
    }
}

/// Sends email through the configured server.
#[derive(Clone)]
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl Mailer {
    pub fn new(s: &EmailSettings) -> Result<Self, EmailError> {
        let from: Mailbox = s
            .from
            .parse()
            .map_err(|_| EmailError::Address(s.from.clone()))?;
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(&s.smtp_url)
            .map_err(|e| EmailError::Smtp(e.to_string()))?
            .timeout(Some(std::time::Duration::from_secs(20)))
            .build();
        Ok(Self { transport, from })
    }

    /// Sends a plain-text email to `to`.
    #[tracing::instrument(skip(self, body))]
    pub async fn send(&self, to: &str, subject: &str, body: String) -> Result<(), EmailError> {
        let to: Mailbox = to.parse().map_err(|_| EmailError::Address(to.into()))?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(subject)
            .body(body)
            .map_err(|e| EmailError::Build(e.to_string()))?;
        self.transport
            .send(message)
            .await
            .map_err(|e| EmailError::Smtp(e.to_string()))?;
        tracing::info!("email sent");
        Ok(())
    }
}

impl crate::platform::AppState {
    /// The mailer, when `SMTP_URL` is set.
    pub fn mailer(&self) -> Option<&Mailer> {
        self.parts.get::<Mailer>()
    }
}
