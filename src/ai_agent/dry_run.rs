//! "Try a question" for the agents (issue 52 §4): the reply each agent that answers texts would
//! give to a question, with the model it runs on, texting no one and changing nothing. The turn
//! is the real one (its prompt, its knowledge, its tools' definitions); its tools answer from a
//! stand-in contact with no history, `search_knowledge` searches for real, and the reply meets
//! the same check for figures from nowhere that a real reply does.
use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::llm::{ChatMessage, ToolCall};
use crate::ai_agent::model::{AgentTry, SendMode, ASSISTANT_AGENT_ID};
use crate::ai_agent::prompt::build_system_prompt;
use crate::ai_agent::settings::AgentSettings;
use crate::ai_agent::tools::{definitions, propose::parse_options, ReplyContext, TurnScope};
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::knowledge::figures::ungrounded;
use crate::knowledge::ground::Grounding;
use crate::phone_numbers::entity as phone_number;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::{json, Value};
use uuid::Uuid;

/// Agents tried at once at most.
const AGENTS_MAX: u64 = 5;
/// Model calls one try makes at most.
const STEPS_MAX: usize = 6;
/// The tools a try offers: reads of the stand-in contact, the knowledge, and the reply's end.
const OFFERED: &[&str] = &[
    "get_contact",
    "recent_messages",
    "search_knowledge",
    "send_sms",
    "propose_sms_replies",
    "escalate_to_user",
];

/// The agents that answer the organisation's texts (those on a number; the members' Text Reply
/// agents when none is), and each one's reply to `question`.
pub async fn try_agents(state: &AppState, m: &Member, question: &str) -> AppResult<Vec<AgentTry>> {
    let question = question.trim();
    if question.is_empty() {
        return Err(AppError::validation("Type a question to try."));
    }
    let on_numbers: Vec<Uuid> = phone_number::Entity::find()
        .select_only()
        .column(phone_number::Column::AiAgentId)
        .filter(phone_number::Column::OrganizationId.eq(m.organization_id))
        .filter(phone_number::Column::AiAgentId.is_not_null())
        .into_tuple::<Option<Uuid>>()
        .all(&state.db)
        .await?
        .into_iter()
        .flatten()
        .collect();
    let mut q = ai_agent::Entity::find()
        .filter(ai_agent::Column::OrganizationId.eq(m.organization_id))
        .filter(
            Condition::any()
                .add(ai_agent::Column::SystemSourceId.ne(ASSISTANT_AGENT_ID))
                .add(ai_agent::Column::SystemSourceId.is_null()),
        );
    q = if on_numbers.is_empty() {
        q.filter(ai_agent::Column::UserId.eq(m.user_id))
    } else {
        q.filter(ai_agent::Column::Id.is_in(on_numbers))
    };
    let agents = q
        .order_by_asc(ai_agent::Column::Name)
        .order_by_asc(ai_agent::Column::Id)
        .limit(AGENTS_MAX)
        .all(&state.db)
        .await?;
    let mut out = Vec::with_capacity(agents.len());
    for a in agents {
        out.push(try_one(state, m.organization_id, &a, question).await?);
    }
    Ok(out)
}

