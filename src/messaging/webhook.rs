//! The Twilio webhooks: `POST /webhooks/twilio/sms` and `POST /webhooks/twilio/status`.
use crate::messaging::inbound::{persist_inbound, InboundOutcome, InboundSms, WebhookError};
use crate::messaging::signature::verify_signature;
use crate::messaging::status::apply_status_callback;
use crate::messaging::webhook_form::WebhookForm;
use crate::platform::AppState;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;

pub use crate::platform::access_config::{SMS_PATH, STATUS_PATH};
/// Twilio's own form posts are a few kilobytes; anything much larger is not Twilio.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
const EMPTY_TWIML: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response></Response>";

pub fn routes(state: AppState) -> Router {
    Router::new()
        .route(SMS_PATH, post(inbound_sms))
        .route(STATUS_PATH, post(status_callback))
        .with_state(state)
}

impl IntoResponse for WebhookError {
    fn into_response(self) -> Response {
        match &self {
            WebhookError::BadRequest(_) => tracing::warn!(error = %self, "webhook refused"),
            WebhookError::BadSignature => tracing::warn!(error = %self, "webhook refused"),
            WebhookError::Internal(_) => tracing::error!(error = %self, "webhook failed"),
        }
        let (status, body) = match self {
            WebhookError::BadRequest(m) => (StatusCode::BAD_REQUEST, format!("bad request: {m}")),
            WebhookError::BadSignature => (StatusCode::FORBIDDEN, self.to_string()),
            // Never the database's words: they are for the log, not for whoever called.
            // Twilio retries a 5xx, and the MessageSid keeps the retry from storing twice.
            WebhookError::Internal(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "server error; it has been logged".to_owned(),
            ),
        };
        (status, body).into_response()
    }
}

fn twiml() -> Response {
    ([(header::CONTENT_TYPE, "text/xml")], EMPTY_TWIML).into_response()
}

/// The URL Twilio signs: `PUBLIC_URL`, the path, and the query string if any.
pub fn signed_url(state: &AppState, path: &str, query: Option<&str>) -> String {
    let query = query.map(|q| format!("?{q}")).unwrap_or_default();
    format!(
        "{}{path}{query}",
        state.config.public_url.trim_end_matches('/')
    )
}

/// The token webhooks about `our_number` are signed with: its organisation's own Auth Token
/// when it connected an account (then nothing else is accepted), else `TWILIO_AUTH_TOKEN`.
/// `our_number` is the normalised number the request will be routed by (`WebhookForm::number`).
pub async fn webhook_token_for(
    state: &AppState,
    our_number: Option<&str>,
) -> Result<Option<String>, WebhookError> {
    if let Some(n) = our_number {
        let owner = state
            .numbers()
            .find(&state.db, n)
            .await
            .map_err(|e| WebhookError::Internal(e.to_string()))?;
        if let Some(number) = owner {
            let own = crate::provider_accounts::service::opened(state, number.organization_id)
                .await
                .map_err(|e| WebhookError::Internal(e.to_string()))?;
            if let Some(o) = own {
                return Ok(Some(o.webhook_token));
            }
        }
    }
    Ok(state.config.webhook_auth_token.clone())
}

/// Checks X-Twilio-Signature with the token of the organisation that owns `our_number` (`To` of
/// a text, `From` of a status callback, normalised), or `TWILIO_AUTH_TOKEN`; with neither,
/// every delivery passes (a local install).
pub async fn check_signature(
    state: &AppState,
    url: &str,
    form: &WebhookForm,
    given: Option<&str>,
    our_number: Option<&str>,
) -> Result<(), WebhookError> {
    match webhook_token_for(state, our_number).await? {
        None => Ok(()),
        Some(token) => match given {
            Some(sig) if verify_signature(&token, url, form.pairs(), sig) => Ok(()),
            _ => Err(WebhookError::BadSignature),
        },
    }
}

/// Reads the bounded form body once and checks its signature with the token of the number the
/// request is about; answers the form and that number, which is all the caller may route by.
async fn read_signed_form(
    state: &AppState,
    path: &str,
    req: Request,
) -> Result<(WebhookForm, Option<String>), WebhookError> {
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .map_err(|_| WebhookError::BadRequest(format!("body over {MAX_BODY_BYTES} bytes")))?;
    let form = WebhookForm::parse(&bytes)?;
    let given = parts
        .headers
        .get("X-Twilio-Signature")
        .and_then(|v| v.to_str().ok());
    let key = if path == STATUS_PATH { "From" } else { "To" };
    let ours = form.number(key, &state.config.default_region);
    check_signature(
        state,
        &signed_url(state, path, parts.uri.query()),
        &form,
        given,
        ours.as_deref(),
    )
    .await?;
    Ok((form, ours))
}

/// The inbound path after the body is read: signature, parsing, persisting. The simulator uses it too.
pub async fn accept_inbound(
    state: &AppState,
    url: &str,
    form: &WebhookForm,
    signature: Option<&str>,
) -> Result<InboundOutcome, WebhookError> {
    let region = &state.config.default_region;
    let ours = form.number("To", region);
    check_signature(state, url, form, signature, ours.as_deref()).await?;
    let sms = InboundSms::from_form(form, region)?;
    persist_inbound(state, sms).await
}

#[tracing::instrument(skip_all)]
async fn inbound_sms(
    State(state): State<AppState>,
    req: Request<Body>,
) -> Result<Response, WebhookError> {
    let (form, _) = read_signed_form(&state, SMS_PATH, req).await?;
    let sms = InboundSms::from_form(&form, &state.config.default_region)?;
    let outcome = persist_inbound(&state, sms).await?;
    tracing::info!(?outcome, "inbound text");
    Ok(twiml())
}

#[tracing::instrument(skip_all)]
async fn status_callback(
    State(state): State<AppState>,
    req: Request<Body>,
) -> Result<Response, WebhookError> {
    let (form, ours) = read_signed_form(&state, STATUS_PATH, req).await?;
    apply_status_callback(&state, &form, ours.as_deref()).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
