//! What a merge moves (`contacts::merge`): the duplicate's rows to the contact kept, and the two
//! conversation rows into one.
use crate::ai_agent::entity::{ai_thread, contact_text_agent};
use crate::ai_agent::thread::contact_key;
use crate::campaign::entity::item;
use crate::compliance::entity::opt_out_review;
use crate::error::AppResult;
use crate::inbox::notes::entity as note;
use crate::messaging::entity as message;
use crate::messaging::entity::conversation;
use crate::messaging::scheduled::entity as scheduled;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, Query};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, PaginatorTrait,
    QueryFilter, QuerySelect, Set,
};
use uuid::Uuid;

/// Moves every row of the duplicate's that is not the conversation or the contact itself.
pub(super) async fn move_rows<C: ConnectionTrait>(
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
    move_tracked_links(db, org, dup, keep).await?;
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
/// The duplicate's short links keep working, their clicks now the kept contact's. A link the
/// kept contact also has (the same campaign or saved reply, the same address) moves under a scope
/// of its own, so the next text reuses the kept contact's.
async fn move_tracked_links<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    dup: Uuid,
    keep: Uuid,
) -> AppResult<()> {
    use crate::links::entity as link;
    let kept: Vec<(String, String)> = link::Entity::find()
        .select_only()
        .column(link::Column::Scope)
        .column(link::Column::UrlHash)
        .filter(link::Column::ContactId.eq(keep))
        .into_tuple()
        .all(db)
        .await?;
    if !kept.is_empty() {
        let theirs = link::Entity::find()
            .filter(link::Column::ContactId.eq(dup))
            .all(db)
            .await?;
        for l in theirs
            .into_iter()
            .filter(|l| kept.contains(&(l.scope.clone(), l.url_hash.clone())))
        {
            link::Entity::update_many()
                .col_expr(
                    link::Column::Scope,
                    Expr::value(format!("merged:{}", Uuid::new_v4().simple())),
                )
                .filter(link::Column::Id.eq(l.id))
                .exec(db)
                .await?;
        }
    }
    link::Entity::update_many()
        .col_expr(link::Column::ContactId, Expr::value(keep))
        .filter(link::Column::OrganizationId.eq(org))
        .filter(link::Column::ContactId.eq(dup))
        .exec(db)
        .await?;
    Ok(())
}

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
pub(super) async fn merge_conversations<C: ConnectionTrait>(
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
    use crate::messaging::conversation_state::ConversationState as S;
    let state = if k.state == S::Open || d.state == S::Open {
        S::Open
    } else if k.state == S::Snoozed || d.state == S::Snoozed {
        S::Snoozed
    } else {
        S::Closed
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
    row.state = Set(state);
    row.snoozed_until = Set(match state {
        S::Snoozed => max(k.snoozed_until, d.snoozed_until),
        _ => None,
    });
    row.assignee_id = Set(k.assignee_id.or(d.assignee_id));
    row.ai_paused_until = Set(paused_until);
    row.ai_paused_by = Set(paused_by);
    row.update(db).await?;
    Ok(())
}
