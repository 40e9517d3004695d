//! A large organisation's data, written in bulk (a statement per 500 rows) for the scale tests,
//! the scale benchmark and the browser check at size: contacts with tags and consent, and a
//! history of texts spread over 90 days. Deterministic: the same spec writes the same data, so a
//! test can count by hand what the pages must show.
use crate::contacts::entity::contact;
use crate::error::AppResult;
use crate::messaging::entity as message;
use chrono::{DateTime, Duration, Utc};
use sea_orm::{ConnectionTrait, EntityTrait, NotSet, Set};
use uuid::Uuid;

/// What to write.
#[derive(Clone, Debug)]
pub struct ScaleSpec {
    pub contacts: usize,
    /// Texts per contact, alternating inbound and outbound (the first is inbound).
    pub messages_each: usize,
    /// The newest text's time; the history runs 90 days back from it.
    pub now: DateTime<Utc>,
    /// Every n-th contact's last inbound text stays unread (0: none).
    pub unread_every: usize,
    /// Every n-th contact is tagged `vip` (0: none).
    pub vip_every: usize,
}

/// Rows a statement writes (well under either database's limit on bound values).
const CHUNK: usize = 500;

/// The i-th seeded contact's number: +1 415 2xx xxxx, unique for up to 10,000,000 contacts.
pub fn seeded_phone(i: usize) -> String {
    format!("+1415{:07}", 2_000_000 + i)
}

/// When contact `i`'s `j`-th text was sent: contacts' histories interleave across 90 days, and
/// contact 0 has the newest.
pub fn seeded_time(spec: &ScaleSpec, i: usize, j: usize) -> DateTime<Utc> {
    let span = Duration::days(90).num_seconds();
    let per_contact = span / spec.contacts.max(1) as i64;
    let last = spec.messages_each.max(1) - 1;
    let back = i as i64 * per_contact.max(1)
        + (last - j) as i64 * (span / spec.messages_each.max(1) as i64);
    spec.now - Duration::seconds(back.min(span))
}

/// Writes the contacts and their texts to `org_id`, texting from `number_id`; answers the
/// contacts' ids in order.
pub async fn seed<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    number_id: Uuid,
    spec: &ScaleSpec,
) -> AppResult<Vec<Uuid>> {
    let ids: Vec<Uuid> = (0..spec.contacts).map(|_| Uuid::new_v4()).collect();
    for (n, part) in ids.chunks(CHUNK).enumerate() {
        let rows = part.iter().enumerate().map(|(k, id)| {
            let i = n * CHUNK + k;
            let vip = spec.vip_every > 0 && i.is_multiple_of(spec.vip_every);
            let created = spec.now - Duration::days(120);
            contact::ActiveModel {
                id: Set(*id),
                organization_id: Set(org_id),
                name: Set(format!("Contact {i:06}")),
                phone: Set(Some(seeded_phone(i))),
                email: Set(None),
                tags: Set(serde_json::json!(if vip { vec!["vip"] } else { vec![] })),
                custom_fields: Set(serde_json::json!({})),
                notes: Set(String::new()),
                time_zone: Set(None),
                created_at: Set(created),
                updated_at: Set(created),
                consent_source: Set("web_form".into()),
                consent_at: Set(Some(created)),
                consent_note: Set(Some("seeded".into())),
                unreachable_reason: Set(None),
                unreachable_at: Set(None),
            }
        });
        contact::Entity::insert_many(rows).exec(db).await?;
    }
    let mut batch = Vec::with_capacity(CHUNK);
    for (i, id) in ids.iter().enumerate() {
        for j in 0..spec.messages_each {
            let inbound = j % 2 == 0;
            let last_inbound = j + 2 >= spec.messages_each;
            let unread = inbound
                && last_inbound
                && spec.unread_every > 0
                && i.is_multiple_of(spec.unread_every);
            let at = seeded_time(spec, i, j);
            batch.push(message::ActiveModel {
                id: Set(Uuid::new_v4()),
                organization_id: Set(org_id),
                contact_id: Set(*id),
                phone_number_id: Set(number_id),
                direction: Set(if inbound { "inbound" } else { "outbound" }.into()),
                body: Set(format!("Text {j} with contact {i}")),
                media_count: Set(0),
                media_urls: Set(serde_json::json!([])),
                media_types: Set(None),
                provider_sid: Set(Some(format!("SMseed{}", Uuid::new_v4().simple()))),
                status: Set(if inbound { "received" } else { "delivered" }.into()),
                ai_origin: Set(None),
                keyword: Set(None),
                error: Set(None),
                idempotency_key: Set(None),
                read_at: Set(if unread || !inbound { None } else { Some(at) }),
                created_at: Set(at),
                routed_at: Set(inbound.then_some(at)),
                send_state: Set((!inbound).then_some(crate::messaging::model::SendState::Sent)),
                attempt_key: Set(None),
                attempt_started_at: Set(None),
                send_attempts: Set(if inbound { 0 } else { 1 }),
                reconcile_failures: Set(0),
                purpose: Set((!inbound).then(|| "reply".to_owned())),
                seq: NotSet,
                rolled_up: NotSet,
                outcome_rolled: NotSet,
                agent_id: NotSet,
                cites: NotSet,
            });
            if batch.len() == CHUNK {
                message::Entity::insert_many(std::mem::take(&mut batch))
                    .exec(db)
                    .await?;
            }
        }
    }
    if !batch.is_empty() {
        message::Entity::insert_many(batch).exec(db).await?;
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_run_back_ninety_days_and_contact_zero_is_newest() {
        let now = Utc::now();
        let spec = ScaleSpec {
            contacts: 1000,
            messages_each: 10,
            now,
            unread_every: 0,
            vip_every: 0,
        };
        assert_eq!(seeded_time(&spec, 0, 9), now);
        assert!(seeded_time(&spec, 0, 0) < seeded_time(&spec, 0, 1));
        assert!(seeded_time(&spec, 1, 9) < seeded_time(&spec, 0, 9));
        assert!(now - seeded_time(&spec, 999, 0) <= Duration::days(90));
        assert_eq!(seeded_phone(7), "+14152000007");
    }
}
