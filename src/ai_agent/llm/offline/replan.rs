//! The offline model re-planning a step plan that failed (or that a person sent back): from the
//! whiteboard in the request, it drops each failed step and what it blocked, except a note,
//! which it rewrites to record why the step it depended on did not happen. Completed steps stay
//! as they were (the runtime keeps them frozen).
use super::assistant::{say, Turn};
use crate::ai_agent::events::{UNTRUSTED_CLOSE, UNTRUSTED_OPEN};
use crate::ai_agent::llm::Completion;
use serde_json::{json, Value};

/// The request's prefix (see `plans::replan`).
pub const REPLAN_PREFIX: &str = "Re-plan ";

/// The plan id, its title and the whiteboard's steps, read from the request.
fn read(prompt: &str) -> Option<(String, String, Vec<Value>)> {
    let rest = prompt.strip_prefix(REPLAN_PREFIX)?;
    let id = rest.split_whitespace().next()?.to_owned();
    let title = prompt
        .split_once("The whiteboard of \"")
        .and_then(|(_, t)| t.split_once("\" ("))
        .map(|(t, _)| t.to_owned())
        .unwrap_or_else(|| "the plan".into());
    let (_, fenced) = prompt.split_once(UNTRUSTED_OPEN)?;
    let (board, _) = fenced.rsplit_once(UNTRUSTED_CLOSE)?;
    let steps: Vec<Value> = serde_json::from_str(board.trim()).ok()?;
    Some((id, title, steps))
}

/// The step a blocked step waited on, from its error ("depends on failed step X").
fn blocker(step: &Value) -> Option<&str> {
    step["error"]
        .as_str()?
        .rsplit_once(" step ")
        .map(|(_, id)| id.trim())
}

fn refers_to(step: &Value, ids: &[String]) -> bool {
    let args = step["arguments"].to_string();
    ids.iter().any(|id| args.contains(&format!("{{{{{id}.")))
}

pub(super) fn replan_step(t: &Turn) -> Completion {
    if let Some(out) = t.result_of("present_plan") {
        return match out.get("error") {
            Some(e) => say(format!("The revised plan was refused: {e}")),
            None => say("I've submitted a revised plan: what completed stays as it was, and each changed step waits for you to confirm it."),
        };
    }
    let Some((id, title, board)) = read(t.prompt) else {
        return say("I could not read that plan's whiteboard, so I cannot revise it.");
    };
    let status = |s: &Value| s["status"].as_str().unwrap_or_default().to_owned();
    let failed: Vec<&Value> = board.iter().filter(|s| status(s) == "failed").collect();
    let mut dropped: Vec<String> = failed
        .iter()
        .filter_map(|s| s["id"].as_str().map(str::to_owned))
        .collect();
    let mut steps = Vec::new();
    for s in &board {
        match status(s).as_str() {
            "completed" | "failed" => {}
            "blocked" => {
                let cause = blocker(s).and_then(|b| board.iter().find(|x| x["id"] == b));
                if let (Some(cause), "add_note") = (cause, s["tool"].as_str().unwrap_or("")) {
                    let mut note = s.clone();
                    note["arguments"]["note"] = json!(format!(
                        "Not done: \"{}\" did not happen ({}).",
                        cause["intent"].as_str().unwrap_or("a step"),
                        cause["error"].as_str().unwrap_or("it failed")
                    ));
                    if !refers_to(&note, &dropped) {
                        steps.push(note);
                        continue;
                    }
                }
                dropped.push(s["id"].as_str().unwrap_or_default().to_owned());
            }
            _ if refers_to(s, &dropped) => {
                dropped.push(s["id"].as_str().unwrap_or_default().to_owned());
            }
            _ => steps.push(s.clone()),
        }
    }
    if steps.is_empty() {
        return say(format!(
            "Nothing in \"{title}\" can be done differently: {} step(s) failed for reasons I cannot change.",
            failed.len()
        ));
    }
    let steps: Vec<Value> = steps
        .into_iter()
        .map(|s| json!({"id": s["id"], "intent": s["intent"], "tool": s["tool"], "arguments": s["arguments"]}))
        .collect();
    t.call(
        "present_plan",
        json!({
            "title": format!("Revised: {title}"),
            "summary": format!("{} step(s) failed; I dropped them and rewrote what they blocked.", failed.len()),
            "revises_plan_id": id,
            "action": {"type": "steps", "mode": "eager", "steps": steps},
        }),
    )
}
