//! Pictures a hosted model may see (issue 28 §3). For an agent whose owner turned on "Let the
//! model see pictures" (off by default; never for the offline model), a turn's inbound pictures
//! go to the model with their texts: at most `MAX_IMAGES_PER_TURN`, shrunk to `SIDE` pixels a side
//! as JPEG, which every provider with vision reads. Older texts' pictures stay their
//! "[photo: image/jpeg]" lines. A picture whose copy is not kept yet is waited for a little, then
//! read as its line alone.
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::llm::ChatImage;
use crate::error::AppResult;
use crate::media::entity as media;
use crate::media::model::status;
use crate::platform::AppState;
use base64::Engine;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use std::collections::HashMap;
use std::time::Duration;
use uuid::Uuid;

/// Pictures one turn shows the model, at most: the newest when a burst brings more.
pub const MAX_IMAGES_PER_TURN: usize = 4;
/// The long side of a picture the model gets: Anthropic's largest size before it scales down,
/// and above OpenAI's high-detail tiles; smaller costs fewer tokens.
pub const SIDE: u32 = 1568;
/// How long a turn waits for a copy still being made.
const COPY_WAIT: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(250);

/// The pictures of the turn's inbound texts, by message id.
pub async fn images_for_turn(
    state: &AppState,
    org: Uuid,
    inputs: &[AiThreadEventPayload],
) -> AppResult<HashMap<Uuid, Vec<ChatImage>>> {
    let ids: Vec<Uuid> = inputs
        .iter()
        .filter_map(|e| match e {
            AiThreadEventPayload::InboundSms { message_id, .. } => Some(*message_id),
            _ => None,
        })
        .collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let mut rows = pictures(state, org, &ids).await?;
    let mut waited = Duration::ZERO;
    while rows.iter().any(|r| r.status == status::PENDING) && waited < COPY_WAIT {
        // Waiting on another task's download, which happens in real time whatever the clock.
        tokio::time::sleep(POLL).await;
        waited += POLL;
        rows = pictures(state, org, &ids).await?;
    }
    rows.retain(|r| r.status == status::STORED && r.storage_key.is_some());
    rows.sort_by_key(|r| (ids.iter().position(|id| *id == r.message_id), r.idx));
    let skip = rows.len().saturating_sub(MAX_IMAGES_PER_TURN);
    let mut out: HashMap<Uuid, Vec<ChatImage>> = HashMap::new();
    for r in rows.into_iter().skip(skip) {
        let key = r.storage_key.clone().unwrap_or_default();
        let bytes = match state.media().get(&key).await {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(media = %r.id, error = %e, "a picture for the model could not be read");
                continue;
            }
        };
        let shrunk = crate::media::decode::shrunk(bytes, SIDE, 85).await;
        let Some(jpeg) = shrunk else {
            tracing::warn!(media = %r.id, "a picture for the model did not decode");
            continue;
        };
        out.entry(r.message_id).or_default().push(ChatImage {
            media_type: "image/jpeg".into(),
            base64: base64::engine::general_purpose::STANDARD.encode(jpeg),
        });
    }
    Ok(out)
}

/// The texts' pictures (not their other files), in the organisation.
async fn pictures(state: &AppState, org: Uuid, ids: &[Uuid]) -> AppResult<Vec<media::Model>> {
    let rows = media::Entity::find()
        .filter(media::Column::OrganizationId.eq(org))
        .filter(media::Column::MessageId.is_in(ids.iter().copied()))
        .order_by_asc(media::Column::Idx)
        .all(&state.db)
        .await?;
    Ok(rows
        .into_iter()
        .filter(|r| r.content_type.starts_with("image/"))
        .collect())
}
