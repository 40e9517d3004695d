//! Persisting an inbound text exactly once, with what the opt-out detector read in it, then
//! routing off the request path.
use crate::contacts::phone::normalize_phone;
use crate::contacts::service as contacts;
use crate::error::AppError;
use crate::messaging::entity as message;
use crate::messaging::model::{Direction, LiveEvent};
use crate::messaging::reading::Reading;
use crate::messaging::webhook_form::WebhookForm;
use crate::platform::db::is_unique_violation;
use crate::platform::AppState;
use sea_orm::{ActiveModelTrait, NotSet, Set, TryIntoModel};
use uuid::Uuid;

/// Why a webhook delivery was refused.
#[derive(thiserror::Error, Debug, PartialEq)]
pub enum WebhookError {
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error("invalid or missing X-Twilio-Signature")]
    BadSignature,
    #[error("server error: {0}")]
    Internal(String),
}

impl From<AppError> for WebhookError {
    fn from(e: AppError) -> Self {
        WebhookError::Internal(e.to_string())
    }
}

impl From<sea_orm::DbErr> for WebhookError {
    fn from(e: sea_orm::DbErr) -> Self {
        WebhookError::Internal(e.to_string())
    }
}

/// What happened to one delivery.
#[derive(Debug, PartialEq)]
pub enum InboundOutcome {
    Stored { message_id: Uuid, contact_id: Uuid },
    Duplicate,
    UnknownNumber,
}

/// A parsed Twilio SMS webhook.
#[derive(Debug)]
pub struct InboundSms {
    pub message_sid: String,
    pub from: String,
    pub to: String,
    pub body: String,
    pub media_urls: Vec<String>,
    /// Each media item's content type (`MediaContentType{i}`), in order.
    pub media_types: Vec<String>,
    /// Twilio's Advanced Opt-Out: STOP, START or HELP when Twilio acted on the text itself.
    pub opt_out_type: Option<String>,
}

impl InboundSms {
    /// Reads a text from its form. `to` is our number as `WebhookForm::number` normalised it
    /// (the value the verifying token was chosen by), or the raw `To` when it is not a number
    /// (then no organisation has it, and the text is ignored).
    pub fn from_form(form: &WebhookForm, region: &str) -> Result<Self, WebhookError> {
        let req = |k: &str| {
            form.non_blank(k)
                .map(str::to_owned)
                .ok_or_else(|| WebhookError::BadRequest(format!("missing {k}")))
        };
        let message_sid = req("MessageSid").or_else(|_| req("SmsSid"))?;
        if message_sid.len() > 64 || !message_sid.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(WebhookError::BadRequest("malformed MessageSid".into()));
        }
        let num_media: usize = match form.get("NumMedia") {
            None => 0,
            Some(n) => n
                .trim()
                .parse()
                .map_err(|_| WebhookError::BadRequest("NumMedia is not a number".into()))?,
        };
        if num_media > 10 {
            return Err(WebhookError::BadRequest("NumMedia is over 10".into()));
        }
        let media_urls = (0..num_media)
            .filter_map(|i| form.get(&format!("MediaUrl{i}")).map(str::to_owned))
            .collect();
        let media_types = (0..num_media)
            .map(|i| {
                form.get(&format!("MediaContentType{i}"))
                    .map(|t| t.trim().to_lowercase())
                    .filter(|t| !t.is_empty() && t.len() <= 100)
                    .unwrap_or_else(|| "application/octet-stream".into())
            })
            .collect();
        let to = match form.number("To", region) {
            Some(ours) => ours,
            None => req("To")?,
        };
        Ok(Self {
            message_sid,
            from: req("From")?,
            to,
            body: form.get("Body").map(str::to_owned).unwrap_or_default(),
            media_urls,
            media_types,
            opt_out_type: form.non_blank("OptOutType").map(str::to_owned),
        })
    }
}

