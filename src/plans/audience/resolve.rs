//! Resolving a plan's audience in SQL, on both databases: every contact its filter matches, those
//! added by hand, and those left out with why, as one `plan_audience` generation. Presentation
//! writes the first; approval writes another and compares them; the executors page through the
//! last. Nothing here holds the members in memory but a page of them.
use crate::contacts::entity::contact;
use crate::contacts::model::{ContactCursor, ContactFilter};
use crate::error::{AppError, AppResult};
use crate::plans::audience::model::{
    Audience, AudienceMember, AudiencePage, AudienceView, HAND_PICKED_MAX,
};
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{
    Alias, Expr, ExprTrait, Func, InsertStatement, Query, SelectStatement, UpdateStatement,
};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, Statement,
};
use std::collections::BTreeMap;
use uuid::Uuid;

pub const OPTED_OUT: &str = "opted out";
pub const NO_CONSENT: &str = "no marketing consent on record";
pub const NO_PHONE: &str = "no phone number";
const LEFT_OUT: &str = "left out by the plan";
/// Members on one page of the card's list.
pub const PAGE: u64 = 50;

fn table() -> Alias {
    Alias::new("plan_audience")
}
fn col(name: &str) -> Expr {
    Expr::col((table(), Alias::new(name)))
}

/// One generation's rows.
fn of(plan_id: Uuid, gen: i32) -> Condition {
    Condition::all()
        .add(col("plan_id").eq(plan_id))
        .add(col("generation").eq(gen))
}

/// One generation's members' contact ids.
fn member_ids_query(plan_id: Uuid, gen: i32) -> SelectStatement {
    Query::select()
        .column((table(), Alias::new("contact_id")))
        .from(table())
        .cond_where(of(plan_id, gen).add(col("excluded").is_null()))
        .to_owned()
}

async fn run<C: ConnectionTrait>(db: &C, stmt: Statement) -> AppResult<u64> {
    Ok(db.execute_raw(stmt).await?.rows_affected())
}

async fn insert<C: ConnectionTrait>(db: &C, q: &InsertStatement) -> AppResult<u64> {
    run(db, db.get_database_backend().build(q)).await
}

async fn update<C: ConnectionTrait>(db: &C, q: &UpdateStatement) -> AppResult<u64> {
    run(db, db.get_database_backend().build(q)).await
}

async fn count<C: ConnectionTrait>(db: &C, q: SelectStatement) -> AppResult<u64> {
    crate::platform::db::count_rows(db, q).await
}

/// Checks the contacts a hand-picked list names: at most `HAND_PICKED_MAX`, all the
/// organisation's.
async fn check_entries(state: &AppState, org: Uuid, ids: &[Uuid], what: &str) -> AppResult<()> {
    if ids.len() > HAND_PICKED_MAX {
        return Err(AppError::validation(format!(
            "An audience's {what} list names at most {HAND_PICKED_MAX} contacts; put more in its filter."
        )));
    }
    let found: Vec<Uuid> = contact::Entity::find()
        .select_only()
        .column(contact::Column::Id)
        .filter(contact::Column::OrganizationId.eq(org))
        .filter(contact::Column::Id.is_in(ids.to_vec()))
        .into_tuple()
        .all(&state.db)
        .await?;
    match ids.iter().find(|id| !found.contains(id)) {
        Some(missing) => Err(AppError::NotFound(format!("Contact {missing}"))),
        None => Ok(()),
    }
}

