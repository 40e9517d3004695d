//! The built-in offline model: deterministic, no API key, and it works through the same tool
//! calls a real model makes: read the contact and recent messages, then propose or send a reply;
//! as an assistant it plans and answers the few requests it understands (see `intent`).
mod assistant;
mod campaign;
mod grounded;
pub mod intent;
mod replan;
mod steps;

use super::{ChatMessage, ChatModel, Completion, LlmError, ToolCall, ToolDef};
pub use assistant::CAPABILITIES;
pub use campaign::FOLLOW_UP_CONCEPT;
use serde_json::{json, Value};

pub struct OfflineModel;

pub const OFFLINE_LABEL: &str = "Herald offline model";

fn has(tools: &[ToolDef], name: &str) -> bool {
    tools.iter().any(|t| t.name == name)
}

pub(super) fn call(step: usize, name: &str, args: Value) -> Completion {
    Completion {
        text: None,
        tool_calls: vec![ToolCall {
            id: format!("offline_{step}_{name}"),
            name: name.into(),
            arguments: args.to_string(),
        }],
    }
}

/// The customer's words in the newest prompt: inside the untrusted fence, or after "Text:".
fn inbound_text(prompt: &str) -> String {
    use crate::ai_agent::events::{UNTRUSTED_CLOSE, UNTRUSTED_OPEN};
    if let Some((_, rest)) = prompt.split_once(UNTRUSTED_OPEN) {
        return rest
            .rsplit_once(UNTRUSTED_CLOSE)
            .map(|(t, _)| t)
            .unwrap_or(rest)
            .trim()
            .to_owned();
    }
    prompt
        .rsplit_once("Text:")
        .map(|(_, t)| t)
        .unwrap_or(prompt)
        .trim()
        .trim_matches('"')
        .to_owned()
}

/// Words of a text about moving a visit, running late, or thanks: the offline model answers
/// these itself, with no figure in its reply, whatever the knowledge says.
const MOVING: &[&str] = &["move", "reschedul", "change my", "another day", "cancel my"];
const LATE: &[&str] = &["late", "running behind", "stuck in traffic"];
const THANKS: &[&str] = &["thank", "thanks", "great", "perfect"];

fn greeting(first_name: &str) -> String {
    if first_name.is_empty() {
        "Hi!".to_owned()
    } else {
        format!("Hi {first_name}!")
    }
}

/// Whether the offline model answers the text itself (moving a visit, running late, thanks).
fn answered_by_intent(text: &str) -> bool {
    let t = text.to_lowercase();
    [MOVING, LATE, THANKS]
        .iter()
        .any(|words| words.iter().any(|w| t.contains(w)))
}

/// Reply options for an inbound text, best first, with a greeting by first name.
pub fn draft_replies(text: &str, first_name: &str) -> Vec<String> {
    let t = text.to_lowercase();
    let hi = greeting(first_name);
    let has_any = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if has_any(MOVING) {
        vec![
            format!("{hi} Of course, we can move it. What day and time work best for you?"),
            format!("{hi} No problem. We have openings early next week. Would Tuesday or Wednesday suit you?"),
            format!("{hi} Happy to reschedule. Reply with a couple of times that work and we'll confirm."),
        ]
    } else if has_any(&["price", "cost", "how much", "quote", "$"]) {
        vec![
            format!("{hi} Thanks for asking. I'll get you an exact quote today. Is this the best number to reach you?"),
            format!("{hi} Prices depend on a quick assessment. Would you like to book a free consultation?"),
            format!("{hi} Great question. Let me check the current pricing and text you back shortly."),
        ]
    } else if has_any(LATE) {
        vec![
            format!("{hi} Thanks for letting us know. See you soon, no rush."),
            format!("{hi} No problem, we'll hold your spot. Drive safely."),
            format!("{hi} Thanks for the heads-up. We'll adjust on our side."),
        ]
    } else if has_any(THANKS) {
        vec![
            format!("{hi} You're very welcome. Let us know if there's anything else."),
            format!("{hi} Glad we could help. Have a great day!"),
            format!("{hi} Anytime! We're here if you need us."),
        ]
    } else {
        vec![
            format!("{hi} Thanks for your message. We'll get back to you shortly."),
            format!(
                "{hi} Thanks for reaching out. Could you tell us a little more so we can help?"
            ),
            format!("{hi} Got it, thank you. Someone from our team will follow up today."),
        ]
    }
}

#[async_trait::async_trait]
impl ChatModel for OfflineModel {
    fn label(&self) -> String {
        OFFLINE_LABEL.into()
    }

    fn is_offline(&self) -> bool {
        true
    }

