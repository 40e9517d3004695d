//! Merging two duplicate contacts (issue 28 §5): the duplicate's texts, notes, scheduled texts,
//! agent threads, campaign items and plan audiences move to the contact that is kept, in one
//! transaction; the duplicate is removed and remembered (`contact_merge`) so that its old links
//! still find the person (`merge_record`). Owners only, and audited. The moves are in
//! `merge_moves`.
//!
//! Compliance never loosens: the kept contact ends opted out if either was (its own number is
//! suppressed too), and keeps the stricter consent of the two. A merge is refused while the
//! duplicate has a text in flight: a campaign still sending to them, a scheduled text leaving, or
//! an agent answering them.
//!
//! Messages keep their `seq`: it comes from one sequence for the whole table, so the two
//! histories interleave in the order they happened and `(contact_id, seq)` stays unique.
use crate::ai_agent::entity::ai_thread;
use crate::ai_agent::thread::contact_key;
use crate::audit::model::AuditAction;
use crate::audit::service::{record, Entry};
use crate::auth::session::Member;
use crate::campaign::entity::item;
use crate::compliance::model::ConsentSource;
use crate::contacts::entity::contact;
use crate::contacts::opt_out::{self, Because, OptOutSource};
use crate::contacts::profile_model::MergeReport;
use crate::contacts::service::find_in_org;
use crate::error::{AppError, AppResult};
use crate::format::count;
use crate::inbox::notes::entity as note;
use crate::live_event::LiveEvent;
use crate::messaging::entity as message;
use crate::messaging::scheduled::{entity as scheduled, status as scheduled_status};
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, PaginatorTrait,
    QueryFilter, Set,
};
use uuid::Uuid;

use super::in_flight::display_name;
pub use crate::contacts::merge_record::{merge_row, merged_count, merged_into};

/// Owner only. Merges `duplicate` into `keep`; with `apply` false it changes nothing and answers
/// what a merge would move.
pub async fn merge(
    state: &AppState,
    m: &Member,
    keep: Uuid,
    duplicate: Uuid,
    apply: bool,
) -> AppResult<MergeReport> {
    m.require_owner()?;
    if keep == duplicate {
        return Err(AppError::validation(
            "Pick two different contacts to merge.",
        ));
    }
    let org = m.organization_id;
    let now = state.clock.now();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    // On PostgreSQL the two rows are locked for the merge; SQLite's write lock is already held.
    let kept = find_in_org(&txn, org, keep).await?;
    let dup = find_in_org(&txn, org, duplicate).await?;
    if txn.get_database_backend() == sea_orm::DbBackend::Postgres {
        crate::platform::db::advisory_xact_lock(&txn, lock_key(org)).await?;
    }
    super::in_flight::refuse(&txn, org, &dup, now, "Merge").await?;
    let kept_out = opt_out::sms_opt_out(&txn, keep).await?;
    let dup_out = opt_out::sms_opt_out(&txn, duplicate).await?;
    let consent = stricter(&kept, &dup);
    let kept_tags: Vec<String> = serde_json::from_value(kept.tags.clone()).unwrap_or_default();
    let dup_tags: Vec<String> = serde_json::from_value(dup.tags.clone()).unwrap_or_default();
    let tags_added: Vec<String> = dup_tags
        .iter()
        .filter(|t| !kept_tags.contains(t))
        .cloned()
        .collect();
    let threads = dup_threads(&txn, org, duplicate, keep).await?;
    let phone_dropped = match (&kept.phone, &dup.phone) {
        (Some(a), Some(b)) if a != b => Some(b.clone()),
        _ => None,
    };
    let mut report = MergeReport {
        kept: keep,
        merged_name: display_name(&dup),
        threads_moved: threads.iter().filter(|t| !t.1).count() as u64,
        threads_archived: threads.iter().filter(|t| t.1).count() as u64,
        tags_added: tags_added.clone(),
        opted_out: kept_out.is_some() || dup_out.is_some(),
        consent_label: consent.0.label().to_owned(),
        phone_dropped,
        done: false,
        ..moved_counts(&txn, org, duplicate).await?
    };
    if !apply {
        txn.rollback().await?;
        return Ok(report);
    }
    super::merge_moves::move_rows(&txn, org, duplicate, keep, &threads, now).await?;
    super::merge_moves::merge_conversations(&txn, org, duplicate, keep).await?;
    // Earlier merges into the duplicate are re-pointed before its row goes (they would go with it).
    crate::contacts::merge_record::remember(&txn, org, duplicate, keep, m.user_id, now).await?;
    // The merged row goes before the kept one changes: it may take its number (unique per
    // organisation).
    contact::Entity::delete_by_id(duplicate).exec(&txn).await?;
    let final_phone = kept.phone.clone().or(dup.phone.clone());
    let mut tags = kept_tags;
    tags.extend(tags_added);
    combined(&kept, &dup, tags, &consent, now)
        .update(&txn)
        .await?;
    // The stricter opt-out: the merged contact's opt-out holds for the number kept.
    if let (Some(out), Some(phone), None) = (&dup_out, &final_phone, &kept_out) {
        let why = Because {
            actor_user_id: Some(m.user_id),
            reason: Some(format!(
                "Merged from {} ({}), who had opted out",
                report.merged_name, out.phone
            )),
            message_id: out.message_id,
        };
        opt_out::suppress(&txn, org, phone, source_of(out), &why, now).await?;
    }
    record(
        &txn,
        Entry {
            organization_id: Some(org),
            actor: Some(m.user_id),
            action: AuditAction::ContactsMerged,
            target: &format!("{} into {}", report.merged_name, display_name(&kept)),
            detail: Some(audit_detail(&report)),
        },
        now,
    )
    .await?;
    txn.commit().await?;
    tracing::info!(%org, %keep, %duplicate, messages = report.messages, "contacts merged");
    for contact_id in [keep, duplicate] {
        state
            .live
            .publish(org, LiveEvent::ContactChanged { contact_id });
    }
    report.done = true;
    Ok(report)
}

