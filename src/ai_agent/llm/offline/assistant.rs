//! The offline model as an operator's assistant: deterministic steps for the requests it
//! understands (plans that tag quiet contacts or follow up with quote leads, and questions about
//! contacts), and a plain "this needs a hosted model" for everything else. It never guesses an
//! action.
use super::campaign::campaign_step;
use super::intent::{parse, Intent};
use crate::ai_agent::llm::{ChatMessage, Completion, ToolCall, ToolDef};
use serde_json::{json, Value};

/// What one step of an operator turn sees.
pub(super) struct Turn<'a> {
    /// The newest operator message.
    pub prompt: &'a str,
    /// Every operator message in the history, oldest first.
    pub earlier: Vec<&'a str>,
    pub tools: &'a [ToolDef],
    /// This turn's messages, from the newest operator message on.
    pub messages: &'a [ChatMessage],
}

impl Turn<'_> {
    pub fn has(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t.name == tool)
    }
    pub fn called(&self, tool: &str) -> bool {
        self.messages
            .iter()
            .any(|m| matches!(m, ChatMessage::Tool { name, .. } if name == tool))
    }
    pub fn result_of(&self, tool: &str) -> Option<Value> {
        self.messages.iter().rev().find_map(|m| match m {
            ChatMessage::Tool { name, content, .. } if name == tool => {
                serde_json::from_str::<Value>(crate::ai_agent::taint::unfenced(content)).ok()
            }
            _ => None,
        })
    }
    pub fn call(&self, tool: &str, args: Value) -> Completion {
        Completion {
            text: None,
            tool_calls: vec![ToolCall {
                id: format!("offline_{}_{tool}", self.messages.len()),
                name: tool.into(),
                arguments: args.to_string(),
            }],
        }
    }
    /// After a rejection, the note quoting the reviewer.
    pub fn rejection(&self) -> Option<String> {
        self.prompt
            .contains("was rejected:")
            .then(|| self.prompt.to_lowercase())
    }
}

pub(super) fn say(text: impl Into<String>) -> Completion {
    Completion {
        text: Some(text.into()),
        tool_calls: vec![],
    }
}

pub const CAPABILITIES: &str =
    "I'm Herald's offline model (no API key), so I understand a few requests: \
\"tag everyone who has not replied in 30 days as quiet\", \"follow up with quiet quote leads\", \
\"text everyone tagged vip about our Saturday opening\", \
\"find the quote leads who haven't replied in 14 days, tag them follow-up and text each a check-in\", \
\"how many contacts do we have?\", \"who has opted out?\", \"who hasn't replied in 14 days?\", \
\"which contacts are tagged vip?\" and \"tell me about Ada Lovelace\".";

/// One step of an operator turn.
pub(super) fn assistant_step(t: &Turn) -> Completion {
    if t.prompt.starts_with(super::replan::REPLAN_PREFIX) {
        return super::replan::replan_step(t);
    }
    // After a rejection, the request is the last plan asked for before it.
    let intent = match t.rejection() {
        Some(_) => t
            .earlier
            .iter()
            .rev()
            .skip(1)
            .map(|m| parse(m))
            .find(Intent::is_plan)
            .unwrap_or(Intent::Unknown),
        None => parse(t.prompt),
    };
    match intent {
        Intent::TagQuiet { days, tag } => tag_step(t, days, &tag),
        Intent::FollowUpQuoteLeads => campaign_step(t),
        Intent::TextTagged { tag, about } => {
            super::campaign::tagged_campaign_step(t, &tag, &about)
        }
        Intent::Steps(r) => super::steps::steps_step(t, &r),
        Intent::CountContacts => lookup(t, json!({}), |r| {
            let n = r["count"].as_u64().unwrap_or(0) as usize;
            format!("You have {}.", crate::format::count(n, "contact", "contacts"))
        }),
        Intent::OptedOut => lookup(t, json!({"opted_out": true}), |r| {
            listing(r, "contact has opted out", "contacts have opted out")
        }),
        Intent::Quiet { days } => lookup(t, json!({"no_reply_in_days": days}), move |r| {
            listing(
                r,
                &format!("contact has not replied in {days} days"),
                &format!("contacts have not replied in {days} days"),
            )
        }),
        Intent::Tagged { tag } => lookup(t, json!({"tag": tag.clone()}), move |r| {
            listing(
                r,
                &format!("contact is tagged \"{tag}\""),
                &format!("contacts are tagged \"{tag}\""),
            )
        }),
        Intent::AboutContact { name } => about(t, &name),
        Intent::Help => say(CAPABILITIES),
        Intent::Unknown => say(format!(
            "I can't do that one: it needs a hosted model (set LLM_PROVIDER, see the README). {CAPABILITIES}"
        )),
    }
}

/// Calls `find_contacts` with `args`, then answers from its result.
fn lookup(t: &Turn, args: Value, answer: impl Fn(&Value) -> String) -> Completion {
    if !t.has("find_contacts") {
        return say("I can't look up contacts here.");
    }
    match t.result_of("find_contacts") {
        Some(r) if r.get("error").is_none() => say(answer(&r)),
        Some(r) => say(format!("The lookup failed: {}", r["error"])),
        None => t.call("find_contacts", args),
    }
}

