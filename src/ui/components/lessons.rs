//! The agent page's lessons: what the agent learnt from its operators' corrections, each with
//! its words (editable), an on/off switch, its history and the corrections it came from, and
//! "Review lessons" to distil new ones now.
use crate::ai_agent::learning::api::{delete_lesson, list_lessons, review_lessons, update_lesson};
use crate::ai_agent::learning::model::{LessonView, MAX_LESSON_CHARS};
use crate::ui::components::{short_time, use_act, ErrorBanner};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn LessonsCard(agent_id: Uuid) -> Element {
    let mut lessons = use_resource(move || list_lessons(agent_id));
    let act = use_act();
    let mut report = use_signal(|| None::<String>);
    let review = move |_| async move {
        if let Some(r) = act.run(review_lessons(agent_id)).await {
            report.set(Some(format!(
                "Reviewed {} corrections: {} new lesson{}, {} updated.",
                r.signals,
                r.created,
                if r.created == 1 { "" } else { "s" },
                r.updated
            )));
            lessons.restart();
        }
    };
    let current = lessons.read().clone();
    rsx! {
        div { class: "card lessons-card", id: "lessons",
            div { class: "row",
                h2 { "Lessons" }
                button { class: "secondary", id: "review-lessons", onclick: review, "Review lessons" }
            }
            p { class: "muted small", "Learnt from your corrections to plans and drafts. Enabled lessons reach the agent's prompt; audience lessons also leave matching contacts out of its next campaigns." }
            ErrorBanner { message: act.error() }
            if let Some(r) = report() { p { class: "ok small", id: "review-report", "{r}" } }
            match current {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(list)) if list.is_empty() => rsx! { p { class: "muted", id: "no-lessons", "No lessons yet." } },
                Some(Ok(list)) => rsx! {
                    ul { class: "lesson-list",
                        for l in list {
                            Lesson { key: "{l.id}-{l.version}-{l.enabled}", lesson: l, on_changed: move |_| lessons.restart() }
                        }
                    }
                },
            }
        }
    }
}

#[component]
fn Lesson(lesson: LessonView, on_changed: EventHandler<()>) -> Element {
    let id = lesson.id;
    let mut text = use_signal(|| lesson.text.clone());
    let act = use_act();
    let enabled = lesson.enabled;
    let save = move |on: bool| async move {
        if act.run(update_lesson(id, text(), on)).await.is_some() {
            on_changed.call(());
        }
    };
    let changed = text.read().trim() != lesson.text;
    rsx! {
        li { class: if enabled { "lesson" } else { "lesson disabled" }, "data-rule": "{lesson.rule_key}",
            ErrorBanner { message: act.error() }
            textarea { class: "lesson-text", rows: "2", maxlength: MAX_LESSON_CHARS as i64, value: "{text}", oninput: move |e| text.set(e.value()) }
            div { class: "row",
                label { class: "check",
                    input { class: "lesson-enabled", r#type: "checkbox", checked: enabled, onchange: move |e| save(e.checked()) }
                    " Enabled"
                }
                if changed {
                    button { class: "primary lesson-save", onclick: move |_| save(enabled), "Save" }
                }
                button { class: "danger lesson-delete", onclick: move |_| async move {
                    if act.run(delete_lesson(id)).await.is_some() {
                        on_changed.call(());
                    }
                }, "Delete" }
                span { class: "muted small", "Version {lesson.version}" }
            }
            details { class: "lesson-sources",
                summary { "From {lesson.sources.len()} corrections · history" }
                ul {
                    for s in lesson.sources.iter() {
                        li { key: "{s.id}", class: "small",
                            "{short_time(s.at)} · {s.summary}"
                            if let Some(link) = s.link.clone() { " · " a { href: "{link}", "the plan" } }
                        }
                    }
                }
                ol { class: "lesson-history",
                    for v in lesson.history.iter() {
                        li { key: "{v.version}", class: "small", "v{v.version} by {v.by}, {short_time(v.at)}: {v.text}" }
                    }
                }
            }
        }
    }
}
