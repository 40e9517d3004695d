//! Shared pieces of UI used across pages.
mod composer;
mod live;
mod message_bubble;
mod operation_card;
mod plan_card;
mod suggestions_panel;

pub use composer::Composer;
pub use live::{use_attention, use_live, use_page_tick, AttentionTick, PageTick};
pub use message_bubble::MessageBubble;
pub use operation_card::OperationCard;
pub use plan_card::PlanCard;
pub use suggestions_panel::{Prefill, SuggestionsPanel};

use dioxus::prelude::*;

/// A red banner with a user-facing error, or nothing.
#[component]
pub fn ErrorBanner(message: Option<String>) -> Element {
    match message {
        Some(m) => rsx! { div { class: "error-banner", role: "alert", "{m}" } },
        None => rsx! {},
    }
}

/// Whether the signed-in member is an organisation owner. The server decides every owner-only
/// action; the UI only avoids offering what would be refused.
pub fn use_is_owner() -> bool {
    try_use_context::<crate::auth::model::CurrentUser>()
        .is_some_and(|me| me.role == crate::auth::model::Role::Owner)
}

/// "3m ago"-style time, computed from UTC timestamps.
pub fn short_time(at: chrono::DateTime<chrono::Utc>) -> String {
    at.format("%b %-d, %H:%M").to_string()
}
