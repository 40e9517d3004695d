//! Merging two duplicate contacts (issue 28 §5): the duplicate's texts, notes, scheduled texts,
//! agent threads, campaign items and plan audiences move to the contact that is kept, in one
//! transaction; the duplicate is removed and remembered (`contact_merge`) so that its old links
//! still find the person. Owners only, and audited.
//!
//! Compliance never loosens: the kept contact ends opted out if either was (its own number is
//! suppressed too), and keeps the stricter consent of the two. A merge is refused while the
//! duplicate has a text in flight: a campaign still sending to them, a scheduled text leaving, or
//! an agent answering them.
//!
//! Messages keep their `seq`: it comes from one sequence for the whole table, so the two
//! histories interleave in the order they happened and `(contact_id, seq)` stays unique.
use crate::ai_agent::entity::{ai_thread, contact_text_agent};
use crate::ai_agent::thread::contact_key;
use crate::audit::model::AuditAction;
use crate::audit::service::{record, Entry};
use crate::auth::session::Member;
use crate::bulk_operation::entity::{item, operation};
use crate::bulk_operation::model::{item_status, OperationStatus};
use crate::compliance::entity::opt_out_review;
use crate::compliance::model::ConsentSource;
use crate::contacts::entity::contact;
use crate::contacts::opt_out::{self, Because, OptOutSource};
use crate::contacts::profile_model::MergeReport;
use crate::contacts::service::find_in_org;
use crate::error::{AppError, AppResult};
use crate::inbox::notes::entity as note;
use crate::messaging::entity as message;
use crate::messaging::entity::conversation;
use crate::messaging::model::LiveEvent;
use crate::messaging::scheduled::{entity as scheduled, status as scheduled_status};
use crate::server::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, Query};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, PaginatorTrait,
    QueryFilter, Set,
};
use uuid::Uuid;

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
    let txn = crate::server::db::begin_write(&state.db).await?;
    // On PostgreSQL the two rows are locked for the merge; SQLite's write lock is already held.
    let kept = find_in_org(&txn, org, keep).await?;
    let dup = find_in_org(&txn, org, duplicate).await?;
    if txn.get_database_backend() == sea_orm::DbBackend::Postgres {
        crate::server::db::advisory_xact_lock(&txn, lock_key(org)).await?;
    }
    refuse_in_flight(&txn, org, &dup, now).await?;
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
        messages: message::Entity::find()
            .filter(message::Column::OrganizationId.eq(org))
            .filter(message::Column::ContactId.eq(duplicate))
            .count(&txn)
            .await?,
        notes: note::Entity::find()
            .filter(note::Column::OrganizationId.eq(org))
            .filter(note::Column::ContactId.eq(duplicate))
            .count(&txn)
            .await?,
        scheduled_texts: scheduled::Entity::find()
            .filter(scheduled::Column::OrganizationId.eq(org))
            .filter(scheduled::Column::ContactId.eq(duplicate))
            .filter(scheduled::Column::Status.eq(scheduled_status::SCHEDULED))
            .count(&txn)
            .await?,
        threads_moved: threads.iter().filter(|t| !t.1).count() as u64,
        threads_archived: threads.iter().filter(|t| t.1).count() as u64,
        campaign_items: item::Entity::find()
            .filter(item::Column::OrganizationId.eq(org))
            .filter(item::Column::ContactId.eq(duplicate))
            .count(&txn)
            .await?,
        tags_added: tags_added.clone(),
        opted_out: kept_out.is_some() || dup_out.is_some(),
        consent_label: consent.0.label().to_owned(),
        phone_dropped,
        done: false,
    };
    if !apply {
        txn.rollback().await?;
        return Ok(report);
    }
    move_rows(&txn, org, duplicate, keep, &threads, now).await?;
    merge_conversations(&txn, org, duplicate, keep).await?;
    // Earlier merges into the duplicate are re-pointed before its row goes (they would go with it).
    remember(&txn, org, duplicate, keep, m.user_id, now).await?;
    // The merged row goes before the kept one changes: it may take its number (unique per
    // organisation).
    contact::Entity::delete_by_id(duplicate).exec(&txn).await?;
    let final_phone = kept.phone.clone().or(dup.phone.clone());
    let mut tags = kept_tags;
    tags.extend(tags_added);
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
    row.phone = Set(final_phone.clone());
    row.email = Set(kept.email.clone().or(dup.email.clone()));
    row.time_zone = Set(kept.time_zone.clone().or(dup.time_zone.clone()));
    row.tags = Set(serde_json::json!(tags));
    row.custom_fields = Set(serde_json::Value::Object(fields));
    row.notes = Set(notes);
    row.consent_source = Set(consent.0.as_str().to_owned());
    row.consent_at = Set(consent.1);
    row.consent_note = Set(consent.2);
    row.updated_at = Set(now);
    row.update(&txn).await?;
    // The stricter opt-out: the merged contact's opt-out holds for the number kept.
    if let (Some(out), Some(phone), None) = (&dup_out, &final_phone, &kept_out) {
        let source = match out.source.as_str() {
            "keyword" => OptOutSource::Keyword,
            "phrase" => OptOutSource::Phrase,
            "reviewed" => OptOutSource::Reviewed,
            "carrier" => OptOutSource::Carrier,
            _ => OptOutSource::Manual,
        };
        let why = Because {
            actor_user_id: Some(m.user_id),
            reason: Some(format!(
                "Merged from {} ({}), who had opted out",
                report.merged_name, out.phone
            )),
            message_id: out.message_id,
        };
        opt_out::suppress(&txn, org, phone, source, &why, now).await?;
    }
    record(
        &txn,
        Entry {
            organization_id: Some(org),
            actor: Some(m.user_id),
            action: AuditAction::ContactsMerged,
            target: &format!("{} into {}", report.merged_name, display_name(&kept)),
            detail: Some(format!(
                "{} texts, {} notes, {} scheduled texts, {} campaign items; consent kept: {}{}",
                report.messages,
                report.notes,
                report.scheduled_texts,
                report.campaign_items,
                report.consent_label,
                if report.opted_out { "; opted out" } else { "" }
            )),
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

/// The contact a merged contact's id went into, if it was merged.
pub async fn merged_into<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    id: Uuid,
) -> AppResult<Option<Uuid>> {
    Ok(merge_row::Entity::find_by_id(id)
        .filter(merge_row::Column::OrganizationId.eq(org))
        .one(db)
        .await?
        .map(|r| r.into_id))
}

/// How many contacts were merged into this one.
pub async fn merged_count<C: ConnectionTrait>(db: &C, org: Uuid, id: Uuid) -> AppResult<u64> {
    Ok(merge_row::Entity::find()
        .filter(merge_row::Column::OrganizationId.eq(org))
        .filter(merge_row::Column::IntoId.eq(id))
        .count(db)
        .await?)
}

/// One merge per organisation at a time on PostgreSQL: two merges crossing the same contacts
/// (A into B while B into A) would otherwise each move rows into a contact the other removes.
fn lock_key(org: Uuid) -> i64 {
    let b = org.as_bytes();
    i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], 0x4d])
}

