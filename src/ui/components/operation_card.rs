//! The operation card: live drafting and sending progress, skips with reasons, and a link to the
//! draft review sheet.
use crate::campaign::api::{get_operation, resume_operation};
use crate::campaign::model::OperationStatus;
use crate::ui::app::Route;
use crate::ui::components::{use_act, use_page_tick};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn OperationCard(operation_id: Uuid) -> Element {
    let live = use_page_tick();
    let mut op = use_resource(move || {
        let _ = live();
        get_operation(operation_id)
    });
    let is_owner = crate::ui::components::use_is_owner();
    let act = use_act();
    let current = op.read().clone();
    match current {
        Some(Ok(o)) => {
            let status = o.status.as_str().replace('_', " ");
            let drafting_pct = if o.total > 0 {
                (o.drafted + o.skipped) * 100 / o.total
            } else {
                100
            };
            let sending_pct = if o.total > 0 {
                (o.sent + o.failed + o.skipped) * 100 / o.total
            } else {
                100
            };
            rsx! {
                div { class: "operation-card", "data-status": "{o.status.as_str()}",
                    div { class: "plan-head",
                        strong { "Campaign" }
                        span { class: "badge plan-status status-{o.status.as_str()}", "{status}" }
                    }
                    div { class: "progress-row",
                        span { class: "op-drafted", "Drafted {o.drafted}/{o.total}" }
                        div { class: "bar", div { class: "fill", style: "width: {drafting_pct}%" } }
                    }
                    div { class: "progress-row",
                        span { class: "op-sent", "Sent {o.sent}/{o.total}" }
                        div { class: "bar", div { class: "fill sent", style: "width: {sending_pct}%" } }
                    }
                    div { class: "small",
                        span { class: "op-failed", "Failed {o.failed}" }
                        if o.filtered > 0 {
                            span { class: "op-filtered", " (carrier-filtered {o.filtered})" }
                        }
                        " · "
                        span { class: "op-skipped", "Skipped {o.skipped}" }
                        if o.clicked > 0 {
                            " · "
                            span { class: "op-clicked", "Clicked {o.clicked}" }
                        }
                        for (why, n) in o.skip_reasons.iter() {
                            span { class: "muted", " · {why}: {n}" }
                        }
                    }
                    if o.unknown > 0 {
                        div { class: "in-doubt op-unknown", role: "alert",
                            "{o.unknown} text(s) in doubt: Herald cannot tell whether they were sent. "
                            Link { to: Route::OperationReview { operation_id }, "Decide →" }
                        }
                    }
                    div { class: "muted small", "From {o.from_number}" }
                    if let Some(f) = &o.finish {
                        div { class: "small op-estimate", "data-held-by": "{f.held_by}", "{f.words}" }
                    }
                    if o.status == OperationStatus::Paused {
                        div { class: "notice op-paused", role: "status",
                            "{o.paused_reason.clone().unwrap_or_default()}"
                            if is_owner {
                                button { class: "secondary op-resume", onclick: move |_| async move {
                                    if act.run(resume_operation(operation_id)).await.is_some() {
                                        op.restart();
                                    }
                                }, "Resume" }
                            }
                        }
                        crate::ui::components::ErrorBanner { message: act.error() }
                    }
                    if o.status == OperationStatus::AwaitingApproval {
                        Link { to: Route::OperationReview { operation_id }, class: "review-link", "Review the drafts →" }
                    } else {
                        Link { to: Route::OperationReview { operation_id }, class: "review-link", "Open the operation" }
                    }
                }
            }
        }
        Some(Err(e)) => rsx! { div { class: "error-banner", "{e}" } },
        None => rsx! { div { class: "muted small", "Loading the operation…" } },
    }
}
