//! The turn runtime: one turn over a thread's pending inputs. Every step is written to the
//! thread before the next one runs, so a turn whose worker died is resumed from its log: calls
//! already made are finished under their effect keys, never made again.
use crate::ai_agent::entity::{ai_agent, ai_thread, ai_thread_event};
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::history::{well_formed_seeing, window};
use crate::ai_agent::lease::Lease;
use crate::ai_agent::llm::{ChatMessage, Completion, LlmError, ToolCall, ToolDef};
use crate::ai_agent::prompt::{build_system_prompt, PlanningTier};
use crate::ai_agent::service::build_session_for_member;
use crate::ai_agent::settings::AgentSettings;
use crate::ai_agent::thread::{append_event, payload_of};
use crate::ai_agent::tools::{
    definitions, execute_tool_call, EffectKey, ReplyContext, ToolCtx, Toolset, TurnScope,
};
use crate::error::{AppError, AppResult};
use crate::messaging::model::LiveEvent;
use crate::phone_numbers::entity as phone_number;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use std::time::Duration;
use uuid::Uuid;

#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    /// How many of the thread's latest events a turn sees.
    pub history_limit: u64,
    /// Model calls per turn at most.
    pub max_steps: usize,
    /// Tries of one model call within a turn, and the first wait between them.
    pub model_attempts: u32,
    pub model_backoff: Duration,
    /// How long a claim lasts without a heartbeat (`THREAD_LEASE_SECS`).
    pub lease_ttl: Duration,
    /// How often the sweeper looks for abandoned threads and unrouted texts (`SWEEP_SECS`).
    pub sweep_every: Duration,
    /// Failed turns over the same inputs before they are set aside and escalated.
    pub turn_attempts: u32,
    /// The first wait before a failed turn runs again; it doubles each time, up to the cap.
    pub turn_backoff: Duration,
    pub turn_backoff_max: Duration,
    /// An autonomous agent answers once the newest inbound text is this old, so a burst of
    /// texts gets one reply (`REPLY_QUIET_SECS`).
    pub reply_quiet: Duration,
    /// Automated replies one contact gets in 24 hours at most; past it the agent escalates
    /// instead of answering (`AGENT_REPLIES_PER_CONTACT_DAY`).
    pub replies_per_contact_day: u32,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            history_limit: 100,
            max_steps: 8,
            model_attempts: 3,
            model_backoff: Duration::from_millis(200),
            lease_ttl: Duration::from_secs(30),
            sweep_every: Duration::from_secs(5),
            turn_attempts: 4,
            turn_backoff: Duration::from_secs(2),
            turn_backoff_max: Duration::from_secs(300),
            reply_quiet: Duration::from_secs(5),
            replies_per_contact_day: 10,
        }
    }
}

