//! Where an inbound text goes after it is stored: the number's agent, else the legacy suggester.
//! Opted-out contacts and empty or media-only texts start nothing. Routing is durable: the text
//! is queued on its thread and marked routed in one transaction, and the sweeper routes any text
//! a crash left unrouted, so a stored text is never forgotten and never queued twice.
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::legacy;
use crate::ai_agent::thread::{append_event_once, contact_key, find_or_create_thread};
use crate::contacts::opt_out;
use crate::error::AppResult;
use crate::messaging::entity as message;
use crate::messaging::inbound::{InboundSink, StoredInbound};
use crate::phone_numbers::entity as phone_number;
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

/// What routing decided, for logs and tests.
#[derive(Debug, PartialEq)]
pub enum Route {
    Agent {
        thread_id: Uuid,
    },
    Legacy,
    SkippedOptedOut,
    /// The detector kept it from agents: HELP (answered by Herald) or a possible opt-out (a
    /// person decides first).
    SkippedCompliance,
    SkippedEmpty,
    /// A short code or sender name: nobody can text it back, so no agent starts a turn.
    SkippedCannotReply,
    /// A person took the conversation over: an autonomous agent stays silent until the pause
    /// ends (a suggest-mode agent still drafts).
    SkippedHandoff,
    /// The contact had the day's automated replies: the agent escalated instead.
    SkippedLoopGuard,
    Nobody,
    /// Another router (the sweeper, or another instance) routed it first.
    AlreadyRouted,
}

/// The agents' side of the inbound path: messaging hands stored texts up through this.
#[derive(Default)]
pub struct AgentRouter {
    queue: crate::ai_agent::route_batch::RouteQueue,
}

#[async_trait::async_trait]
impl InboundSink for AgentRouter {
    async fn route(&self, state: &AppState, message_id: Uuid) {
        log_route(message_id, route_inbound_message(state, message_id).await);
    }

    async fn route_stored(&self, state: &AppState, stored: StoredInbound) {
        auto_assign(state, &stored.number, stored.message.contact_id).await;
        self.queue.route(state, stored).await;
    }
}

/// Hands the conversation to the next member online if its number assigns in turn; a failure
/// leaves it unassigned (in the Unassigned view) and never holds routing up.
async fn auto_assign(state: &AppState, number: &phone_number::Model, contact_id: Uuid) {
    if let Err(e) = crate::inbox::auto_assign::on_inbound(state, number, contact_id).await {
        tracing::warn!(error = %e, %contact_id, "auto-assignment failed; the conversation stays unassigned");
    }
}

/// Routes one text the webhook stored, on its own (not batched).
pub async fn route_stored_one(state: &AppState, stored: StoredInbound) {
    let message_id = stored.message.id;
    let route = route_message(state, stored.message, Some(stored.number), stored.sender).await;
    log_route(message_id, route);
}

fn log_route(message_id: Uuid, route: AppResult<Route>) {
    match route {
        Ok(route) => tracing::info!(?route, %message_id, "inbound routed"),
        // The text stays unrouted; the sweeper tries again.
        Err(e) => tracing::error!(error = %e, %message_id, "inbound routing failed"),
    }
}

async fn mark_routed<C: ConnectionTrait>(db: &C, state: &AppState, id: Uuid) -> AppResult<u64> {
    mark_routed_all(db, state, [id]).await
}

/// Marks the texts routed (those not already).
pub async fn mark_routed_all<C: ConnectionTrait>(
    db: &C,
    state: &AppState,
    ids: impl IntoIterator<Item = Uuid>,
) -> AppResult<u64> {
    Ok(message::Entity::update_many()
        .col_expr(
            message::Column::RoutedAt,
            Expr::value(Some(state.clock.now())),
        )
        .filter(message::Column::Id.is_in(ids))
        .filter(message::Column::RoutedAt.is_null())
        .exec(db)
        .await?
        .rows_affected)
}

