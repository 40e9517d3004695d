//! The offline model's campaign: a plan following up with quiet quote leads (every candidate in
//! or out, with a reason), and each campaign draft the drafter asks for.
use super::assistant::{say, Turn};
use super::call;
use crate::ai_agent::llm::Completion;
use serde_json::{json, Value};

pub const FOLLOW_UP_CONCEPT: &str = "A friendly follow-up on the quote we sent: ask whether they have any questions and offer to book a time that suits them.";

/// What every campaign plan's turn does first: ends once the plan is in, says so when planning
/// is off, and enters plan mode. None: go on to plan.
fn before_planning(t: &Turn) -> Option<Completion> {
    if t.called("present_plan") {
        return Some(say("I've submitted the campaign plan. Nothing is sent until you approve it and review the drafts."));
    }
    if !t.has("present_plan") {
        return Some(say(
            "A campaign texts many people, so it needs a plan, and planning is off for me.",
        ));
    }
    if t.has("enter_plan_mode") && !t.called("enter_plan_mode") {
        return Some(t.call(
            "enter_plan_mode",
            json!({"reason": "A campaign texts many people."}),
        ));
    }
    None
}

/// How the concept of a campaign about something begins.
const NOTE_ABOUT: &str = "A short, friendly note about ";

/// The concept of a campaign about `about`.
pub fn note_about(about: &str) -> String {
    format!("{NOTE_ABOUT}{about}.")
}

/// Plans a campaign to everyone tagged `tag` about `about`: the tag is the audience's filter,
/// resolved by the server (who has opted out or gave no consent is left out there).
pub(super) fn tagged_campaign_step(t: &Turn, tag: &str, about: &str) -> Completion {
    if let Some(done) = before_planning(t) {
        return done;
    }
    let Some(found) = t.result_of("find_contacts") else {
        return t.call("find_contacts", json!({"tag": tag, "limit": 1}));
    };
    let count = found["count"].as_u64().unwrap_or(0);
    if count == 0 {
        return say(format!(
            "No contact is tagged \"{tag}\", so there is nobody to text. Tag them first, or name another tag."
        ));
    }
    let revised = if t.rejection().is_some() {
        " Revised after review."
    } else {
        ""
    };
    t.call(
        "present_plan",
        json!({
            "title": format!("Text everyone tagged {tag} about {about}"),
            "summary": format!("{count} {} tagged {tag} get a short note about {about}, each drafted for them.{revised}", if count == 1 { "contact is" } else { "contacts are" }),
            "action": {"type": "bulk_sms_campaign",
                "segment": {"filter": {"tags_any": [tag]}},
                "message_concept": note_about(about)}
        }),
    )
}

/// Plans a campaign to quiet quote leads: every candidate in or out, with a reason.
pub(super) fn campaign_step(t: &Turn) -> Completion {
    if let Some(done) = before_planning(t) {
        return done;
    }
    let Some(quiet) = t.result_of("find_quiet_contacts") else {
        return t.call("find_quiet_contacts", json!({"days": 30}));
    };
    let Some(quotes) = t.result_of("find_contacts") else {
        return t.call("find_contacts", json!({"tag": "quote", "limit": 5000}));
    };
    let revising = t.rejection().is_some();
    let rejection = t.rejection().unwrap_or_default();
    // More leads than a list may name: the audience is the filter, resolved by the server.
    if quotes["count"].as_u64().unwrap_or(0) > crate::contacts::model::HAND_PICKED_MAX as u64 {
        return t.call(
            "present_plan",
            json!({
                "title": format!("Follow up with quiet quote leads ({} tagged quote)", quotes["count"]),
                "summary": format!("Quote leads with no reply in 30 days get a personal follow-up; the server resolves who that is.{}", if revising { " Revised after review." } else { "" }),
                "action": {"type": "bulk_sms_campaign",
                    "segment": {"filter": {"tags_any": ["quote"], "no_reply_within_days": 30}},
                    "message_concept": FOLLOW_UP_CONCEPT}
            }),
        );
    }
    let quiet_ids: Vec<&str> = quiet["quiet"]
        .as_array()
        .map(|a| a.iter().filter_map(|c| c["id"].as_str()).collect())
        .unwrap_or_default();
    let quote_list = quotes["contacts"].as_array().cloned().unwrap_or_default();
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
    t.call(
        "present_plan",
        json!({
            "title": format!("Follow up with {n} quiet quote {}", if n == 1 { "lead" } else { "leads" }),
            "summary": format!("Quote leads with no reply in 30 days get a personal follow-up.{}", if revising { " Revised after review." } else { "" }),
            "action": {"type": "bulk_sms_campaign", "audience": audience, "message_concept": FOLLOW_UP_CONCEPT}
        }),
    )
}

/// One campaign draft: a greeting by first name and the concept, as the drafter's tool call.
pub(super) fn draft_step(system: &str, prompt: &str, step: usize) -> Completion {
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
        .trim();
    let about = concept
        .strip_prefix(NOTE_ABOUT)
        .map(|r| r.trim_end_matches('.'));
    let body = if concept.to_lowercase().contains("quote") {
        format!("Hi {first}, just checking in on the quote we sent. Any questions? Happy to book a time that suits you.")
    } else if let Some(about) = about {
        format!("Hi {first}, a quick note about {about}. Any questions, just reply to this text.")
    } else {
        format!("Hi {first}, {}", concept.to_lowercase())
    };
    call(step, "submit_draft", json!({"text": body}))
}