/// Checks what a plan says of its audience and fixes its filter: a segment's name brings the
/// segment's filter (kept beside the name), so every later resolution runs the same filter.
/// What only the server may set is cleared.
pub async fn prepare(state: &AppState, org: Uuid, a: &mut Audience) -> AppResult<()> {
    a.members = None;
    a.changed = None;
    a.lessons.clear();
    match (&a.segment, &a.filter) {
        (Some(_), Some(_)) => {
            return Err(AppError::validation(
                "An audience names a segment or gives a filter, not both.",
            ))
        }
        (None, None) => {
            return Err(AppError::validation(
                "An audience names a saved segment or gives a filter.",
            ))
        }
        (Some(name), None) => {
            let Some(s) = crate::contacts::segments::find_by_name(&state.db, org, name).await?
            else {
                let known = crate::contacts::segments::list(&state.db, org).await?;
                let names: Vec<String> = known.items.into_iter().map(|s| s.name).collect();
                return Err(AppError::validation(if names.is_empty() {
                    format!("There is no segment called \"{name}\"; the organisation has none. Give a filter instead.")
                } else {
                    format!(
                        "There is no segment called \"{name}\". Segments: {}.",
                        names.join(", ")
                    )
                }));
            };
            a.segment = Some(s.name.clone());
            a.filter = Some(crate::contacts::segments::to_view(s)?.filter);
        }
        (None, Some(_)) => {}
    }
    let f = a.filter.as_ref().expect("set above");
    let backend = state.db.get_database_backend();
    crate::contacts::filter::condition(f, org, backend, state.clock.now())?;
    for e in a.exclude.iter_mut().chain(a.include.iter_mut()) {
        e.reason = e.reason.trim().chars().take(200).collect();
    }
    let ids = |l: &[crate::plans::audience::model::AudienceEntry]| {
        l.iter().map(|e| e.contact_id).collect::<Vec<_>>()
    };
    check_entries(state, org, &ids(&a.exclude), "exclude").await?;
    check_entries(state, org, &ids(&a.include), "include").await?;
    Ok(())
}

/// Writes generation `gen` of the plan's audience and returns its members: the filter's
/// contacts and those added by hand, less those left out by hand (with their reasons), less
/// those the law or the action leaves out (opted out; for a campaign, no phone or no written
/// consent).
#[allow(clippy::too_many_arguments)]
pub async fn snapshot<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    plan_id: Uuid,
    gen: i32,
    a: &Audience,
    campaign: bool,
    now: DateTime<Utc>,
) -> AppResult<u64> {
    resolve_into(db, org, plan_id, gen, a, campaign, now, None).await
}

/// Resolves `only` these contacts again into generation `gen`, after a person's edit: their
/// rows are written anew, everyone else's stay as they were (a change in anyone else's
/// membership is still found and shown at approval).
#[allow(clippy::too_many_arguments)]
pub async fn resolve_again<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    plan_id: Uuid,
    gen: i32,
    a: &Audience,
    campaign: bool,
    now: DateTime<Utc>,
    only: &[Uuid],
) -> AppResult<u64> {
    let q = Query::delete()
        .from_table(table())
        .cond_where(of(plan_id, gen).add(col("contact_id").is_in(only.to_vec())))
        .to_owned();
    run(db, db.get_database_backend().build(&q)).await?;
    resolve_into(db, org, plan_id, gen, a, campaign, now, Some(only)).await
}