/// What the duplicate has that moves: its texts, notes, scheduled texts and campaign items
/// (the rest of the report is filled by `merge`).
async fn moved_counts<C: ConnectionTrait>(
    txn: &C,
    org: Uuid,
    duplicate: Uuid,
) -> AppResult<MergeReport> {
    Ok(MergeReport {
        messages: message::Entity::find()
            .filter(message::Column::OrganizationId.eq(org))
            .filter(message::Column::ContactId.eq(duplicate))
            .count(txn)
            .await?,
        notes: note::Entity::find()
            .filter(note::Column::OrganizationId.eq(org))
            .filter(note::Column::ContactId.eq(duplicate))
            .count(txn)
            .await?,
        scheduled_texts: scheduled::Entity::find()
            .filter(scheduled::Column::OrganizationId.eq(org))
            .filter(scheduled::Column::ContactId.eq(duplicate))
            .filter(scheduled::Column::Status.eq(scheduled_status::SCHEDULED))
            .count(txn)
            .await?,
        campaign_items: item::Entity::find()
            .filter(item::Column::OrganizationId.eq(org))
            .filter(item::Column::ContactId.eq(duplicate))
            .count(txn)
            .await?,
        ..MergeReport::default()
    })
}

/// The kept row with what the duplicate adds: its name, number, email and time zone where the
/// kept one has none, the union of tags, the custom fields the kept one lacks, both notes, and
/// the stricter consent.
fn combined(
    kept: &contact::Model,
    dup: &contact::Model,
    tags: Vec<String>,
    consent: &Consent,
    now: DateTime<Utc>,
) -> contact::ActiveModel {
    let mut fields = match &kept.custom_fields {
        serde_json::Value::Object(f) => f.clone(),
        _ => Default::default(),
    };
    if let serde_json::Value::Object(d) = &dup.custom_fields {
        for (k, v) in d {
            fields.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let notes = match (kept.notes.trim(), dup.notes.trim()) {
        (a, b) if b.is_empty() || a == b => kept.notes.clone(),
        ("", _) => dup.notes.clone(),
        _ => format!("{}\n\n{}", kept.notes.trim_end(), dup.notes.trim()),
    };
    let name = if kept.name.trim().is_empty() {
        dup.name.clone()
    } else {
        kept.name.clone()
    };
    let mut row = kept.clone().into_active_model();
    row.name = Set(name);
    row.phone = Set(kept.phone.clone().or(dup.phone.clone()));
    row.email = Set(kept.email.clone().or(dup.email.clone()));
    row.time_zone = Set(kept.time_zone.clone().or(dup.time_zone.clone()));
    row.tags = Set(serde_json::json!(tags));
    row.custom_fields = Set(serde_json::Value::Object(fields));
    row.notes = Set(notes);
    row.consent_source = Set(consent.0.as_str().to_owned());
    row.consent_at = Set(consent.1);
    row.consent_note = Set(consent.2.clone());
    row.updated_at = Set(now);
    row
}

/// How the duplicate's opt-out came about, kept for the number that stays.
fn source_of(out: &crate::contacts::entity::suppression::Model) -> OptOutSource {
    match out.source.as_str() {
        "keyword" => OptOutSource::Keyword,
        "phrase" => OptOutSource::Phrase,
        "reviewed" => OptOutSource::Reviewed,
        "carrier" => OptOutSource::Carrier,
        _ => OptOutSource::Manual,
    }
}

/// The audit entry's detail: what moved and what consent was kept.
fn audit_detail(r: &MergeReport) -> String {
    format!(
        "{}, {}, {}, {}; consent kept: {}{}",
        count(r.messages as usize, "text", "texts"),
        count(r.notes as usize, "note", "notes"),
        count(
            r.scheduled_texts as usize,
            "scheduled text",
            "scheduled texts"
        ),
        count(r.campaign_items as usize, "campaign item", "campaign items"),
        r.consent_label,
        if r.opted_out { "; opted out" } else { "" }
    )
}

/// One merge per organisation at a time on PostgreSQL: two merges crossing the same contacts
/// (A into B while B into A) would otherwise each move rows into a contact the other removes.
pub(super) fn lock_key(org: Uuid) -> i64 {
    let b = org.as_bytes();
    i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], 0x4d])
}

