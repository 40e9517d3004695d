//! `list_step_tools`: the step catalog in the planner's view (issue 29 §1). A planner writing a
//! step plan reads, from the same registry the runner calls, every tool a step may call: its
//! name, what it does, whether it changes anything, and the JSON Schemas of its arguments (held
//! strictly: a key the tool does not take is refused) and of its result (what `{{step.result.…}}`
//! may name). The write tools stay uncallable while planning: this only describes them.
//!
//! Why a read tool and not a `oneOf` in `present_plan`'s schema: the catalog then costs a
//! planning turn's requests nothing until the model asks for it, and a tag or campaign plan never
//! pays for it (`catalog_in_the_planners_view_costs_least_as_a_read_tool` measures both).
use super::catalog::step_tools;
use crate::ai_agent::llm::ToolDef;
use crate::ai_agent::tools::{AgentTool, EffectKey, ToolCtx, ToolError};
use crate::steps::catalog::strict;
use serde_json::{json, Value};

pub const LIST_STEP_TOOLS: &str = "list_step_tools";

pub struct ListStepTools;

/// The catalog as the planner reads it.
pub fn step_catalog_view() -> Value {
    let tools: Vec<Value> = step_tools()
        .iter()
        .map(|t| {
            let def = t.def();
            json!({
                "name": def.name,
                "description": def.description,
                "mutates": t.mutates(),
                "arguments": strict(def.parameters),
                "result": t.output_schema(),
            })
        })
        .collect();
    json!({ "tools": tools })
}

#[async_trait::async_trait]
impl AgentTool for ListStepTools {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: LIST_STEP_TOOLS.into(),
            description: "The tools a step of a step plan may call: for each, what it does, whether it changes anything, and the JSON Schemas of its arguments and of its result. Call it before you write a step plan.".into(),
            parameters: json!({"type": "object", "properties": {}}),
        }
    }
    /// Not a step tool.
    fn output_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn mutates(&self) -> bool {
        false
    }
    /// A step plan reaches the whole organisation: never offered in a reply to a contact.
    fn reads_org_wide(&self) -> bool {
        true
    }
    async fn call(
        &self,
        ctx: &ToolCtx,
        _key: &EffectKey,
        _args: Value,
    ) -> Result<Value, ToolError> {
        super::read::org_wide(ctx)?;
        Ok(step_catalog_view())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plans::planning_tools::PresentPlan;

    /// The two ways issue 29 offered to put the catalog in the planner's view, measured: the
    /// catalog as a `oneOf` over (tool, arguments) inside `present_plan`'s schema, sent with every
    /// request of every planning turn; or this read tool, whose definition is sent with every
    /// request and whose answer enters a turn's history once, when the model asks.
    #[test]
    fn catalog_in_the_planners_view_costs_least_as_a_read_tool() {
        let size = |v: &Value| v.to_string().len();
        let present = PresentPlan.def();
        let plain = size(&json!([
            present.name,
            present.description,
            present.parameters
        ]));
        // present_plan with each step held to one tool's arguments.
        let mut with_one_of = present.parameters.clone();
        let variants: Vec<Value> = step_catalog_view()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                json!({"description": t["description"], "properties": {
                    "tool": {"const": t["name"]}, "arguments": t["arguments"]}})
            })
            .collect();
        let key = if with_one_of.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let defs = with_one_of[key]
            .get_mut("PlanStep")
            .expect("present_plan's schema defines PlanStep");
        defs["oneOf"] = Value::Array(variants);
        let one_of = size(&json!([present.name, present.description, with_one_of]));
        let tool = ListStepTools.def();
        let tool_def = size(&json!([tool.name, tool.description, tool.parameters]));
        let answer = size(&step_catalog_view());
        println!(
            "planner's view, bytes per request: present_plan alone {plain}; with the catalog as oneOf {one_of} \
             (+{}); with list_step_tools {} (+{tool_def}), and its answer {answer} once it is asked for",
            one_of - plain,
            plain + tool_def
        );
        assert!(tool_def < (one_of - plain) / 10);
        // Every write tool a step may call is in it, with its schemas.
        let view = step_catalog_view();
        let writes: Vec<&str> = view["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["mutates"] == true)
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            writes,
            [
                "tag_contacts",
                "set_custom_field",
                "add_note",
                "send_sms",
                "start_campaign",
                "schedule_text"
            ]
        );
        for t in view["tools"].as_array().unwrap() {
            assert_eq!(t["arguments"]["type"], "object", "{t}");
            assert!(t["result"].is_object(), "{t}");
        }
    }

    /// The worked example the planner is shown passes the same checks as any presented plan.
    #[test]
    fn the_planning_blocks_example_follows_the_catalog() {
        let block = crate::ai_agent::prompt::PLANNING_BLOCK;
        let example = &block[block.rfind("[{").unwrap()..];
        let steps: Vec<crate::steps::model::PlanStep> = serde_json::from_str(example).unwrap();
        assert_eq!(steps.len(), 2);
        crate::plans::service::checked_steps(
            &crate::steps::catalog::step_catalog(&step_tools()),
            &steps,
        )
        .unwrap();
    }
}