fn listing(r: &Value, one: &str, many: &str) -> String {
    let count = r["count"].as_u64().unwrap_or(0);
    let names: Vec<&str> = r["contacts"]
        .as_array()
        .map(|c| c.iter().filter_map(|c| c["name"].as_str()).collect())
        .unwrap_or_default();
    match count {
        0 => format!("No {many}."),
        1 => format!("1 {one}: {}.", names.join(", ")),
        n if n as usize > names.len() => {
            format!("{n} {many}, among them: {}.", names.join(", "))
        }
        n => format!("{n} {many}: {}.", names.join(", ")),
    }
}

fn about(t: &Turn, name: &str) -> Completion {
    if !t.has("search_contacts") {
        return say("I can't look up contacts here.");
    }
    let Some(found) = t.result_of("search_contacts") else {
        return t.call("search_contacts", json!({ "query": name }));
    };
    let people = found["contacts"].as_array().cloned().unwrap_or_default();
    if people.is_empty() {
        return say(format!("I found nobody called \"{name}\"."));
    }
    let count = found["count"].as_u64().unwrap_or(people.len() as u64);
    let lines: Vec<String> = people
        .iter()
        .take(5)
        .map(|c| {
            let tags: Vec<&str> = c["tags"]
                .as_array()
                .map(|t| t.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            format!(
                "{}: {}{}{}",
                c["name"].as_str().unwrap_or(""),
                c["phone"].as_str().unwrap_or("no phone"),
                if tags.is_empty() {
                    String::new()
                } else {
                    format!(", tagged {}", tags.join(", "))
                },
                if c["opted_out"] == true {
                    ", opted out"
                } else {
                    ""
                }
            )
        })
        .collect();
    if count > lines.len() as u64 {
        return say(format!(
            "{count} contacts match \"{name}\"; the first {}:\n{}",
            lines.len(),
            lines.join("\n")
        ));
    }
    say(lines.join("\n"))
}

/// Plans a tag for everyone quiet for `days`; after a rejection, leaves out anyone named.
fn tag_step(t: &Turn, days: i64, tag: &str) -> Completion {
    if t.called("present_plan") {
        return say("I've submitted the plan. Nothing changes until it is approved.");
    }
    if !t.has("present_plan") {
        return say("That changes many contacts, so it needs a plan, and planning is off for me. Turn on Planning in my settings.");
    }
    if t.has("enter_plan_mode") && !t.called("enter_plan_mode") {
        return t.call(
            "enter_plan_mode",
            json!({"reason": "Tagging many contacts is high-impact."}),
        );
    }
    let Some(found) = t.result_of("find_quiet_contacts") else {
        return t.call("find_quiet_contacts", json!({ "days": days }));
    };
    let rejection = t.rejection();
    let count = found["count"].as_u64().unwrap_or(0);
    let listed = found["quiet"].as_array().map_or(0, Vec::len) as u64;
    if count > listed {
        return tag_segment_step(t, days, tag, &found, count);
    }
    let changes: Vec<Value> = found["quiet"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|c| {
            let name = c["name"].as_str().unwrap_or("").to_owned();
            let named = rejection.as_ref().is_some_and(|r| {
                name.split_whitespace()
                    .any(|w| w.len() > 2 && r.contains(&w.to_lowercase()))
            });
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
    t.call(
        "present_plan",
        json!({
            "title": format!("Tag {included} quiet contacts as \"{tag}\""),
            "summary": format!("Contacts with no reply in the last {days} days get the \"{tag}\" tag. Opted-out contacts are left out.{}", if rejection.is_some() { " Revised after review." } else { "" }),
            "action": {"type": "tag_contacts", "changes": changes}
        }),
    )
}

/// More quiet contacts than a list may name: the plan gives the filter, and the server resolves
/// it; anyone named at review (among those listed) is left out by hand.
fn tag_segment_step(t: &Turn, days: i64, tag: &str, found: &Value, count: u64) -> Completion {
    let rejection = t.rejection();
    let exclude: Vec<Value> = found["quiet"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|c| {
            let name = c["name"].as_str().unwrap_or("");
            rejection.as_ref().is_some_and(|r| {
                name.split_whitespace()
                    .any(|w| w.len() > 2 && r.contains(&w.to_lowercase()))
            })
        })
        .map(|c| json!({"contact_id": c["id"], "reason": "excluded at review"}))
        .collect();
    t.call(
        "present_plan",
        json!({
            "title": format!("Tag {count} quiet contacts as \"{tag}\""),
            "summary": format!("Everyone with no reply in the last {days} days gets the \"{tag}\" tag; the server counts them exactly when you approve. Opted-out contacts are left out.{}", if rejection.is_some() { " Revised after review." } else { "" }),
            "action": {"type": "tag_contacts", "segment": {"filter": {"no_reply_within_days": days}, "exclude": exclude}, "add_tags": [tag]}
        }),
    )
}
