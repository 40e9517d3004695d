//! The thread runtime: a claimed thread drains its pending inputs turn by turn, calling the model
//! and executing its tool calls, then goes idle; a provider that keeps failing is escalated.
use crate::ai_agent::entity::{ai_agent, ai_thread, ai_thread_event};
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::llm::{ChatMessage, Completion, LlmError, ToolDef};
use crate::ai_agent::prompt::{build_system_prompt, PlanningTier};
use crate::ai_agent::service::build_session_for_member;
use crate::ai_agent::thread::{append_event, claim_thread, release_thread};
use crate::ai_agent::tools::{
    add_planning_tools, build_domain_tools_for_agent, definitions, escalate_to_owner,
    execute_tool_call, ReplyContext, ToolCtx,
};
use crate::error::{AppError, AppResult};
use crate::messaging::model::LiveEvent;
use crate::phone_numbers::entity as phone_number;
use crate::server::AppState;
use chrono::Utc;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use std::time::Duration;
use uuid::Uuid;

#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    /// RiskGated plans changing more rows than this wait for a person.
    pub plan_risk_max_rows: usize,
    /// How many of the thread's latest events a turn sees.
    pub history_limit: u64,
    /// Model calls per turn at most.
    pub max_steps: usize,
    pub model_attempts: u32,
    pub model_backoff: Duration,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            plan_risk_max_rows: crate::plans::approval::DEFAULT_MAX_ROWS,
            history_limit: 100,
            max_steps: 8,
            model_attempts: 3,
            model_backoff: Duration::from_millis(200),
        }
    }
}

/// Runs a thread this worker has claimed until no input is pending, then releases it.
#[tracing::instrument(skip(state))]
pub async fn run_claimed_thread(state: AppState, thread_id: Uuid) {
    loop {
        let outcome = drain(&state, thread_id).await;
        let error = outcome.err().map(|e| {
            tracing::error!(error = %e, "thread run failed");
            e.to_string()
        });
        if let Err(e) = release_thread(&state.db, thread_id, error).await {
            tracing::error!(error = %e, "could not release thread");
            return;
        }
        // An input may have arrived after the last check but before we went idle: look again.
        match pending_inputs(&state, thread_id).await {
            Ok(p) if !p.is_empty() => match claim_thread(&state.db, thread_id).await {
                Ok(true) => continue,
                _ => return,
            },
            _ => return,
        }
    }
}

async fn pending_inputs(
    state: &AppState,
    thread_id: Uuid,
) -> AppResult<Vec<ai_thread_event::Model>> {
    Ok(ai_thread_event::Entity::find()
        .filter(ai_thread_event::Column::ThreadId.eq(thread_id))
        .filter(ai_thread_event::Column::ProcessedAt.is_null())
        .order_by_asc(ai_thread_event::Column::Seq)
        .all(&state.db)
        .await?)
}

async fn drain(state: &AppState, thread_id: Uuid) -> AppResult<()> {
    loop {
        let pending = pending_inputs(state, thread_id).await?;
        if pending.is_empty() {
            return Ok(());
        }
        run_turn(state, thread_id, &pending).await?;
        let ids: Vec<Uuid> = pending.iter().map(|e| e.id).collect();
        ai_thread_event::Entity::update_many()
            .col_expr(
                ai_thread_event::Column::ProcessedAt,
                Expr::value(Utc::now()),
            )
            .filter(ai_thread_event::Column::Id.is_in(ids))
            .exec(&state.db)
            .await?;
    }
}

fn payload_of(e: &ai_thread_event::Model) -> Option<AiThreadEventPayload> {
    serde_json::from_value(e.payload.clone()).ok()
}

/// The thread's latest events as chat messages, never starting with an orphaned tool result.
async fn history(state: &AppState, thread_id: Uuid) -> AppResult<Vec<ChatMessage>> {
    let mut rows = ai_thread_event::Entity::find()
        .filter(ai_thread_event::Column::ThreadId.eq(thread_id))
        .order_by_desc(ai_thread_event::Column::Seq)
        .limit(state.runtime.history_limit)
        .all(&state.db)
        .await?;
    rows.reverse();
    let mut msgs: Vec<ChatMessage> = rows
        .iter()
        .filter_map(payload_of)
        .filter_map(|p| p.to_chat())
        .collect();
    while matches!(
        msgs.first(),
        Some(ChatMessage::Tool { .. }) | Some(ChatMessage::Assistant { .. })
    ) {
        msgs.remove(0);
    }
    Ok(msgs)
}

async fn complete_with_retry(
    state: &AppState,
    system: &str,
    msgs: &[ChatMessage],
    tools: &[ToolDef],
) -> Result<Completion, LlmError> {
    let mut attempt = 1;
    loop {
        match state.model.complete(system, msgs, tools).await {
            Err(e) if e.is_transient() && attempt < state.runtime.model_attempts => {
                tracing::warn!(attempt, error = %e, "model call failed; retrying");
                tokio::time::sleep(state.runtime.model_backoff * 2u32.pow(attempt - 1)).await;
                attempt += 1;
            }
            other => return other,
        }
    }
}

