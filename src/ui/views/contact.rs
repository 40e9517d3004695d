//! The contact page (issue 28 §5): details and custom fields to edit, tags, consent and opt-out,
//! the conversation across numbers, the campaigns and plans that included them, scheduled texts,
//! notes, and (for owners) merging a duplicate into this contact.
use crate::ui::app::Route;
use crate::ui::components::{
    grouped, short_time, use_act, use_is_owner, ContactForm, ErrorBanner, Notes, ScheduledTexts,
};
use crate::contacts::api::search_contacts;
use crate::records::api::{contact_profile, merge_contacts};
use crate::contacts::model::ContactView;
use crate::contacts::profile_model::{ContactProfile, MergeReport, TouchKind};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn ContactPage(contact_id: Uuid) -> Element {
    let mut profile = use_resource(move || contact_profile(contact_id));
    let data = profile.read().clone();
    match data {
        None => rsx! { div { class: "page", p { class: "muted", "Loading contact…" } } },
        Some(Err(e)) => rsx! {
            div { class: "page",
                ErrorBanner { message: Some(e.to_string()) }
                Link { to: Route::Contacts {}, "Back to contacts" }
            }
        },
        Some(Ok(p)) => {
            let c = p.contact.clone();
            let id = c.id;
            rsx! {
                div { class: "page contact-page",
                    header { class: "page-head",
                        Link { to: Route::Contacts {}, class: "back", "← Contacts" }
                        h1 { id: "contact-title", "{c.name}" }
                        span { class: "muted", "{c.phone.clone().unwrap_or_default()}" }
                        if c.opted_out { span { class: "badge keyword", "Opted out" } }
                        for t in c.tags.iter() { span { class: "tag", "{t}" } }
                    }
                    if id != contact_id {
                        p { class: "notice", id: "contact-merged-notice", "That contact was merged into {c.name}: this is their page now." }
                    }
                    if let Some(u) = &c.unreachable {
                        form { class: "notice", id: "contact-unreachable", method: "post", action: "/contacts/{id}/reachable",
                            "Campaigns leave them out: {u} "
                            button { class: "secondary", r#type: "submit", "They can get texts again" }
                        }
                    }
                    div { class: "two-col",
                        div { class: "col-main",
                            Conversation { profile: p.clone() }
                            Touches { profile: p.clone() }
                            ScheduledTexts { key: "{id}-s", contact_id: id }
                            Notes { key: "{id}-n", contact_id: id }
                            if use_is_owner() {
                                MergeCard { key: "{id}-m", keep: c.clone(), on_merged: move |_| profile.restart() }
                                p { class: "muted small", a { href: "/contacts/{id}/delete", id: "contact-delete-link", "Delete this contact…" } }
                            }
                        }
                        ContactForm { key: "{id}", contact: Some(c.clone()), on_saved: move |_| profile.restart() }
                    }
                }
            }
        }
    }
}

#[component]
fn Conversation(profile: ContactProfile) -> Element {
    let id = profile.contact.id;
    rsx! {
        section { class: "card", id: "contact-conversation",
            h2 { "Conversation" }
            match profile.conversation {
                None => rsx! { p { class: "muted", "No texts yet." } },
                Some(s) => {
                    let texts = match s.message_count {
                        1 => "1 text".to_owned(),
                        n => format!("{} texts", grouped(n as u64)),
                    };
                    rsx! {
                    p {
                        span { class: "badge", "{s.state}" }
                        " {texts}"
                        if s.unread_count > 0 { ", {s.unread_count} unread" }
                        " · last {short_time(s.last_at)} · "
                        match s.assignee { Some(a) => rsx! { "assigned to {a}" }, None => rsx! { "unassigned" } }
                    }
                    p { class: "muted small preview", "{s.last_body}" }
                    }
                },
            }
            if !profile.numbers.is_empty() {
                table { class: "table", id: "contact-numbers",
                    thead { tr { th { "Our number" } th { "Texts" } th { "Last" } } }
                    tbody {
                        for n in profile.numbers.iter() {
                            tr { key: "{n.number}",
                                td { "{n.friendly_name} " span { class: "mono muted", "{n.number}" } }
                                td { "data-label": "Texts", "{grouped(n.texts)}" }
                                td { "data-label": "Last", "{short_time(n.last_at)}" }
                            }
                        }
                    }
                }
            }
            Link { id: "contact-open-conversation", class: "button secondary", to: Route::Conversation { contact_id: id }, "Open the conversation" }
            if profile.merged > 0 {
                p { class: "muted small", id: "contact-merged-count", "{profile.merged} duplicate(s) merged into this contact." }
            }
        }
    }
}

#[component]
fn Touches(profile: ContactProfile) -> Element {
    let shown = profile.touches.len();
    let total = profile.touches_total;
    rsx! {
        section { class: "card", id: "contact-touches",
            h2 { "Campaigns and plans" }
            if let Some(at) = profile.last_click_at {
                p { id: "contact-clicks", "Clicked the links texted to them {grouped(profile.link_clicks)} time(s), last {short_time(at)}." }
            }
            if total == 0 {
                p { class: "muted", "No campaign or plan has included them." }
            } else {
                p { class: "muted small",
                    if (shown as u64) < total { "The newest {shown} of {grouped(total)}." } else { "{grouped(total)} in all." }
                }
                ul { class: "touch-list",
                    for t in profile.touches.iter() {
                        li { key: "{t.id}",
                            match t.kind {
                                TouchKind::Campaign => rsx! { Link { to: Route::OperationReview { operation_id: t.id }, "Campaign: {t.title}" } },
                                TouchKind::Plan => rsx! { Link { to: Route::PlanDetail { plan_id: t.id }, "Plan: {t.title}" } },
                            }
                            " "
                            span { class: "muted small", "{t.status} · {short_time(t.at)}" }
                            if let Some(o) = &t.outcome { " " span { class: "badge", "{o}" } }
                        }
                    }
                }
            }
        }
    }
}

/// Owners merge a duplicate into this contact: find it, preview what moves, then merge.
#[component]
fn MergeCard(keep: ContactView, on_merged: EventHandler<()>) -> Element {
    let mut query = use_signal(String::new);
    let mut found = use_signal(Vec::<ContactView>::new);
    let mut chosen = use_signal(|| None::<(ContactView, MergeReport)>);
    let act = use_act();
    let keep_id = keep.id;
    let search = move |_| async move {
        if let Some(p) = act.run(search_contacts(query())).await {
            found.set(p.items.into_iter().filter(|c| c.id != keep_id).collect());
        }
    };
    let preview = move |c: ContactView| async move {
        if let Some(r) = act.run(merge_contacts(keep_id, c.id, false)).await {
            chosen.set(Some((c, r)));
        }
    };
    let apply = move |dup: Uuid| async move {
        if act.run(merge_contacts(keep_id, dup, true)).await.is_some() {
            chosen.set(None);
            found.set(vec![]);
            on_merged.call(());
        }
    };
    rsx! {
        details { class: "card", id: "contact-merge",
            summary { "Merge a duplicate into {keep.name}" }
            ErrorBanner { message: act.error() }
            div { class: "row",
                input { id: "merge-search", placeholder: "Name or phone of the duplicate", value: "{query}", oninput: move |e| query.set(e.value()) }
                button { id: "merge-find", class: "secondary", disabled: query.read().trim().is_empty(), onclick: search, "Find" }
            }
            ul { class: "merge-candidates",
                for c in found() {
                    li { key: "{c.id}",
                        "{c.name} " span { class: "mono muted", "{c.phone.clone().unwrap_or_default()}" } " "
                        button { class: "secondary merge-preview", onclick: move |_| preview(c.clone()), "Preview" }
                    }
                }
            }
            if let Some((dup, r)) = chosen() {
                div { class: "merge-preview-box", id: "merge-report",
                    p { "Merging {dup.name} into {keep.name} moves {moves(&r)}, then removes the duplicate." }
                    ul {
                        if !r.tags_added.is_empty() { li { "Tags added: {r.tags_added.join(\", \")}" } }
                        li { "Consent kept (the stricter): {r.consent_label}" }
                        if r.opted_out { li { class: "warn", "They stay opted out: one of the two opted out." } }
                        if let Some(p) = &r.phone_dropped { li { "{p} will no longer belong to any contact: a text from it starts a new one." } }
                    }
                    button { id: "merge-apply", class: "danger", onclick: move |_| apply(dup.id), "Merge {dup.name} into {keep.name}" }
                }
            }
        }
    }
}

/// What a merge moves, each count with its noun in agreement.
fn moves(r: &crate::contacts::profile_model::MergeReport) -> String {
    use crate::format::count;
    format!(
        "{}, {}, {}, {} and {}",
        count(r.messages as usize, "text", "texts"),
        count(r.notes as usize, "note", "notes"),
        count(r.scheduled_texts as usize, "scheduled text", "scheduled texts"),
        count(r.campaign_items as usize, "campaign item", "campaign items"),
        count((r.threads_moved + r.threads_archived) as usize, "agent thread", "agent threads"),
    )
}
