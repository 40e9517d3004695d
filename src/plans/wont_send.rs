//! Texts a plan presents that the send check would refuse whatever the hour (issue 51 §3): a
//! step's text to a contact who opted out, has no phone, or has no consent on record for a text
//! the business starts. The card says "Won't be sent: opted out" beside the step, and the
//! estimate leaves the text out. The ledger's check (`compliance::gate`) still decides as each
//! text leaves; this reads the same facts for a page of plans at once.
use crate::contacts::consent::ConsentSource;
use crate::contacts::entity::{contact, suppression};
use crate::error::AppResult;
use crate::messaging::entity::conversation;
use crate::plans::entity::plan;
use crate::plans::model::{PlanAction, SEND_TOOL};
use crate::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// Ids read at once.
const CHUNK: usize = 500;

/// (plan, step) → why its text will not be sent, for the steps still to run that text one
/// contact, named outright or by a step that has run.
pub async fn of(
    state: &AppState,
    rows: &[plan::Model],
    decoded: &[(PlanAction, Option<String>)],
) -> AppResult<HashMap<(Uuid, String), String>> {
    let mut wanted: Vec<(Uuid, Uuid, String, Uuid)> = Vec::new();
    for (p, (action, _)) in rows.iter().zip(decoded) {
        let steps = action.steps();
        for (i, s) in steps.iter().enumerate() {
            // Named outright, or by an earlier step's result once that step has run.
            let args = crate::steps::schedule::resolved_arguments(steps, i).ok();
            let to = args
                .as_ref()
                .and_then(|a| a["contact_id"].as_str())
                .and_then(|c| c.parse().ok());
            if let (true, Some(c)) = (
                s.tool == SEND_TOOL && s.for_each.is_none() && !s.status.is_final(),
                to,
            ) {
                wanted.push((p.id, p.organization_id, s.id.clone(), c));
            }
        }
    }
    if wanted.is_empty() {
        return Ok(HashMap::new());
    }
    let ids: Vec<Uuid> = wanted
        .iter()
        .map(|w| w.3)
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let (mut people, mut texted) = (HashMap::new(), HashSet::new());
    for part in ids.chunks(CHUNK) {
        for c in contact::Entity::find()
            .filter(contact::Column::Id.is_in(part.iter().copied()))
            .all(&state.db)
            .await?
        {
            people.insert(c.id, c);
        }
        texted.extend(
            conversation::Entity::find()
                .filter(conversation::Column::ContactId.is_in(part.iter().copied()))
                .filter(conversation::Column::LastInboundAt.is_not_null())
                .all(&state.db)
                .await?
                .into_iter()
                .map(|c| c.contact_id),
        );
    }
    let phones: Vec<String> = people.values().filter_map(|c| c.phone.clone()).collect();
    let mut out_numbers: HashSet<(Uuid, String)> = HashSet::new();
    for part in phones.chunks(CHUNK) {
        out_numbers.extend(
            suppression::Entity::find()
                .filter(suppression::Column::Phone.is_in(part.iter().cloned()))
                .all(&state.db)
                .await?
                .into_iter()
                .map(|s| (s.organization_id, s.phone)),
        );
    }
    let mut reasons = HashMap::new();
    for (plan_id, org, step, contact_id) in wanted {
        // Another organisation's contact is refused by the step itself, in its own words.
        let Some(c) = people.get(&contact_id).filter(|c| c.organization_id == org) else {
            continue;
        };
        let reason = match &c.phone {
            None => Some("no phone number"),
            Some(p) if out_numbers.contains(&(org, p.clone())) => Some("opted out"),
            Some(_)
                if !texted.contains(&c.id)
                    && !ConsentSource::parse(&c.consent_source)
                        .unwrap_or_default()
                        .allows_marketing() =>
            {
                Some("no consent on record")
            }
            Some(_) => None,
        };
        if let Some(r) = reason {
            reasons.insert((plan_id, step), r.to_owned());
        }
    }
    Ok(reasons)
}
