//! The Knowledge page (issue 52 §4): what the business tells its agents. Try a question and see
//! the passages it finds with their scores; the facts (hours, address, prices) as a table; the
//! FAQ entries, each with its other ways of asking; documents and websites
//! (`knowledge_files`). Added, changed and deleted here.
use crate::ai_agent::model::AgentTry;
use crate::ai_agent::knowledge_api::try_agents;
use crate::knowledge::api::{
    delete_knowledge, holding_reply, list_knowledge, save_fact, save_faq, set_holding_reply,
    try_question,
};
use crate::knowledge::model::{FactInput, FaqInput, SourceKind, SourceStatus, SourceView, TryResult};
use crate::ui::components::{use_pages, ConfirmButton, ErrorBanner, ListFooter, Pages};
use crate::ui::views::knowledge_files::ReadSources;
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn Knowledge() -> Element {
    rsx! {
        div { class: "page knowledge-page",
            header { class: "page-head", h1 { "Knowledge" } }
            p { class: "muted",
                "What your agents know about the business. They answer from these words, and say they will check with the team when these do not answer."
            }
            TryQuestion {}
            Sources { kind: SourceKind::Fact }
            Sources { kind: SourceKind::Faq }
            ReadSources { kind: SourceKind::Document }
            ReadSources { kind: SourceKind::Web }
            Holding {}
        }
    }
}

