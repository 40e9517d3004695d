//! A scripted model for tests: plays back a queue of completions, adversarial ones included.
use super::{ChatMessage, ChatModel, Completion, LlmError, ToolCall, ToolDef};
use std::collections::VecDeque;
use std::sync::Mutex;

#[derive(Default)]
pub struct ScriptedModel {
    script: Mutex<VecDeque<Result<Completion, LlmError>>>,
    /// What each call saw: the tool names offered.
    pub seen_tools: Mutex<Vec<Vec<String>>>,
    pub seen_systems: Mutex<Vec<String>>,
    /// How many messages each call was given.
    pub seen_message_counts: Mutex<Vec<usize>>,
    /// The tool results each call was given, as the model read them.
    pub seen_tool_results: Mutex<Vec<String>>,
}

impl ScriptedModel {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&self, step: Result<Completion, LlmError>) -> &Self {
        self.script.lock().expect("script").push_back(step);
        self
    }

    /// A completion that calls one tool with raw JSON arguments.
    pub fn call(&self, name: &str, arguments: &str) -> &Self {
        let id = format!("call_{}", uuid::Uuid::new_v4().simple());
        self.push(Ok(Completion {
            text: None,
            tool_calls: vec![ToolCall {
                id,
                name: name.into(),
                arguments: arguments.into(),
            }],
        }))
    }

    pub fn say(&self, text: &str) -> &Self {
        self.push(Ok(Completion {
            text: Some(text.into()),
            tool_calls: vec![],
        }))
    }

    pub fn remaining(&self) -> usize {
        self.script.lock().expect("script").len()
    }

    /// Every tool result the model was given, as it read them.
    pub fn seen_messages(&self) -> Vec<String> {
        self.seen_tool_results.lock().expect("seen").clone()
    }
}

#[async_trait::async_trait]
impl ChatModel for ScriptedModel {
    fn label(&self) -> String {
        "scripted".into()
    }

    async fn complete(
        &self,
        system: &str,
        messages: &[ChatMessage],
        tools: &[ToolDef],
    ) -> Result<Completion, LlmError> {
        self.seen_message_counts
            .lock()
            .expect("seen")
            .push(messages.len());
        self.seen_tool_results
            .lock()
            .expect("seen")
            .extend(messages.iter().filter_map(|m| match m {
                ChatMessage::Tool { content, .. } => Some(content.clone()),
                _ => None,
            }));
        self.seen_tools
            .lock()
            .expect("seen")
            .push(tools.iter().map(|t| t.name.clone()).collect());
        self.seen_systems
            .lock()
            .expect("seen")
            .push(system.to_owned());
        self.script
            .lock()
            .expect("script")
            .pop_front()
            .unwrap_or_else(|| {
                Ok(Completion {
                    text: Some("(script finished)".into()),
                    tool_calls: vec![],
                })
            })
    }
}
