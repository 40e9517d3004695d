//! Reading suggestions and thread histories, scoped to one organisation.
use crate::ai_agent::entity::{
    ai_agent, ai_thread, ai_thread_event, text_agent, text_agent_suggestion,
};
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::model::{
    SuggestedCount, SuggestionOption, SuggestionSet, ThreadCursor, ThreadEventView, ThreadPage,
    ThreadSummary,
};
use crate::auth::session::Member;
use crate::contacts::entity::contact;
use crate::error::{AppError, AppResult};
use crate::messaging::entity as message;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

/// Suggestion sets for one of the organisation's messages, newest first, agent and legacy alike.
pub async fn for_message(
    state: &AppState,
    org_id: Uuid,
    message_id: Uuid,
) -> AppResult<Vec<SuggestionSet>> {
    message::Entity::find_by_id(message_id)
        .filter(message::Column::OrganizationId.eq(org_id))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Message"))?;
    let rows = text_agent_suggestion::Entity::find()
        .filter(text_agent_suggestion::Column::OrganizationId.eq(org_id))
        .filter(text_agent_suggestion::Column::MessageId.eq(message_id))
        .order_by_desc(text_agent_suggestion::Column::CreatedAt)
        .all(&state.db)
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let source = match (r.ai_agent_id, r.text_agent_id) {
            (Some(a), _) => ai_agent::Entity::find_by_id(a)
                .one(&state.db)
                .await?
                .map(|a| a.name)
                .unwrap_or_else(|| "Agent".into()),
            (None, Some(t)) => text_agent::Entity::find_by_id(t)
                .one(&state.db)
                .await?
                .map(|t| t.name)
                .unwrap_or_else(|| "Suggester".into()),
            _ => "Suggester".into(),
        };
        let options: Vec<SuggestionOption> =
            serde_json::from_value(r.suggestions).unwrap_or_default();
        out.push(SuggestionSet {
            id: r.id,
            message_id,
            source,
            offline: state.model.is_offline(),
            options,
        });
    }
    Ok(out)
}

/// How many replies the newest suggestion set of each message offers, for messages of this
/// organisation that have one: one query over the sets of a conversation's page.
pub async fn counts(
    state: &AppState,
    org_id: Uuid,
    message_ids: &[Uuid],
) -> AppResult<Vec<SuggestedCount>> {
    if message_ids.is_empty() {
        return Ok(vec![]);
    }
    let rows: Vec<(Uuid, serde_json::Value)> = text_agent_suggestion::Entity::find()
        .select_only()
        .column(text_agent_suggestion::Column::MessageId)
        .column(text_agent_suggestion::Column::Suggestions)
        .filter(text_agent_suggestion::Column::OrganizationId.eq(org_id))
        .filter(text_agent_suggestion::Column::MessageId.is_in(message_ids.iter().copied()))
        .order_by_desc(text_agent_suggestion::Column::CreatedAt)
        .into_tuple()
        .all(&state.db)
        .await?;
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<SuggestedCount> = Vec::new();
    for (message_id, options) in rows {
        // Newest first: the first set seen for a message is the one its panel shows.
        if !seen.insert(message_id) {
            continue;
        }
        let replies = options.as_array().map_or(0, |a| a.len()) as u32;
        if replies > 0 {
            out.push(SuggestedCount {
                message_id,
                replies,
            });
        }
    }
    Ok(out)
}

/// A member's Assistant thread is theirs alone: nobody else in the organisation sees it.
pub(crate) fn visible_to(member: &Member, correlation_key: Option<&str>) -> bool {
    match correlation_key.and_then(|k| k.strip_prefix("assistant:")) {
        Some(owner) => owner == member.user_id.to_string(),
        None => true,
    }
}

/// Threads on one page of an agent's page.
pub const THREADS_PAGE: u64 = 50;

/// One page of the agent's threads the member may see (other members' Assistant threads never),
/// most recently active first, with the exact number.
pub async fn threads_for_agent(
    state: &AppState,
    member: &Member,
    agent_id: Uuid,
    after: Option<ThreadCursor>,
) -> AppResult<ThreadPage> {
    use sea_orm::{Condition, PaginatorTrait};
    crate::ai_agent::service::find_in_org(&state.db, member.organization_id, agent_id).await?;
    let mine = format!("assistant:{}", member.user_id);
    let visible = ai_thread::Entity::find()
        .filter(ai_thread::Column::OrganizationId.eq(member.organization_id))
        .filter(ai_thread::Column::AgentId.eq(agent_id))
        .filter(
            Condition::any()
                .add(ai_thread::Column::CorrelationKey.is_null())
                .add(ai_thread::Column::CorrelationKey.not_like("assistant:%"))
                .add(ai_thread::Column::CorrelationKey.eq(mine)),
        );
    let total = visible.clone().count(&state.db).await?;
    let order = (ai_thread::Column::UpdatedAt, ai_thread::Column::Id);
    let after = after.map(|c| (c.updated_at, c.id));
    let page =
        crate::platform::keyset::newest_first(&state.db, visible, order, after, THREADS_PAGE)
            .await?;
    let next = page.next(|t| ThreadCursor {
        updated_at: t.updated_at,
        id: t.id,
    });
    let rows = page.rows;
    let contact_of = |t: &ai_thread::Model| {
        t.correlation_key
            .as_deref()
            .and_then(|k| k.strip_prefix("contact:"))
            .and_then(|s| s.parse::<Uuid>().ok())
    };
    let ids: Vec<Uuid> = rows.iter().filter_map(contact_of).collect();
    let names: std::collections::HashMap<Uuid, String> = contact::Entity::find()
        .filter(contact::Column::OrganizationId.eq(member.organization_id))
        .filter(contact::Column::Id.is_in(ids))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|c| (c.id, c.name))
        .collect();
    let items = rows
        .into_iter()
        .map(|t| {
            let contact_id = contact_of(&t);
            ThreadSummary {
                id: t.id,
                agent_id,
                contact_id,
                contact_name: contact_id.and_then(|c| names.get(&c).cloned()),
                state: t.state,
                last_error: t.last_error,
                updated_at: t.updated_at,
            }
        })
        .collect();
    Ok(ThreadPage { items, total, next })
}

