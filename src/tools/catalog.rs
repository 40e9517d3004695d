//! Which tools a plan's steps may call: the same implementations a turn runs. Their schemas and
//! whether each mutates come from them, never from the model (`plans::steps::catalog`).
use super::{
    AddNote, CheckOptOut, FindContacts, FindQuietContacts, GetContact, ListTags, RecentMessages,
    ScheduleText, SearchContacts, SendSms, SetCustomField, StartCampaign, TagContacts,
};
use crate::ai_agent::tools::{AgentTool, Toolset};

/// The tools a plan's steps may call: the organisation-wide reads and the writes.
pub fn step_tools() -> Toolset {
    let tools: [Box<dyn AgentTool>; 13] = [
        Box::new(GetContact),
        Box::new(SearchContacts),
        Box::new(RecentMessages),
        Box::new(CheckOptOut),
        Box::new(FindQuietContacts),
        Box::new(FindContacts),
        Box::new(ListTags),
        Box::new(TagContacts),
        Box::new(SetCustomField),
        Box::new(AddNote),
        Box::new(SendSms),
        Box::new(StartCampaign),
        Box::new(ScheduleText),
    ];
    tools.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::catalog::step_catalog;
    use crate::steps::model::PlanStep;
    use crate::steps::validate::validate;
    use serde_json::json;
    use serde_json::Value;

    #[test]
    fn the_catalog_comes_from_the_registry_with_working_schemas() {
        let catalog = step_catalog(&step_tools());
        let writes: Vec<&str> = catalog
            .values()
            .filter(|t| t.mutates)
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(
            writes,
            [
                "add_note",
                "schedule_text",
                "send_sms",
                "set_custom_field",
                "start_campaign",
                "tag_contacts"
            ]
        );
        for spec in catalog.values() {
            for schema in [&spec.arguments, &spec.output] {
                jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{}: {e}", spec.name));
            }
            assert!(
                spec.output.get("type").is_some() || spec.output.get("$ref").is_some(),
                "{} declares what it answers: {}",
                spec.name,
                spec.output
            );
        }
        // The planning tools are not steps: a plan cannot present a plan.
        assert!(!catalog.contains_key("present_plan") && !catalog.contains_key("enter_plan_mode"));
    }

    fn step(id: &str, tool: &str, args: Value) -> PlanStep {
        PlanStep::new(id, id, tool, args)
    }

    /// The demo request's shape: find, tag the whole list, text each one found.
    #[test]
    fn a_fan_out_plan_over_the_real_tools_validates() {
        let plan = vec![
            step(
                "find",
                "find_contacts",
                json!({"tag": "vip", "no_reply_in_days": 14}),
            ),
            step(
                "tag",
                "tag_contacts",
                json!({"contacts": "{{find.result.contacts}}", "add": ["follow-up"]}),
            ),
            step(
                "text_0",
                "send_sms",
                json!({
                    "contact_id": "{{find.result.contacts[0].id}}",
                    "body": "Hi {{find.result.contacts[0].name}}, checking in.",
                    "phone_number_id": "00000000-0000-0000-0000-000000000001"
                }),
            ),
            step(
                "note",
                "add_note",
                json!({"contact_id": "{{tag.result.contacts[0].id}}", "note": "Texted a check-in"}),
            ),
        ];
        assert_eq!(validate(&plan, &step_catalog(&step_tools())), vec![]);
    }

    #[test]
    fn the_real_tools_name_every_problem() {
        let plan = vec![
            step("find", "find_contacts", json!({"tagg": "vip"})),
            step("zap", "delete_everything", json!({})),
            step(
                "tag",
                "tag_contacts",
                json!({"contacts": "{{find.result.people}}", "add": ["x"]}),
            ),
            step(
                "count",
                "add_note",
                json!({"contact_id": "{{find.result.count}}", "note": "x"}),
            ),
            step(
                "ghost",
                "add_note",
                json!({"contact_id": "{{nobody.result.id}}", "note": "x"}),
            ),
            step(
                "note",
                "add_note",
                json!({"contact_id": "{{find.result.contacts[0].id}}"}),
            ),
        ];
        let issues = validate(&plan, &step_catalog(&step_tools()));
        let has = |step: &str, needle: &str| {
            assert!(
                issues
                    .iter()
                    .any(|i| i.step == step && i.message.contains(needle)),
                "no `{needle}` for `{step}` in {issues:#?}"
            )
        };
        has("find", "tagg");
        has("zap", "`delete_everything` is not a tool");
        has("tag", "have no `result.people`");
        has("count", "takes string but {{find.result.count}} is integer");
        has("ghost", "`nobody`, which is not a step");
        has("note", "note");
    }
}
