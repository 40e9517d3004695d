//! The history a provider sees, always valid: every tool result directly follows the assistant
//! message that called it, texts that arrived while tools ran come after the results, and no
//! orphaned call or result is ever sent (OpenAI and Anthropic reject both).
use crate::ai_agent::entity::ai_thread_event;
use crate::ai_agent::events::AiThreadEventPayload;
use crate::ai_agent::llm::{ChatImage, ChatMessage};
use crate::ai_agent::thread::payload_of;
use crate::error::AppResult;
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// What a call whose result was never recorded (its turn died) reads as.
pub const INTERRUPTED_RESULT: &str =
    "{\"error\":\"interrupted: this call's result was never recorded\"}";

/// The thread's latest events (and at least the whole current turn) as chat messages, for a turn
/// over `turn_inputs`. Inputs waiting for a later turn and inputs set aside after failing are
/// left out.
pub async fn history(
    state: &AppState,
    thread_id: Uuid,
    turn_inputs: &[Uuid],
) -> AppResult<Vec<ChatMessage>> {
    let first = ai_thread_event::Entity::find()
        .filter(ai_thread_event::Column::Id.is_in(turn_inputs.iter().copied()))
        .order_by_asc(ai_thread_event::Column::Seq)
        .one(&state.db)
        .await?
        .map(|e| e.seq);
    Ok(well_formed(
        &window(state, thread_id, turn_inputs, first).await?,
    ))
}

/// The events `history` is made of, in order.
pub async fn window(
    state: &AppState,
    thread_id: Uuid,
    turn_inputs: &[Uuid],
    first_input: Option<i64>,
) -> AppResult<Vec<AiThreadEventPayload>> {
    let mut rows = ai_thread_event::Entity::find()
        .filter(ai_thread_event::Column::ThreadId.eq(thread_id))
        .order_by_desc(ai_thread_event::Column::Seq)
        .limit(state.runtime().history_limit)
        .all(&state.db)
        .await?;
    rows.reverse();
    // A long turn may outgrow the window; the window still starts at this turn's own inputs,
    // or the model would no longer see what it is answering.
    let window_start = rows.first().map(|r| r.seq).unwrap_or(i64::MAX);
    if let Some(first) = first_input.filter(|f| *f < window_start) {
        rows = ai_thread_event::Entity::find()
            .filter(ai_thread_event::Column::ThreadId.eq(thread_id))
            .filter(ai_thread_event::Column::Seq.gte(first))
            .order_by_asc(ai_thread_event::Column::Seq)
            .all(&state.db)
            .await?;
    }
    let visible: HashSet<Uuid> = turn_inputs.iter().copied().collect();
    let payloads: Vec<AiThreadEventPayload> = rows
        .iter()
        .filter(|e| {
            let waiting = e.processed_at.is_none() && !visible.contains(&e.id);
            let set_aside = e.processed_at.is_some() && e.error.is_some();
            !(waiting || set_aside)
        })
        .filter_map(payload_of)
        .collect();
    Ok(payloads)
}

/// Orders chat messages so that every provider accepts them.
pub fn well_formed(events: &[AiThreadEventPayload]) -> Vec<ChatMessage> {
    well_formed_seeing(events, &HashMap::new())
}

/// `well_formed`, with pictures on the texts that carry them (by message id): what a model with
/// vision sees.
pub fn well_formed_seeing(
    events: &[AiThreadEventPayload],
    images: &HashMap<Uuid, Vec<ChatImage>>,
) -> Vec<ChatMessage> {
    let mut out: Vec<ChatMessage> = Vec::new();
    // Calls still waiting for their results, in the order they were made.
    let mut open: Vec<(String, String)> = Vec::new();
    // Results seen for the open calls.
    let mut results: Vec<ChatMessage> = Vec::new();
    // Texts that arrived while calls were open: they follow the results.
    let mut deferred: Vec<ChatMessage> = Vec::new();
    let close = |out: &mut Vec<ChatMessage>,
                 open: &mut Vec<(String, String)>,
                 results: &mut Vec<ChatMessage>,
                 deferred: &mut Vec<ChatMessage>| {
        for (id, name) in open.drain(..) {
            let found = results
                .iter()
                .position(|r| matches!(r, ChatMessage::Tool { call_id, .. } if *call_id == id));
            out.push(match found {
                Some(i) => results.remove(i),
                None => ChatMessage::Tool {
                    call_id: id,
                    name,
                    content: INTERRUPTED_RESULT.into(),
                },
            });
        }
        results.clear();
        out.append(deferred);
    };
    for e in events {
        let Some(mut msg) = e.to_chat() else { continue };
        if let (
            AiThreadEventPayload::InboundSms { message_id, .. },
            ChatMessage::User { images: seen, .. },
        ) = (e, &mut msg)
        {
            seen.extend(images.get(message_id).cloned().unwrap_or_default());
        }
        match msg {
            ChatMessage::Assistant { ref tool_calls, .. } => {
                close(&mut out, &mut open, &mut results, &mut deferred);
                open = tool_calls
                    .iter()
                    .map(|c| (c.id.clone(), c.name.clone()))
                    .collect();
                out.push(msg);
            }
            ChatMessage::Tool { ref call_id, .. } => {
                let is_open = open.iter().any(|(id, _)| id == call_id);
                let is_new = !results
                    .iter()
                    .any(|r| matches!(r, ChatMessage::Tool { call_id: c, .. } if c == call_id));
                // A result whose call is outside the window, or a second result, is dropped.
                if is_open && is_new {
                    results.push(msg);
                }
            }
            ChatMessage::User { .. } => {
                if open.is_empty() {
                    out.push(msg);
                } else {
                    deferred.push(msg);
                }
            }
        }
    }
    close(&mut out, &mut open, &mut results, &mut deferred);
    // A provider's conversation starts with the user.
    let first_user = out
        .iter()
        .position(|m| matches!(m, ChatMessage::User { .. }))
        .unwrap_or(out.len());
    out.drain(..first_user);
    out
}

