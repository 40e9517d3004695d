//! Copies each media item of an inbound text into Herald's store: fetched from the provider with
//! the organisation's credentials, at most `MEDIA_MAX_BYTES`, of a kind Herald keeps, a picture
//! checked to be the picture its type says, and thumbnailed. A text's items are copied right after
//! it is stored; the sweeper copies what a crash or a provider's hiccup left (`copy_due`). Each
//! row is claimed with a lease, so two instances never copy the same one, and a failure that may
//! pass is tried again later (five tries), then given up with its reason.
use crate::error::AppResult;
use crate::media::entity as media;
use crate::media::model::status;
use crate::platform::events::DomainEvent;
use crate::platform::sms::TransportError;
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

/// Tries before a copy is given up.
const MAX_ATTEMPTS: i32 = 5;
/// How long a claim lasts: a copier that died lets go after this.
const LEASE_SECS: i64 = 120;
/// Rows one sweep claims.
const BATCH: u64 = 20;
/// The longest side of a thumbnail, in pixels.
const THUMB_SIDE: u32 = 320;

/// The kinds of file Herald keeps: pictures (checked and thumbnailed) and the other kinds US
/// carriers pass on MMS. Anything else (a web page, a script) is never stored or served.
const KEPT: [&str; 14] = [
    "image/jpeg",
    "image/png",
    "image/gif",
    "image/webp",
    "video/mp4",
    "video/3gpp",
    "audio/mpeg",
    "audio/mp4",
    "audio/amr",
    "audio/ogg",
    "application/pdf",
    "text/vcard",
    "text/x-vcard",
    "text/calendar",
];

/// The rows for a new inbound text's media, written with the text (`status` pending).
pub fn rows_for(
    org: Uuid,
    message_id: Uuid,
    urls: &[String],
    types: &[String],
    now: DateTime<Utc>,
) -> Vec<media::ActiveModel> {
    urls.iter()
        .enumerate()
        .map(|(i, url)| media::ActiveModel {
            id: Set(Uuid::new_v4()),
            organization_id: Set(org),
            message_id: Set(message_id),
            idx: Set(i as i32),
            provider_url: Set(url.clone()),
            content_type: Set(types
                .get(i)
                .cloned()
                .unwrap_or_else(|| "application/octet-stream".into())),
            size_bytes: Set(None),
            storage_key: Set(None),
            thumb_key: Set(None),
            status: Set(status::PENDING.into()),
            error: Set(None),
            attempts: Set(0),
            next_try_at: Set(now),
            lease_owner: Set(None),
            lease_until: Set(None),
            created_at: Set(now),
            public_token: Set(None),
        })
        .collect()
}

/// Copies a just-stored text's media now (in the background); the sweeper covers a crash.
pub fn copy_soon(state: &AppState, message_id: Uuid) {
    let bg = state.clone();
    state.tasks.spawn(async move {
        let rows = media::Entity::find()
            .filter(media::Column::MessageId.eq(message_id))
            .filter(media::Column::Status.eq(status::PENDING))
            .all(&bg.db)
            .await;
        match rows {
            Ok(rows) => {
                for row in rows {
                    copy_claimed(&bg, row).await;
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, %message_id, "media not copied yet; the sweeper will")
            }
        }
    });
}

/// Copies the media whose time has come; answers how many rows it took up.
pub async fn copy_due(state: &AppState) -> AppResult<usize> {
    let now = state.clock.now();
    let due = media::Entity::find()
        .filter(media::Column::Status.eq(status::PENDING))
        .filter(media::Column::NextTryAt.lte(now))
        .filter(free(now))
        .order_by_asc(media::Column::NextTryAt)
        .limit(BATCH)
        .all(&state.db)
        .await?;
    let n = due.len();
    for row in due {
        copy_claimed(state, row).await;
    }
    Ok(n)
}

fn free(now: DateTime<Utc>) -> Condition {
    Condition::any()
        .add(media::Column::LeaseUntil.is_null())
        .add(media::Column::LeaseUntil.lt(now))
}

