//! A plan's audience on its card: the filter in words, the exact number of members, who is left
//! out by reason, any change found at approval, and the members a page at a time, searchable.
use crate::contacts::model::ContactCursor;
use crate::plans::api::edit_plan;
use crate::plans::audience::api::plan_audience;
use crate::plans::audience::model::{AudienceMember, AudienceView};
use crate::plans::model::PlanEdit;
use crate::ui::components::{grouped, use_act, ErrorBanner};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn PlanAudience(
    plan_id: Uuid,
    audience: AudienceView,
    /// While the plan awaits approval, a member can be left out.
    editable: bool,
    on_changed: EventHandler<()>,
) -> Element {
    let first = audience.first.clone();
    let mut search = use_signal(String::new);
    // What the list shows: the first page until a search or "Show more" replaces it.
    let mut items = use_signal(|| first.items.clone());
    let mut total = use_signal(|| first.total);
    let mut next = use_signal(|| first.next.clone());
    let act = use_act();
    let mut loading = use_signal(|| false);
    let mut fetch = move |after: Option<ContactCursor>| {
        loading.set(true);
        spawn(async move {
            let q = Some(search()).filter(|s| !s.trim().is_empty());
            if let Some(p) = act.run(plan_audience(plan_id, q, after.clone())).await {
                if after.is_some() {
                    items.write().extend(p.items);
                } else {
                    items.set(p.items);
                }
                total.set(p.total);
                next.set(p.next);
            }
            loading.set(false);
        });
    };
    let shown = items.read().len() as u64;
    rsx! {
        div { class: "plan-audience",
            div { class: "plan-audience-label", strong { "Audience: " } "{audience.label}" }
            div { class: "plan-counts plan-members", "{grouped(audience.members)} members" }
            if let Some(note) = audience.changed.clone() {
                div { class: "notice plan-audience-changed", role: "status", "{note}. Look over the audience before approving." }
            }
            if !audience.exclusions.is_empty() {
                ul { class: "plan-exclusions",
                    for (why, n) in audience.exclusions.iter() {
                        li { key: "{why}", strong { "{why}" } " ({grouped(*n)}), left out" }
                    }
                }
            }
            details { class: "plan-lists",
                summary { "Show the members" }
                input {
                    class: "plan-audience-search",
                    r#type: "search",
                    placeholder: "Search the members",
                    value: "{search}",
                    oninput: move |e| {
                        search.set(e.value());
                        fetch(None);
                    },
                }
                ul {
                    for m in items.read().iter() {
                        MemberRow { key: "{m.contact_id}", plan_id, member: m.clone(), editable, on_changed }
                    }
                }
                p { class: "muted small list-count plan-audience-count",
                    if next().is_some() { "Showing {grouped(shown)} of {grouped(total())}." } else { "All {grouped(total())} shown." }
                }
                ErrorBanner { message: act.error() }
                if let Some(after) = next() {
                    button {
                        class: "secondary show-more plan-audience-more",
                        disabled: loading(),
                        onclick: move |_| fetch(Some(after.clone())),
                        "Show more"
                    }
                }
            }
        }
    }
}

#[component]
fn MemberRow(
    plan_id: Uuid,
    member: AudienceMember,
    editable: bool,
    on_changed: EventHandler<()>,
) -> Element {
    let act = use_act();
    let id = member.contact_id;
    let leave_out = move |_| async move {
        let edit = PlanEdit {
            title: None,
            summary: None,
            include: vec![(id, false)],
            message_concept: None,
            from_number_id: None,
        };
        if act.run(edit_plan(plan_id, edit)).await.is_some() {
            on_changed.call(());
        }
    };
    rsx! {
        li { class: "in audience-member", "data-name": "{member.name}",
            "{member.name}"
            if let Some(p) = member.phone.clone() { span { class: "muted small mono", " · {p}" } }
            if editable {
                button { class: "link-button audience-leave-out", onclick: leave_out, "Leave out" }
            }
            ErrorBanner { message: act.error() }
        }
    }
}
