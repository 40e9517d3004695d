//! One message in a conversation: body, time, delivery status and where it came from.
use crate::messaging::model::{Direction, MessageView};
use crate::ui::components::short_time;
use dioxus::prelude::*;

#[component]
pub fn MessageBubble(
    message: MessageView,
    number_label: String,
    #[props(default)] selected: bool,
    /// How many suggested replies wait on it (inbound only): said under the bubble, and a tap
    /// there opens them as the bubble does.
    #[props(default)]
    suggested: u32,
    on_tap: Option<EventHandler<()>>,
) -> Element {
    let dir = match message.direction {
        Direction::Inbound => "inbound",
        Direction::Outbound => "outbound",
    };
    let when = short_time(message.created_at);
    let keyword = message.keyword.as_deref().map(|k| match k {
        "opt_out" => "Opted out",
        "opt_in" => "Opted back in",
        "possible_opt_out" => "Possible opt-out",
        _ => "Asked for help",
    });
    rsx! {
        div { class: if selected { "message {dir} selected" } else { "message {dir}" }, "data-message-id": "{message.id}",
            div {
                class: "bubble",
                title: if on_tap.is_some() { "Tap for suggested replies" } else { "" },
                onclick: move |_| {
                    if let Some(h) = on_tap {
                        h.call(());
                    }
                },
                if !message.media.is_empty() {
                    div { class: "media-row",
                        for m in message.media.iter() {
                            Media { key: "{m.id}", item: m.clone() }
                        }
                    }
                } else if message.media_count > 0 {
                    span { class: "muted", "📎 {message.media_count} attachment(s)" }
                }
                if !message.body.is_empty() {
                    "{message.body}"
                }
            }
            div { class: "meta",
                span { "{when}" }
                span { class: "via", " · {number_label}" }
                if message.direction == Direction::Outbound {
                    " · "
                    a { class: "message-status status-{message.status}", href: "/messages/{message.id}/timeline", "{message.status}" }
                }
                if let Some(origin) = &message.ai_origin {
                    span { class: "badge", " {origin}" }
                }
                if let Some(k) = keyword {
                    span { class: "badge keyword", " {k}" }
                }
                if suggested > 0 {
                    " · "
                    button { class: "link-button suggested-count", r#type: "button", "aria-expanded": "{selected}",
                        onclick: move |_| {
                            if let Some(h) = on_tap {
                                h.call(());
                            }
                        },
                        if suggested == 1 { "1 suggested reply" } else { "{suggested} suggested replies" }
                    }
                }
                if let Some(err) = &message.error {
                    span { class: "message-error", " · {err}" }
                }
            }
            if !message.sources.is_empty() {
                super::Cited { sources: message.sources.clone() }
            }
            if message.send_state == Some(crate::messaging::model::SendState::Unknown) {
                InDoubt { id: message.id }
            }
        }
    }
}

/// A picture's thumbnail (opening the full copy), a file to download, or why it is missing.
#[component]
fn Media(item: crate::media::model::MediaView) -> Element {
    use crate::media::model::status;
    match item.status.as_str() {
        status::STORED if item.has_thumb => rsx! {
            a { class: "media-thumb", href: item.url(), target: "_blank", rel: "noopener",
                img { src: item.thumb_url(), alt: "Picture ({item.content_type})", loading: "lazy" }
            }
        },
        status::STORED => rsx! {
            a { class: "media-file", href: item.url(), "Download the {item.content_type} file" }
        },
        status::PENDING => {
            rsx! { span { class: "media-file muted", "Fetching {item.content_type}…" } }
        }
        _ => rsx! {
            span { class: "media-file media-failed", title: "{item.error.clone().unwrap_or_default()}",
                "Not kept: {item.error.clone().unwrap_or_default()}"
            }
        },
    }
}

/// A text Herald cannot tell was sent: a person decides.
#[component]
fn InDoubt(id: uuid::Uuid) -> Element {
    use crate::messaging::api::resolve_message;
    use crate::messaging::model::Resolution;
    let mut error = use_signal(|| None::<String>);
    let decide = move |how: Resolution| async move {
        if let Err(e) = resolve_message(id, how).await {
            error.set(Some(e.to_string()));
        }
    };
    rsx! {
        div { class: "in-doubt", role: "alert",
            p { "Herald cannot tell whether this text was sent: the provider's answer was lost and it could not be found there." }
            div { class: "row",
                button { class: "secondary send-anyway", onclick: move |_| decide(Resolution::SendAnyway), "Send anyway" }
                button { class: "secondary mark-sent", onclick: move |_| decide(Resolution::MarkSent), "Mark as sent" }
            }
            if let Some(e) = error() { p { class: "message-error small", "{e}" } }
        }
    }
}