/// Routes a stored text read back by id (the sweeper's way, after a crash).
#[tracing::instrument(skip(state))]
pub async fn route_inbound_message(state: &AppState, message_id: Uuid) -> AppResult<Route> {
    let Some(msg) = message::Entity::find_by_id(message_id)
        .one(&state.db)
        .await?
    else {
        return Ok(Route::Nobody);
    };
    if msg.routed_at.is_some() {
        return Ok(Route::AlreadyRouted);
    }
    let phone = phone_number::Entity::find_by_id(msg.phone_number_id)
        .one(&state.db)
        .await?;
    let sender = crate::contacts::entity::contact::Entity::find_by_id(msg.contact_id)
        .one(&state.db)
        .await?
        .and_then(|c| c.phone);
    if let Some(number) = &phone {
        auto_assign(state, number, msg.contact_id).await;
    }
    route_message(state, msg, phone, sender).await
}

/// Routes a stored text given what the webhook already read: the text, the number it reached
/// and the sender's phone. Only the opt-out is read again (it may have just changed).
async fn route_message(
    state: &AppState,
    msg: message::Model,
    phone: Option<phone_number::Model>,
    sender: Option<String>,
) -> AppResult<Route> {
    let skip = skip_reason(state, &msg, phone.as_ref(), sender.as_deref()).await?;
    let Some(phone) = phone.filter(|_| skip.is_none()) else {
        mark_routed(&state.db, state, msg.id).await?;
        return Ok(skip.unwrap_or(Route::Nobody));
    };
    match phone.ai_agent_id {
        // A number with an agent never runs the legacy suggester: one inbound, one responder.
        Some(agent_id) => {
            if let Some(skip) = held_back(state, agent_id, &msg).await? {
                mark_routed(&state.db, state, msg.id).await?;
                return Ok(skip);
            }
            let thread_id = find_or_create_thread(
                state,
                agent_id,
                msg.organization_id,
                &contact_key(msg.contact_id),
            )
            .await?;
            let payload = AiThreadEventPayload::inbound_sms(
                msg.id,
                msg.contact_id,
                phone.id,
                agent_text_of(&msg),
            );
            // Queued and marked routed together: a crash leaves both or neither.
            let txn = crate::platform::db::begin_write(&state.db).await?;
            let queued = append_event_once(
                &txn,
                thread_id,
                &payload,
                state.clock.now(),
                Some(format!("inbound:{}", msg.id)),
            )
            .await?;
            mark_routed(&txn, state, msg.id).await?;
            txn.commit().await?;
            crate::ai_agent::worker::wake(state, thread_id);
            Ok(match queued {
                Some(_) => Route::Agent { thread_id },
                None => Route::AlreadyRouted,
            })
        }
        None => match legacy::resolve_text_agent(state, &phone, msg.contact_id).await? {
            Some(text_agent) => {
                // The model is asked off the routing path (one task routes every number's texts
                // in turn, so a slow model must not hold them): on the work runtime, marked
                // routed once the suggestions are in. A crash before that leaves it to the
                // sweeper; the suggestions and any auto-reply are keyed by the text, once.
                let bg = state.clone();
                state.work.spawn(&state.tasks, async move {
                    if let Err(e) = legacy::suggest_replies(&bg, &text_agent, &msg).await {
                        tracing::warn!(error = %e, message_id = %msg.id, "legacy suggester failed");
                    }
                    if let Err(e) = mark_routed(&bg.db, &bg, msg.id).await {
                        tracing::warn!(error = %e, "legacy suggestion not marked routed");
                    }
                });
                Ok(Route::Legacy)
            }
            None => {
                mark_routed(&state.db, state, msg.id).await?;
                Ok(Route::Nobody)
            }
        },
    }
}