fn display_name(c: &contact::Model) -> String {
    match (c.name.trim(), &c.phone) {
        ("", Some(p)) => p.clone(),
        (n, _) => n.to_owned(),
    }
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

/// Refuses while a text to the duplicate is in flight: moving it mid-send could text the kept
/// contact twice or lose the send's record.
async fn refuse_in_flight<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    dup: &contact::Model,
    now: DateTime<Utc>,
) -> AppResult<()> {
    let running = Query::select()
        .column(operation::Column::Id)
        .from(operation::Entity)
        .and_where(operation::Column::OrganizationId.eq(org))
        .and_where(
            operation::Column::Status.is_in(
                [
                    OperationStatus::Drafting,
                    OperationStatus::AwaitingApproval,
                    OperationStatus::Sending,
                ]
                .map(OperationStatus::as_str),
            ),
        )
        .to_owned();
    let pending = item::Entity::find()
        .filter(item::Column::OrganizationId.eq(org))
        .filter(item::Column::ContactId.eq(dup.id))
        .filter(item::Column::Status.is_in([
            item_status::PENDING,
            item_status::DRAFTING,
            item_status::DRAFTED,
            item_status::SENDING,
        ]))
        .filter(item::Column::OperationId.in_subquery(running))
        .one(db)
        .await?;
    if let Some(i) = pending {
        return Err(AppError::Conflict(format!(
            "{} is in a campaign that has not finished with them ({}). Merge once it ends, or \
             cancel it.",
            display_name(dup),
            i.operation_id
        )));
    }
    let leaving = scheduled::Entity::find()
        .filter(scheduled::Column::OrganizationId.eq(org))
        .filter(scheduled::Column::ContactId.eq(dup.id))
        .filter(scheduled::Column::Status.eq(scheduled_status::SENDING))
        .count(db)
        .await?;
    if leaving > 0 {
        return Err(AppError::Conflict(format!(
            "A scheduled text to {} is being sent right now. Try again in a minute.",
            display_name(dup)
        )));
    }
    let answering = ai_thread::Entity::find()
        .filter(ai_thread::Column::OrganizationId.eq(org))
        .filter(ai_thread::Column::CorrelationKey.eq(contact_key(dup.id)))
        .filter(ai_thread::Column::LeaseExpiresAt.gt(now))
        .count(db)
        .await?;
    if answering > 0 {
        return Err(AppError::Conflict(format!(
            "An agent is answering {} right now. Try again in a minute.",
            display_name(dup)
        )));
    }
    Ok(())
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

/// Moves every row of the duplicate's that is not the conversation or the contact itself.
async fn move_rows<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    dup: Uuid,
    keep: Uuid,
    threads: &[(Uuid, bool)],
    now: DateTime<Utc>,
) -> AppResult<()> {
    message::Entity::update_many()
        .col_expr(message::Column::ContactId, Expr::value(keep))
        .filter(message::Column::OrganizationId.eq(org))
        .filter(message::Column::ContactId.eq(dup))
        .exec(db)
        .await?;
    note::Entity::update_many()
        .col_expr(note::Column::ContactId, Expr::value(keep))
        .filter(note::Column::OrganizationId.eq(org))
        .filter(note::Column::ContactId.eq(dup))
        .exec(db)
        .await?;
    scheduled::Entity::update_many()
        .col_expr(scheduled::Column::ContactId, Expr::value(keep))
        .filter(scheduled::Column::OrganizationId.eq(org))
        .filter(scheduled::Column::ContactId.eq(dup))
        .exec(db)
        .await?;
    opt_out_review::Entity::update_many()
        .col_expr(opt_out_review::Column::ContactId, Expr::value(keep))
        .filter(opt_out_review::Column::OrganizationId.eq(org))
        .filter(opt_out_review::Column::ContactId.eq(dup))
        .exec(db)
        .await?;
    item::Entity::update_many()
        .col_expr(item::Column::ContactId, Expr::value(keep))
        .filter(item::Column::OrganizationId.eq(org))
        .filter(item::Column::ContactId.eq(dup))
        .exec(db)
        .await?;
    move_plan_audiences(db, dup, keep).await?;
    // One text agent per contact: the kept contact's wins.
    let kept_has_agent = contact_text_agent::Entity::find()
        .filter(contact_text_agent::Column::ContactId.eq(keep))
        .count(db)
        .await?
        > 0;
    if kept_has_agent {
        contact_text_agent::Entity::delete_many()
            .filter(contact_text_agent::Column::ContactId.eq(dup))
            .exec(db)
            .await?;
    } else {
        contact_text_agent::Entity::update_many()
            .col_expr(contact_text_agent::Column::ContactId, Expr::value(keep))
            .filter(contact_text_agent::Column::ContactId.eq(dup))
            .exec(db)
            .await?;
    }
    // Conflicting threads are archived first, so the re-keyed ones never meet a live twin. An
    // archived thread's unanswered texts move to the live thread of its key (`rehome_stranded`).
    let mut ordered: Vec<&(Uuid, bool)> = threads.iter().collect();
    ordered.sort_by_key(|t| !t.1);
    for (id, conflicts) in ordered {
        let mut update = ai_thread::Entity::update_many()
            .col_expr(
                ai_thread::Column::CorrelationKey,
                Expr::value(contact_key(keep)),
            )
            .col_expr(ai_thread::Column::UpdatedAt, Expr::value(now))
            .filter(ai_thread::Column::Id.eq(*id));
        if *conflicts {
            update = update.col_expr(ai_thread::Column::State, Expr::value("archived"));
        }
        update.exec(db).await?;
    }
    Ok(())
}