/// Checks the rules `well_formed` promises; tests use it on every history they build.
pub fn check(messages: &[ChatMessage]) -> Result<(), String> {
    if !matches!(messages.first(), None | Some(ChatMessage::User { .. })) {
        return Err("the history does not start with the user".into());
    }
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            ChatMessage::Assistant { tool_calls, .. } => {
                for (k, call) in tool_calls.iter().enumerate() {
                    match messages.get(i + 1 + k) {
                        Some(ChatMessage::Tool { call_id, .. }) if *call_id == call.id => {}
                        _ => return Err(format!("call {} is not followed by its result", call.id)),
                    }
                }
                i += 1 + tool_calls.len();
            }
            ChatMessage::Tool { call_id, .. } => {
                return Err(format!("result {call_id} does not follow its call"))
            }
            ChatMessage::User { .. } => i += 1,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai_agent::llm::ToolCall;

    fn user(t: &str) -> AiThreadEventPayload {
        AiThreadEventPayload::UserMessage {
            text: t.into(),
            plan_mode: false,
        }
    }
    fn calls(ids: &[&str]) -> AiThreadEventPayload {
        AiThreadEventPayload::Assistant {
            text: None,
            tool_calls: ids
                .iter()
                .map(|id| ToolCall {
                    id: (*id).into(),
                    name: "get_contact".into(),
                    arguments: "{}".into(),
                })
                .collect(),
        }
    }
    fn result(id: &str) -> AiThreadEventPayload {
        AiThreadEventPayload::ToolResult {
            call_id: id.into(),
            name: "get_contact".into(),
            content: "{}".into(),
            is_error: false,
        }
    }
    fn say(t: &str) -> AiThreadEventPayload {
        AiThreadEventPayload::Assistant {
            text: Some(t.into()),
            tool_calls: vec![],
        }
    }

    #[test]
    fn a_text_that_arrived_mid_call_comes_after_the_result() {
        let h = well_formed(&[
            user("first"),
            calls(&["a", "b"]),
            result("a"),
            user("second, sent while the tool ran"),
            result("b"),
            say("done"),
        ]);
        check(&h).unwrap();
        let roles: Vec<&str> = h
            .iter()
            .map(|m| match m {
                ChatMessage::User { .. } => "user",
                ChatMessage::Assistant { .. } => "assistant",
                ChatMessage::Tool { .. } => "tool",
            })
            .collect();
        assert_eq!(
            roles,
            ["user", "assistant", "tool", "tool", "user", "assistant"]
        );
    }

    #[test]
    fn orphans_are_never_sent() {
        // A result whose call fell out of the window, and a call whose turn died.
        let h = well_formed(&[
            result("old"),
            user("hi"),
            calls(&["lost"]),
            user("anyone there?"),
            calls(&["x"]),
            result("x"),
            result("x"),
        ]);
        check(&h).unwrap();
        assert!(h.iter().any(|m| matches!(m, ChatMessage::Tool { call_id, content, .. } if call_id == "lost" && content == INTERRUPTED_RESULT)));
        assert_eq!(
            h.iter()
                .filter(|m| matches!(m, ChatMessage::Tool { call_id, .. } if call_id == "x"))
                .count(),
            1
        );
        assert!(!h
            .iter()
            .any(|m| matches!(m, ChatMessage::Tool { call_id, .. } if call_id == "old")));
    }

    #[test]
    fn a_window_that_starts_mid_turn_starts_at_the_next_user_message() {
        let h = well_formed(&[say("tail of an old turn"), calls(&["q"]), user("new")]);
        check(&h).unwrap();
        assert_eq!(h.len(), 1);
    }
}
