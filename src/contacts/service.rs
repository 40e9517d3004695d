//! Contact queries and changes, always scoped to one organisation.
use crate::auth::session::Member;
use crate::contacts::entity::contact;
use crate::contacts::model::{ContactInput, ContactView};
use crate::contacts::opt_out::{self, OptOutSource};
use crate::contacts::phone::normalize_phone;
use crate::error::{AppError, AppResult};
use crate::server::db::is_unique_violation;
use crate::server::AppState;
use chrono::Utc;
use sea_orm::sea_query::{Expr, ExprTrait, Func};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};
use uuid::Uuid;

const SEARCH_LIMIT: u64 = 500;

pub fn to_view(c: contact::Model, opt_out_source: Option<String>) -> ContactView {
    ContactView {
        id: c.id,
        name: c.name,
        phone: c.phone,
        email: c.email,
        tags: serde_json::from_value(c.tags).unwrap_or_default(),
        custom_fields: match c.custom_fields {
            serde_json::Value::Object(m) => m,
            _ => Default::default(),
        },
        notes: c.notes,
        time_zone: c.time_zone,
        opted_out: opt_out_source.is_some(),
        opt_out_source,
    }
}

/// The organisation's contact with this id, or NotFound (also for another organisation's id).
pub async fn find_in_org<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    id: Uuid,
) -> AppResult<contact::Model> {
    contact::Entity::find_by_id(id)
        .filter(contact::Column::OrganizationId.eq(org_id))
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("Contact"))
}

pub async fn view(state: &AppState, org_id: Uuid, id: Uuid) -> AppResult<ContactView> {
    let c = find_in_org(&state.db, org_id, id).await?;
    let src = opt_out::sms_opt_out(&state.db, id).await?.map(|o| o.source);
    Ok(to_view(c, src))
}

/// Searches by name, phone or tag; an empty query lists everyone (up to a limit).
pub async fn search(state: &AppState, org_id: Uuid, query: &str) -> AppResult<Vec<ContactView>> {
    let q = query.trim().to_lowercase();
    let mut select = contact::Entity::find().filter(contact::Column::OrganizationId.eq(org_id));
    if !q.is_empty() {
        let term = q.replace(['%', '_'], "");
        let like = format!("%{term}%");
        let digits: String = q.chars().filter(|c| c.is_ascii_digit()).collect();
        let lower = |c: contact::Column| Expr::expr(Func::lower(Expr::col(c)));
        let tag_like = format!("%\"{term}%");
        let mut cond = Condition::any()
            .add(lower(contact::Column::Name).like(like.clone()))
            .add(lower(contact::Column::Email).like(like))
            .add(
                Expr::expr(Func::lower(
                    Expr::col(contact::Column::Tags).cast_as("TEXT"),
                ))
                .like(tag_like),
            );
        if !digits.is_empty() {
            cond = cond.add(contact::Column::Phone.contains(digits));
        }
        select = select.filter(cond);
    }
    let rows = select
        .order_by_asc(contact::Column::Name)
        .limit(SEARCH_LIMIT)
        .all(&state.db)
        .await?;
    let ids: Vec<Uuid> = rows.iter().map(|c| c.id).collect();
    let outs = opt_out::sms_opt_outs(&state.db, &ids).await?;
    Ok(rows
        .into_iter()
        .map(|c| {
            let s = outs.get(&c.id).cloned();
            to_view(c, s)
        })
        .collect())
}

/// A validated, normalised form of the input.
pub struct CleanContact {
    pub name: String,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub tags: Vec<String>,
    pub custom_fields: serde_json::Map<String, serde_json::Value>,
    pub notes: String,
    pub time_zone: Option<String>,
}

pub fn clean(input: &ContactInput, region: &str) -> AppResult<CleanContact> {
    let phone = if input.phone.trim().is_empty() {
        None
    } else {
        Some(normalize_phone(&input.phone, region)?)
    };
    let email = input.email.trim();
    if !email.is_empty() && !email.contains('@') {
        return Err(AppError::Validation(format!(
            "\"{email}\" is not an email address."
        )));
    }
    let name = input.name.trim();
    if name.is_empty() && phone.is_none() {
        return Err(AppError::validation(
            "Give the contact a name or a phone number.",
        ));
    }
    let tz = input.time_zone.trim();
    if !tz.is_empty() && tz.parse::<chrono_tz::Tz>().is_err() {
        return Err(AppError::Validation(format!(
            "\"{tz}\" is not a time zone; use a name like America/New_York."
        )));
    }
    let tags = input
        .tags
        .iter()
        .flat_map(|t| crate::contacts::model::parse_tags(t))
        .fold(Vec::<String>::new(), |mut acc, t| {
            if !acc.contains(&t) {
                acc.push(t)
            }
            acc
        });
    Ok(CleanContact {
        name: if name.is_empty() {
            phone.clone().unwrap_or_default()
        } else {
            name.to_owned()
        },
        phone,
        email: (!email.is_empty()).then(|| email.to_owned()),
        tags,
        custom_fields: input.custom_fields.clone(),
        notes: input.notes.clone(),
        time_zone: (!tz.is_empty()).then(|| tz.to_owned()),
    })
}

