//! The legacy `text_agent`: stateless. It re-reads recent history, writes three options with
//! confidences, and with `auto_reply` sends the best one when it clears the threshold.
use crate::ai_agent::entity::{contact_text_agent, text_agent, text_agent_suggestion};
use crate::ai_agent::llm::{ChatMessage, ToolDef};
use crate::ai_agent::tools::AgentTool;
use crate::ai_agent::tools::ProposeSmsReplies;
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::messaging::model::LiveEvent;
use crate::phone_numbers::entity as phone_number;
use crate::platform::AppState;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};
use serde_json::json;
use uuid::Uuid;

/// The number's text agent, else the contact's.
pub async fn resolve_text_agent(
    state: &AppState,
    phone: &phone_number::Model,
    contact_id: Uuid,
) -> AppResult<Option<text_agent::Model>> {
    let id = match phone.text_agent_id {
        Some(id) => Some(id),
        None => contact_text_agent::Entity::find()
            .filter(contact_text_agent::Column::ContactId.eq(contact_id))
            .one(&state.db)
            .await?
            .map(|l| l.text_agent_id),
    };
    match id {
        Some(id) => Ok(text_agent::Entity::find_by_id(id)
            .filter(text_agent::Column::OrganizationId.eq(phone.organization_id))
            .one(&state.db)
            .await?),
        None => Ok(None),
    }
}

#[tracing::instrument(skip_all, fields(text_agent = %agent.id, message = %msg.id))]
pub async fn suggest_replies(
    state: &AppState,
    agent: &text_agent::Model,
    msg: &message::Model,
) -> AppResult<()> {
    // Routed again after a crash: the suggestions (and any auto-reply) were made once already.
    let source_key = format!("legacy:{}", msg.id);
    if text_agent_suggestion::Entity::find()
        .filter(text_agent_suggestion::Column::SourceKey.eq(source_key.as_str()))
        .one(&state.db)
        .await?
        .is_some()
    {
        return Ok(());
    }
    let mut recent = message::Entity::find()
        .filter(message::Column::OrganizationId.eq(msg.organization_id))
        .filter(message::Column::ContactId.eq(msg.contact_id))
        .order_by_desc(message::Column::CreatedAt)
        .limit(10)
        .all(&state.db)
        .await?;
    recent.reverse();
    let transcript: Vec<String> = recent
        .iter()
        .map(|m| format!("{}: {}", m.direction, m.body))
        .collect();
    let system = format!(
        "Suggest three short SMS replies to the customer's latest text, best first, by calling propose_sms_replies.\n{}",
        agent.instructions
    );
    let prompt = format!(
        "Conversation so far:\n{}\nText: \"{}\"",
        transcript.join("\n"),
        msg.body
    );
    let tool: ToolDef = ProposeSmsReplies.def();
    let completion = match state
        .model
        .complete(
            &system,
            &[ChatMessage::user(prompt)],
            std::slice::from_ref(&tool),
        )
        .await
    {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "legacy suggester: model failed");
            return Ok(());
        }
    };
    let Some(args) = completion
        .tool_calls
        .iter()
        .find(|c| c.name == tool.name)
        .and_then(|c| serde_json::from_str::<serde_json::Value>(&c.arguments).ok())
    else {
        tracing::warn!("legacy suggester: no options proposed");
        return Ok(());
    };
    let mut options = match crate::ai_agent::tools::propose::parse_options_loose(&args) {
        Some(o) => o,
        None => return Ok(()),
    };
    options.sort_by(|a, b| b.1.total_cmp(&a.1));
    text_agent_suggestion::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(msg.organization_id),
        text_agent_id: Set(Some(agent.id)),
        ai_agent_id: Set(None),
        message_id: Set(msg.id),
        suggestions: Set(json!(options
            .iter()
            .map(|(b, c)| json!({"body": b, "confidence": c}))
            .collect::<Vec<_>>())),
        created_at: Set(state.clock.now()),
        source_key: Set(Some(source_key)),
        used_by: Set(None),
        used_as: Set(None),
        rolled_up: Set(false),
        use_rolled: Set(false),
    }
    .insert(&state.db)
    .await?;
    state.live.publish(
        msg.organization_id,
        LiveEvent::SuggestionsReady {
            contact_id: msg.contact_id,
            message_id: msg.id,
        },
    );
    if let Some((best, confidence)) = options.first() {
        if agent.auto_reply && *confidence >= agent.confidence_threshold {
            let origin = if state.model.is_offline() {
                "auto_reply (offline model)"
            } else {
                "auto_reply"
            };
            let key = crate::ai_agent::tools::EffectKey::named(format!("legacy-reply:{}", msg.id));
            let out = crate::messaging::outbound::Outgoing::new(
                msg.organization_id,
                msg.contact_id,
                msg.phone_number_id,
                best,
            )
            .by_agent(origin, agent.id)
            .keyed(Some(key.uuid()))
            .purpose(crate::compliance::model::Purpose::Reply);
            crate::messaging::outbound::send(state, out).await?;
        }
    }
    Ok(())
}
