//! Reading and changing the organisation's settings, and the rules an agent's turn reads.
use crate::auth::entity::organization;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::organization::model::OrgSettings;
use crate::platform::AppState;
use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, QuerySelect, Set};
use uuid::Uuid;

async fn find(state: &AppState, id: Uuid) -> AppResult<organization::Model> {
    organization::Entity::find_by_id(id)
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Organisation"))
}

fn settings_of(o: organization::Model) -> OrgSettings {
    OrgSettings {
        name: o.name,
        time_zone: o.time_zone,
        rules: o.rules.unwrap_or_default(),
        ai_pause_hours: (o.ai_pause_minutes.max(60) / 60) as u32,
        link_domains: o.short_link_domains.unwrap_or_default(),
    }
}

pub async fn get(state: &AppState, m: &Member) -> AppResult<OrgSettings> {
    Ok(settings_of(find(state, m.organization_id).await?))
}

#[tracing::instrument(skip(state, m, input), fields(org = %m.organization_id))]
pub async fn update(state: &AppState, m: &Member, input: &OrgSettings) -> AppResult<OrgSettings> {
    m.require_owner()?;
    let clean = input.cleaned().map_err(AppError::validation)?;
    if clean.time_zone.parse::<chrono_tz::Tz>().is_err() {
        return Err(AppError::validation(format!(
            "\"{}\" is not a time zone; use a name such as America/Los_Angeles.",
            clean.time_zone
        )));
    }
    let mut am: organization::ActiveModel = find(state, m.organization_id).await?.into();
    am.name = Set(clean.name);
    am.time_zone = Set(clean.time_zone);
    am.rules = Set((!clean.rules.is_empty()).then_some(clean.rules));
    am.ai_pause_minutes = Set(clean.ai_pause_hours as i32 * 60);
    am.short_link_domains = Set((!clean.link_domains.is_empty()).then_some(clean.link_domains));
    let saved = am.update(&state.db).await?;
    tracing::info!(
        rules_chars = saved.rules.as_deref().map_or(0, |r| r.chars().count()),
        "organisation settings saved"
    );
    Ok(settings_of(saved))
}

/// The organisation's rules for an agent's prompt; `None` when it has none.
pub async fn rules_of<C: ConnectionTrait>(db: &C, org: Uuid) -> AppResult<Option<String>> {
    let rules: Option<Option<String>> = organization::Entity::find_by_id(org)
        .select_only()
        .column(organization::Column::Rules)
        .into_tuple()
        .one(db)
        .await?;
    Ok(rules.flatten().filter(|r| !r.trim().is_empty()))
}

/// The IANA places (an area and a city, not the old aliases such as `US/Pacific` or `Etc/GMT+8`)
/// and UTC, sorted: the list the settings page offers.
pub fn time_zones() -> Vec<String> {
    const AREAS: [&str; 9] = [
        "Africa/",
        "America/",
        "Antarctica/",
        "Asia/",
        "Atlantic/",
        "Australia/",
        "Europe/",
        "Indian/",
        "Pacific/",
    ];
    let mut zones: Vec<String> = chrono_tz::TZ_VARIANTS
        .iter()
        .map(|z| z.name().to_owned())
        .filter(|n| AREAS.iter().any(|a| n.starts_with(a)))
        .collect();
    zones.push("UTC".into());
    zones.sort();
    zones
}

#[cfg(test)]
mod zone_tests {
    #[test]
    fn the_list_holds_places_not_aliases() {
        let zones = super::time_zones();
        assert!(zones.iter().any(|z| z == "America/Los_Angeles"));
        assert!(zones.iter().any(|z| z == "Europe/London"));
        assert!(zones.iter().any(|z| z == "UTC"));
        assert!(!zones
            .iter()
            .any(|z| z.starts_with("US/") || z.starts_with("Etc/")));
        assert!(zones.windows(2).all(|w| w[0] <= w[1]));
        assert!(zones.len() > 300, "{}", zones.len());
    }
}
