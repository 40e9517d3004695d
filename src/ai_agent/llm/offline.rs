//! The built-in offline model: deterministic, no API key, and it works through the same tool
//! calls a real model makes: read the contact and recent messages, then propose or send a reply.
use super::{ChatMessage, ChatModel, Completion, LlmError, ToolCall, ToolDef};
use serde_json::{json, Value};

pub struct OfflineModel;

pub const OFFLINE_LABEL: &str = "Herald offline model";

fn has(tools: &[ToolDef], name: &str) -> bool {
    tools.iter().any(|t| t.name == name)
}

fn call(step: usize, name: &str, args: Value) -> Completion {
    Completion {
        text: None,
        tool_calls: vec![ToolCall {
            id: format!("offline_{step}_{name}"),
            name: name.into(),
            arguments: args.to_string(),
        }],
    }
}

/// The customer's words in the newest prompt (after the context preamble, if any).
fn inbound_text(prompt: &str) -> String {
    prompt
        .rsplit_once("Text:")
        .map(|(_, t)| t)
        .unwrap_or(prompt)
        .trim()
        .trim_matches('"')
        .to_owned()
}

/// Reply options for an inbound text, best first, with a greeting by first name.
pub fn draft_replies(text: &str, first_name: &str) -> Vec<String> {
    let t = text.to_lowercase();
    let hi = if first_name.is_empty() {
        "Hi!".to_owned()
    } else {
        format!("Hi {first_name}!")
    };
    let has_any = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if has_any(&["move", "reschedul", "change my", "another day", "cancel my"]) {
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
    } else if has_any(&["late", "running behind", "stuck in traffic"]) {
        vec![
            format!("{hi} Thanks for letting us know. See you soon, no rush."),
            format!("{hi} No problem, we'll hold your spot. Drive safely."),
            format!("{hi} Thanks for the heads-up. We'll adjust on our side."),
        ]
    } else if has_any(&["thank", "thanks", "great", "perfect"]) {
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
            Some(ChatMessage::User { content }) => content.clone(),
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
                } if n == name => serde_json::from_str::<Value>(content).ok(),
                _ => None,
            })
        };
        let step = turn.len();
        if has(tools, "submit_draft") {
            return Ok(draft_step(system, &prompt, step));
        }
        let replying = prompt.starts_with("Inbound SMS")
            || has(tools, "propose_sms_replies")
            || has(tools, "send_sms");
        if !replying {
            let earlier: Vec<&str> = messages
                .iter()
                .filter_map(|m| match m {
                    ChatMessage::User { content } => Some(content.as_str()),
                    _ => None,
                })
                .collect();
            return Ok(assistant_step(
                &prompt, &earlier, tools, &called, &result_of, step,
            ));
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
        let options = draft_replies(&inbound_text(&prompt), &first_name);
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

/// "tag everyone who has not replied in 30 days as quiet" → (30, "quiet").
pub fn parse_tagging_request(text: &str) -> Option<(i64, String)> {
    let t = text.to_lowercase();
    if !t.contains("tag") || !(t.contains("replied") || t.contains("quiet") || t.contains("heard"))
    {
        return None;
    }
    let words: Vec<&str> = t
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    let days = words.windows(2).find_map(|w| {
        (w[1].starts_with("day"))
            .then(|| w[0].parse::<i64>().ok())
            .flatten()
    })?;
    let tag = words
        .iter()
        .position(|w| *w == "as")
        .and_then(|i| words.get(i + 1))
        .map(|w| w.to_string())
        .unwrap_or_else(|| "quiet".into());
    Some((days, tag))
}

/// The assistant's deterministic steps: plan a tagging request, or say what it can do.
fn assistant_step(
    prompt: &str,
    earlier: &[&str],
    tools: &[ToolDef],
    called: &dyn Fn(&str) -> bool,
    result_of: &dyn Fn(&str) -> Option<Value>,
    step: usize,
) -> Completion {
    let text = |t: String| Completion {
        text: Some(t),
        tool_calls: vec![],
    };
    // The request may be this message, or (after a rejection) an earlier one.
    if earlier.iter().rev().any(|m| is_follow_up_request(m)) {
        return campaign_step(prompt, tools, called, result_of, step);
    }
    let request = earlier.iter().rev().find_map(|m| parse_tagging_request(m));
    let Some((days, tag)) = request else {
        return text("I can look up contacts and conversations, and plan changes for you, for example: \"tag everyone who has not replied in 30 days as quiet\".".into());
    };
    if called("present_plan") {
        return text("I've submitted the plan. Nothing changes until it is approved.".into());
    }
    if !has(tools, "present_plan") {
        return text("That changes many contacts, so it needs a plan, and planning is off for me. Turn on Planning in my settings.".into());
    }
    if has(tools, "enter_plan_mode") && !called("enter_plan_mode") {
        return call(
            step,
            "enter_plan_mode",
            json!({"reason": "Tagging many contacts is high-impact."}),
        );
    }
    let Some(found) = result_of("find_quiet_contacts") else {
        return call(step, "find_quiet_contacts", json!({ "days": days }));
    };
    // After a rejection, leave out anyone the reviewer named.
    let rejection = prompt.to_lowercase();
    let revising = rejection.contains("rejected");
    let changes: Vec<Value> = found["quiet"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|c| {
            let name = c["name"].as_str().unwrap_or("").to_owned();
            let named = revising && name.split_whitespace().any(|w| w.len() > 2 && rejection.contains(&w.to_lowercase()));
            let (include, reason) = if c["opted_out"].as_bool().unwrap_or(false) {
                (false, "opted out".to_owned())
            } else if named {
                (false, "excluded at review".to_owned())
            } else {
                (true, format!("no reply in {days} days"))
            };
            json!({"contact_id": c["id"], "include": include, "reason": reason, "add_tags": [tag], "remove_tags": []})
        })
        .collect();
    let included = changes.iter().filter(|c| c["include"] == true).count();
    call(
        step,
        "present_plan",
        json!({
            "title": format!("Tag {included} quiet contacts as \"{tag}\""),
            "summary": format!("Contacts with no reply in the last {days} days get the \"{tag}\" tag. Opted-out contacts are left out.{}", if revising { " Revised after review." } else { "" }),
            "action": {"type": "tag_contacts", "changes": changes}
        }),
    )
}

/// "follow up with quiet quote leads" and its variants.
pub fn is_follow_up_request(text: &str) -> bool {
    let t = text.to_lowercase();
    (t.contains("follow up") || t.contains("follow-up")) && t.contains("quote")
}

pub const FOLLOW_UP_CONCEPT: &str = "A friendly follow-up on the quote we sent: ask whether they have any questions and offer to book a time that suits them.";

/// Plans a campaign to quiet quote leads: every candidate in or out, with a reason.
fn campaign_step(
    prompt: &str,
    tools: &[ToolDef],
    called: &dyn Fn(&str) -> bool,
    result_of: &dyn Fn(&str) -> Option<Value>,
    step: usize,
) -> Completion {
    let text = |t: &str| Completion {
        text: Some(t.into()),
        tool_calls: vec![],
    };
    if called("present_plan") {
        return text("I've submitted the campaign plan. Nothing is sent until you approve it and review the drafts.");
    }
    if !has(tools, "present_plan") {
        return text(
            "A campaign texts many people, so it needs a plan, and planning is off for me.",
        );
    }
    if has(tools, "enter_plan_mode") && !called("enter_plan_mode") {
        return call(
            step,
            "enter_plan_mode",
            json!({"reason": "A campaign texts many people."}),
        );
    }
    let Some(quiet) = result_of("find_quiet_contacts") else {
        return call(step, "find_quiet_contacts", json!({"days": 30}));
    };
    let Some(quotes) = result_of("search_contacts") else {
        return call(step, "search_contacts", json!({"query": "quote"}));
    };
    let rejection = prompt.to_lowercase();
    let revising = rejection.contains("rejected");
    let quiet_ids: Vec<&str> = quiet["quiet"]
        .as_array()
        .map(|a| a.iter().filter_map(|c| c["id"].as_str()).collect())
        .unwrap_or_default();
    let quote_list = quotes.as_array().cloned().unwrap_or_default();
    let mut audience: Vec<Value> = Vec::new();
    for c in &quote_list {
        let id = c["id"].as_str().unwrap_or("");
        let name = c["name"].as_str().unwrap_or("");
        let named = revising
            && name
                .split_whitespace()
                .any(|w| w.len() > 2 && rejection.contains(&w.to_lowercase()));
        let (include, reason, kind) = if c["opted_out"].as_bool().unwrap_or(false) {
            (false, "opted out", "opted_out")
        } else if !quiet_ids.contains(&id) {
            (false, "replied in the last 30 days", "active")
        } else if named {
            (false, "excluded at review", "operator")
        } else {
            (true, "quote lead, no reply in 30 days", "quote_lead")
        };
        audience
            .push(json!({"contact_id": id, "include": include, "reason": reason, "kind": kind}));
    }
    for c in quiet["quiet"].as_array().cloned().unwrap_or_default() {
        let id = c["id"].as_str().unwrap_or("");
        if !quote_list.iter().any(|q| q["id"].as_str() == Some(id)) {
            audience.push(json!({"contact_id": id, "include": false, "reason": "not a quote lead", "kind": "off_campaign"}));
        }
    }
    let n = audience.iter().filter(|a| a["include"] == true).count();
    call(
        step,
        "present_plan",
        json!({
            "title": format!("Follow up with {n} quiet quote leads"),
            "summary": format!("Quote leads with no reply in 30 days get a personal follow-up.{}", if revising { " Revised after review." } else { "" }),
            "action": {"type": "bulk_sms_campaign", "audience": audience, "message_concept": FOLLOW_UP_CONCEPT}
        }),
    )
}

/// One campaign draft: a greeting by first name and the concept, as the drafter's tool call.
fn draft_step(system: &str, prompt: &str, step: usize) -> Completion {
    let first = prompt
        .strip_prefix("DRAFT for ")
        .and_then(|r| r.split('.').next())
        .unwrap_or("there")
        .trim()
        .to_owned();
    let concept = system
        .split("Campaign concept:")
        .nth(1)
        .and_then(|r| r.lines().next())
        .unwrap_or("")
        .trim()
        .to_lowercase();
    let body = if concept.contains("quote") {
        format!("Hi {first}, just checking in on the quote we sent. Any questions? Happy to book a time that suits you.")
    } else {
        format!("Hi {first}, {concept}")
    };
    call(step, "submit_draft", json!({"text": body}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follow_up_requests_and_drafts() {
        assert!(is_follow_up_request("Follow up with quiet quote leads"));
        assert!(!is_follow_up_request("follow up with Ada"));
        let c = draft_step(
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
    fn tagging_requests_are_understood() {
        assert_eq!(
            parse_tagging_request("tag everyone who has not replied in 30 days as quiet"),
            Some((30, "quiet".into()))
        );
        assert_eq!(
            parse_tagging_request(
                "Please tag contacts that haven't replied in 7 days as cold-lead."
            ),
            Some((7, "cold-lead".into()))
        );
        assert_eq!(parse_tagging_request("how are you"), None);
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