/// Claims the row (nobody else holds it) and copies it; a row another copier holds is left.
async fn copy_claimed(state: &AppState, row: media::Model) {
    let now = state.clock.now();
    let claimed = media::Entity::update_many()
        .col_expr(
            media::Column::LeaseOwner,
            Expr::value(state.instance_id.clone()),
        )
        .col_expr(
            media::Column::LeaseUntil,
            Expr::value(now + chrono::Duration::seconds(LEASE_SECS)),
        )
        .filter(media::Column::Id.eq(row.id))
        .filter(media::Column::Status.eq(status::PENDING))
        .filter(free(now))
        .exec(&state.db)
        .await;
    match claimed {
        Ok(r) if r.rows_affected == 1 => {}
        Ok(_) => return,
        Err(e) => {
            tracing::warn!(error = %e, id = %row.id, "could not claim a media copy");
            return;
        }
    }
    let outcome = copy(state, &row).await;
    if let Err(e) = finish(state, &row, outcome).await {
        tracing::error!(error = %e, id = %row.id, "could not record a media copy");
    }
}

/// What a copy came to.
enum Outcome {
    Stored {
        content_type: String,
        size: i64,
        key: String,
        thumb: Option<String>,
    },
    /// Worth another try later (the provider or the store did not answer).
    Retry(String),
    /// Never going to work: given up with these words.
    GiveUp(String),
}

async fn copy(state: &AppState, row: &media::Model) -> Outcome {
    let account =
        match crate::provider_accounts::service::account_for(state, row.organization_id).await {
            Ok(a) => a,
            Err(e) => return Outcome::GiveUp(e.to_string()),
        };
    let max = state.config.media.max_bytes;
    let fetched = match state
        .transport
        .fetch_media(&row.provider_url, account.as_ref(), max)
        .await
    {
        Ok(f) => f,
        Err(TransportError::Rejected(why)) => return Outcome::GiveUp(why),
        Err(e) => return Outcome::Retry(e.to_string()),
    };
    let declared = fetched
        .content_type
        .clone()
        .unwrap_or_else(|| row.content_type.to_ascii_lowercase());
    let content_type = match kind_of(&declared, &fetched.bytes) {
        Ok(t) => t,
        Err(why) => return Outcome::GiveUp(why),
    };
    let key = format!("{}/{}/{}", row.organization_id, row.message_id, row.idx);
    let size = fetched.bytes.len() as i64;
    let thumb = if content_type.starts_with("image/") {
        thumbnail(fetched.bytes.clone()).await
    } else {
        None
    };
    if let Err(e) = state.media().put(&key, fetched.bytes).await {
        return Outcome::Retry(e.to_string());
    }
    let thumb_key = match thumb {
        Some(jpeg) => {
            let k = format!("{key}.thumb.jpg");
            match state.media().put(&k, jpeg).await {
                Ok(()) => Some(k),
                Err(e) => return Outcome::Retry(e.to_string()),
            }
        }
        None => None,
    };
    Outcome::Stored {
        content_type,
        size,
        key,
        thumb: thumb_key,
    }
}

/// The type the file is kept as: one Herald keeps, and for a picture the type its bytes show
/// (a file that claims to be a picture and is not is refused).
pub fn kind_of(declared: &str, bytes: &[u8]) -> Result<String, String> {
    let declared = declared.trim().to_ascii_lowercase();
    if declared.starts_with("image/") {
        let sniffed = match image::guess_format(bytes) {
            Ok(image::ImageFormat::Jpeg) => "image/jpeg",
            Ok(image::ImageFormat::Png) => "image/png",
            Ok(image::ImageFormat::Gif) => "image/gif",
            Ok(image::ImageFormat::WebP) => "image/webp",
            _ => {
                return Err(format!(
                    "the file is not the {declared} picture it says it is"
                ))
            }
        };
        return Ok(sniffed.into());
    }
    if KEPT.contains(&declared.as_str()) {
        Ok(declared)
    } else {
        Err(format!("Herald does not keep {declared} files"))
    }
}

/// A JPEG no larger than `THUMB_SIDE` on either side, decoded in its turn and within the limits
/// (`media::decode`); None when it does not decode (it is still kept and offered as a file).
pub async fn thumbnail(bytes: Vec<u8>) -> Option<Vec<u8>> {
    crate::media::decode::shrunk(bytes, THUMB_SIDE, 80).await
}