/// "Try a question": the passages a question finds, best first, texting no one.
#[component]
fn TryQuestion() -> Element {
    let mut question = use_signal(String::new);
    let mut result = use_signal(|| None::<TryResult>);
    let mut replies = use_signal(Vec::<AgentTry>::new);
    let mut error = use_signal(|| None::<String>);
    let ask = move |e: FormEvent| async move {
        e.prevent_default();
        let q = question();
        match try_question(q.clone()).await {
            Ok(r) => {
                result.set(Some(r));
                error.set(None);
            }
            Err(err) => return error.set(Some(err.to_string())),
        }
        match try_agents(q).await {
            Ok(r) => replies.set(r),
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    rsx! {
        section { class: "card", id: "try-question-card",
            h2 { "Try a question" }
            form { class: "try-form", onsubmit: ask,
                input { id: "try-question", "aria-label": "A question a customer might text", placeholder: "How much is whitening?", value: "{question}", oninput: move |e| question.set(e.value()) }
                button { id: "try-ask", class: "primary", r#type: "submit", "Ask" }
            }
            ErrorBanner { message: error() }
            if let Some(r) = result() {
                if r.hits.is_empty() {
                    p { id: "try-none", class: "muted", "Nothing in the knowledge matches. An agent would say it will check with the team." }
                } else {
                    if !r.hits[0].answers() {
                        p { id: "try-none", class: "muted", "Nothing here answers it clearly. An agent would say it will check with the team." }
                    }
                    ol { class: "plain-list", id: "try-hits",
                        for h in r.hits.clone() {
                            li { key: "{h.passage_id}", class: "try-hit", "data-answers": "{h.answers()}",
                                span { class: "badge", "{h.source_kind.label()}" } " "
                                strong { class: "try-source", "{h.source_title}" } " "
                                if let Some(l) = &h.locator { span { class: "muted small try-locator", "{l} " } }
                                span { class: "muted small try-score", "{(h.score * 100.0).round()}% of the question" }
                                if let Some(near) = h.similarity { span { class: "muted small try-near", " · {(near.max(0.0) * 100.0).round()}% close in meaning" } }
                                if h.answers() { " " span { class: "badge ok", "Answers it" } }
                                p { class: "try-text", "{h.answer.clone().unwrap_or(h.text.clone())}" }
                            }
                        }
                    }
                }
                AgentReplies { replies: replies() }
            }
        }
    }
}

/// What each agent would reply to the question tried, and from which knowledge.
#[component]
fn AgentReplies(replies: Vec<AgentTry>) -> Element {
    rsx! {
        if !replies.is_empty() {
            h3 { "What your agents would reply" }
            ul { class: "plain-list", id: "try-replies",
                for t in replies {
                    li { key: "{t.agent_id}", class: "try-reply",
                        strong { "{t.agent}" }
                        span { class: "muted small", if t.suggests { " drafts for a person" } else { " sends by itself" } " · {t.model}" }
                        match &t.reply {
                            Some(r) => rsx! { p { class: "try-reply-text", "“{r}”" } },
                            None => rsx! { p { class: "muted", "No reply." } },
                        }
                        if !t.sources.is_empty() {
                            p { class: "cite", "From: {t.sources.join(ASKED_SEP)}" }
                        }
                        for r in t.refused.iter() {
                            p { class: "warning small", "Refused, as it gave figures the knowledge does not: “{r}”" }
                        }
                        if let Some(why) = &t.escalation {
                            p { class: "muted small try-escalation", "Asks its owner: {why}" }
                        }
                    }
                }
            }
        }
    }
}

/// The holding reply: what an agent says when the knowledge does not answer.
#[component]
fn Holding() -> Element {
    let mut words = use_signal(String::new);
    let current = use_resource(move || async move {
        let w = holding_reply().await;
        if let Ok(w) = &w {
            words.set(w.clone());
        }
        w
    });
    let mut note = use_signal(|| None::<Result<String, String>>);
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        note.set(Some(match set_holding_reply(words()).await {
            Ok(w) => {
                words.set(w);
                Ok("Saved.".into())
            }
            Err(err) => Err(err.to_string()),
        }));
    };
    rsx! {
        section { class: "card", id: "holding-card",
            h2 { "When the knowledge does not answer" }
            p { class: "muted small",
                "Agents set to answer only from knowledge send this, and hand the question to their owner. It promises no price, time or number."
            }
            if let Some(Err(e)) = current.read().as_ref() {
                ErrorBanner { message: Some(e.to_string()) }
            }
            form { class: "knowledge-form", onsubmit: save,
                label { r#for: "holding-reply", "Holding reply" }
                input { id: "holding-reply", value: "{words}", oninput: move |e| words.set(e.value()) }
                div { class: "form-actions",
                    button { id: "holding-save", class: "primary", r#type: "submit", "Save holding reply" }
                    match note() {
                        Some(Ok(m)) => rsx! { span { class: "ok", "{m}" } },
                        Some(Err(m)) => rsx! { ErrorBanner { message: Some(m) } },
                        None => rsx! {},
                    }
                }
            }
        }
    }
}

const ASKED_SEP: &str = " · ";

/// A source's state in words: "ready: 12 pages read · 30 passages · 1.2 MB · read 7 Dec ·
/// added by Dana", or why it failed.
pub(crate) fn meta(s: &SourceView) -> String {
    let mut words = match s.status {
        SourceStatus::Queued => "waiting to be read".to_owned(),
        SourceStatus::Reading => "being read".to_owned(),
        st => st.to_string(),
    };
    if let Some(e) = &s.error {
        words.push_str(&format!(": {e}"));
    }
    words.push_str(&format!(" · {}", crate::format::count(s.passages as usize, "passage", "passages")));
    if let Some(b) = s.size_bytes {
        words.push_str(&format!(" · {}", size_words(b)));
    }
    if let Some(at) = s.last_read_at.as_deref().and_then(parse_time) {
        words.push_str(&format!(" · read {}", crate::format::day(at)));
    }
    if let Some(by) = &s.added_by {
        words.push_str(&format!(" · added by {by}"));
    }
    words
}

fn parse_time(t: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(t).ok().map(|t| t.to_utc())
}

/// A file's size: "820 KB", "1.2 MB".
fn size_words(b: u64) -> String {
    if b < 1024 * 1024 {
        format!("{} KB", b.div_ceil(1024))
    } else {
        format!("{:.1} MB", b as f64 / (1024.0 * 1024.0))
    }
}

/// A fact or an FAQ entry being written: its id when changing one.
#[derive(Clone, Default, PartialEq)]
struct Draft {
    id: Option<Uuid>,
    title: String,
    body: String,
    alternatives: String,
}

impl Draft {
    fn of(s: &SourceView) -> Draft {
        Draft {
            id: Some(s.id),
            title: s.title.clone(),
            body: s.body.clone(),
            alternatives: s.alternatives.join("\n"),
        }
    }
}

/// The sources of one kind, a page at a time, and the form that adds or changes one.
#[component]
fn Sources(kind: SourceKind) -> Element {
    let mut first = use_resource(move || list_knowledge(Some(kind), None));
    let pages = use_pages::<SourceView, String>();
    let Pages { loading, error: more_error, .. } = pages;
    let mut draft = use_signal(Draft::default);
    let mut error = use_signal(|| None::<String>);
    let mut reload = move || {
        pages.reset();
        first.restart();
    };
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        let d = draft();
        let saved = match kind {
            SourceKind::Faq => {
                let input = FaqInput {
                    question: d.title,
                    answer: d.body,
                    alternatives: d.alternatives.lines().map(str::to_owned).collect(),
                };
                save_faq(d.id, input).await
            }
            _ => save_fact(d.id, FactInput { label: d.title, value: d.body }).await,
        };
        match saved {
            Ok(_) => {
                draft.set(Draft::default());
                error.set(None);
                reload();
            }
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let remove = move |id: Uuid| async move {
        match delete_knowledge(id).await {
            Ok(()) => reload(),
            Err(err) => error.set(Some(err.to_string())),
        }
    };
    let (slug, heading, title_label, body_label) = match kind {
        SourceKind::Faq => ("faq", "Questions and answers", "Question", "Answer"),
        _ => ("fact", "Facts", "Label (e.g. Saturday hours)", "Value (e.g. 9am to 1pm)"),
    };
    rsx! {
        section { class: "card knowledge-sources", id: "{slug}-card",
            h2 { "{heading}" }
            ErrorBanner { message: error() }
            match first.read().clone() {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(page)) => {
                    let (items, cursor) = pages.join(page.items.clone(), page.next.clone());
                    rsx! {
                        ul { class: "plain-list", id: "{slug}-list",
                            for s in items.clone() {
                                li { key: "{s.id}", class: "knowledge-row", "data-status": "{s.status}",
                                    div { class: "knowledge-words",
                                        strong { "{s.title}" }
                                        span { class: "knowledge-body", " {s.body}" }
                                        if !s.alternatives.is_empty() {
                                            span { class: "muted small", " Also asked: {s.alternatives.join(ASKED_SEP)}" }
                                        }
                                    }
                                    div { class: "muted small knowledge-meta", "{meta(&s)}" }
                                    div { class: "row-actions",
                                        button { class: "link-button", r#type: "button", onclick: move |_| draft.set(Draft::of(&s)), "Edit" }
                                        ConfirmButton { id: "delete-knowledge-{s.id}", class: "link-button", label: "Delete",
                                            question: "Delete “{s.title}”?", onconfirm: move |_| { spawn(remove(s.id)); } }
                                    }
                                }
                            }
                        }
                        ListFooter { shown: items.len(), total: page.total, none: "None yet.", error: more_error(), id: "{slug}-more",
                            loading: loading(), has_more: cursor.is_some(),
                            onmore: move |_| if let Some(after) = cursor.clone() { pages.more(list_knowledge(Some(kind), Some(after.clone())), |p| (p.items, p.next)) } }
                    }
                }
            }
            form { class: "knowledge-form", onsubmit: save,
                label { r#for: "{slug}-title", "{title_label}" }
                input { id: "{slug}-title", value: "{draft.read().title}", oninput: move |e| draft.write().title = e.value() }
                label { r#for: "{slug}-body", "{body_label}" }
                textarea { id: "{slug}-body", rows: "2", value: "{draft.read().body}", oninput: move |e| draft.write().body = e.value() }
                if kind == SourceKind::Faq {
                    label { r#for: "faq-alternatives", "Other ways of asking (one a line)" }
                    textarea { id: "faq-alternatives", rows: "2", value: "{draft.read().alternatives}", oninput: move |e| draft.write().alternatives = e.value() }
                }
                div { class: "form-actions",
                    button { id: "{slug}-save", class: "primary", r#type: "submit",
                        if draft.read().id.is_some() { "Save changes" } else if kind == SourceKind::Faq { "Add question" } else { "Add fact" }
                    }
                    if draft.read().id.is_some() {
                        button { class: "secondary", r#type: "button", onclick: move |_| draft.set(Draft::default()), "Cancel" }
                    }
                }
            }
        }
    }
}