/// Stores the text (once per MessageSid), records keyword opt-outs in the same transaction,
/// and schedules routing in the background. It runs on the acknowledgement's own pool.
#[tracing::instrument(skip_all, fields(sid = %sms.message_sid))]
pub async fn persist_inbound(
    state: &AppState,
    sms: InboundSms,
) -> Result<InboundOutcome, WebhookError> {
    let region = &state.config.default_region;
    let Ok(to) = normalize_phone(&sms.to, region) else {
        tracing::warn!(to = %sms.to, "inbound text to an unparseable number; ignored");
        return Ok(InboundOutcome::UnknownNumber);
    };
    let Some(number) = state.numbers().find(&state.ack_db, to.as_str()).await? else {
        tracing::warn!(%to, "inbound text to a number no organisation has; ignored");
        return Ok(InboundOutcome::UnknownNumber);
    };
    // Any sender is kept, a short code or a sender name too: its text is never lost, and it is
    // shown as one that cannot be texted back.
    let from = crate::contacts::phone::sender(&sms.from, region)
        .map_err(|e| WebhookError::BadRequest(format!("From: {e}")))?;
    let org_id = number.organization_id;
    let now = state.clock.now();
    let contact = contacts::find_or_create_by_phone(&state.ack_db, org_id, &from, now).await?;
    // The detector reads every text first, before any agent, suggester or campaign can.
    let reading = state
        .inbound_rules()
        .read(state, org_id, &sms.body, sms.opt_out_type.as_deref())
        .await?;
    let message_id = Uuid::new_v4();
    // A redelivery (the same MessageSid) is refused by the unique index: no read beforehand.
    let row = message::ActiveModel {
        id: Set(message_id),
        organization_id: Set(org_id),
        contact_id: Set(contact.id),
        phone_number_id: Set(number.id),
        direction: Set(Direction::Inbound.as_str().into()),
        body: Set(sms.body.clone()),
        media_count: Set(sms.media_urls.len() as i32),
        media_urls: Set(serde_json::json!(sms.media_urls)),
        media_types: Set(Some(serde_json::json!(sms.media_types))),
        provider_sid: Set(Some(sms.message_sid.clone())),
        status: Set("received".into()),
        ai_origin: Set(None),
        keyword: Set(reading.keyword().map(str::to_owned)),
        error: Set(None),
        idempotency_key: Set(None),
        read_at: Set(None),
        created_at: Set(now),
        // Routing marks it; until then the sweeper knows it still has to be routed.
        routed_at: Set(None),
        send_state: Set(None),
        attempt_key: Set(None),
        attempt_started_at: Set(None),
        send_attempts: Set(0),
        reconcile_failures: Set(0),
        purpose: Set(None),
        // Numbered by the database.
        seq: NotSet,
        rolled_up: Set(false),
        outcome_rolled: Set(false),
        agent_id: Set(None),
        cites: Set(None),
    };
    let media =
        crate::media::copier::rows_for(org_id, message_id, &sms.media_urls, &sms.media_types, now);
    let message = match store(state, row, media, &reading, &from, now).await? {
        Some(m) => m,
        None => return Ok(InboundOutcome::Duplicate),
    };
    state.metrics.inbound_messages.inc();
    let bg = state.clone();
    let contact_id = contact.id;
    let stored = StoredInbound {
        message,
        number,
        sender: contact.phone,
    };
    // Routing is short and mostly waits on the database: it stays on the request runtime, ahead
    // of the agents' turns (which it hands to the work runtime).
    state.tasks.spawn(async move {
        // Tests only: a window in which to kill the process between storing and routing.
        if let Some(delay) = bg.config.test_route_delay {
            tokio::time::sleep(delay).await;
        }
        route_inbound(bg, stored).await
    });
    Ok(InboundOutcome::Stored {
        message_id,
        contact_id,
    })
}

