//! The organisation's compliance wording (HELP answer, opt-out confirmation, AI disclosure) and
//! its own opt-out phrases, with the defaults a new organisation gets, and an in-memory copy of
//! the phrases for the webhook (one organisation's list is read at most once a second).
use crate::auth::entity::organization;
use crate::error::AppResult;
use sea_orm::{ConnectionTrait, EntityTrait};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// The default HELP answer (CTIA): who is texting, how to reach them, and how to opt out.
pub fn default_help(org: &str) -> String {
    format!("{org}: this number is for texts with {org}; reply here and a person will help. Reply STOP to opt out. Msg & data rates may apply.")
}

/// The default opt-out confirmation: one text, no marketing.
pub fn default_opt_out_reply(org: &str) -> String {
    format!("{org}: you are unsubscribed and will get no more texts from this number. Reply START to resubscribe.")
}

/// The default AI disclosure, put before an autonomous agent's first reply in a conversation.
pub fn default_disclosure(org: &str) -> String {
    format!("(Automated reply from {org}'s AI assistant.)")
}

/// The wording in force for an organisation: its own, else the default.
pub struct Wording {
    pub help: String,
    pub opt_out_reply: String,
    pub disclose: bool,
    pub disclosure: String,
}

fn own(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

pub fn of(o: &organization::Model) -> Wording {
    Wording {
        help: own(&o.help_text).unwrap_or_else(|| default_help(&o.name)),
        opt_out_reply: own(&o.opt_out_reply).unwrap_or_else(|| default_opt_out_reply(&o.name)),
        disclose: o.ai_disclosure,
        disclosure: own(&o.ai_disclosure_text).unwrap_or_else(|| default_disclosure(&o.name)),
    }
}

pub async fn load<C: ConnectionTrait>(db: &C, org: Uuid) -> AppResult<Wording> {
    let o = organization::Entity::find_by_id(org)
        .one(db)
        .await?
        .ok_or_else(|| crate::error::AppError::not_found("Organisation"))?;
    Ok(of(&o))
}

/// The phrases, one per non-empty line.
pub fn phrases_of(raw: Option<&str>) -> Vec<String> {
    raw.unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

const TTL: Duration = Duration::from_secs(1);

/// Each organisation's extra opt-out phrases, read at most once per `TTL`; a change in this
/// instance forgets them at once, another instance's is seen within the TTL.
#[derive(Default)]
pub struct PhraseCache(Mutex<Phrases>);

/// Each organisation's phrases and when they were read.
type Phrases = HashMap<Uuid, (Instant, Arc<Vec<String>>)>;

impl PhraseCache {
    pub async fn get<C: ConnectionTrait>(&self, db: &C, org: Uuid) -> AppResult<Arc<Vec<String>>> {
        if let Some((at, p)) = self.lock().get(&org) {
            if at.elapsed() < TTL {
                return Ok(p.clone());
            }
        }
        let raw: Option<Option<String>> = {
            use sea_orm::QuerySelect;
            organization::Entity::find_by_id(org)
                .select_only()
                .column(organization::Column::OptOutPhrases)
                .into_tuple()
                .one(db)
                .await?
        };
        let phrases = Arc::new(phrases_of(raw.flatten().as_deref()));
        let mut map = self.lock();
        if map.len() > 10_000 {
            map.clear();
        }
        map.insert(org, (Instant::now(), phrases.clone()));
        Ok(phrases)
    }

    pub fn forget(&self, org: Uuid) {
        self.lock().remove(&org);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Phrases> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The settings page's view: the organisation's own wording and the defaults.
pub async fn settings(
    state: &crate::platform::AppState,
    org: Uuid,
) -> AppResult<crate::compliance::model::ComplianceSettingsView> {
    let o = organization::Entity::find_by_id(org)
        .one(&state.db)
        .await?
        .ok_or_else(|| crate::error::AppError::not_found("Organisation"))?;
    Ok(crate::compliance::model::ComplianceSettingsView {
        settings: crate::compliance::model::ComplianceSettings {
            help_text: o.help_text.clone().unwrap_or_default(),
            opt_out_reply: o.opt_out_reply.clone().unwrap_or_default(),
            ai_disclosure: o.ai_disclosure,
            ai_disclosure_text: o.ai_disclosure_text.clone().unwrap_or_default(),
            opt_out_phrases: o.opt_out_phrases.clone().unwrap_or_default(),
        },
        default_help_text: default_help(&o.name),
        default_opt_out_reply: default_opt_out_reply(&o.name),
        default_ai_disclosure_text: default_disclosure(&o.name),
    })
}

/// Saves the texting-law settings; owners only. Turning disclosure off is logged.
pub async fn update(
    state: &crate::platform::AppState,
    m: &crate::auth::session::Member,
    input: &crate::compliance::model::ComplianceSettings,
) -> AppResult<crate::compliance::model::ComplianceSettingsView> {
    use sea_orm::{ActiveModelTrait, Set};
    m.require_owner()?;
    let clean = input
        .cleaned()
        .map_err(crate::error::AppError::Validation)?;
    let o = organization::Entity::find_by_id(m.organization_id)
        .one(&state.db)
        .await?
        .ok_or_else(|| crate::error::AppError::not_found("Organisation"))?;
    if o.ai_disclosure && !clean.ai_disclosure {
        tracing::warn!(org = %m.organization_id, user = %m.user_id, "AI disclosure turned off");
    }
    let some = |s: String| (!s.is_empty()).then_some(s);
    let mut am: organization::ActiveModel = o.into();
    am.help_text = Set(some(clean.help_text));
    am.opt_out_reply = Set(some(clean.opt_out_reply));
    am.ai_disclosure = Set(clean.ai_disclosure);
    am.ai_disclosure_text = Set(some(clean.ai_disclosure_text));
    am.opt_out_phrases = Set(some(clean.opt_out_phrases));
    am.update(&state.db).await?;
    state.phrases().forget(m.organization_id);
    settings(state, m.organization_id).await
}

impl crate::platform::AppState {
    /// Each organisation's own opt-out phrases, for the webhook's detector.
    pub fn phrases(&self) -> &PhraseCache {
        self.part::<std::sync::Arc<PhraseCache>>()
    }
}