/// One agent's turn over `question`, with nothing sent.
async fn try_one(
    state: &AppState,
    org: Uuid,
    agent: &ai_agent::Model,
    question: &str,
) -> AppResult<AgentTry> {
    let settings = AgentSettings::of(agent);
    let mode = SendMode::parse(&agent.send_mode);
    let reply = ReplyContext {
        contact_id: Uuid::nil(),
        message_id: Uuid::nil(),
        phone_number_id: Uuid::nil(),
    };
    let inbound =
        AiThreadEventPayload::inbound_sms(Uuid::nil(), Uuid::nil(), Uuid::nil(), question);
    let mut grounding = crate::ai_agent::grounding::for_turn(
        state,
        org,
        &settings,
        std::slice::from_ref(&inbound),
        true,
    )
    .await?;
    let rules = crate::organization::service::rules_of(&state.db, org).await?;
    let system = build_system_prompt(agent, rules.as_deref(), &[], Some(&reply), None, None)
        + &grounding.prompt_block();
    let owner = crate::ai_agent::service::build_session_for_member(state, agent).await?;
    let scope = TurnScope::reply(reply.clone(), false, settings.reply_send_limit);
    let mut tools = state
        .tools()
        .for_turn(agent, owner.as_ref(), Some(&reply), &scope, None);
    tools.retain(|t| OFFERED.contains(&t.def().name.as_str()));
    let defs = definitions(&tools, false);
    let mut msgs: Vec<ChatMessage> = inbound.to_chat().into_iter().collect();
    let mut tried = AgentTry {
        agent_id: agent.id,
        agent: agent.name.clone(),
        suggests: mode == SendMode::Suggest,
        model: state.model.label(),
        answer_only: settings.answer_only,
        ..Default::default()
    };
    for _ in 0..STEPS_MAX {
        let c = state
            .model
            .complete(&system, &msgs, &defs)
            .await
            .map_err(|e| AppError::Internal(format!("The model could not be reached ({e}).")))?;
        msgs.push(ChatMessage::Assistant {
            content: c.text.clone(),
            tool_calls: c.tool_calls.clone(),
        });
        if c.tool_calls.is_empty() {
            break;
        }
        for call in &c.tool_calls {
            let sources = settings.knowledge_sources.as_deref();
            let content = answer(
                state,
                (org, sources, agent),
                question,
                &mut grounding,
                &mut tried,
                call,
            )
            .await?;
            msgs.push(ChatMessage::Tool {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: content.to_string(),
            });
        }
    }
    Ok(tried)
}

/// What one of the try's tools answers, noting the reply, its sources, a refusal or an escalation.
async fn answer(
    state: &AppState,
    (org, sources, agent): (Uuid, Option<&[Uuid]>, &ai_agent::Model),
    question: &str,
    g: &mut Grounding,
    tried: &mut AgentTry,
    call: &ToolCall,
) -> AppResult<Value> {
    let args: Value = serde_json::from_str(&call.arguments).unwrap_or(json!({}));
    let refused = |why: String| json!({ "error": why });
    Ok(match call.name.as_str() {
        "get_contact" => json!({"id": Uuid::nil(), "name": "", "phone": null, "tags": []}),
        "recent_messages" => json!({"messages": []}),
        "search_knowledge" => {
            let q = args["question"].as_str().unwrap_or(question);
            let hits = crate::knowledge::retrieve::find(
                state,
                org,
                q,
                sources,
                crate::knowledge::model::HITS_MAX,
            )
            .await?;
            g.add(&hits);
            json!({"count": hits.len(), "passages": hits.iter().map(Grounding::fence).collect::<Vec<_>>()})
        }
        "send_sms" | "propose_sms_replies" => {
            let bodies: Vec<String> = if call.name == "send_sms" {
                args["body"]
                    .as_str()
                    .map(str::to_owned)
                    .into_iter()
                    .collect()
            } else {
                parse_options(&args)
                    .map(|o| o.into_iter().map(|(b, _)| b).collect())
                    .unwrap_or_default()
            };
            let Some(first) = bodies.first().cloned() else {
                return Ok(refused("no reply was given".into()));
            };
            let ours = crate::ai_agent::grounding::business_words(state, org, agent).await?;
            let mut pool = g.texts();
            pool.push(question);
            pool.extend(ours.iter().map(String::as_str));
            let bad: Vec<String> = bodies
                .iter()
                .flat_map(|b| ungrounded(b, pool.clone()))
                .collect();
            if g.answer_only && !bad.is_empty() {
                tried.refused.push(first);
                return Ok(refused(format!(
                    "Not sent: {} appear in neither the business's knowledge nor the contact's texts.",
                    bad.join(", ")
                )));
            }
            tried.sources = g
                .cited(&first)
                .into_iter()
                .map(|h| h.source_title)
                .collect();
            tried.reply = Some(first);
            json!({"sent": false, "status": "tried"})
        }
        "escalate_to_user" => {
            tried.escalation = args["reason"].as_str().map(str::to_owned);
            json!({"escalated": true})
        }
        other => refused(format!("`{other}` is not available in a try")),
    })
}
