//! The "Review lessons" job and the lessons on the agent page. Reading is for anyone in the
//! organisation; editing, disabling, deleting and reviewing on demand are for the agent's owner
//! or the organisation's owner.
use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::learning::distill::{distill, Input, Proposal};
use crate::ai_agent::learning::entity::{learning, lesson};
use crate::ai_agent::learning::model::{
    LessonVersion, LessonView, ReviewReport, SignalView, MAX_LESSON_CHARS,
};
use crate::ai_agent::llm::ChatMessage;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use serde_json::json;
use std::collections::HashMap;
use uuid::Uuid;

/// The most recent signals a review reads per agent.
const REVIEW_WINDOW: u64 = 5_000;

/// Distils the agent's signals into lessons: new rules become lessons, known ones gain their new
/// sources; a deleted lesson is never brought back and a person's words are never overwritten.
#[tracing::instrument(skip(state), fields(agent = %agent.id))]
///
/// A new lesson widens an autonomous agent: it starts switched off unless an owner ran the review
/// (then it is audited), and the owners are told it waits for them.
pub async fn review(
    state: &AppState,
    agent: &ai_agent::Model,
    by: Option<&Member>,
) -> AppResult<ReviewReport> {
    let by_owner = by.filter(|m| m.role == crate::auth::model::Role::Owner);
    let held = crate::ai_agent::autonomy::lesson_widens(agent, true, true) && by_owner.is_none();
    let rows = learning::Entity::find()
        .filter(learning::Column::AgentId.eq(agent.id))
        .order_by_desc(learning::Column::CreatedAt)
        .limit(REVIEW_WINDOW)
        .all(&state.db)
        .await?;
    let inputs: Vec<Input> = rows
        .iter()
        .map(|r| Input {
            id: r.id,
            kind: r.kind.clone(),
            subject_id: r.subject_id,
            detail: r.detail.clone(),
        })
        .collect();
    let mut report = ReviewReport {
        signals: rows.len(),
        ..ReviewReport::default()
    };
    let org = agent.organization_id.unwrap_or_default();
    let mut new_words = Vec::new();
    for p in distill(&inputs) {
        let existing = lesson::Entity::find()
            .filter(lesson::Column::AgentId.eq(agent.id))
            .filter(lesson::Column::RuleKey.eq(p.rule_key.as_str()))
            .one(&state.db)
            .await?;
        let now = state.clock.now();
        match existing {
            Some(l) if l.deleted_at.is_some() => {}
            Some(l) => {
                let mut sources: Vec<Uuid> =
                    serde_json::from_value(l.sources.clone()).unwrap_or_default();
                let before = sources.len();
                for id in &p.sources {
                    if !sources.contains(id) {
                        sources.push(*id);
                    }
                }
                if sources.len() != before {
                    let mut am: lesson::ActiveModel = l.into();
                    am.sources = Set(json!(sources));
                    am.updated_at = Set(now);
                    am.update(&state.db).await?;
                    report.updated += 1;
                }
            }
            None => {
                let text = phrase(state, &p, &rows).await;
                let inserted = lesson::ActiveModel {
                    id: Set(Uuid::new_v4()),
                    organization_id: Set(org),
                    agent_id: Set(agent.id),
                    rule_key: Set(p.rule_key.clone()),
                    text: Set(text.clone()),
                    enabled: Set(!held),
                    version: Set(1),
                    sources: Set(json!(p.sources)),
                    history: Set(json!([{"version": 1, "text": text, "by": "review", "at": now}])),
                    deleted_at: Set(None),
                    created_at: Set(now),
                    updated_at: Set(now),
                }
                .insert(&state.db)
                .await;
                match inserted {
                    Ok(_) => {
                        report.created += 1;
                        new_words.push(text);
                    }
                    // Another instance's review made it first (one lesson per rule).
                    Err(e) if crate::platform::db::is_unique_violation(&e) => {}
                    Err(e) => return Err(e.into()),
                }
            }
        }
    }
    if !new_words.is_empty() {
        after_new_lessons(state, agent, by_owner, held, &new_words).await?;
    }
    tracing::info!(
        signals = report.signals,
        created = report.created,
        updated = report.updated,
        "reviewed lessons"
    );
    Ok(report)
}

/// New lessons of an autonomous agent: audited when an owner's review switched them on, otherwise
/// held, and the organisation's owners are told they wait.
async fn after_new_lessons(
    state: &AppState,
    agent: &ai_agent::Model,
    by_owner: Option<&Member>,
    held: bool,
    words: &[String],
) -> AppResult<()> {
    let now = state.clock.now();
    if let (Some(owner), false) = (by_owner, held) {
        if crate::ai_agent::autonomy::lesson_widens(agent, true, true) {
            let what = format!("lessons: {}", words.join(" / "));
            widened(&state.db, owner, &agent.name, &what, now).await?;
        }
        return Ok(());
    }
    if !held {
        return Ok(());
    }
    let org = agent.organization_id.unwrap_or_default();
    for owner in crate::auth::owners::owner_ids(&state.db, org).await? {
        crate::notifications::service::notify(
            state,
            crate::notifications::service::Notice {
                organization_id: org,
                user_id: owner,
                kind: "lessons_waiting",
                title: format!(
                    "{} new lessons for {} wait for an owner",
                    words.len(),
                    agent.name
                ),
                body: format!(
                    "{} texts by itself, so new lessons start switched off. Read them on its page \
                     and switch on the ones you agree with.",
                    agent.name
                ),
                link: Some(format!("/agents/{}", agent.id)),
                source_key: None,
                agent_id: Some(agent.id),
            },
        )
        .await?;
    }
    Ok(())
}

