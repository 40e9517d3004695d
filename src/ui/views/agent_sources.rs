//! An agent's knowledge, on its page: all of the business's knowledge, or only the sources
//! ticked here (a page of them at a time). Letting an agent that texts by itself answer from more
//! takes an owner; the server says so when it does.
use crate::ai_agent::knowledge_api::set_agent_sources;
use crate::ai_agent::model::AgentView;
use crate::knowledge::api::list_knowledge;
use crate::knowledge::model::SourceView;
use crate::ui::components::{use_pages, ErrorBanner, Pages, ShowMore};
use dioxus::prelude::*;
use uuid::Uuid;

#[component]
pub fn AgentSources(agent: AgentView, on_saved: EventHandler<()>) -> Element {
    let id = agent.id;
    let mut all = use_signal(|| agent.knowledge_sources.is_none());
    let mut chosen = use_signal(|| agent.knowledge_sources.clone().unwrap_or_default());
    let first = use_resource(move || list_knowledge(None, None));
    let pages = use_pages::<SourceView, String>();
    let Pages {
        loading,
        error: more_error,
        ..
    } = pages;
    let mut note = use_signal(|| None::<Result<String, String>>);
    let save = move |e: FormEvent| async move {
        e.prevent_default();
        let sources = if all() { None } else { Some(chosen()) };
        note.set(None);
        note.set(Some(match set_agent_sources(id, sources).await {
            Ok(v) => {
                on_saved.call(());
                Ok(match v.knowledge_sources {
                    None => "Saved: it answers from all of the knowledge.".into(),
                    Some(s) => format!(
                        "Saved: it answers from {} only.",
                        crate::format::count(s.len(), "source", "sources")
                    ),
                })
            }
            Err(err) => Err(err.to_string()),
        }));
    };
    let mut toggle = move |source: Uuid, on: bool| {
        let mut c = chosen.write();
        c.retain(|s| *s != source);
        if on {
            c.push(source);
        }
    };
    rsx! {
        form { class: "card", id: "agent-sources", onsubmit: save,
            h2 { "Knowledge" }
            label { class: "check",
                input { id: "agent-sources-all", r#type: "checkbox", checked: all(), onchange: move |e| all.set(e.checked()) }
                " Answer from all of the business's knowledge"
            }
            if !all() {
                match first.read().clone() {
                    None => rsx! { p { class: "muted", "Loading…" } },
                    Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                    Some(Ok(page)) => {
                        let (items, cursor) = pages.join(page.items.clone(), page.next.clone());
                        rsx! {
                            ul { class: "plain-list", id: "agent-source-list",
                                for s in items {
                                    li { key: "{s.id}",
                                        label { class: "check",
                                            input { r#type: "checkbox", class: "agent-source", "data-title": "{s.title}",
                                                checked: chosen.read().contains(&s.id),
                                                onchange: move |e| toggle(s.id, e.checked()) }
                                            " {s.kind.label()}: {s.title}"
                                        }
                                    }
                                }
                            }
                            ErrorBanner { message: more_error() }
                            if let Some(after) = cursor {
                                ShowMore {
                                    id: "agent-sources-more",
                                    loading: loading(),
                                    onclick: move |_| pages.more(list_knowledge(None, Some(after.clone())), |p| (p.items, p.next)),
                                }
                            }
                        }
                    }
                }
            }
            div { class: "form-actions",
                button { id: "agent-sources-save", class: "primary", r#type: "submit", "Save knowledge" }
                match note() {
                    Some(Ok(m)) => rsx! { span { class: "ok", "{m}" } },
                    Some(Err(m)) => rsx! { ErrorBanner { message: Some(m) } },
                    None => rsx! {},
                }
            }
        }
    }
}
