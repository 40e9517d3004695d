//! Operations: every campaign with live progress, and each one's draft review sheet (Gate 2):
//! drafts with segments and cost, edit, skip or regenerate one, approve all, or cancel.
use crate::campaign::api::{
    approve_operation, cancel_operation, edit_draft, get_review_sheet, list_operations,
    regenerate_draft, resolve_item, set_operation_pictures, set_operation_track_links, skip_draft,
};
use crate::campaign::model::{ItemStatus, ItemView, OperationStatus, ReviewSheet};
use crate::campaign::segments::{mms_label, segments, COST_PER_MMS, COST_PER_SEGMENT};
use crate::ui::components::use_live;
use crate::ui::components::{upload_picture, use_act, use_is_owner, ConfirmButton, ErrorBanner, OperationCard};
use crate::error::AppError;
use crate::links::model as links;
use crate::media::model::{UploadView, MAX_PER_TEXT, MAX_SEND_BYTES};
use crate::messaging::model::LiveTopic;
use crate::messaging::model::Resolution;
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn Operations() -> Element {
    let live = use_live(LiveTopic::Operations);
    // The page shown: the operations older than this one (None: the newest).
    let mut before = use_signal(|| None::<Uuid>);
    let ops = use_resource(move || {
        let _ = live();
        list_operations(before())
    });
    let current = ops.read().clone();
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Operations" }
                Link { to: crate::ui::app::Route::NewCampaign { audience: String::new() }, class: "button primary", id: "operations-new-campaign", "New campaign" }
            }
            match current {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(page)) if page.items.is_empty() => rsx! { p { class: "muted", "No campaigns yet. Write one with New campaign, or ask your assistant to plan one." } },
                Some(Ok(page)) => rsx! {
                    for o in page.items.iter().cloned() {
                        div { key: "{o.id}", class: "card",
                            p { strong { "{o.message_concept}" } }
                            OperationCard { operation_id: o.id }
                        }
                    }
                    if before().is_some() || page.next_before.is_some() {
                        div { class: "row", id: "operations-pages",
                            span { class: "muted", "{page.items.len()} shown of {page.total} campaigns" }
                            if before().is_some() {
                                button { class: "secondary", id: "operations-newest", onclick: move |_| before.set(None), "Newest" }
                            }
                            if let Some(n) = page.next_before {
                                button { class: "secondary", id: "operations-older", onclick: move |_| before.set(Some(n)), "Older" }
                            }
                        }
                    }
                },
            }
        }
    }
}

