//! `search_knowledge`: the agent looks in the business's knowledge again (its FAQs, facts,
//! documents and web pages), for a question of its own. What it finds is the business's own
//! words, fenced and labelled with their source, and a reply may use its figures after.
use super::output::schema_of;
use super::{AgentTool, EffectKey, ToolCtx, ToolError};
use crate::ai_agent::llm::ToolDef;
use crate::knowledge::ground::Grounding;
use crate::knowledge::model::HITS_MAX;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

pub struct SearchKnowledge;

/// What `search_knowledge` answers: the passages found, best first, each fenced with its source.
#[derive(Serialize, JsonSchema)]
pub struct KnowledgeFound {
    pub count: usize,
    pub passages: Vec<String>,
}

#[async_trait::async_trait]
impl AgentTool for SearchKnowledge {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: "search_knowledge".into(),
            description: "Search the business's own knowledge (its FAQs, facts, documents and web pages) for a question. Answers the best passages with their sources; answer only from what it finds.".into(),
            parameters: json!({"type": "object", "required": ["question"], "properties": {
                "question": {"type": "string", "minLength": 1, "maxLength": 500}
            }}),
        }
    }
    fn output_schema(&self) -> Value {
        schema_of::<KnowledgeFound>()
    }
    fn mutates(&self) -> bool {
        false
    }
    async fn call(&self, ctx: &ToolCtx, _key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let question = args
            .get("question")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|q| !q.is_empty())
            .ok_or_else(|| ToolError::BadArguments("question is required".into()))?;
        if question.chars().count() > 500 {
            return Err(ToolError::BadArguments(
                "question is over 500 characters".into(),
            ));
        }
        let sources = crate::ai_agent::settings::AgentSettings::of(&ctx.agent).knowledge_sources;
        let hits = crate::knowledge::retrieve::find(
            &ctx.state,
            ctx.organization_id,
            question,
            sources.as_deref(),
            HITS_MAX,
        )
        .await?;
        ctx.knowledge
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(&hits);
        Ok(serde_json::to_value(KnowledgeFound {
            count: hits.len(),
            passages: hits.iter().map(Grounding::fence).collect(),
        })
        .unwrap_or_default())
    }
}
