//! The model seam: messages and tool definitions go in, text and tool calls come out.
pub mod offline;
pub mod rig;
pub mod scripted;

pub use crate::platform::llm::*;

/// The configured model. `LLM_PROVIDER=offline` (the default) is the built-in deterministic model.
pub fn from_config(
    config: &crate::platform::Config,
) -> Result<std::sync::Arc<dyn ChatModel>, String> {
    match config.llm_provider.as_str() {
        "offline" => Ok(std::sync::Arc::new(offline::OfflineModel)),
        _ => Ok(std::sync::Arc::new(rig::RigModel::new(&config.llm)?)),
    }
}