/// The lesson's words: the rule's own with the offline model; a hosted model writes them from
/// the signals (the rule's words when it cannot).
async fn phrase(state: &AppState, p: &Proposal, rows: &[learning::Model]) -> String {
    if state.model.label() == crate::ai_agent::llm::offline::OFFLINE_LABEL {
        return p.text.clone();
    }
    let lines: Vec<String> = rows
        .iter()
        .filter(|r| p.sources.contains(&r.id))
        .map(|r| {
            format!(
                "- {}",
                crate::ai_agent::learning::signals::summary(&r.kind, &r.detail)
            )
        })
        .collect();
    let system =
        "You turn an operator's repeated corrections into one lasting lesson for an SMS agent. \
        Answer with the lesson only: one short imperative sentence.";
    let prompt = format!(
        "The pattern: {}\nThe corrections:\n{}",
        p.text,
        lines.join("\n")
    );
    match state
        .model
        .complete(system, &[ChatMessage::user(prompt)], &[])
        .await
    {
        Ok(c) => c
            .text
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty() && t.chars().count() <= MAX_LESSON_CHARS)
            .unwrap_or_else(|| p.text.clone()),
        Err(e) => {
            tracing::warn!(error = %e, "the model could not phrase a lesson; using the rule's words");
            p.text.clone()
        }
    }
}

/// Reviews every agent with signals: the weekly job.
pub async fn review_all(state: &AppState) -> AppResult<usize> {
    let agents: Vec<Uuid> = learning::Entity::find()
        .select_only()
        .column(learning::Column::AgentId)
        .distinct()
        .into_tuple()
        .all(&state.db)
        .await?;
    let mut reviewed = 0;
    for id in agents {
        if let Some(agent) = ai_agent::Entity::find_by_id(id).one(&state.db).await? {
            review(state, &agent, None).await?;
            reviewed += 1;
        }
    }
    Ok(reviewed)
}

/// Runs `review_all` every `every` until shutdown.
pub fn start_reviews(state: &AppState, every: std::time::Duration) {
    let bg = state.clone();
    state.loops.spawn(async move {
        loop {
            tokio::select! {
                _ = bg.shutdown.cancelled() => return,
                _ = tokio::time::sleep(every) => {}
            }
            if let Err(e) = review_all(&bg).await {
                tracing::error!(error = %e, "the lesson review failed");
            }
        }
    });
}

/// On demand from the agent page.
pub async fn review_now(state: &AppState, m: &Member, agent_id: Uuid) -> AppResult<ReviewReport> {
    let agent =
        crate::ai_agent::service::find_in_org(&state.db, m.organization_id, agent_id).await?;
    crate::ai_agent::service::may_edit(m, &agent)?;
    review(state, &agent, Some(m)).await
}

/// The agent's enabled lessons, oldest first: (rule, words).
pub async fn enabled<C: ConnectionTrait>(
    db: &C,
    agent_id: Uuid,
) -> AppResult<Vec<(String, String)>> {
    Ok(lesson::Entity::find()
        .filter(lesson::Column::AgentId.eq(agent_id))
        .filter(lesson::Column::Enabled.eq(true))
        .filter(lesson::Column::DeletedAt.is_null())
        .order_by_asc(lesson::Column::CreatedAt)
        .all(db)
        .await?
        .into_iter()
        .map(|l| (l.rule_key, l.text))
        .collect())
}

pub async fn list(state: &AppState, m: &Member, agent_id: Uuid) -> AppResult<Vec<LessonView>> {
    crate::ai_agent::service::find_in_org(&state.db, m.organization_id, agent_id).await?;
    let lessons = lesson::Entity::find()
        .filter(lesson::Column::OrganizationId.eq(m.organization_id))
        .filter(lesson::Column::AgentId.eq(agent_id))
        .filter(lesson::Column::DeletedAt.is_null())
        .order_by_asc(lesson::Column::CreatedAt)
        .all(&state.db)
        .await?;
    let ids: Vec<Uuid> = lessons
        .iter()
        .flat_map(|l| serde_json::from_value::<Vec<Uuid>>(l.sources.clone()).unwrap_or_default())
        .collect();
    let signals: HashMap<Uuid, learning::Model> = learning::Entity::find()
        .filter(learning::Column::OrganizationId.eq(m.organization_id))
        .filter(learning::Column::Id.is_in(ids))
        .all(&state.db)
        .await?
        .into_iter()
        .map(|s| (s.id, s))
        .collect();
    Ok(lessons.into_iter().map(|l| view(l, &signals)).collect())
}