/// Plan audiences are keyed by (plan, generation, contact): the duplicate's rows move unless the
/// kept contact is already in that generation, where they are dropped.
async fn move_plan_audiences<C: ConnectionTrait>(db: &C, dup: Uuid, keep: Uuid) -> AppResult<()> {
    let pa = Alias::new("plan_audience");
    let k = Alias::new("k");
    let col = |c: &str| Expr::col((pa.clone(), Alias::new(c)));
    let twin = Query::select()
        .expr(Expr::val(1))
        .from_as(pa.clone(), k.clone())
        .and_where(Expr::col((k.clone(), Alias::new("contact_id"))).eq(keep))
        .and_where(
            Expr::col((k.clone(), Alias::new("plan_id")))
                .equals((pa.clone(), Alias::new("plan_id"))),
        )
        .and_where(
            Expr::col((k.clone(), Alias::new("generation")))
                .equals((pa.clone(), Alias::new("generation"))),
        )
        .to_owned();
    let backend = db.get_database_backend();
    db.execute_raw(
        backend.build(
            Query::delete()
                .from_table(pa.clone())
                .and_where(col("contact_id").eq(dup))
                .and_where(Expr::exists(twin)),
        ),
    )
    .await?;
    db.execute_raw(
        backend.build(
            Query::update()
                .table(pa.clone())
                .value(Alias::new("contact_id"), keep)
                .and_where(col("contact_id").eq(dup)),
        ),
    )
    .await?;
    Ok(())
}

