//! A person's own campaign (issue 51 §1): a group, words with merge fields, a time. No model
//! drafts it: each contact's text is the person's words filled in, and the campaign enters the
//! same review sheet, approval (an owner's, bound to what was seen), send engine and send check
//! as an agent's. The audience is read a page at a time in SQL, so counts are exact at any size.
use crate::auth::session::Member;
use crate::campaign::create::{item_row, operation_row, skip_reason, ItemStart};
use crate::campaign::entity::{item, operation};
use crate::campaign::model::{
    AudienceSummary, ItemStatus, OperationStatus, SampleText, WrittenAudience, WrittenCampaign,
};
use crate::contacts::entity::contact;
use crate::contacts::model::ContactFilter;
use crate::error::{AppError, AppResult};
use crate::messaging::merge::{render, MergeValues};
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use std::collections::{BTreeMap, HashSet};
use uuid::Uuid;

/// Contacts read at a time.
const PAGE: u64 = 1_000;
/// Filled-in texts the preview shows.
pub const SAMPLES: usize = 3;
/// Longest text a person may write (ten segments).
pub const BODY_MAX: usize = 1_600;
/// Items written to the database a statement.
const INSERT_CHUNK: usize = 200;
/// The campaign's kind (`assistant_operation.kind`): a person's words, not a model's drafts.
pub const KIND: &str = "written";

/// The audience's filter, and the audience in words.
async fn filter_of(
    state: &AppState,
    org: Uuid,
    a: &WrittenAudience,
) -> AppResult<(ContactFilter, String)> {
    Ok(match a {
        WrittenAudience::Segment { id } => {
            let s = crate::contacts::entity::segment::Entity::find_by_id(*id)
                .filter(crate::contacts::entity::segment::Column::OrganizationId.eq(org))
                .one(&state.db)
                .await?
                .ok_or_else(|| AppError::not_found("Segment"))?;
            let v = crate::contacts::segments::to_view(s)?;
            (v.filter, format!("contacts in the segment '{}'", v.name))
        }
        WrittenAudience::Tag { tag } => {
            let tag = crate::contacts::edits::clean_tag(tag);
            if tag.is_empty() {
                return Err(AppError::validation("Choose a tag."));
            }
            let f = ContactFilter {
                tags_any: vec![tag.clone()],
                ..Default::default()
            };
            (f, format!("contacts tagged {tag}"))
        }
        WrittenAudience::Filter { filter } => {
            let words = filter.describe();
            let label = if words.is_empty() || words.starts_with("every") {
                "contacts".to_owned()
            } else {
                format!("contacts {words}")
            };
            (filter.clone(), label)
        }
    })
}

/// The audience as a condition on `contact`, within the organisation.
async fn condition(
    state: &AppState,
    org: Uuid,
    a: &WrittenAudience,
) -> AppResult<(Condition, String)> {
    let (f, label) = filter_of(state, org, a).await?;
    let backend = state.db.get_database_backend();
    let cond = crate::contacts::filter::condition(&f, org, backend, state.clock.now())?;
    Ok((cond, label))
}

/// The audience in id order, a page at a time, each contact with whether it opted out.
struct Walk {
    cond: Condition,
    after: Option<Uuid>,
}

impl Walk {
    fn new(cond: Condition) -> Self {
        Self { cond, after: None }
    }

    /// The next page (empty at the end).
    async fn next(&mut self, state: &AppState) -> AppResult<Vec<(contact::Model, bool)>> {
        let mut q = contact::Entity::find().filter(self.cond.clone());
        if let Some(after) = self.after {
            q = q.filter(contact::Column::Id.gt(after));
        }
        let page = q
            .order_by_asc(contact::Column::Id)
            .limit(PAGE)
            .all(&state.db)
            .await?;
        self.after = page.last().map(|c| c.id);
        let ids: Vec<Uuid> = page.iter().map(|c| c.id).collect();
        let outs = crate::contacts::opt_out::sms_opt_outs(&state.db, &ids).await?;
        Ok(page
            .into_iter()
            .map(|c| {
                let out = outs.contains_key(&c.id);
                (c, out)
            })
            .collect())
    }
}

/// What fills the fields the same for every contact: the business's and the sender's names.
struct Sender {
    org_name: String,
    me_name: String,
}

impl Sender {
    async fn of(state: &AppState, m: &Member) -> AppResult<Self> {
        let org = crate::auth::entity::organization::Entity::find_by_id(m.organization_id)
            .one(&state.db)
            .await?;
        let me = crate::auth::entity::user::Entity::find_by_id(m.user_id)
            .one(&state.db)
            .await?;
        Ok(Self {
            org_name: org.map(|o| o.name).unwrap_or_default(),
            me_name: me.map(|u| u.name).unwrap_or_default(),
        })
    }