#[allow(clippy::too_many_arguments)]
async fn resolve_into<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    plan_id: Uuid,
    gen: i32,
    a: &Audience,
    campaign: bool,
    now: DateTime<Utc>,
    only: Option<&[Uuid]>,
) -> AppResult<u64> {
    let backend = db.get_database_backend();
    let scope = |c: Condition| match only {
        Some(ids) => c.add(contact::Column::Id.is_in(ids.to_vec())),
        None => c,
    };
    let f = a.filter.clone().unwrap_or_default();
    let cond = scope(crate::contacts::filter::condition(&f, org, backend, now)?);
    let columns = ["plan_id", "generation", "contact_id", "excluded"].map(Alias::new);
    let rows = |cond: Condition| {
        Query::select()
            .expr(Expr::val(plan_id))
            .expr(Expr::val(gen))
            .column((contact::Entity, contact::Column::Id))
            .expr(Expr::val(Option::<String>::None))
            .from(contact::Entity)
            .cond_where(cond)
            .to_owned()
    };
    let mut q = Query::insert();
    q.into_table(table())
        .columns(columns.clone())
        .select_from(rows(cond))
        .map_err(|e| AppError::Internal(e.to_string()))?;
    insert(db, &q).await?;
    let added: Vec<Uuid> = a.include.iter().map(|e| e.contact_id).collect();
    if !added.is_empty() {
        let cond = scope(Condition::all())
            .add(contact::Column::OrganizationId.eq(org))
            .add(contact::Column::Id.is_in(added))
            .add(
                contact::Column::Id.not_in_subquery(
                    Query::select()
                        .column(Alias::new("contact_id"))
                        .from(table())
                        .cond_where(of(plan_id, gen))
                        .to_owned(),
                ),
            );
        let mut q = Query::insert();
        q.into_table(table())
            .columns(columns)
            .select_from(rows(cond))
            .map_err(|e| AppError::Internal(e.to_string()))?;
        insert(db, &q).await?;
    }
    // Left out by hand, by reason: these take precedence over the rules below.
    let mut by_reason: BTreeMap<&str, Vec<Uuid>> = BTreeMap::new();
    for e in &a.exclude {
        let why = if e.reason.is_empty() {
            LEFT_OUT
        } else {
            e.reason.as_str()
        };
        by_reason.entry(why).or_default().push(e.contact_id);
    }
    for (why, ids) in by_reason {
        let q = Query::update()
            .table(table())
            .value(Alias::new("excluded"), why)
            .cond_where(of(plan_id, gen).add(col("contact_id").is_in(ids)))
            .to_owned();
        update(db, &q).await?;
    }
    let mut rules: Vec<(&str, Condition)> = vec![(
        OPTED_OUT,
        crate::contacts::filter::condition(
            &ContactFilter {
                opted_out: Some(true),
                ..Default::default()
            },
            org,
            backend,
            now,
        )?,
    )];
    for (tag, lesson) in &a.lessons {
        let tagged = ContactFilter {
            tags_any: vec![tag.clone()],
            ..Default::default()
        };
        rules.push((
            lesson.as_str(),
            crate::contacts::filter::condition(&tagged, org, backend, now)?,
        ));
    }
    if campaign {
        rules.push((
            NO_PHONE,
            Condition::all()
                .add(contact::Column::OrganizationId.eq(org))
                .add(
                    Condition::any()
                        .add(contact::Column::Phone.is_null())
                        .add(contact::Column::Phone.eq("")),
                ),
        ));
        rules.push((
            NO_CONSENT,
            crate::contacts::filter::condition(
                &ContactFilter {
                    marketing_consent: Some(false),
                    ..Default::default()
                },
                org,
                backend,
                now,
            )?,
        ));
    }
    for (why, cond) in rules {
        let who = Query::select()
            .column((contact::Entity, contact::Column::Id))
            .from(contact::Entity)
            .cond_where(scope(cond))
            .to_owned();
        let q = Query::update()
            .table(table())
            .value(Alias::new("excluded"), why)
            .cond_where(
                of(plan_id, gen)
                    .add(col("excluded").is_null())
                    .add(col("contact_id").in_subquery(who)),
            )
            .to_owned();
        update(db, &q).await?;
    }
    members(db, plan_id, gen).await
}

/// The plan's newest generation, if it has an audience.
pub async fn generation<C: ConnectionTrait>(db: &C, plan_id: Uuid) -> AppResult<Option<i32>> {
    let q = Query::select()
        .expr_as(Func::max(col("generation")), Alias::new("g"))
        .from(table())
        .cond_where(col("plan_id").eq(plan_id))
        .to_owned();
    let row = db
        .query_one_raw(db.get_database_backend().build(&q))
        .await?;
    Ok(match row {
        Some(r) => r.try_get::<Option<i32>>("", "g")?,
        None => None,
    })
}

/// A generation's members, exactly.
pub async fn members<C: ConnectionTrait>(db: &C, plan_id: Uuid, gen: i32) -> AppResult<u64> {
    count(db, member_ids_query(plan_id, gen)).await
}

/// Who joined and who left between two generations: (joined, left).
pub async fn changes<C: ConnectionTrait>(
    db: &C,
    plan_id: Uuid,
    old: i32,
    new: i32,
) -> AppResult<(u64, u64)> {
    let only = |a: i32, b: i32| {
        member_ids_query(plan_id, a)
            .and_where(col("contact_id").not_in_subquery(member_ids_query(plan_id, b)))
            .to_owned()
    };
    Ok((
        count(db, only(new, old)).await?,
        count(db, only(old, new)).await?,
    ))
}