/// Why a turn stopped before finishing; its inputs stay pending for another try.
#[derive(thiserror::Error, Debug)]
pub enum TurnError {
    #[error("the model could not be reached ({0})")]
    Model(#[from] LlmError),
    #[error("{0}")]
    App(#[from] AppError),
    #[error("another worker holds this thread now")]
    LeaseLost,
}

impl From<sea_orm::DbErr> for TurnError {
    fn from(e: sea_orm::DbErr) -> Self {
        TurnError::App(e.into())
    }
}

/// Which turn to run: a new one over these inputs, or the open one a stopped worker left.
pub enum TurnStart {
    New(Vec<ai_thread_event::Model>),
    Resume {
        started_seq: i64,
        inputs: Vec<ai_thread_event::Model>,
    },
}

impl TurnStart {
    pub fn inputs(&self) -> &[ai_thread_event::Model] {
        match self {
            TurnStart::New(i) | TurnStart::Resume { inputs: i, .. } => i,
        }
    }
}

/// The latest turn of the thread, if its inputs are all still unfinished: a worker stopped in it.
pub async fn open_turn(state: &AppState, thread_id: Uuid) -> AppResult<Option<TurnStart>> {
    let Some(started) = ai_thread_event::Entity::find()
        .filter(ai_thread_event::Column::ThreadId.eq(thread_id))
        .filter(ai_thread_event::Column::Kind.eq("turn_started"))
        .order_by_desc(ai_thread_event::Column::Seq)
        .one(&state.db)
        .await?
    else {
        return Ok(None);
    };
    let Some(AiThreadEventPayload::TurnStarted { inputs }) = payload_of(&started) else {
        return Ok(None);
    };
    let rows = ai_thread_event::Entity::find()
        .filter(ai_thread_event::Column::Id.is_in(inputs.clone()))
        .order_by_asc(ai_thread_event::Column::Seq)
        .all(&state.db)
        .await?;
    let open = !rows.is_empty()
        && rows.len() == inputs.len()
        && rows.iter().all(|r| r.processed_at.is_none());
    Ok(open.then_some(TurnStart::Resume {
        started_seq: started.seq,
        inputs: rows,
    }))
}

/// This turn's own steps after its TurnStarted, in order: what the model said and what the tools
/// answered (bookkeeping and texts that arrived meanwhile are not steps).
async fn turn_events(
    state: &AppState,
    thread_id: Uuid,
    started_seq: i64,
) -> AppResult<Vec<(Uuid, AiThreadEventPayload)>> {
    Ok(ai_thread_event::Entity::find()
        .filter(ai_thread_event::Column::ThreadId.eq(thread_id))
        .filter(ai_thread_event::Column::Seq.gt(started_seq))
        .filter(ai_thread_event::Column::Kind.is_in(["assistant", "tool_result"]))
        .order_by_asc(ai_thread_event::Column::Seq)
        .all(&state.db)
        .await?
        .into_iter()
        .filter_map(|e| payload_of(&e).map(|p| (e.id, p)))
        .collect())
}

/// The last assistant message's calls that have no result yet.
fn unanswered(events: &[(Uuid, AiThreadEventPayload)]) -> Option<(Uuid, Vec<ToolCall>)> {
    let (pos, (id, calls)) = events
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, (id, p))| match p {
            AiThreadEventPayload::Assistant { tool_calls, .. } => {
                Some((i, (*id, tool_calls.clone())))
            }
            _ => None,
        })?;
    let answered: Vec<&str> = events[pos..]
        .iter()
        .filter_map(|(_, p)| match p {
            AiThreadEventPayload::ToolResult { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    let missing: Vec<ToolCall> = calls
        .into_iter()
        .filter(|c| !answered.contains(&c.id.as_str()))
        .collect();
    (!missing.is_empty()).then_some((id, missing))
}

fn succeeded(events: &[(Uuid, AiThreadEventPayload)], tool: &str) -> usize {
    events
        .iter()
        .filter(|(_, p)| matches!(p, AiThreadEventPayload::ToolResult { name, is_error: false, .. } if name == tool))
        .count()
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
            Err(e) if e.is_transient() && attempt < state.runtime().model_attempts => {
                tracing::warn!(attempt, error = %e, "model call failed; retrying");
                state
                    .clock
                    .sleep(state.runtime().model_backoff * 2u32.pow(attempt - 1))
                    .await;
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// Everything a turn works with, read once.
struct Turn {
    thread: ai_thread::Model,
    agent: ai_agent::Model,
    settings: AgentSettings,
    reply: Option<ReplyContext>,
    from_number: Option<String>,
    /// The organisation's rules: the prompt's org-rules tier.
    org_rules: Option<String>,
    /// The agent's enabled lessons: the prompt's lessons tier.
    lessons: Vec<String>,
    input_ids: Vec<Uuid>,
    plan_mode_asked: bool,
}

async fn load(state: &AppState, thread_id: Uuid, start: &TurnStart) -> AppResult<Turn> {
    let thread = ai_thread::Entity::find_by_id(thread_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Thread"))?;
    let agent = ai_agent::Entity::find_by_id(thread.agent_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Agent"))?;
    let org_rules =
        crate::organization::service::rules_of(&state.db, thread.organization_id).await?;
    let lessons = crate::ai_agent::learning::service::enabled(&state.db, agent.id)
        .await?
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    let payloads: Vec<AiThreadEventPayload> =
        start.inputs().iter().filter_map(payload_of).collect();
    // The freshest text decides whom the turn answers, and from which number.
    let reply = payloads.iter().rev().find_map(|p| match p {
        AiThreadEventPayload::InboundSms {
            message_id,
            contact_id,
            phone_number_id,
            ..
        } => Some(ReplyContext {
            contact_id: *contact_id,
            message_id: *message_id,
            phone_number_id: *phone_number_id,
        }),
        _ => None,
    });
    let from_number = match &reply {
        Some(r) => phone_number::Entity::find_by_id(r.phone_number_id)
            .one(&state.db)
            .await?
            .map(|p| p.number.into_string()),
        None => None,
    };
    let plan_mode_asked = payloads.iter().any(|p| {
        matches!(
            p,
            AiThreadEventPayload::UserMessage {
                plan_mode: true,
                ..
            }
        )
    });
    Ok(Turn {
        settings: AgentSettings::of(&agent),
        thread,
        agent,
        reply,
        from_number,
        org_rules,
        lessons,
        input_ids: start.inputs().iter().map(|e| e.id).collect(),
        plan_mode_asked,
    })
}

/// Runs (or resumes) one turn to its end. On error the inputs stay pending; the worker backs off
/// and runs it again, and every effect already made is found under its key, not repeated.
#[tracing::instrument(skip(state, lease, start), fields(thread = %lease.thread_id))]
pub async fn run_turn(state: &AppState, lease: &Lease, start: &TurnStart) -> Result<(), TurnError> {
    let thread_id = lease.thread_id;
    let t = load(state, thread_id, start).await?;
    let owner = build_session_for_member(state, &t.agent).await?;
    let started_seq = mark_start(state, thread_id, start).await?;
    // The turn's steps so far (after a resume), and the history it started from: read once, then
    // kept in step with what this turn writes.
    let mut steps = match start {
        TurnStart::New(_) => Vec::new(),
        TurnStart::Resume { .. } => turn_events(state, thread_id, started_seq).await?,
    };
    let first_input = start.inputs().iter().map(|e| e.seq).min();
    let base = window(state, thread_id, &t.input_ids, first_input).await?;
    // The turn's pictures, read once: only when the owner allowed it and a hosted model answers.
    let images = if t.settings.sees_pictures && !state.model.is_offline() {
        let inputs: Vec<AiThreadEventPayload> =
            start.inputs().iter().filter_map(payload_of).collect();
        crate::ai_agent::vision::images_for_turn(state, t.thread.organization_id, &inputs).await?
    } else {
        Default::default()
    };
    let mut fresh: Vec<AiThreadEventPayload> = Vec::new();
    let scope = scope_of(&t, &steps);
    let planning_enabled = t.settings.planning_enabled;
    let mut planning =
        planning_enabled && (t.plan_mode_asked || succeeded(&steps, "enter_plan_mode") > 0);
    let mut tools = state.tools().for_turn(
        &t.agent,
        owner.as_ref(),
        t.reply.as_ref(),
        &scope,
        planning_enabled.then_some(planning),
    );
    if planning {
        tools.retain(|t| t.def().name != "enter_plan_mode");
    }
    // The business's knowledge for the turn's questions, looked up before the model is called.
    let inputs: Vec<AiThreadEventPayload> = start.inputs().iter().filter_map(payload_of).collect();
    let grounding = crate::ai_agent::grounding::for_turn(
        state,
        t.thread.organization_id,
        &t.settings,
        &inputs,
        t.reply.is_some(),
    )
    .await?;
    let knowledge_block = grounding.prompt_block();
    let ctx = ToolCtx {
        state: state.clone(),
        agent: t.agent.clone(),
        organization_id: t.thread.organization_id,
        thread_id,
        member: owner,
        reply: t.reply.clone(),
        scope,
        plan_id: None,
        taint: Default::default(),
        knowledge: std::sync::Mutex::new(grounding),
    };
    for _ in 0..state.runtime().max_steps {
        if lease.is_lost() {
            return Err(TurnError::LeaseLost);
        }
        if succeeded(&steps, "present_plan") > 0 && unanswered(&steps).is_none() {
            // present_plan ends the turn: the rest happens when a person or the policy decides.
            break;
        }
        // Whose words the context holds, for the calls about to run (`ai_agent::taint`).
        *ctx.taint.lock().unwrap_or_else(|e| e.into_inner()) = crate::ai_agent::taint::of_events(
            &[base.as_slice(), fresh.as_slice()].concat(),
            contact_of(&t),
        );
        // Calls a stopped worker made but did not finish: finish them, under the same keys.
        if let Some((assistant_id, calls)) = unanswered(&steps) {
            let results =
                run_calls(state, &ctx, &mut tools, &mut planning, assistant_id, &calls).await?;
            fresh.extend(results.iter().map(|(_, p)| p.clone()));
            steps.extend(results);
            continue;
        }
        if matches!(steps.last(), Some((_, AiThreadEventPayload::Assistant { tool_calls, .. })) if tool_calls.is_empty())
        {
            break;
        }
        let system = build_system_prompt(
            &t.agent,
            t.org_rules.as_deref(),
            &t.lessons,
            t.reply.as_ref(),
            t.from_number.as_deref(),
            planning
                .then_some(PlanningTier::Planning)
                .or(planning_enabled.then_some(PlanningTier::Available)),
        ) + &knowledge_block;
        let msgs = well_formed_seeing(&[base.as_slice(), fresh.as_slice()].concat(), &images);
        let defs = definitions(&tools, planning);
        let completion = complete_with_retry(state, &system, &msgs, &defs).await?;
        let finished = completion.tool_calls.is_empty();
        let assistant = AiThreadEventPayload::Assistant {
            text: completion.text.clone(),
            tool_calls: completion.tool_calls.clone(),
        };
        let assistant_id =
            append_event(&state.db, thread_id, &assistant, state.clock.now()).await?;
        fresh.push(assistant.clone());
        steps.push((assistant_id, assistant));
        if finished {
            break;
        }
        let results = run_calls(
            state,
            &ctx,
            &mut tools,
            &mut planning,
            assistant_id,
            &completion.tool_calls,
        )
        .await?;
        fresh.extend(results.iter().map(|(_, p)| p.clone()));
        steps.extend(results);
    }
    let contact_id = t.reply.as_ref().map(|r| r.contact_id).unwrap_or_default();
    state.live.publish(
        t.thread.organization_id,
        LiveEvent::ThreadUpdated {
            contact_id,
            thread_id,
        },
    );
    Ok(())
}

/// Records the turn's start (or its resumption after a stopped worker) and answers the seq its
/// events count from.
async fn mark_start(
    state: &AppState,
    thread_id: Uuid,
    start: &TurnStart,
) -> Result<i64, TurnError> {
    Ok(match start {
        TurnStart::New(inputs) => {
            crate::ai_agent::thread::append_event_at(
                &state.db,
                thread_id,
                &AiThreadEventPayload::TurnStarted {
                    inputs: inputs.iter().map(|e| e.id).collect(),
                },
                state.clock.now(),
                None,
            )
            .await?
            .ok_or_else(|| AppError::Internal("the turn's start was not recorded".into()))?
            .1
        }
        TurnStart::Resume { started_seq, .. } => {
            append_event(
                &state.db,
                thread_id,
                &AiThreadEventPayload::TurnResumed {
                    reason: "The worker running this turn stopped (a restart, a crash or an error); it continues from its last recorded step.".into(),
                },
                state.clock.now(),
            )
            .await?;
            *started_seq
        }
    })
}

/// What the turn may reach. A contact's text is untrusted: the turn it started reaches only
/// that contact, and sends at most what is left of its limit.
fn scope_of(t: &Turn, steps: &[(Uuid, AiThreadEventPayload)]) -> TurnScope {
    match &t.reply {
        Some(r) => TurnScope::reply(
            r.clone(),
            t.settings.reply_reads_org_wide,
            t.settings
                .reply_send_limit
                .saturating_sub(succeeded(steps, "send_sms") as u32),
        ),
        None => TurnScope::Operator,
    }
}

/// The contact the thread is with: the one replied to, or the one its key names.
fn contact_of(t: &Turn) -> Option<Uuid> {
    t.reply.as_ref().map(|r| r.contact_id).or_else(|| {
        t.thread
            .correlation_key
            .as_deref()
            .and_then(|k| k.strip_prefix("contact:"))
            .and_then(|c| c.parse().ok())
    })
}

/// Executes calls and records each result right after; each effect is keyed by its call.
/// Answers the results as recorded.
async fn run_calls(
    state: &AppState,
    ctx: &ToolCtx,
    tools: &mut Toolset,
    planning: &mut bool,
    assistant_id: Uuid,
    calls: &[ToolCall],
) -> Result<Vec<(Uuid, AiThreadEventPayload)>, TurnError> {
    let mut recorded = Vec::with_capacity(calls.len());
    for call in calls {
        let key = EffectKey::for_call(ctx.thread_id, assistant_id, &call.id);
        let outcome = execute_tool_call(ctx, tools, *planning, call, &key).await;
        if call.name == "enter_plan_mode" && outcome.is_ok() && !*planning {
            *planning = true;
            tools.retain(|t| t.def().name != "enter_plan_mode");
        }
        let (content, is_error) = match outcome {
            Ok(v) => (v.to_string(), false),
            Err(e) => (
                serde_json::json!({ "error": e.to_string() }).to_string(),
                true,
            ),
        };
        state
            .faults
            .check(crate::platform::faults::TOOL_RESULT_WRITE)?;
        let result = AiThreadEventPayload::ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content,
            is_error,
        };
        let id = append_event(&state.db, ctx.thread_id, &result, state.clock.now()).await?;
        // What this call read is in the context for the calls after it.
        ctx.taint
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add_call(&call.name, &call.arguments);
        recorded.push((id, result));
    }
    Ok(recorded)
}

impl crate::platform::AppState {
    /// The agents' runtime settings (`server::services` puts them in).
    pub fn runtime(&self) -> &RuntimeConfig {
        self.part::<RuntimeConfig>()
    }
}

impl crate::platform::state::Services {
    /// The agents' runtime settings, for a test to change before the server starts.
    pub fn runtime_mut(&mut self) -> &mut RuntimeConfig {
        self.parts
            .get_mut()
            .expect("the runtime settings are put in by from_config")
    }
}