    /// The person's words filled in for `c`, or why they cannot be.
    fn fill(&self, body: &str, c: &contact::Model) -> Result<String, String> {
        let values = MergeValues {
            contact_name: c.name.clone(),
            custom: MergeValues::custom_fields(&c.custom_fields),
            org_name: self.org_name.clone(),
            me_name: self.me_name.clone(),
        };
        render(body, &values).map_err(|e| match e {
            crate::messaging::merge::MergeError::Unfilled(f) => {
                format!("nothing fills {}", f.join(", "))
            }
            other => other.to_string(),
        })
    }
}

/// The reasons and their counts, the commonest first.
fn by_count(reasons: BTreeMap<String, u64>) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = reasons.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// `local`, a date and time at the business, as an instant (None: None). A time the clocks skip
/// (spring forward) is read as the hour after.
async fn instant(
    state: &AppState,
    org: Uuid,
    local: Option<chrono::NaiveDateTime>,
) -> AppResult<Option<DateTime<Utc>>> {
    use chrono::TimeZone;
    let Some(local) = local else {
        return Ok(None);
    };
    let zone = crate::messaging::quiet::org_zone(&state.db, org).await?;
    let tz: chrono_tz::Tz = zone.parse().unwrap_or(chrono_tz::Tz::UTC);
    let at = tz
        .from_local_datetime(&local)
        .earliest()
        .or_else(|| {
            tz.from_local_datetime(&(local + chrono::Duration::hours(1)))
                .earliest()
        })
        .ok_or_else(|| {
            AppError::validation("That time does not exist in the business's time zone.")
        })?;
    Ok(Some(at.with_timezone(&Utc)))
}

/// Who the audience reaches and who it leaves out, and the campaigns near `at` (a date and
/// time at the business; None: now) it overlaps.
pub async fn summary(
    state: &AppState,
    m: &Member,
    a: &WrittenAudience,
    at: Option<chrono::NaiveDateTime>,
) -> AppResult<AudienceSummary> {
    let at = instant(state, m.organization_id, at).await?;
    let (cond, label) = condition(state, m.organization_id, a).await?;
    let mut walk = Walk::new(cond.clone());
    let (mut matched, mut reachable) = (0, 0);
    let mut seen = HashSet::new();
    let mut left_out = BTreeMap::new();
    loop {
        let page = walk.next(state).await?;
        if page.is_empty() {
            break;
        }
        for (c, out) in &page {
            matched += 1;
            match skip_reason(Some(c), *out, &mut seen) {
                Some(why) => *left_out.entry(why.to_owned()).or_insert(0) += 1,
                None => reachable += 1,
            }
        }
    }
    let at = at.unwrap_or_else(|| state.clock.now());
    let overlaps = crate::campaign::overlap::near(state, m.organization_id, cond, at, None).await?;
    Ok(AudienceSummary {
        label,
        matched,
        reachable,
        left_out: by_count(left_out),
        overlaps,
    })
}

/// Checks the words: not empty, not too long, every merge field one Herald knows.
fn check_body(body: &str) -> AppResult<&str> {
    let body = body.trim();
    if body.is_empty() {
        return Err(AppError::validation("Write the text first."));
    }
    if body.chars().count() > BODY_MAX {
        return Err(AppError::validation(format!(
            "A campaign text is at most {BODY_MAX} characters."
        )));
    }
    crate::messaging::merge::check(body).map_err(|e| AppError::Validation(e.to_string()))?;
    Ok(body)
}

/// The first `SAMPLES` texts as they will go, filled in for the first contacts reached.
pub async fn samples(
    state: &AppState,
    m: &Member,
    a: &WrittenAudience,
    body: &str,
) -> AppResult<Vec<SampleText>> {
    let body = check_body(body)?;
    let (cond, _) = condition(state, m.organization_id, a).await?;
    let sender = Sender::of(state, m).await?;
    let mut walk = Walk::new(cond);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    while out.len() < SAMPLES {
        let page = walk.next(state).await?;
        if page.is_empty() {
            break;
        }
        for (c, opted) in &page {
            if skip_reason(Some(c), *opted, &mut seen).is_some() {
                continue;
            }
            let text = match sender.fill(body, c) {
                Ok(t) => t,
                Err(why) => format!("(left out: {why})"),
            };
            out.push(SampleText {
                contact_name: c.name.clone(),
                text,
            });
            if out.len() == SAMPLES {
                break;
            }
        }
    }
    Ok(out)
}