/// How much a consent allows: the merge keeps the lower.
fn allows(c: ConsentSource) -> u8 {
    match c {
        ConsentSource::None => 0,
        ConsentSource::TextedFirst => 1,
        ConsentSource::Verbal => 2,
        ConsentSource::WebForm | ConsentSource::Imported => 3,
    }
}

type Consent = (ConsentSource, Option<DateTime<Utc>>, Option<String>);

/// The stricter consent of the two (the kept contact's on a tie), with its time and evidence.
fn stricter(kept: &contact::Model, dup: &contact::Model) -> Consent {
    let of = |c: &contact::Model| -> Consent {
        (
            ConsentSource::parse(&c.consent_source).unwrap_or_default(),
            c.consent_at,
            c.consent_note.clone(),
        )
    };
    let (a, b) = (of(kept), of(dup));
    if allows(b.0) < allows(a.0) {
        b
    } else {
        a
    }
}

/// The duplicate's live agent threads, each with whether the kept contact already has one with
/// the same agent (then it is archived into the kept contact's key instead of re-keyed).
async fn dup_threads<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    dup: Uuid,
    keep: Uuid,
) -> AppResult<Vec<(Uuid, bool)>> {
    let live = |key: String| {
        ai_thread::Entity::find()
            .filter(ai_thread::Column::OrganizationId.eq(org))
            .filter(ai_thread::Column::CorrelationKey.eq(key))
            .filter(ai_thread::Column::State.ne("archived"))
    };
    let kept_agents: Vec<Uuid> = live(contact_key(keep))
        .all(db)
        .await?
        .into_iter()
        .map(|t| t.agent_id)
        .collect();
    Ok(live(contact_key(dup))
        .all(db)
        .await?
        .into_iter()
        .map(|t| (t.id, kept_agents.contains(&t.agent_id)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stricter_consent_is_the_one_that_allows_less() {
        let order = [
            ConsentSource::None,
            ConsentSource::TextedFirst,
            ConsentSource::Verbal,
            ConsentSource::WebForm,
        ];
        for w in order.windows(2) {
            assert!(allows(w[0]) < allows(w[1]), "{:?} < {:?}", w[0], w[1]);
        }
        assert_eq!(
            allows(ConsentSource::Imported),
            allows(ConsentSource::WebForm)
        );
        for c in ConsentSource::ALL {
            assert!(allows(c) < 3 || c.allows_marketing(), "{c:?}");
        }
    }
}
