//! A turn's grounding in the business's knowledge (issue 52 §3): what the turn looks up before
//! the model is called, and the check every reply passes before it is sent or proposed. With
//! "Answer only from knowledge" on, a reply's figures (prices, times, dates, phone numbers, web
//! addresses) must come from the passages found, the contact's own texts or the contact's
//! record; otherwise it is refused and the model is told why.
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::settings::AgentSettings;
use crate::ai_agent::tools::{ToolCtx, ToolError};
use crate::contacts::entity::contact;
use crate::error::AppResult;
use crate::knowledge::figures::ungrounded;
use crate::knowledge::ground::{ground, Grounding};
use crate::messaging::entity as message;
use crate::messaging::model::MessageSource;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

/// How much of a passage a reply's source keeps to show.
const EXCERPT_CHARS: usize = 400;
/// The contact's own texts a reply's figures may come from: their latest.
const CONTACT_TEXTS: u64 = 50;

/// The words a turn answers: the contact's newest texts in a reply turn, the operator's request
/// otherwise.
fn asked(inputs: &[AiThreadEventPayload], replying: bool) -> String {
    inputs
        .iter()
        .filter_map(|p| match p {
            AiThreadEventPayload::InboundSms { text, .. } if replying => Some(text.as_str()),
            AiThreadEventPayload::UserMessage { text, .. } if !replying => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Looks up the turn's questions in the organisation's knowledge, before the model is called.
pub async fn for_turn(
    state: &AppState,
    org: Uuid,
    settings: &AgentSettings,
    inputs: &[AiThreadEventPayload],
    replying: bool,
) -> AppResult<Grounding> {
    let answer_only = replying && settings.answer_only;
    let holding = crate::knowledge::holding::of(&state.db, org).await?;
    let text = asked(inputs, replying);
    if text.trim().is_empty() {
        return Ok(Grounding {
            answer_only,
            holding,
            ..Default::default()
        });
    }
    let sources = settings.knowledge_sources.as_deref();
    ground(state, org, &text, sources, answer_only, &holding).await
}

/// Refuses a reply whose figures come from nowhere, when the agent answers only from knowledge:
/// each must be in a passage found, the business's own rules, the contact's texts or the
/// contact's record.
pub async fn refuse_invented(ctx: &ToolCtx, body: &str) -> Result<(), ToolError> {
    refuse_invented_each(ctx, &[body]).await.map_err(|(_, e)| e)
}

/// Like `refuse_invented`, for several replies (a draft's options) against one reading of what
/// their figures may come from; the error names the first refused, counting from 0.
pub async fn refuse_invented_each(
    ctx: &ToolCtx,
    bodies: &[&str],
) -> Result<(), (usize, ToolError)> {
    let g = ctx.knowledge();
    let Some(reply) = ctx.reply.as_ref().filter(|_| g.answer_only) else {
        return Ok(());
    };
    let theirs = contact_words(ctx, reply.contact_id)
        .await
        .map_err(|e| (0, e))?;
    let ours = business_words(&ctx.state, ctx.organization_id, &ctx.agent)
        .await
        .map_err(|e| (0, ToolError::from(e)))?;
    let mut pool = g.texts();
    pool.extend(theirs.iter().chain(&ours).map(String::as_str));
    for (i, body) in bodies.iter().enumerate() {
        let bad = ungrounded(body, pool.iter().copied());
        if bad.is_empty() {
            continue;
        }
        tracing::warn!(figures = ?bad, "refused a reply with figures from nowhere");
        return Err((
            i,
            ToolError::Refused(format!(
                "Not sent: {} appear{} in neither the business's knowledge, nor the contact's \
                 texts, nor their record. Answer only from the knowledge; when it does not \
                 answer, reply \"{}\" and escalate_to_user with the question.",
                bad.join(", "),
                if bad.len() == 1 { "s" } else { "" },
                g.holding
            )),
        ));
    }
    Ok(())
}

/// The knowledge a reply used, as it records it.
pub fn cites(ctx: &ToolCtx, body: &str) -> Vec<MessageSource> {
    ctx.knowledge()
        .cited(body)
        .into_iter()
        .map(|h| MessageSource {
            source_id: h.source_id,
            passage_id: h.passage_id,
            excerpt: h
                .answer
                .unwrap_or(h.text)
                .chars()
                .take(EXCERPT_CHARS)
                .collect(),
            title: h.source_title,
        })
        .collect()
}

/// The business's own instructions, whose figures a reply may give too: the organisation's
/// rules and the agent's persona, goals and rules ("sign off with our number, 415-555-0100").
pub async fn business_words(
    state: &AppState,
    org: Uuid,
    agent: &crate::ai_agent::entity::ai_agent::Model,
) -> AppResult<Vec<String>> {
    let mut out = vec![
        agent.persona.clone(),
        agent.goals.clone(),
        AgentSettings::of(agent).rules,
    ];
    out.extend(crate::organization::service::rules_of(&state.db, org).await?);
    Ok(out)
}

/// The contact's record and latest texts, as words a reply's figures may come from.
async fn contact_words(ctx: &ToolCtx, contact_id: Uuid) -> Result<Vec<String>, ToolError> {
    let fail = |e: sea_orm::DbErr| ToolError::Failed(e.to_string());
    let db = &ctx.state.db;
    let mut out = Vec::new();
    if let Some(c) = contact::Entity::find_by_id(contact_id)
        .filter(contact::Column::OrganizationId.eq(ctx.organization_id))
        .one(db)
        .await
        .map_err(fail)?
    {
        out.push(c.name);
        out.extend(c.phone);
        out.extend(c.email);
        out.push(c.custom_fields.to_string());
        out.push(c.notes);
    }
    let texts: Vec<String> = message::Entity::find()
        .select_only()
        .column(message::Column::Body)
        .filter(message::Column::OrganizationId.eq(ctx.organization_id))
        .filter(message::Column::ContactId.eq(contact_id))
        .filter(message::Column::Direction.eq("inbound"))
        .order_by_desc(message::Column::CreatedAt)
        .limit(CONTACT_TEXTS)
        .into_tuple()
        .all(db)
        .await
        .map_err(fail)?;
    out.extend(texts);
    Ok(out)
}