/// One conversation row per contact: the two rows become the kept contact's. Counts add up, the
/// later last text wins, an open conversation stays open, the kept assignee wins, and the longer
/// AI pause holds.
async fn merge_conversations<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    dup: Uuid,
    keep: Uuid,
) -> AppResult<()> {
    let find = |id: Uuid| {
        conversation::Entity::find_by_id(id).filter(conversation::Column::OrganizationId.eq(org))
    };
    let Some(d) = find(dup).one(db).await? else {
        return Ok(());
    };
    conversation::Entity::delete_by_id(dup).exec(db).await?;
    let Some(k) = find(keep).one(db).await? else {
        let mut moved = d.into_active_model();
        moved.contact_id = Set(keep);
        moved.insert(db).await?;
        return Ok(());
    };
    let later = if d.last_at > k.last_at { &d } else { &k };
    let max = |a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>| std::cmp::max(a, b);
    let state = if k.state == "open" || d.state == "open" {
        "open"
    } else if k.state == "snoozed" || d.state == "snoozed" {
        "snoozed"
    } else {
        "closed"
    };
    let (paused_until, paused_by) = if d.ai_paused_until > k.ai_paused_until {
        (d.ai_paused_until, d.ai_paused_by)
    } else {
        (k.ai_paused_until, k.ai_paused_by)
    };
    let mut row = k.clone().into_active_model();
    row.last_message_id = Set(later.last_message_id);
    row.last_body = Set(later.last_body.clone());
    row.last_direction = Set(later.last_direction.clone());
    row.last_media_count = Set(later.last_media_count);
    row.last_phone_number_id = Set(later.last_phone_number_id);
    row.last_at = Set(later.last_at);
    row.last_inbound_at = Set(max(k.last_inbound_at, d.last_inbound_at));
    row.last_outbound_at = Set(max(k.last_outbound_at, d.last_outbound_at));
    row.unread_count = Set(k.unread_count + d.unread_count);
    row.message_count = Set(k.message_count + d.message_count);
    row.state = Set(state.to_owned());
    row.snoozed_until = Set(match state {
        "snoozed" => max(k.snoozed_until, d.snoozed_until),
        _ => None,
    });
    row.assignee_id = Set(k.assignee_id.or(d.assignee_id));
    row.ai_paused_until = Set(paused_until);
    row.ai_paused_by = Set(paused_by);
    row.update(db).await?;
    Ok(())
}

/// Records the merge, and points earlier merges into the duplicate at the kept contact (they
/// would otherwise go with the duplicate's row).
async fn remember<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    dup: Uuid,
    keep: Uuid,
    by: Uuid,
    now: DateTime<Utc>,
) -> AppResult<()> {
    merge_row::Entity::update_many()
        .col_expr(merge_row::Column::IntoId, Expr::value(keep))
        .filter(merge_row::Column::OrganizationId.eq(org))
        .filter(merge_row::Column::IntoId.eq(dup))
        .exec(db)
        .await?;
    merge_row::ActiveModel {
        merged_id: Set(dup),
        organization_id: Set(org),
        into_id: Set(keep),
        merged_by: Set(Some(by)),
        merged_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}

/// The `contact_merge` table (migration 41).
pub mod merge_row {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "contact_merge")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub merged_id: Uuid,
        pub organization_id: Uuid,
        pub into_id: Uuid,
        pub merged_by: Option<Uuid>,
        pub merged_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
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