fn describe(p: &AiThreadEventPayload) -> (String, Option<String>) {
    match p {
        AiThreadEventPayload::UserMessage { text, plan_mode } => (
            if *plan_mode {
                "Operator (plan mode)".into()
            } else {
                "Operator".into()
            },
            Some(text.clone()),
        ),
        AiThreadEventPayload::InboundSms { text, .. } => {
            ("Inbound text".into(), Some(text.clone()))
        }
        AiThreadEventPayload::Assistant { text, tool_calls } if tool_calls.is_empty() => {
            ("Agent".into(), text.clone())
        }
        AiThreadEventPayload::Assistant { tool_calls, .. } => (
            format!(
                "Calls {}",
                tool_calls
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(
                tool_calls
                    .iter()
                    .map(|c| format!("{}({})", c.name, c.arguments))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        ),
        AiThreadEventPayload::ToolResult {
            name,
            content,
            is_error,
            ..
        } => (
            if *is_error {
                format!("{name} refused")
            } else {
                format!("{name} result")
            },
            Some(content.clone()),
        ),
        AiThreadEventPayload::TurnStarted { inputs } => {
            (format!("Turn over {} input(s)", inputs.len()), None)
        }
        AiThreadEventPayload::TurnFailed { error } => {
            ("Turn failed; escalated".into(), Some(error.clone()))
        }
        AiThreadEventPayload::TurnRetrying {
            error,
            attempt,
            retry_in_ms,
        } => (
            format!(
                "Turn failed (attempt {attempt}); retrying in {:.1} s",
                *retry_in_ms as f64 / 1000.0
            ),
            Some(error.clone()),
        ),
        AiThreadEventPayload::TurnResumed { reason } => {
            ("Turn resumed".into(), Some(reason.clone()))
        }
        AiThreadEventPayload::EarlierSummary { text, .. } => {
            ("Summary of the archived thread".into(), Some(text.clone()))
        }
        AiThreadEventPayload::PlanNote { text, reason, .. } => {
            (text.clone(), (!reason.is_empty()).then(|| reason.clone()))
        }
        AiThreadEventPayload::PlanProgress { text, .. } => (text.clone(), None),
    }
}

pub async fn thread_events(
    state: &AppState,
    member: &Member,
    thread_id: Uuid,
) -> AppResult<Vec<ThreadEventView>> {
    ai_thread::Entity::find_by_id(thread_id)
        .filter(ai_thread::Column::OrganizationId.eq(member.organization_id))
        .one(&state.db)
        .await?
        .filter(|t| visible_to(member, t.correlation_key.as_deref()))
        .ok_or_else(|| AppError::not_found("Thread"))?;
    let rows = ai_thread_event::Entity::find()
        .filter(ai_thread_event::Column::ThreadId.eq(thread_id))
        .order_by_asc(ai_thread_event::Column::Seq)
        .all(&state.db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|e| {
            let (summary, detail) =
                serde_json::from_value::<AiThreadEventPayload>(e.payload.clone())
                    .map(|p| describe(&p))
                    .unwrap_or_else(|_| (e.kind.clone(), None));
            ThreadEventView {
                id: e.id,
                kind: e.kind,
                summary,
                detail,
                processed: e.processed_at.is_some(),
                created_at: e.created_at,
            }
        })
        .collect())
}

/// The suggestion set a person's text is sent from, checked before it is sent: one of the
/// organisation's, offered in this contact's conversation.
pub async fn suggestion_for(
    db: &impl sea_orm::ConnectionTrait,
    org: Uuid,
    contact_id: Uuid,
    set_id: Uuid,
) -> AppResult<text_agent_suggestion::Model> {
    let row = text_agent_suggestion::Entity::find_by_id(set_id)
        .filter(text_agent_suggestion::Column::OrganizationId.eq(org))
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("Suggestion"))?;
    let asked: Option<Uuid> = message::Entity::find_by_id(row.message_id)
        .select_only()
        .column(message::Column::ContactId)
        .into_tuple()
        .one(db)
        .await?;
    if asked != Some(contact_id) {
        return Err(AppError::validation(
            "That suggestion belongs to another conversation.",
        ));
    }
    Ok(row)
}

/// Marks the first text sent from a suggestion set, as written (the same words as one of its
/// options, spacing aside) or edited; a later text from the same set counts nothing more.
pub async fn mark_used(
    db: &impl sea_orm::ConnectionTrait,
    row: &text_agent_suggestion::Model,
    message_id: Uuid,
    body: &str,
) -> AppResult<()> {
    let options: Vec<crate::ai_agent::model::SuggestionOption> =
        serde_json::from_value(row.suggestions.clone()).unwrap_or_default();
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let as_written = options.iter().any(|o| norm(&o.body) == norm(body));
    text_agent_suggestion::Entity::update_many()
        .col_expr(
            text_agent_suggestion::Column::UsedBy,
            sea_orm::sea_query::Expr::value(message_id),
        )
        .col_expr(
            text_agent_suggestion::Column::UsedAs,
            sea_orm::sea_query::Expr::value(if as_written { "as_written" } else { "edited" }),
        )
        .filter(text_agent_suggestion::Column::Id.eq(row.id))
        .filter(text_agent_suggestion::Column::UsedBy.is_null())
        .exec(db)
        .await?;
    Ok(())
}
