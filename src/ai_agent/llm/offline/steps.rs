//! The offline model's step plans: it finds the contacts first (a read, while planning), then
//! presents a graph whose later steps refer to that result: tag the whole list, and one step
//! (or two) per contact found, e.g. text each a check-in, then note that it did.
use super::assistant::{say, Turn};
use super::intent::StepRequest;
use crate::ai_agent::llm::Completion;
use serde_json::{json, Value};

fn step(id: &str, intent: String, tool: &str, arguments: Value) -> Value {
    json!({"id": id, "intent": intent, "tool": tool, "arguments": arguments})
}

pub(super) fn steps_step(t: &Turn, r: &StepRequest) -> Completion {
    if let Some(out) = t.result_of("present_plan") {
        return match out.get("error") {
            Some(e) => say(format!("The plan was refused: {e}")),
            None => say("I've submitted the plan. Nothing changes until it is approved, and each step that writes waits for you to confirm it."),
        };
    }
    if !t.has("present_plan") {
        return say("That changes contacts, so it needs a plan, and planning is off for me. Turn on Planning in my settings.");
    }
    if t.has("enter_plan_mode") && !t.called("enter_plan_mode") {
        return t.call(
            "enter_plan_mode",
            json!({"reason": "It tags and writes to several contacts."}),
        );
    }
    let mut find = json!({"tag": r.find_tag, "limit": 20});
    if let Some(d) = r.quiet_days {
        find["no_reply_in_days"] = json!(d);
    }
    let Some(found) = t.result_of("find_contacts") else {
        return t.call("find_contacts", find);
    };
    let n = found["contacts"].as_array().map_or(0, Vec::len);
    let who = match r.quiet_days {
        Some(d) => format!("contacts tagged \"{}\" quiet for {d} days", r.find_tag),
        None => format!("contacts tagged \"{}\"", r.find_tag),
    };
    if n == 0 {
        return say(format!("I found no {who}, so there is nothing to plan."));
    }
    let mut steps = vec![
        step("find", format!("Find the {who}"), "find_contacts", find),
        step(
            "tag",
            format!("Tag them \"{}\"", r.new_tag),
            "tag_contacts",
            json!({"contacts": "{{find.result.contacts}}", "add": [r.new_tag]}),
        ),
    ];
    for i in 0..n {
        let person = format!("{{{{find.result.contacts[{i}].id}}}}");
        let name = found["contacts"][i]["name"].as_str().unwrap_or("them");
        if r.text_each {
            steps.push(step(
                &format!("text_{i}"),
                format!("Text {name} a check-in"),
                "send_sms",
                json!({"contact_id": person, "body": format!("Hi {{{{find.result.contacts[{i}].name}}}}, just checking in. How are you doing?")}),
            ));
            steps.push(step(
                &format!("note_{i}"),
                format!("Note the check-in on {name}'s record"),
                "add_note",
                json!({"contact_id": person, "note": format!("Texted a check-in (message {{{{text_{i}.result.message_id}}}}).")}),
            ));
        } else {
            steps.push(step(
                &format!("note_{i}"),
                format!("Note the follow-up on {name}'s record"),
                "add_note",
                json!({"contact_id": person, "note": format!("Tagged {} for a follow-up.", r.new_tag)}),
            ));
        }
    }
    let then = if r.text_each {
        "text each a check-in and note it"
    } else {
        "note each one"
    };
    t.call(
        "present_plan",
        json!({
            "title": format!("Tag {n} {who} as \"{}\", then {then}", r.new_tag),
            "summary": format!("Found {n} {who}; the later steps use that list. Texts and notes each wait for your confirmation."),
            "action": {"type": "steps", "mode": "eager", "steps": steps}
        }),
    )
}