fn duplicate_phone(e: sea_orm::DbErr, phone: &Option<String>) -> AppError {
    if is_unique_violation(&e) {
        AppError::Conflict(format!(
            "Another contact already has the number {}.",
            phone.as_deref().unwrap_or("")
        ))
    } else {
        e.into()
    }
}

#[tracing::instrument(skip(db, c))]
pub async fn insert<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    c: CleanContact,
    now: chrono::DateTime<Utc>,
) -> AppResult<contact::Model> {
    let phone = c.phone.clone();
    contact::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(org_id),
        name: Set(c.name),
        phone: Set(c.phone),
        email: Set(c.email),
        tags: Set(serde_json::json!(c.tags)),
        custom_fields: Set(serde_json::Value::Object(c.custom_fields)),
        notes: Set(c.notes),
        time_zone: Set(c.time_zone),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await
    .map_err(|e| duplicate_phone(e, &phone))
}

pub async fn create(
    state: &AppState,
    org_id: Uuid,
    input: &ContactInput,
) -> AppResult<ContactView> {
    let c = clean(input, &state.config.default_region)?;
    Ok(to_view(
        insert(&state.db, org_id, c, state.clock.now()).await?,
        None,
    ))
}

pub async fn update(
    state: &AppState,
    org_id: Uuid,
    id: Uuid,
    input: &ContactInput,
) -> AppResult<ContactView> {
    let existing = find_in_org(&state.db, org_id, id).await?;
    let c = clean(input, &state.config.default_region)?;
    let phone = c.phone.clone();
    let mut am: contact::ActiveModel = existing.into();
    am.name = Set(c.name);
    am.phone = Set(c.phone);
    am.email = Set(c.email);
    am.tags = Set(serde_json::json!(c.tags));
    am.custom_fields = Set(serde_json::Value::Object(c.custom_fields));
    am.notes = Set(c.notes);
    am.time_zone = Set(c.time_zone);
    am.updated_at = Set(state.clock.now());
    am.update(&state.db)
        .await
        .map_err(|e| duplicate_phone(e, &phone))?;
    view(state, org_id, id).await
}

/// Manual opt-out or opt-in from the contacts page. Anyone may opt a contact out; only an
/// owner may clear an opt-out (a contact who texted STOP clears their own by texting START).
pub async fn set_opted_out(
    state: &AppState,
    member: &Member,
    id: Uuid,
    opted_out: bool,
) -> AppResult<ContactView> {
    let org_id = member.organization_id;
    find_in_org(&state.db, org_id, id).await?;
    if opted_out {
        opt_out::record_opt_out(&state.db, id, OptOutSource::Manual, state.clock.now()).await?;
    } else if opt_out::sms_opt_out(&state.db, id).await?.is_some() {
        member.require_owner()?;
        opt_out::clear_opt_out(&state.db, id).await?;
    }
    view(state, org_id, id).await
}

/// The contact with this E.164 number, created (named by the number) when unknown; race-safe.
#[tracing::instrument(skip(db))]
pub async fn find_or_create_by_phone<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    phone: &str,
    now: chrono::DateTime<Utc>,
) -> AppResult<contact::Model> {
    let find = || {
        contact::Entity::find()
            .filter(contact::Column::OrganizationId.eq(org_id))
            .filter(contact::Column::Phone.eq(phone))
            .one(db)
    };
    if let Some(c) = find().await? {
        return Ok(c);
    }
    let fresh = CleanContact {
        name: phone.to_owned(),
        phone: Some(phone.to_owned()),
        email: None,
        tags: vec![],
        custom_fields: Default::default(),
        notes: String::new(),
        time_zone: None,
    };
    match insert(db, org_id, fresh, now).await {
        Ok(c) => Ok(c),
        Err(AppError::Conflict(_)) => find()
            .await?
            .ok_or_else(|| AppError::Internal("contact race".into())),
        Err(e) => Err(e),
    }
}
