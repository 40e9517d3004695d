//! The step catalog: what a step plan is validated against, built from the tools a plan's steps
//! may call (`ToolSource::for_steps`), with each tool's argument and output schemas and whether it
//! mutates (from the tool, never from the model).
use crate::ai_agent::tools::Toolset;
use crate::steps::validate::{ToolCatalog, ToolSpec};
use serde_json::Value;

/// What a step plan is validated against. A step's arguments are held to the tool's schema
/// strictly: a key the tool does not take (a typo, an invented option) is an error.
pub fn step_catalog(tools: &Toolset) -> ToolCatalog {
    tools
        .iter()
        .map(|t| {
            let def = t.def();
            let spec = ToolSpec {
                name: def.name.clone(),
                mutates: t.mutates(),
                arguments: strict(def.parameters),
                output: t.output_schema(),
            };
            (def.name, spec)
        })
        .collect()
}

pub fn strict(mut schema: Value) -> Value {
    if let Some(o) = schema.as_object_mut() {
        if o.contains_key("properties") && !o.contains_key("additionalProperties") {
            o.insert("additionalProperties".into(), Value::Bool(false));
        }
    }
    schema
}