/// Creates the campaign: every contact the audience names becomes an item, its text filled in
/// (awaiting review) or skipped with its reason. Owners are told when a member made it.
pub async fn create(state: &AppState, m: &Member, input: &WrittenCampaign) -> AppResult<Uuid> {
    let body = check_body(&input.body)?.to_owned();
    let org = m.organization_id;
    let now = state.clock.now();
    let send_at = instant(state, org, input.send_at_local).await?;
    if send_at.is_some_and(|at| at < now - chrono::Duration::minutes(1)) {
        return Err(AppError::validation(
            "That time has passed: choose a later one, or send now.",
        ));
    }
    // The audience first: another organisation's segment is "not found", whatever else is wrong.
    let (cond, label) = condition(state, org, &input.audience).await?;
    let number = match input.from_number_id {
        Some(id) => crate::phone_numbers::service::find_in_org(&state.db, org, id).await?,
        None => crate::phone_numbers::service::list(state, org)
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| AppError::validation("Add a phone number to send from first."))?,
    };
    let agent = crate::ai_agent::service::my_assistant(state, m).await?;
    let sender = Sender::of(state, m).await?;
    let op_id = Uuid::new_v4();
    let txn = crate::platform::db::begin_write(&state.db).await?;
    operation::ActiveModel {
        owner_user_id: Set(Some(m.user_id)),
        send_after: Set(send_at),
        ..operation_row(
            op_id,
            (org, agent.id, number.id),
            KIND,
            &body,
            OperationStatus::AwaitingApproval,
            now,
        )
    }
    .insert(&txn)
    .await?;
    let mut walk = Walk::new(cond);
    let mut seen = HashSet::new();
    let (mut position, mut ready) = (0usize, 0usize);
    loop {
        let page = walk.next(state).await?;
        if page.is_empty() {
            break;
        }
        let rows: Vec<item::ActiveModel> = page
            .iter()
            .map(|(c, opted)| {
                let start = match skip_reason(Some(c), *opted, &mut seen) {
                    Some(why) => ItemStart::Skipped(why.to_owned()),
                    None => match sender.fill(&body, c) {
                        Ok(text) => ItemStart::Drafted(text),
                        Err(why) => ItemStart::Skipped(why),
                    },
                };
                ready += usize::from(matches!(start, ItemStart::Drafted(_)));
                position += 1;
                item_row(op_id, org, c.id, position - 1, start, now)
            })
            .collect();
        for part in rows.chunks(INSERT_CHUNK) {
            item::Entity::insert_many(part.to_vec()).exec(&txn).await?;
        }
    }
    if ready == 0 {
        txn.rollback().await?;
        return Err(AppError::validation(format!(
            "None of the {label} can be texted: there is no campaign to send."
        )));
    }
    operation::Entity::update_many()
        .col_expr(operation::Column::Total, Expr::value(position as i32))
        .filter(operation::Column::Id.eq(op_id))
        .exec(&txn)
        .await?;
    crate::campaign::draft_engine::recount_in(&txn, op_id, now, None).await?;
    txn.commit().await?;
    if !input.picture_ids.is_empty() {
        crate::campaign::pictures::set(state, m, op_id, &input.picture_ids).await?;
    }
    tracing::info!(operation = %op_id, ready, "written campaign created");
    tell_owners(state, m, op_id, &label).await?;
    Ok(op_id)
}

/// A member's campaign waits for an owner: each owner hears of it (an owner's own does not).
async fn tell_owners(state: &AppState, m: &Member, op_id: Uuid, label: &str) -> AppResult<()> {
    if m.role == crate::auth::model::Role::Owner {
        return Ok(());
    }
    for user_id in crate::auth::owners::owner_ids(&state.db, m.organization_id).await? {
        crate::notifications::service::notify(
            state,
            crate::notifications::service::Notice {
                agent_id: None,
                organization_id: m.organization_id,
                user_id,
                kind: "operation",
                title: "A campaign waits for your approval".into(),
                body: format!("A campaign to the {label} is ready for review."),
                link: Some(format!("/operations/{op_id}")),
                source_key: Some(crate::notifications::service::key_for(
                    &crate::campaign::draft_engine::drafted_notice(op_id),
                    user_id,
                )),
            },
        )
        .await?;
    }
    Ok(())
}

/// The contacts of an operation's items that will be (or were) texted, as a subquery.
pub fn texted_contacts(op_id: Uuid) -> sea_orm::sea_query::SelectStatement {
    Query::select()
        .column(item::Column::ContactId)
        .from(item::Entity)
        .and_where(item::Column::OperationId.eq(op_id))
        .and_where(item::Column::Status.is_not_in([ItemStatus::Skipped, ItemStatus::Cancelled]))
        .to_owned()
}

/// How many of the audience `cond` an operation texts.
pub async fn shared_with(state: &AppState, op_id: Uuid, cond: Condition) -> AppResult<u64> {
    let audience = Query::select()
        .column(contact::Column::Id)
        .from(contact::Entity)
        .cond_where(cond)
        .to_owned();
    Ok(item::Entity::find()
        .filter(item::Column::OperationId.eq(op_id))
        .filter(item::Column::Status.is_not_in([ItemStatus::Skipped, ItemStatus::Cancelled]))
        .filter(item::Column::ContactId.in_subquery(audience))
        .count(&state.db)
        .await?)
}
