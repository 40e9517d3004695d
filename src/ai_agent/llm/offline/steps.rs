//! The offline model's step plans: it finds the contacts first (a read, while planning), then
//! presents a graph whose later steps refer to that result: tag the whole list, and one step
//! (or two) per contact found, e.g. text each a check-in, then note it. Past a handful of
//! contacts the later steps run once per contact (`for_each`): four steps whatever their number.
use super::assistant::{say, Turn};
use super::intent::StepRequest;
use crate::ai_agent::llm::Completion;
use serde_json::{json, Value};

/// The most contacts the plan's list holds (the rest would need a segment).
const LIST: u64 = 500;
/// Up to this many contacts, a step per contact; more, one `for_each` step per kind of write.
const PER_CONTACT_MAX: usize = 5;

fn step(id: &str, intent: String, tool: &str, arguments: Value) -> Value {
    json!({"id": id, "intent": intent, "tool": tool, "arguments": arguments})
}

fn each(mut step: Value, source: Value) -> Value {
    step["for_each"] = source;
    step
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
    let mut find = json!({"tag": r.find_tag, "limit": LIST});
    if let Some(d) = r.quiet_days {
        find["no_reply_in_days"] = json!(d);
    }
    let Some(found) = t.result_of("find_contacts") else {
        return t.call("find_contacts", find);
    };
    let n = found["contacts"].as_array().map_or(0, Vec::len);
    let total = found["count"].as_u64().unwrap_or(n as u64);
    let who = match r.quiet_days {
        Some(d) => format!("contacts tagged \"{}\" quiet for {d} days", r.find_tag),
        None => format!("contacts tagged \"{}\"", r.find_tag),
    };
    if n == 0 {
        return say(format!("I found no {who}, so there is nothing to plan."));
    }
    // More than the list holds: the server resolves the same filter instead.
    let whole = total > n as u64;
    let source = if whole {
        let mut f = json!({"tags_any": [r.find_tag]});
        if let Some(d) = r.quiet_days {
            f["no_reply_within_days"] = json!(d);
        }
        json!({"filter": f})
    } else {
        json!("{{find.result.contacts}}")
    };
    let tag = if whole {
        let s = step(
            "tag",
            format!("Tag them \"{}\"", r.new_tag),
            "tag_contacts",
            json!({"contacts": ["{{item.id}}"], "add": [r.new_tag]}),
        );
        each(s, source.clone())
    } else {
        step(
            "tag",
            format!("Tag them \"{}\"", r.new_tag),
            "tag_contacts",
            json!({"contacts": "{{find.result.contacts}}", "add": [r.new_tag]}),
        )
    };
    let mut steps = vec![
        step("find", format!("Find the {who}"), "find_contacts", find),
        tag,
    ];
    if n <= PER_CONTACT_MAX {
        // A handful: a step per contact, so each text can be confirmed or skipped on its own.
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
    } else if r.text_each {
        // More: one step per kind of write, run once per contact, whatever their number.
        steps.push(each(
            step(
                "text",
                "Text each a check-in".into(),
                "send_sms",
                json!({"contact_id": "{{item.id}}", "body": "Hi {{item.name}}, just checking in. How are you doing?"}),
            ),
            source.clone(),
        ));
        steps.push(each(
            step(
                "note",
                "Note the check-in on each record it reached".into(),
                "add_note",
                json!({"contact_id": "{{item.id}}", "note": "Texted a check-in (message {{text.result.message_id}})."}),
            ),
            json!("{{text.result.items}}"),
        ));
    } else {
        steps.push(each(
            step(
                "note",
                "Note the follow-up on each record".into(),
                "add_note",
                json!({"contact_id": "{{item.id}}", "note": format!("Tagged {} for a follow-up.", r.new_tag)}),
            ),
            source,
        ));
    }
    let then = if r.text_each {
        "text each a check-in and note it"
    } else {
        "note each one"
    };
    let cut = if whole {
        format!(" The server resolves all {total} of them when each step starts.")
    } else {
        String::new()
    };
    t.call(
        "present_plan",
        json!({
            "title": format!("Tag {total} {who} as \"{}\", then {then}", r.new_tag),
            "summary": format!("Found {total} {who}; the later steps run once for each of them. Texts and notes each wait for your confirmation.{cut}"),
            "action": {"type": "steps", "mode": "eager", "steps": steps}
        }),
    )
}
