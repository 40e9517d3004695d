//! The contacts page's segments: pick a saved segment (the list then shows exactly its
//! members), save the filters in use as a new one, or delete the one picked.
use crate::contacts::api::{delete_segment, list_segments, save_segment};
use crate::contacts::model::{ContactFilter, SegmentView};
use crate::ui::components::ErrorBanner;
use dioxus::prelude::*;

#[component]
pub fn SegmentBar(
    filter: ReadSignal<ContactFilter>,
    segment: Signal<Option<SegmentView>>,
) -> Element {
    let mut segment = segment;
    let mut segments = use_resource(list_segments);
    let mut naming = use_signal(|| false);
    let mut name = use_signal(String::new);
    let mut error = use_signal(|| None::<String>);
    let mut confirming = use_signal(|| false);
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        match save_segment(name(), filter()).await {
            Ok(s) => {
                error.set(None);
                naming.set(false);
                name.set(String::new());
                segment.set(Some(s));
                segments.restart();
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let delete = move |_| async move {
        confirming.set(false);
        let Some(s) = segment() else { return };
        match delete_segment(s.id).await {
            Ok(()) => {
                error.set(None);
                segment.set(None);
                segments.restart();
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let list = segments
        .read()
        .clone()
        .and_then(Result::ok)
        .unwrap_or_default();
    let picked = segment().map(|s| s.id.to_string()).unwrap_or_default();
    let filtering = filter() != ContactFilter::default();
    rsx! {
        div { class: "inline-form segment-bar", id: "segment-bar",
            select {
                id: "segment-pick",
                "aria-label": "Segment",
                onchange: move |e| {
                    let v = e.value();
                    let found = segments
                        .read()
                        .clone()
                        .and_then(Result::ok)
                        .and_then(|l| l.items.into_iter().find(|s| s.id.to_string() == v));
                    segment.set(found);
                },
                option { value: "", selected: picked.is_empty(), "All contacts" }
                for s in list.items.iter() {
                    option { key: "{s.id}", value: "{s.id}", selected: picked == s.id.to_string(), "{s.name}" }
                }
            }
            if list.total > list.items.len() as u64 {
                span { class: "muted small", "The first {list.items.len()} of {list.total} segments." }
            }
            if let Some(s) = segment() {
                span { class: "muted small segment-words", "{s.filter.describe()}" }
                // It asks first; the contacts stay either way.
                if confirming() {
                    span { class: "confirm",
                        "Delete the segment “{s.name}”? Its contacts stay. "
                        button { class: "danger", id: "segment-delete-confirm", onclick: delete, "Delete segment" }
                        button { class: "link-button", onclick: move |_| confirming.set(false), "Keep" }
                    }
                } else {
                    button { class: "secondary", id: "segment-delete", onclick: move |_| confirming.set(true), "Delete segment" }
                }
            } else if naming() {
                form { class: "inline-form", id: "segment-form", onsubmit: save,
                    input { id: "segment-name", placeholder: "Segment name", maxlength: 80, value: "{name}", oninput: move |e| name.set(e.value()) }
                    button { class: "primary", r#type: "submit", id: "segment-save", "Save" }
                    button { class: "secondary", r#type: "button", onclick: move |_| naming.set(false), "Cancel" }
                }
            } else if filtering {
                button { class: "secondary", id: "segment-new", onclick: move |_| naming.set(true), "Save as segment" }
            }
        }
        ErrorBanner { message: error() }
    }
}