fn view(l: lesson::Model, signals: &HashMap<Uuid, learning::Model>) -> LessonView {
    let sources: Vec<Uuid> = serde_json::from_value(l.sources.clone()).unwrap_or_default();
    LessonView {
        id: l.id,
        rule_key: l.rule_key,
        text: l.text,
        enabled: l.enabled,
        version: l.version,
        history: serde_json::from_value(l.history).unwrap_or_default(),
        sources: sources
            .iter()
            .filter_map(|id| signals.get(id))
            .map(|s| SignalView {
                id: s.id,
                kind: s.kind.clone(),
                summary: crate::ai_agent::learning::signals::summary(&s.kind, &s.detail),
                link: (s.subject_kind == "plan").then(|| format!("/plans/{}", s.subject_id)),
                at: s.created_at,
            })
            .collect(),
        updated_at: l.updated_at,
    }
}

async fn find(state: &AppState, m: &Member, id: Uuid) -> AppResult<lesson::Model> {
    let l = lesson::Entity::find_by_id(id)
        .filter(lesson::Column::OrganizationId.eq(m.organization_id))
        .filter(lesson::Column::DeletedAt.is_null())
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Lesson"))?;
    let agent =
        crate::ai_agent::service::find_in_org(&state.db, m.organization_id, l.agent_id).await?;
    crate::ai_agent::service::may_edit(m, &agent)?;
    Ok(l)
}

/// A person's new words or switch: a new version when the words change.
pub async fn update(
    state: &AppState,
    m: &Member,
    id: Uuid,
    text: &str,
    enabled: bool,
) -> AppResult<LessonView> {
    let l = find(state, m, id).await?;
    let text = text.trim();
    let agent =
        crate::ai_agent::service::find_in_org(&state.db, m.organization_id, l.agent_id).await?;
    let widens =
        crate::ai_agent::autonomy::lesson_widens(&agent, text != l.text, enabled && !l.enabled);
    if widens && m.role != crate::auth::model::Role::Owner {
        return Err(AppError::NotPermitted(
            "This agent texts by itself, and a lesson goes into every reply, so only an owner may \
             change or switch on its lessons. Switch the agent to suggest mode to edit them, or \
             ask an owner."
                .into(),
        ));
    }
    if text.is_empty() {
        return Err(AppError::validation(
            "A lesson needs words; delete it instead.",
        ));
    }
    if text.chars().count() > MAX_LESSON_CHARS {
        return Err(AppError::validation(format!(
            "A lesson is at most {MAX_LESSON_CHARS} characters: the agent reads it on every turn."
        )));
    }
    let now = state.clock.now();
    let mut history: Vec<LessonVersion> =
        serde_json::from_value(l.history.clone()).unwrap_or_default();
    let mut version = l.version;
    if text != l.text {
        version += 1;
        let by = crate::auth::entity::user::Entity::find_by_id(m.user_id)
            .one(&state.db)
            .await?
            .map(|u| u.name)
            .unwrap_or_else(|| "a person".into());
        history.push(LessonVersion {
            version,
            text: text.to_owned(),
            by,
            at: now,
        });
    }
    let mut am: lesson::ActiveModel = l.into();
    am.text = Set(text.to_owned());
    am.enabled = Set(enabled);
    am.version = Set(version);
    am.history = Set(json!(history));
    am.updated_at = Set(now);
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let saved = am.update(&txn).await?;
    if widens {
        widened(&txn, m, &agent.name, &format!("lesson: {text}"), now).await?;
    }
    txn.commit().await?;
    list(state, m, saved.agent_id)
        .await?
        .into_iter()
        .find(|x| x.id == id)
        .ok_or_else(|| AppError::not_found("Lesson"))
}

/// Audits an owner's widening of an autonomous agent through its lessons.
async fn widened<C: ConnectionTrait>(
    db: &C,
    m: &Member,
    agent_name: &str,
    what: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<()> {
    crate::audit::service::record(
        db,
        crate::audit::service::Entry {
            organization_id: Some(m.organization_id),
            actor: Some(m.user_id),
            action: crate::audit::model::AuditAction::AgentWidened,
            target: agent_name,
            detail: Some(what.chars().take(300).collect()),
        },
        now,
    )
    .await
}

/// Deletes a lesson: it leaves the prompt and never comes back from the same rule.
pub async fn delete(state: &AppState, m: &Member, id: Uuid) -> AppResult<()> {
    let l = find(state, m, id).await?;
    let mut am: lesson::ActiveModel = l.into();
    am.deleted_at = Set(Some(state.clock.now()));
    am.enabled = Set(false);
    am.update(&state.db).await?;
    Ok(())
}