#[component]
pub fn OperationReview(operation_id: Uuid) -> Element {
    let is_owner = use_is_owner();
    let live = use_live(LiveTopic::Operation(operation_id));
    // The page of drafts shown: those after this position (None: the first page).
    let mut after = use_signal(|| None::<i32>);
    let mut sheet = use_resource(move || {
        let _ = live();
        get_review_sheet(operation_id, after())
    });
    let act = use_act();
    // Show what is there now, after a refusal too ("the drafts changed", say).
    let mut answered = move |r: Result<ReviewSheet, AppError>| {
        act.take(r);
        sheet.restart();
    };
    let current = sheet.read().clone();
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Draft review" } }
            ErrorBanner { message: act.error() }
            match current {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(s)) => {
                    let reviewing = s.operation.status == OperationStatus::AwaitingApproval;
                    let written = s.operation.written;
                    let words = if written { "Your words" } else { "Concept" };
                    let digest = s.digest.clone();
                    let active = matches!(s.operation.status, OperationStatus::Drafting | OperationStatus::AwaitingApproval | OperationStatus::Sending);
                    // The cost of everything drafted for sending, counted by the server over
                    // every draft (one MMS a text with a picture; links as sent).
                    let mms = !s.operation.pictures.is_empty();
                    let prefix = s.operation.link_prefix.clone();
                    let (linked, cost) = (s.linked, s.cost);
                    let first = s.items.first().map_or(0, |i| i.position + 1);
                    let last = s.items.last().map_or(0, |i| i.position + 1);
                    let (total, next, paged) = (s.total_items, s.next_after, s.after.is_some() || s.next_after.is_some());
                    let rate = if mms { format!("${COST_PER_MMS} an MMS") } else { format!("${COST_PER_SEGMENT} a segment") };
                    rsx! {
                        OperationCard { operation_id }
                        p { class: "muted", id: "campaign-cost", "{words}: {s.operation.message_concept} · estimated cost ${cost:.4} at {rate}" }
                        if let Some(when) = s.schedule.clone() {
                            p { id: "campaign-schedule", "{when}" }
                        }
                        for o in s.overlaps.iter() {
                            p { class: "warning overlap", key: "{o}", "{o}" }
                        }
                        CampaignPictures { operation_id, pictures: s.operation.pictures.clone(), reviewing, on_done: answered }
                        if linked {
                            label { class: "row muted", id: "track-links",
                                input { r#type: "checkbox", checked: prefix.is_some(), disabled: !reviewing,
                                    onchange: move |e| async move { answered(set_operation_track_links(operation_id, e.checked()).await) } }
                                " Shorten and track links (one short link per contact; clicks show in the results)"
                            }
                        }
                        div { class: "row",
                            if reviewing && is_owner {
                                button { id: "approve-all", class: "primary", onclick: move |_| {
                                    // The drafts on screen: a sheet that changed since is refused.
                                    let seen = digest.clone();
                                    async move { answered(approve_operation(operation_id, seen).await) }
                                }, "Approve all and send" }
                            } else if reviewing {
                                p { class: "muted", id: "approve-owner-only", "An organisation owner approves a campaign before it is sent." }
                            }
                            if active {
                                ConfirmButton { id: "cancel-operation", class: "danger", label: "Cancel campaign",
                                    question: "Cancel this campaign? Texts not yet sent will not be sent.",
                                    onconfirm: move |_| { spawn(async move { answered(cancel_operation(operation_id).await) }); } }
                            }
                        }
                        div { class: "draft-sheet", id: "draft-sheet",
                            for it in s.items {
                                DraftRow { key: "{it.id}", item: it, reviewing, written, mms, prefix: prefix.clone(), on_done: answered }
                            }
                        }
                        if paged {
                            div { class: "row sheet-pages", id: "sheet-pages",
                                span { class: "muted", "Drafts {first}–{last} of {total}" }
                                if after().is_some() {
                                    button { class: "secondary", id: "sheet-first", onclick: move |_| after.set(None), "First drafts" }
                                }
                                if let Some(n) = next {
                                    button { class: "secondary", id: "sheet-next", onclick: move |_| after.set(Some(n)), "Next drafts" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[component]
fn DraftRow(
    item: ItemView,
    reviewing: bool,
    /// A person's own words: edited, never regenerated.
    written: bool,
    /// The campaign carries a picture: each text is one MMS.
    mms: bool,
    /// Links go out shortened under this: segments are counted on the text as sent.
    prefix: Option<String>,
    on_done: EventHandler<Result<ReviewSheet, AppError>>,
) -> Element {
    let id = item.id;
    let mut editing = use_signal(|| false);
    let mut text = use_signal(|| item.draft.clone().unwrap_or_default());
    let seg = segments(&links::as_sent(&text(), prefix.as_deref()));
    let editable = reviewing && item.status == ItemStatus::Drafted;
    rsx! {
        div { class: "draft-row status-{item.status}", "data-contact": "{item.contact_name}",
            div { class: "draft-head",
                strong { "{item.contact_name}" }
                span { class: "muted small", " {item.phone.clone().unwrap_or_default()}" }
                span { class: "badge", "{item.status}" }
                if item.edited { span { class: "badge", "edited" } }
                if item.replied_since_drafting { span { class: "badge keyword replied-flag", "replied since drafting" } }
            }
            if let Some(r) = item.skip_reason.clone() { p { class: "muted small", "Skipped: {r}" } }
            if let Some(e) = item.error.clone() { p { class: "message-error small", "{e}" } }
            if editing() {
                textarea { class: "draft-input", rows: "3", value: "{text}", oninput: move |e| text.set(e.value()) }
            } else if let Some(d) = item.draft.clone() {
                p { class: "draft-body", "{d}" }
            }
            if item.draft.is_some() {
                p { class: "muted small segments", if mms { "{mms_label()}" } else { "{seg.label()}" } }
            }
            if item.status == ItemStatus::Unknown {
                div { class: "in-doubt", role: "alert",
                    p { "Herald cannot tell whether this text was sent." }
                    div { class: "row",
                        button { class: "secondary send-anyway", onclick: move |_| async move {
                            on_done.call(resolve_item(id, Resolution::SendAnyway).await)
                        }, "Send anyway" }
                        button { class: "secondary mark-sent", onclick: move |_| async move {
                            on_done.call(resolve_item(id, Resolution::MarkSent).await)
                        }, "Mark as sent" }
                    }
                }
            }
            if editable {
                div { class: "row",
                    if editing() {
                        button { class: "primary draft-save", onclick: move |_| async move {
                            editing.set(false);
                            on_done.call(edit_draft(id, text()).await);
                        }, "Save" }
                    } else {
                        button { class: "secondary draft-edit", onclick: move |_| editing.set(true), "Edit" }
                        if !written {
                            button { class: "secondary draft-regenerate", onclick: move |_| async move { on_done.call(regenerate_draft(id).await) }, "Regenerate" }
                        }
                        button { class: "danger draft-skip", onclick: move |_| async move { on_done.call(skip_draft(id).await) }, "Skip" }
                    }
                }
            }
        }
    }
}

/// The pictures every text of the campaign carries: thumbnails, and while the drafts await
/// review, add (JPEG, PNG or GIF, 5 MB in all) or remove. Approval covers the pictures shown.
#[component]
fn CampaignPictures(
    operation_id: Uuid,
    pictures: Vec<UploadView>,
    reviewing: bool,
    on_done: EventHandler<Result<ReviewSheet, AppError>>,
) -> Element {
    let act = use_act();
    let mut uploading = use_signal(|| false);
    let ids: Vec<Uuid> = pictures.iter().map(|p| p.id).collect();
    let total: u64 = pictures.iter().map(|p| p.size_bytes).sum();
    let add_ids = ids.clone();
    let add = move |evt: FormEvent| {
        let mut ids = add_ids.clone();
        async move {
            for file in evt.files() {
                let name = file.name();
                if file.size() + total > MAX_SEND_BYTES {
                    act.fail(format!(
                        "{name} would take the pictures past 5 MB, the carriers' limit for a text."
                    ));
                    continue;
                }
                uploading.set(true);
                let sent = upload_picture(&file).await;
                uploading.set(false);
                if let Some(view) = act.take(sent) {
                    ids.push(view.id);
                    on_done.call(set_operation_pictures(operation_id, ids.clone()).await);
                }
            }
        }
    };
    if pictures.is_empty() && !reviewing {
        return rsx! {};
    }
    rsx! {
        div { class: "campaign-pictures", id: "campaign-pictures",
            ErrorBanner { message: act.error() }
            if pictures.is_empty() {
                p { class: "muted small", "No picture: each text goes as SMS. A picture makes every text one MMS." }
            } else {
                p { class: "muted small",
                    if pictures.len() == 1 { "Every text carries this picture, as one MMS." } else { "Every text carries these {pictures.len()} pictures, as one MMS." }
                }
            }
            div { class: "attachments",
                for p in pictures.clone() {
                    span { key: "{p.id}", class: "campaign-picture",
                        img { src: "/media/{p.id}/thumb", alt: "Campaign picture ({p.content_type}, {p.size_bytes / 1024} KB)" }
                        if reviewing {
                            button { r#type: "button", class: "icon remove-picture", title: "Remove this picture",
                                onclick: {
                                    let rest: Vec<Uuid> = ids.iter().copied().filter(|i| *i != p.id).collect();
                                    move |_| {
                                        let rest = rest.clone();
                                        async move { on_done.call(set_operation_pictures(operation_id, rest).await) }
                                    }
                                },
                                "×"
                            }
                        }
                    }
                }
            }
            if reviewing && pictures.len() < MAX_PER_TEXT {
                label { class: "button secondary attach", title: "Add a picture to every text (JPEG, PNG or GIF, up to 5 MB)",
                    if uploading() { "Uploading…" } else { "Add a picture" }
                    input { r#type: "file", id: "campaign-attach", accept: "image/jpeg,image/png,image/gif", class: "attach-input", onchange: add }
                }
            }
        }
    }
}