/// Inserts the text; what its reading does (an opt-out, an opt-in, HELP, a possible opt-out) is
/// recorded in the same transaction, and the compliance texts it queued are delivered once that
/// has committed (the ledger's sweeper delivers them if this process dies first). None: the
/// MessageSid was already stored. A plain text is stored with others that arrive meanwhile; a text
/// with media is stored with a row per item, which the copier fills.
async fn store(
    state: &AppState,
    row: message::ActiveModel,
    media: Vec<crate::media::entity::ActiveModel>,
    reading: &Reading,
    phone: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Option<message::Model>, WebhookError> {
    let duplicate = |e: sea_orm::DbErr| match is_unique_violation(&e) {
        true => Ok(None),
        false => Err(WebhookError::from(e)),
    };
    if *reading == Reading::Plain && media.is_empty() {
        // A plain text joins the writer's next group commit (`inbound_writer`).
        let model = message::ActiveModel {
            seq: Set(None),
            ..row.clone()
        }
        .try_into_model()?;
        return match state
            .inbound_writer()
            .store(&state.ack_db, model.id, row)
            .await?
        {
            true => Ok(Some(model)),
            false => Ok(None),
        };
    }
    let txn = crate::platform::db::begin_write(&state.ack_db).await?;
    let message = match row.insert(&txn).await {
        Ok(m) => m,
        Err(e) => return duplicate(e),
    };
    // A text with pictures keeps a row per item, with the text, for the copier.
    let has_media = !media.is_empty();
    if has_media {
        <crate::media::entity::Entity as sea_orm::EntityTrait>::insert_many(media)
            .exec(&txn)
            .await?;
    }
    let queued = state
        .inbound_rules()
        .apply(&txn, reading, &message, phone, now)
        .await?;
    txn.commit().await?;
    if has_media {
        crate::media::copier::copy_soon(state, message.id);
    }
    if matches!(reading, Reading::OptOut { .. }) {
        state.metrics.opt_outs.inc();
    }
    for id in queued {
        let bg = state.clone();
        state.tasks.spawn(async move {
            if let Err(e) = crate::messaging::ledger::deliver(&bg, id).await {
                tracing::warn!(error = %e, %id, "a compliance text was not delivered yet; the sweeper will");
            }
        });
    }
    Ok(Some(message))
}

/// A text just stored, with what routing needs, handed up so that routing need not read it again.
pub struct StoredInbound {
    pub message: message::Model,
    /// The organisation's number it reached.
    pub number: crate::phone_numbers::entity::Model,
    /// The sender's phone as the contact holds it (None or a short code: nobody to text back).
    pub sender: Option<String>,
}

/// Who takes a stored inbound text further (the agents, wired in by the server). Messaging hands
/// texts up through it and never calls up itself.
#[async_trait::async_trait]
pub trait InboundSink: Send + Sync {
    /// Routes the text, at most once however often it is called; failures are logged and left
    /// for the sweeper.
    async fn route(&self, state: &AppState, message_id: Uuid);

    /// Routes a text the webhook has just stored, with the same guarantees.
    async fn route_stored(&self, state: &AppState, stored: StoredInbound);
}

/// Everything after persisting: live updates, then the sink (the number's agent or suggester).
#[tracing::instrument(skip_all, fields(message_id = %stored.message.id))]
pub async fn route_inbound(state: AppState, stored: StoredInbound) {
    state.live.publish(
        stored.message.organization_id,
        LiveEvent::MessageCreated {
            contact_id: stored.message.contact_id,
            message_id: stored.message.id,
            direction: Direction::Inbound,
        },
    );
    state.inbound().route_stored(&state, stored).await;
}

/// The compliance rules an inbound text meets as it is stored (wired in by the server:
/// `compliance::inbound::Rules`). Messaging asks through it and never calls up.
#[async_trait::async_trait]
pub trait InboundRules: Send + Sync {
    /// What the opt-out detector reads in `body`, with the organisation's own phrases, or what
    /// Twilio's Advanced Opt-Out did (`opt_out_type`).
    async fn read(
        &self,
        state: &AppState,
        organization_id: Uuid,
        body: &str,
        opt_out_type: Option<&str>,
    ) -> Result<Reading, AppError>;

    /// What the reading does, in the transaction that stores the text `msg` from `phone`;
    /// answers the compliance texts it queued, to deliver once that has committed.
    async fn apply(
        &self,
        txn: &sea_orm::DatabaseTransaction,
        reading: &Reading,
        msg: &message::Model,
        phone: &str,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Vec<Uuid>, AppError>;
}

impl crate::platform::AppState {
    /// Where stored inbound texts go next (the agents' router).
    pub fn inbound(&self) -> &std::sync::Arc<dyn InboundSink> {
        self.part::<std::sync::Arc<dyn InboundSink>>()
    }

    /// The rules an inbound text meets as it is stored (opt-out, HELP, opt-in).
    pub fn inbound_rules(&self) -> &std::sync::Arc<dyn InboundRules> {
        self.part::<std::sync::Arc<dyn InboundRules>>()
    }
}
