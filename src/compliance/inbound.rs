//! What an inbound text's reading does, inside the transaction that stores the text: an opt-out
//! suppresses the number and queues its one confirmation, HELP queues its answer, an opt-in
//! keyword lifts the person's own opt-out, and a possible opt-out opens an item for a person.
//! The reading is stored with the text (`message.keyword`), so routing, on any path and after a
//! crash, skips what the detector kept from the agents.
use crate::compliance::detector::{self, Verdict};
use crate::compliance::entity::{opt_out_review, review_status};
use crate::compliance::gate::{CONFIRMATION_ORIGIN, HELP_ORIGIN};
use crate::compliance::model::Purpose;
use crate::contacts::opt_out::{self, Because, OptOutSource};
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::messaging::outbound::queued_row;
use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, ConnectionTrait, Set};
use uuid::Uuid;

pub use crate::messaging::reading::{kept_from_agents, keyword, Reading};

/// Reads a body. `opt_out_type` is Twilio's `OptOutType` field (STOP, START, HELP) when its
/// Advanced Opt-Out acted on the text; `extra` the organisation's own phrases.
pub fn read(body: &str, opt_out_type: Option<&str>, extra: &[String]) -> Reading {
    match opt_out_type.map(|t| t.trim().to_uppercase()).as_deref() {
        Some("STOP") => {
            return Reading::OptOut {
                matched: body.trim().to_lowercase(),
                source: OptOutSource::Keyword,
                confirmed_by_twilio: true,
            }
        }
        Some("START") => return Reading::OptIn,
        Some("HELP") => {
            return Reading::Help {
                answered_by_twilio: true,
            }
        }
        _ => {}
    }
    match detector::detect(body, extra) {
        Verdict::OptOut { matched } => {
            let keyword = detector::OPT_OUT_WORDS
                .iter()
                .any(|w| w.eq_ignore_ascii_case(&matched.replace(' ', "")));
            Reading::OptOut {
                matched,
                source: if keyword {
                    OptOutSource::Keyword
                } else {
                    OptOutSource::Phrase
                },
                confirmed_by_twilio: false,
            }
        }
        Verdict::OptIn => Reading::OptIn,
        Verdict::Help => Reading::Help {
            answered_by_twilio: false,
        },
        Verdict::Ambiguous { matched } => Reading::Possible { matched },
        Verdict::None => Reading::Plain,
    }
}

/// Applies the reading of the stored text `msg` from `phone`, in the caller's transaction.
/// Answers the compliance texts it queued, for the caller to deliver once it has committed.
pub async fn apply<C: ConnectionTrait>(
    db: &C,
    reading: &Reading,
    msg: &message::Model,
    phone: &str,
    now: DateTime<Utc>,
) -> AppResult<Vec<Uuid>> {
    let org = msg.organization_id;
    let why = |reason: String| Because {
        actor_user_id: None,
        reason: Some(reason),
        message_id: Some(msg.id),
    };
    let mut queued = Vec::new();
    match reading {
        Reading::Plain => {}
        Reading::OptOut {
            matched,
            source,
            confirmed_by_twilio,
        } => {
            let fresh = opt_out::suppress(
                db,
                org,
                phone,
                *source,
                &why(format!("texted \"{matched}\"")),
                now,
            )
            .await?;
            // One confirmation, only for a new opt-out, and none when Twilio sent its own.
            if fresh && !confirmed_by_twilio {
                let w = crate::compliance::wording::load(db, org).await?;
                queued.extend(
                    queue(
                        db,
                        msg,
                        "confirm",
                        w.opt_out_reply,
                        CONFIRMATION_ORIGIN,
                        phone,
                        now,
                    )
                    .await?,
                );
            }
        }
        Reading::OptIn => {
            let lifted = opt_out::lift(
                db,
                org,
                phone,
                true,
                &why("texted an opt-in keyword".into()),
                now,
            )
            .await?;
            if !lifted {
                tracing::info!("an opt-in keyword left a manual or carrier opt-out in place");
            }
        }
        Reading::Help { answered_by_twilio } => {
            if !answered_by_twilio {
                let w = crate::compliance::wording::load(db, org).await?;
                queued.extend(queue(db, msg, "help", w.help, HELP_ORIGIN, phone, now).await?);
            }
        }
        Reading::Possible { matched } => {
            opt_out_review::ActiveModel {
                id: Set(Uuid::new_v4()),
                organization_id: Set(org),
                contact_id: Set(msg.contact_id),
                phone: Set(phone.to_owned()),
                message_id: Set(msg.id),
                body: Set(msg.body.chars().take(500).collect()),
                matched: Set(matched.clone()),
                status: Set(review_status::OPEN.into()),
                decided_by: Set(None),
                decided_at: Set(None),
                created_at: Set(now),
            }
            .insert(db)
            .await?;
            tracing::info!(%matched, "a possible opt-out waits for a person");
        }
    }
    Ok(queued)
}

/// Queues a compliance text answering `msg` from the number it reached, keyed by the text and
/// its kind: a redelivery or a second look never queues it twice. None when the sender cannot
/// be texted back.
pub async fn queue<C: ConnectionTrait>(
    db: &C,
    msg: &message::Model,
    kind: &str,
    body: String,
    origin: &str,
    phone: &str,
    now: DateTime<Utc>,
) -> AppResult<Option<Uuid>> {
    let id = Uuid::new_v5(&msg.id, kind.as_bytes());
    if !crate::contacts::phone::can_text(phone) {
        return Ok(None);
    }
    let row = queued_row(
        id,
        msg.organization_id,
        msg.contact_id,
        msg.phone_number_id,
        body,
        Some(origin),
        id.to_string(),
        Purpose::Compliance,
        now,
    );
    match row.insert(db).await {
        Ok(_) => {}
        Err(e) if crate::platform::db::is_unique_violation(&e) => {}
        Err(e) => return Err(e.into()),
    }
    Ok(Some(id))
}

/// The rules as messaging asks for them (`messaging::inbound::InboundRules`), registered by the
/// composition root.
pub struct Rules;

#[async_trait::async_trait]
impl crate::messaging::inbound::InboundRules for Rules {
    async fn read(
        &self,
        state: &crate::platform::AppState,
        organization_id: Uuid,
        body: &str,
        opt_out_type: Option<&str>,
    ) -> AppResult<Reading> {
        let phrases = state.phrases().get(&state.ack_db, organization_id).await?;
        Ok(read(body, opt_out_type, &phrases))
    }

    async fn apply(
        &self,
        txn: &sea_orm::DatabaseTransaction,
        reading: &Reading,
        msg: &message::Model,
        phone: &str,
        now: DateTime<Utc>,
    ) -> AppResult<Vec<Uuid>> {
        apply(txn, reading, msg, phone, now).await
    }
}