/// Removes one generation.
pub async fn drop_generation<C: ConnectionTrait>(db: &C, plan_id: Uuid, gen: i32) -> AppResult<()> {
    let q = Query::delete()
        .from_table(table())
        .cond_where(of(plan_id, gen))
        .to_owned();
    run(db, db.get_database_backend().build(&q)).await?;
    Ok(())
}

/// Contacts left out of a generation, by reason, largest group first.
pub async fn exclusions<C: ConnectionTrait>(
    db: &C,
    plan_id: Uuid,
    gen: i32,
) -> AppResult<Vec<(String, u64)>> {
    let q = Query::select()
        .column(Alias::new("excluded"))
        .expr_as(Func::count(Expr::val(1)), Alias::new("n"))
        .from(table())
        .cond_where(of(plan_id, gen).add(col("excluded").is_not_null()))
        .group_by_col(Alias::new("excluded"))
        .to_owned();
    let rows = db
        .query_all_raw(db.get_database_backend().build(&q))
        .await?;
    let mut groups = rows
        .into_iter()
        .map(|r| {
            Ok((
                r.try_get::<String>("", "excluded")?,
                r.try_get::<i64>("", "n")? as u64,
            ))
        })
        .collect::<AppResult<Vec<_>>>()?;
    groups.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(groups)
}

/// Up to `limit` members' contact ids after `after`, in id order: how the executors page.
pub async fn member_ids<C: ConnectionTrait>(
    db: &C,
    plan_id: Uuid,
    gen: i32,
    after: Option<Uuid>,
    limit: u64,
) -> AppResult<Vec<Uuid>> {
    let mut q = member_ids_query(plan_id, gen);
    if let Some(a) = after {
        q.and_where(col("contact_id").gt(a));
    }
    q.order_by((table(), Alias::new("contact_id")), sea_orm::Order::Asc)
        .limit(limit);
    let rows = db
        .query_all_raw(db.get_database_backend().build(&q))
        .await?;
    rows.into_iter()
        .map(|r| Ok(r.try_get::<Uuid>("", "contact_id")?))
        .collect()
}

/// One page of a generation's members in name order, those matching `search` if given, with
/// the exact number matching.
#[allow(clippy::too_many_arguments)]
pub async fn page<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    plan_id: Uuid,
    gen: i32,
    search: Option<String>,
    after: Option<ContactCursor>,
    now: DateTime<Utc>,
) -> AppResult<AudiencePage> {
    let f = ContactFilter {
        search: search.filter(|s| !s.trim().is_empty()),
        ..Default::default()
    };
    let cond = crate::contacts::filter::condition(&f, org, db.get_database_backend(), now)?
        .add(contact::Column::Id.in_subquery(member_ids_query(plan_id, gen)));
    let total =
        sea_orm::PaginatorTrait::count(contact::Entity::find().filter(cond.clone()), db).await?;
    let (rows, more) = crate::contacts::list::rows_where(db, cond, after.as_ref(), PAGE).await?;
    let next = match (more, rows.last()) {
        (true, Some(c)) => Some(ContactCursor {
            name: c.name.clone(),
            id: c.id,
        }),
        _ => None,
    };
    Ok(AudiencePage {
        items: rows
            .into_iter()
            .map(|c| AudienceMember {
                contact_id: c.id,
                name: c.name,
                phone: c.phone,
            })
            .collect(),
        total,
        next,
    })
}

/// The audience as the plan card shows it: its filter in words, its members exactly, the
/// exclusions by reason, the first page of members and any change found at approval.
pub async fn view<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    plan_id: Uuid,
    a: &Audience,
    now: DateTime<Utc>,
) -> AppResult<Option<AudienceView>> {
    let Some(gen) = generation(db, plan_id).await? else {
        return Ok(None);
    };
    let words = a.filter.clone().unwrap_or_default().describe();
    let label = match &a.segment {
        Some(name) => format!("Segment \u{201c}{name}\u{201d}: {words}"),
        None => words,
    };
    let first = page(db, org, plan_id, gen, None, None, now).await?;
    Ok(Some(AudienceView {
        label,
        members: first.total,
        exclusions: exclusions(db, plan_id, gen).await?,
        first,
        changed: a.changed.clone(),
    }))
}
