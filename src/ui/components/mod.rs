//! Shared pieces of UI used across pages.
mod act;
mod cited;
mod composer;
mod confirm;
mod contact_form;
mod history_scroll;
mod lessons;
mod live;
mod message_bubble;
mod notes;
mod operation_card;
mod paging;
mod plan_audience;
mod plan_card;
mod plan_stop;
mod possible_opt_out;
mod scheduled_texts;
pub mod send_later;
mod step_plan;
mod suggestions_panel;
mod triage_bar;

pub use act::{upload_picture, use_act, Act};
pub use cited::Cited;
pub use composer::Composer;
pub use confirm::ConfirmButton;
pub use contact_form::ContactForm;
pub use history_scroll::{keep_place_for_earlier, use_history_scroll};
pub use lessons::LessonsCard;
pub use live::{use_attention, use_live, use_page_tick, AttentionTick, PageTick};
pub use message_bubble::MessageBubble;
pub use notes::Notes;
pub use operation_card::OperationCard;
pub use paging::{use_pages, ListFooter, Pages, ShowMore};
pub use plan_audience::PlanAudience;
pub use plan_card::PlanCard;
pub use plan_stop::PlanStop;
pub use possible_opt_out::PossibleOptOut;
pub use scheduled_texts::ScheduledTexts;
pub use step_plan::StepPlan;
pub use suggestions_panel::{Prefill, SuggestionsPanel};
pub use triage_bar::TriageBar;

pub use crate::format::{day, day_time_utc, grouped, short_time};

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
