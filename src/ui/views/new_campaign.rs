//! New campaign (issue 51 §1): text a group without the Assistant. Pick a segment, a tag or the
//! Contacts page's filter; write the words with merge fields; see the exact count, who is left
//! out and why, three filled-in texts and the cost; send now or at a time. It goes on to the same
//! review sheet, approval and send engine as an agent's campaign.
use crate::campaign::api::{create_written_campaign, written_audience, written_preview};
use crate::campaign::model::{WrittenAudience, WrittenCampaign};
use crate::campaign::segments::segments;
use crate::contacts::api::list_segments;
use crate::phone_numbers::api::list_phone_numbers;
use crate::ui::app::Route;
use crate::ui::components::{grouped, upload_picture, use_act, ErrorBanner};
use dioxus::prelude::*;
use uuid::Uuid;

/// The fields a person may put in, with what each inserts.
const FIELDS: [(&str, &str); 3] = [
    ("First name", "{{contact.first_name|there}}"),
    ("Business name", "{{org.name}}"),
    ("Your name", "{{me.name}}"),
];

/// The audience named in the address (`?audience=` JSON, as "Text these" on Contacts writes
/// it), if any.
fn from_address(raw: &str) -> Option<WrittenAudience> {
    serde_json::from_str(raw)
        .ok()
        .or_else(|| serde_json::from_str(&percent_decoded(raw)).ok())
}

fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = (bytes[i] == b'%')
            .then(|| s.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What the audience picker holds: "segment:<id>", "tag", or "filter" (the address's).
fn picked_value(a: &Option<WrittenAudience>) -> String {
    match a {
        Some(WrittenAudience::Segment { id }) => format!("segment:{id}"),
        Some(WrittenAudience::Filter { .. }) => "filter".into(),
        _ => "tag".into(),
    }
}

#[component]
pub fn NewCampaign(audience: String) -> Element {
    let given = from_address(&audience);
    let initial_tag = match &given {
        Some(WrittenAudience::Tag { tag }) => tag.clone(),
        _ => String::new(),
    };
    let given_filter = given.clone().filter(|a| matches!(a, WrittenAudience::Filter { .. }));
    let mut picked = use_signal({
        let given = given.clone();
        move || picked_value(&given)
    });
    let mut tag = use_signal(move || initial_tag.clone());
    let mut body = use_signal(String::new);
    let mut later = use_signal(|| false);
    let mut at = use_signal(String::new);
    let mut from = use_signal(|| None::<Uuid>);
    let mut pictures = use_signal(Vec::<crate::media::model::UploadView>::new);
    let act = use_act();
    let segment_list = use_resource(list_segments);
    let numbers = use_resource(list_phone_numbers);
    let chosen = use_memo(move || {
        let p = picked();
        if let Some(id) = p.strip_prefix("segment:").and_then(|i| i.parse().ok()) {
            return Some(WrittenAudience::Segment { id });
        }
        if p == "filter" {
            return given_filter.clone();
        }
        let t = tag();
        (!t.trim().is_empty()).then(|| WrittenAudience::Tag { tag: t.trim().to_owned() })
    });
    let local = use_memo(move || {
        let when = at();
        later()
            .then(|| chrono::NaiveDateTime::parse_from_str(&format!("{when}:00"), "%Y-%m-%dT%H:%M:%S").ok())
            .flatten()
    });
    let summary = use_resource(move || async move {
        match chosen() {
            Some(a) => Some(written_audience(a, local()).await),
            None => None,
        }
    });
    let preview = use_resource(move || async move {
        match (chosen(), body()) {
            (Some(a), b) if !b.trim().is_empty() => Some(written_preview(a, b).await),
            _ => None,
        }
    });
    let seg = segments(&body());
    let reachable = match &*summary.read() {
        Some(Some(Ok(s))) => s.reachable,
        _ => 0,
    };
    let for_texts = crate::format::count(reachable as usize, "text", "texts");
    let mms = !pictures().is_empty();
    let each = if mms {
        crate::campaign::segments::COST_PER_MMS
    } else {
        seg.cost()
    };
    let total_cost = each * reachable as f64;
    let create = move |_| async move {
        let Some(audience) = chosen() else {
            act.fail("Choose who gets the text: a segment or a tag.");
            return;
        };
        if later() && local().is_none() {
            act.fail("Choose the date and time to send, or send as soon as it is approved.");
            return;
        }
        let campaign = WrittenCampaign {
            audience,
            body: body(),
            from_number_id: from(),
            send_at_local: local(),
            picture_ids: pictures().iter().map(|p| p.id).collect(),
        };
        if let Some(id) = act.run(create_written_campaign(campaign)).await {
            navigator().push(Route::OperationReview { operation_id: id });
        }
    };
    let add_picture = move |evt: FormEvent| async move {
        for file in evt.files() {
            if let Some(view) = act.run(upload_picture(&file)).await {
                pictures.write().push(view);
            }
        }
    };
    rsx! {
        div { class: "page new-campaign",
            header { class: "page-head", h1 { "New campaign" } }
            p { class: "muted", "Text a group in your own words. Nothing is sent until an owner approves the texts on the next screen." }
            ErrorBanner { message: act.error() }
            section { class: "card", id: "campaign-audience",
                h2 { "Who gets it" }
                div { class: "inline-form",
                    select { id: "campaign-audience-pick", "aria-label": "Send to",
                        value: "{picked}",
                        onchange: move |e| picked.set(e.value()),
                        if given.as_ref().is_some_and(|a| matches!(a, WrittenAudience::Filter { .. })) {
                            option { value: "filter", "The contacts filtered on Contacts" }
                        }
                        option { value: "tag", "Everyone with a tag" }
                        if let Some(Ok(list)) = &*segment_list.read() {
                            for s in list.items.iter() {
                                option { key: "{s.id}", value: "segment:{s.id}", "Segment: {s.name}" }
                            }
                        }
                    }
                    if picked() == "tag" {
                        input { id: "campaign-tag", "aria-label": "Tag", placeholder: "Tag, e.g. vip", value: "{tag}", oninput: move |e| tag.set(e.value()) }
                    }
                }
                match &*summary.read() {
                    None | Some(None) => rsx! { p { class: "muted small", "Choose a segment or a tag." } },
                    Some(Some(Err(e))) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                    Some(Some(Ok(s))) => rsx! {
                        p { id: "campaign-count",
                            strong { "{grouped(s.reachable)}" }
                            " of {grouped(s.matched)} {s.label} will get this text."
                        }
                        if !s.left_out.is_empty() {
                            ul { class: "left-out small", id: "campaign-left-out",
                                for (why, n) in s.left_out.iter() {
                                    li { key: "{why}", "{grouped(*n)} left out: {why}" }
                                }
                            }
                        }
                        for o in s.overlaps.iter() {
                            p { class: "warning overlap", key: "{o}", "{o}" }
                        }
                    },
                }
            }
            section { class: "card", id: "campaign-message",
                h2 { "The text" }
                div { class: "row merge-fields",
                    for (label, field) in FIELDS {
                        button { r#type: "button", class: "secondary small", key: "{label}",
                            onclick: move |_| body.write().push_str(field),
                            "+ {label}"
                        }
                    }
                }
                textarea { id: "campaign-body", "aria-label": "The text", rows: 5, maxlength: 1600,
                    placeholder: "Hi {{contact.first_name|there}}, we're open this Saturday 9–1. Reply STOP to opt out.",
                    value: "{body}", oninput: move |e| body.set(e.value()) }
                p { class: "muted small", id: "campaign-length",
                    "{body().chars().count()} characters · "
                    if mms { "1 MMS each" } else { "{seg.label()}" }
                    " · about ${total_cost:.2} for {for_texts}"
                }
                div { class: "campaign-pictures",
                    for p in pictures() {
                        img { key: "{p.id}", src: "/media/{p.id}/thumb", alt: "Picture every text carries" }
                    }
                    label { class: "button secondary attach",
                        if pictures().is_empty() { "Add a picture (optional)" } else { "Add another picture" }
                        input { r#type: "file", id: "campaign-new-attach", accept: "image/jpeg,image/png,image/gif", class: "attach-input", onchange: add_picture }
                    }
                }
            }
            section { class: "card", id: "campaign-when",
                h2 { "When" }
                div { class: "inline-form",
                    if let Some(Ok(list)) = &*numbers.read() {
                        select { id: "campaign-from", "aria-label": "Send from",
                            onchange: move |e| from.set(e.value().parse().ok()),
                            for n in list.iter() {
                                option { key: "{n.id}", value: "{n.id}",
                                    if n.friendly_name.is_empty() { "From {n.number}" } else { "From {n.friendly_name} ({n.number})" }
                                }
                            }
                        }
                    }
                    label { class: "check",
                        input { r#type: "radio", name: "campaign-when", id: "campaign-now", checked: !later(), onchange: move |_| later.set(false) }
                        "As soon as it is approved"
                    }
                    label { class: "check",
                        input { r#type: "radio", name: "campaign-when", id: "campaign-later", checked: later(), onchange: move |_| later.set(true) }
                        "At"
                    }
                    if later() {
                        input { r#type: "datetime-local", id: "campaign-at", "aria-label": "Send at (the business's time)", value: "{at}", oninput: move |e| at.set(e.value()) }
                    }
                }
                p { class: "muted small", "Each contact's quiet hours apply: a text due at night waits for their morning." }
            }
            section { class: "card", id: "campaign-preview",
                h2 { "Preview" }
                match &*preview.read() {
                    None | Some(None) => rsx! { p { class: "muted small", "Write the text to see it filled in." } },
                    Some(Some(Err(e))) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                    Some(Some(Ok(samples))) => rsx! {
                        for s in samples.iter() {
                            div { class: "sample", key: "{s.contact_name}",
                                p { class: "small muted", "To {s.contact_name}" }
                                p { class: "bubble-text", "{s.text}" }
                            }
                        }
                    },
                }
            }
            div { class: "row",
                button { class: "primary", id: "campaign-create", disabled: act.busy(), onclick: create,
                    if act.busy() { "Preparing…" } else { "Review the texts" }
                }
            }
        }
    }
}