    async fn complete(
        &self,
        system: &str,
        messages: &[ChatMessage],
        tools: &[ToolDef],
    ) -> Result<Completion, LlmError> {
        // Work only from this turn: everything after the newest user message.
        let start = messages
            .iter()
            .rposition(|m| matches!(m, ChatMessage::User { .. }))
            .unwrap_or(0);
        let prompt = match messages.get(start) {
            Some(ChatMessage::User { content, .. }) => content.clone(),
            _ => String::new(),
        };
        let turn = &messages[start..];
        let called = |name: &str| {
            turn.iter()
                .any(|m| matches!(m, ChatMessage::Tool { name: n, .. } if n == name))
        };
        let result_of = |name: &str| {
            turn.iter().rev().find_map(|m| match m {
                ChatMessage::Tool {
                    name: n, content, ..
                } if n == name => {
                    serde_json::from_str::<Value>(crate::ai_agent::taint::unfenced(content)).ok()
                }
                _ => None,
            })
        };
        let step = turn.len();
        if has(tools, "submit_draft") {
            return Ok(campaign::draft_step(system, &prompt, step));
        }
        // A contact's text (or the legacy suggester's prompt): a reply. Otherwise an operator's
        // request for the assistant.
        let replying = prompt.starts_with("Inbound SMS") || has(tools, "propose_sms_replies");
        if !replying {
            let t = assistant::Turn {
                prompt: &prompt,
                earlier: messages
                    .iter()
                    .filter_map(|m| match m {
                        ChatMessage::User { content, .. } => Some(content.as_str()),
                        _ => None,
                    })
                    .collect(),
                tools,
                messages: turn,
            };
            return Ok(assistant::assistant_step(&t));
        }
        if has(tools, "get_contact") && !called("get_contact") {
            return Ok(call(step, "get_contact", json!({})));
        }
        if has(tools, "recent_messages") && !called("recent_messages") {
            return Ok(call(step, "recent_messages", json!({"limit": 10})));
        }
        let first_name = result_of("get_contact")
            .and_then(|c| {
                c["name"]
                    .as_str()
                    .map(|n| n.split_whitespace().next().unwrap_or("").to_owned())
            })
            .filter(|n| !n.starts_with('+'))
            .unwrap_or_default();
        let inbound = inbound_text(&prompt);
        // From the business's knowledge when it answers (or must hold), else its own replies.
        let grounded = (!answered_by_intent(&inbound))
            .then(|| grounded::Known::parse(system))
            .flatten()
            .and_then(|k| grounded::reply(&inbound, &greeting(&first_name), &k));
        let (options, unanswered) = match grounded {
            Some(g) => (g.options, g.unanswered),
            None => (draft_replies(&inbound, &first_name), vec![]),
        };
        // A question the knowledge does not answer goes to the owner when the agent sends by
        // itself (a suggest-mode agent's drafts wait for a person already).
        let drafts = has(tools, "propose_sms_replies");
        let sends = has(tools, "send_sms");
        if !unanswered.is_empty()
            && !drafts
            && has(tools, "escalate_to_user")
            && !called("escalate_to_user")
            && (called("send_sms") || !sends)
        {
            // The holding reply went first: escalating hands the conversation to the owner.
            return Ok(call(
                step,
                "escalate_to_user",
                json!({
                    "reason": format!(
                        "A contact asked what the knowledge does not answer: \"{}\". Add the \
                         answer on the Knowledge page, then reply to them.",
                        unanswered.join("\"; \"")
                    ),
                    "draft": options[0],
                }),
            ));
        }
        for terminal in ["propose_sms_replies", "send_sms", "escalate_to_user"] {
            if called(terminal) {
                return Ok(Completion {
                    text: Some("Done.".into()),
                    tool_calls: vec![],
                });
            }
        }
        if has(tools, "propose_sms_replies") {
            return Ok(call(
                step,
                "propose_sms_replies",
                json!({ "options": options }),
            ));
        }
        if has(tools, "send_sms") {
            return Ok(call(step, "send_sms", json!({ "body": options[0] })));
        }
        if has(tools, "escalate_to_user") {
            return Ok(call(
                step,
                "escalate_to_user",
                json!({ "reason": "I cannot send from here; here is a draft.", "draft": options[0] }),
            ));
        }
        Ok(Completion {
            text: Some(options[0].clone()),
            tool_calls: vec![],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn campaign_drafts() {
        let c = campaign::draft_step(
            "Campaign concept: A friendly follow-up on the quote we sent.\nRules",
            "DRAFT for Ada.\nContact: Ada",
            0,
        );
        let args: Value = serde_json::from_str(&c.tool_calls[0].arguments).unwrap();
        assert!(args["text"]
            .as_str()
            .unwrap()
            .starts_with("Hi Ada, just checking in on the quote"));
    }

    #[test]
    fn drafts_fit_the_message() {
        let r = draft_replies("Could I move my cleaning?", "Ada");
        assert_eq!(r.len(), 3);
        assert!(r[0].starts_with("Hi Ada!") && r[0].contains("move"));
        assert!(draft_replies("how much is whitening", "")[0].contains("quote"));
        assert_eq!(
            draft_replies("x", "A"),
            draft_replies("x", "A"),
            "deterministic"
        );
    }
}