/// Why an autonomous agent does not answer this text, if it does not: a person took the
/// conversation over, or the contact has had the day's automated replies (then the agent
/// escalates to its owner instead, once a day, and the conversation is handed over).
async fn held_back(
    state: &AppState,
    agent_id: Uuid,
    msg: &message::Model,
) -> AppResult<Option<Route>> {
    let agent = crate::ai_agent::entity::ai_agent::Entity::find_by_id(agent_id)
        .one(&state.db)
        .await?;
    let Some(agent) = agent.filter(|a| {
        crate::ai_agent::model::SendMode::parse(&a.send_mode)
            == crate::ai_agent::model::SendMode::Autonomous
    }) else {
        return Ok(None);
    };
    let now = state.clock.now();
    if crate::inbox::handoff::paused_until(&state.db, msg.organization_id, msg.contact_id, now)
        .await?
        .is_some()
    {
        tracing::info!("routing skipped: a person took the conversation over");
        return Ok(Some(Route::SkippedHandoff));
    }
    let limit = state.runtime().replies_per_contact_day;
    let over =
        crate::ai_agent::pacing::over_limit(&state.db, &[msg.contact_id], now, limit).await?;
    if over.is_empty() {
        return Ok(None);
    }
    tracing::warn!(
        limit,
        "routing skipped: the day's automated replies reached; escalating"
    );
    crate::ai_agent::tools::escalate_to_owner(
        state,
        &agent,
        msg.organization_id,
        crate::ai_agent::tools::Escalation {
            title: format!("{} stopped answering a contact", agent.name),
            body: format!(
                "They have had {limit} automated replies in 24 hours; a person should take it from here. Their latest text: {}",
                msg.body
            ),
            link: Some(format!("/messaging/{}", msg.contact_id)),
            source_key: Some(format!(
                "loop-guard:{}:{}:{}",
                agent.id,
                msg.contact_id,
                now.date_naive()
            )),
        },
    )
    .await?;
    if let Some(owner) = agent.user_id {
        crate::inbox::service::hand_over(state, msg.organization_id, msg.contact_id, owner).await?;
    }
    Ok(Some(Route::SkippedLoopGuard))
}

/// The text as an agent reads it: its words and a line per picture ("[photo: image/jpeg]").
pub fn agent_text_of(msg: &message::Model) -> String {
    let types: Vec<String> = msg
        .media_types
        .clone()
        .and_then(|t| serde_json::from_value(t).ok())
        .unwrap_or_default();
    crate::messaging::model::agent_text(&msg.body, msg.media_count.max(0) as usize, &types)
}

/// Why a stored text starts no responder, if it does not: no number, an opted-out contact, a
/// sender nobody can text back, or an empty text (a picture alone is answered).
async fn skip_reason(
    state: &AppState,
    msg: &message::Model,
    phone: Option<&phone_number::Model>,
    sender: Option<&str>,
) -> AppResult<Option<Route>> {
    Ok(if phone.is_none() {
        Some(Route::Nobody)
    } else if crate::compliance::inbound::kept_from_agents(msg.keyword.as_deref()) {
        tracing::info!(keyword = ?msg.keyword, "routing skipped: the detector kept it from agents");
        Some(Route::SkippedCompliance)
    } else if opt_out::sms_opt_out(&state.db, msg.contact_id)
        .await?
        .is_some()
    {
        tracing::info!("routing skipped: the contact opted out");
        Some(Route::SkippedOptedOut)
    } else if !sender.is_some_and(crate::contacts::phone::can_text) {
        tracing::info!("routing skipped: the sender cannot be texted back");
        Some(Route::SkippedCannotReply)
    } else if msg.body.trim().is_empty() && msg.media_count == 0 {
        tracing::info!("routing skipped: an empty text");
        Some(Route::SkippedEmpty)
    } else {
        None
    })
}

/// Routes texts that were stored but never routed (the process died in between); answers how
/// many. Texts younger than `grace` are left to the in-process path that is routing them now.
pub async fn route_unrouted(state: &AppState, grace: chrono::Duration) -> AppResult<usize> {
    let cutoff = state.clock.now() - grace;
    let ids: Vec<Uuid> = message::Entity::find()
        .select_only()
        .column(message::Column::Id)
        .filter(message::Column::Direction.eq("inbound"))
        .filter(message::Column::RoutedAt.is_null())
        .filter(message::Column::CreatedAt.lte(cutoff))
        .order_by_asc(message::Column::CreatedAt)
        .limit(500)
        .into_tuple()
        .all(&state.db)
        .await?;
    for id in &ids {
        tracing::info!(message_id = %id, "routing a text a crash left unrouted");
        state.inbound().route(state, *id).await;
    }
    Ok(ids.len())
}