#[tracing::instrument(skip(state, pending), fields(inputs = pending.len()))]
async fn run_turn(
    state: &AppState,
    thread_id: Uuid,
    pending: &[ai_thread_event::Model],
) -> AppResult<()> {
    let thread = ai_thread::Entity::find_by_id(thread_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Thread"))?;
    let agent = ai_agent::Entity::find_by_id(thread.agent_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Agent"))?;
    let owner = build_session_for_member(state, &agent).await?;
    let reply = pending
        .iter()
        .rev()
        .filter_map(payload_of)
        .find_map(|p| match p {
            AiThreadEventPayload::InboundSms {
                message_id,
                contact_id,
                phone_number_id,
                ..
            } => Some(ReplyContext {
                contact_id,
                message_id,
                phone_number_id,
            }),
            _ => None,
        });
    let from_number = match &reply {
        Some(r) => phone_number::Entity::find_by_id(r.phone_number_id)
            .one(&state.db)
            .await?
            .map(|p| p.number),
        None => None,
    };
    let (planning_enabled, _) = crate::plans::service::planning_settings(&agent);
    // A planning turn: asked for with the composer's Plan switch, or entered by the agent.
    let mut planning = planning_enabled
        && pending.iter().filter_map(payload_of).any(|p| {
            matches!(
                p,
                AiThreadEventPayload::UserMessage {
                    plan_mode: true,
                    ..
                }
            )
        });
    let mut tools = build_domain_tools_for_agent(&agent, owner.as_ref(), reply.as_ref());
    if planning_enabled {
        add_planning_tools(&mut tools, planning);
    }
    let ctx = ToolCtx {
        state: state.clone(),
        agent: agent.clone(),
        organization_id: thread.organization_id,
        thread_id,
        member: owner,
        reply: reply.clone(),
    };
    let inputs = pending.iter().map(|e| e.id).collect();
    append_event(
        &state.db,
        thread_id,
        &AiThreadEventPayload::TurnStarted { inputs },
    )
    .await?;
    let mut msgs = history(state, thread_id).await?;
    let contact_id = reply.as_ref().map(|r| r.contact_id).unwrap_or_default();
    'steps: for _ in 0..state.runtime.max_steps {
        let system = build_system_prompt(
            &agent,
            None,
            reply.as_ref(),
            from_number.as_deref(),
            planning
                .then_some(PlanningTier::Planning)
                .or(planning_enabled.then_some(PlanningTier::Available)),
        );
        let defs = definitions(&tools, planning);
        let completion = match complete_with_retry(state, &system, &msgs, &defs).await {
            Ok(c) => c,
            Err(e) => {
                fail_turn(state, &ctx, pending, &e).await?;
                return Ok(());
            }
        };
        let assistant = AiThreadEventPayload::Assistant {
            text: completion.text.clone(),
            tool_calls: completion.tool_calls.clone(),
        };
        append_event(&state.db, thread_id, &assistant).await?;
        msgs.extend(assistant.to_chat());
        if completion.tool_calls.is_empty() {
            break;
        }
        let mut presented = false;
        for call in &completion.tool_calls {
            let outcome = execute_tool_call(&ctx, &tools, planning, call).await;
            if call.name == "enter_plan_mode" && outcome.is_ok() && !planning {
                planning = true;
                tools.retain(|t| t.def().name != "enter_plan_mode");
            }
            presented |= call.name == "present_plan" && outcome.is_ok();
            let (content, is_error) = match outcome {
                Ok(v) => (v.to_string(), false),
                Err(e) => (
                    serde_json::json!({ "error": e.to_string() }).to_string(),
                    true,
                ),
            };
            let result = AiThreadEventPayload::ToolResult {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content,
                is_error,
            };
            append_event(&state.db, thread_id, &result).await?;
            msgs.extend(result.to_chat());
        }
        // present_plan ends the turn: the rest happens when a person or the policy decides.
        if presented {
            break 'steps;
        }
    }
    state.live.publish(
        thread.organization_id,
        LiveEvent::ThreadUpdated {
            contact_id,
            thread_id,
        },
    );
    Ok(())
}

/// The provider failed even after retries: record it, and hand the inputs to the owner.
async fn fail_turn(
    state: &AppState,
    ctx: &ToolCtx,
    pending: &[ai_thread_event::Model],
    error: &LlmError,
) -> AppResult<()> {
    tracing::error!(error = %error, thread = %ctx.thread_id, "model failed after retries; escalating");
    append_event(
        &state.db,
        ctx.thread_id,
        &AiThreadEventPayload::TurnFailed {
            error: error.to_string(),
        },
    )
    .await?;
    let texts: Vec<String> = pending
        .iter()
        .filter_map(payload_of)
        .filter_map(|p| p.as_text().map(str::to_owned))
        .collect();
    let body = format!(
        "The model could not be reached ({error}). Unanswered: {}",
        texts.join(" / ")
    );
    let link = ctx
        .reply
        .as_ref()
        .map(|r| format!("/messaging/{}", r.contact_id));
    escalate_to_owner(
        state,
        &ctx.agent,
        ctx.organization_id,
        format!("{} could not answer", ctx.agent.name),
        body,
        link,
    )
    .await?;
    ai_thread::Entity::update_many()
        .col_expr(
            ai_thread::Column::LastError,
            Expr::value(Some(error.to_string())),
        )
        .filter(ai_thread::Column::Id.eq(ctx.thread_id))
        .exec(&state.db)
        .await?;
    Ok(())
}