async fn finish(state: &AppState, row: &media::Model, outcome: Outcome) -> AppResult<()> {
    let now = state.clock.now();
    let mut update = media::Entity::update_many()
        .col_expr(media::Column::LeaseOwner, Expr::value(None::<String>))
        .col_expr(
            media::Column::LeaseUntil,
            Expr::value(None::<DateTime<Utc>>),
        )
        .filter(media::Column::Id.eq(row.id));
    let attempts = row.attempts + 1;
    let stored = matches!(outcome, Outcome::Stored { .. });
    match outcome {
        Outcome::Stored {
            content_type,
            size,
            key,
            thumb,
        } => {
            update = update
                .col_expr(media::Column::Status, Expr::value(status::STORED))
                .col_expr(media::Column::ContentType, Expr::value(content_type))
                .col_expr(media::Column::SizeBytes, Expr::value(size))
                .col_expr(media::Column::StorageKey, Expr::value(key))
                .col_expr(media::Column::ThumbKey, Expr::value(thumb))
                .col_expr(media::Column::Error, Expr::value(None::<String>));
        }
        Outcome::Retry(why) if attempts < MAX_ATTEMPTS => {
            tracing::warn!(id = %row.id, attempts, error = %why, "a media copy will be tried again");
            let wait = chrono::Duration::seconds(30 * (1 << attempts));
            update = update
                .col_expr(media::Column::Attempts, Expr::value(attempts))
                .col_expr(media::Column::NextTryAt, Expr::value(now + wait))
                .col_expr(media::Column::Error, Expr::value(why));
        }
        Outcome::Retry(why) | Outcome::GiveUp(why) => {
            tracing::warn!(id = %row.id, error = %why, "a media item was not kept");
            update = update
                .col_expr(media::Column::Status, Expr::value(status::FAILED))
                .col_expr(media::Column::Attempts, Expr::value(attempts))
                .col_expr(media::Column::Error, Expr::value(why));
        }
    }
    update.exec(&state.db).await?;
    // The conversation's open pages show the picture (or why it is missing).
    let event = DomainEvent::MediaSettled {
        message_id: row.message_id,
    };
    crate::platform::events::publish(state, event).await?;
    if stored {
        tracing::info!(id = %row.id, "media copied");
    }
    Ok(())
}

/// One text's media, in order.
pub async fn for_message<C: ConnectionTrait>(
    db: &C,
    message_id: Uuid,
) -> AppResult<Vec<media::Model>> {
    Ok(media::Entity::find()
        .filter(media::Column::MessageId.eq(message_id))
        .order_by_asc(media::Column::Idx)
        .all(db)
        .await?)
}

/// The media of these texts, for a conversation's page: one query, in each text's order.
pub async fn for_messages<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    message_ids: &[Uuid],
) -> AppResult<Vec<media::Model>> {
    if message_ids.is_empty() {
        return Ok(vec![]);
    }
    Ok(media::Entity::find()
        .filter(media::Column::OrganizationId.eq(org))
        .filter(media::Column::MessageId.is_in(message_ids.iter().copied()))
        .order_by_asc(media::Column::Idx)
        .all(db)
        .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png() -> Vec<u8> {
        let img = image::RgbImage::from_pixel(640, 480, image::Rgb([200, 40, 40]));
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn a_picture_is_kept_as_what_its_bytes_are() {
        let bytes = png();
        // Declared as a JPEG, it is a PNG: kept as one.
        assert_eq!(kind_of("image/jpeg", &bytes).unwrap(), "image/png");
        let lie = kind_of("image/png", b"<html><script>alert(1)</script></html>").unwrap_err();
        assert!(lie.contains("not the image/png picture"), "{lie}");
        assert_eq!(
            kind_of("application/pdf", b"%PDF-1.7").unwrap(),
            "application/pdf"
        );
        assert!(kind_of("text/html", b"<html>").is_err());
        assert!(kind_of("application/javascript", b"alert(1)").is_err());
    }

    #[tokio::test]
    async fn thumbnails_fit_the_side_and_keep_the_shape() {
        let jpeg = thumbnail(png()).await.expect("a thumbnail");
        let t = image::load_from_memory(&jpeg).unwrap();
        assert_eq!((t.width(), t.height()), (320, 240));
        assert!(thumbnail(b"not a picture".to_vec()).await.is_none());
    }
}
