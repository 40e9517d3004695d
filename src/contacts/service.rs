//! Contact queries and changes, always scoped to one organisation.
use crate::auth::session::Member;
use crate::contacts::consent::ConsentSource;
use crate::contacts::entity::contact;
use crate::contacts::model::{ContactInput, ContactView};
use crate::contacts::opt_out::{self, OptOutSource};
use crate::contacts::phone::normalize_phone;
use crate::error::{AppError, AppResult};
use crate::platform::db::is_unique_violation;
use crate::platform::AppState;
use chrono::Utc;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use uuid::Uuid;

pub fn to_view(c: contact::Model, opt_out_source: Option<String>) -> ContactView {
    let consent = ConsentSource::parse(&c.consent_source).unwrap_or_default();
    let inferred_zone = match &c.time_zone {
        Some(_) => None,
        None => c
            .phone
            .as_deref()
            .and_then(crate::contacts::area_codes::lookup)
            .map(|a| {
                format!(
                    "{} (inferred from area code {}, {})",
                    a.zone, a.npa, a.state
                )
            }),
    };
    ContactView {
        consent_source: consent,
        consent_label: consent.label().to_owned(),
        consent_at: c.consent_at,
        consent_note: c.consent_note.clone().unwrap_or_default(),
        inferred_zone,
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
        unreachable: c.unreachable_reason,
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

/// A validated, normalised form of the input.
pub struct CleanContact {
    pub name: String,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub tags: Vec<String>,
    pub custom_fields: serde_json::Map<String, serde_json::Value>,
    pub notes: String,
    pub time_zone: Option<String>,
    pub consent: CleanConsent,
}

/// Consent as it will be stored: the source, when it was given (None: now), the evidence.
#[derive(Clone, Debug, Default)]
pub struct CleanConsent {
    pub source: ConsentSource,
    pub at: Option<chrono::DateTime<Utc>>,
    pub note: Option<String>,
}

pub fn clean(input: &ContactInput, region: &str) -> AppResult<CleanContact> {
    let phone = if input.phone.trim().is_empty() {
        None
    } else {
        Some(normalize_phone(&input.phone, region)?.into_string())
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
        consent: CleanConsent {
            source: input.consent.as_ref().map(|c| c.source).unwrap_or_default(),
            at: None,
            note: input
                .consent
                .as_ref()
                .map(|c| c.note.trim().to_owned())
                .filter(|n| !n.is_empty()),
        },
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

/// Inserts the contact and its `contact.created` event, in the caller's transaction.
#[tracing::instrument(skip(db, c))]
pub async fn insert<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    c: CleanContact,
    now: chrono::DateTime<Utc>,
) -> AppResult<contact::Model> {
    let row = insert_row(db, org_id, c, now).await?;
    crate::webhooks::emit::emit(db, org_id, "contact.created", created_event(&row), now).await?;
    Ok(row)
}

/// The data of a `contact.created` event.
pub fn created_event(row: &contact::Model) -> serde_json::Value {
    serde_json::json!({"id": row.id, "name": row.name, "phone": row.phone,
        "email": row.email, "tags": row.tags, "created_at": row.created_at})
}

/// Inserts the contact alone: a caller that inserts many writes their events at once.
pub async fn insert_row<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    c: CleanContact,
    now: chrono::DateTime<Utc>,
) -> AppResult<contact::Model> {
    let phone = c.phone.clone();
    let row = new_row(org_id, c, now)
        .insert(db)
        .await
        .map_err(|e| duplicate_phone(e, &phone))?;
    Ok(row)
}

/// A new contact's row, not yet written.
pub fn new_row(org_id: Uuid, c: CleanContact, now: chrono::DateTime<Utc>) -> contact::ActiveModel {
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
        consent_source: Set(c.consent.source.as_str().to_owned()),
        consent_at: Set(
            (c.consent.source != ConsentSource::None).then(|| c.consent.at.unwrap_or(now))
        ),
        consent_note: Set(c.consent.note),
        unreachable_reason: Set(None),
        unreachable_at: Set(None),
    }
}

/// Inserts new rows a few hundred to a statement (within every database's limit on bound
/// values), leaving out any whose number the organisation has already; answers the
/// `contact.created` event data and the ids of the rows that went in.
pub async fn insert_many_new<C: ConnectionTrait>(
    db: &C,
    rows: Vec<contact::ActiveModel>,
) -> AppResult<(Vec<serde_json::Value>, std::collections::HashSet<Uuid>)> {
    let mut events = Vec::with_capacity(rows.len());
    let mut inserted = std::collections::HashSet::with_capacity(rows.len());
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let batch: Vec<contact::ActiveModel> = rows.by_ref().take(500).collect();
        let ids = match contact::Entity::insert_many(batch.clone())
            .on_conflict_do_nothing_on([contact::Column::OrganizationId, contact::Column::Phone])
            .exec_with_returning_keys(db)
            .await?
        {
            sea_orm::TryInsertResult::Inserted(ids) => ids,
            sea_orm::TryInsertResult::Conflicted | sea_orm::TryInsertResult::Empty => vec![],
        };
        inserted.extend(ids);
        events.extend(
            batch
                .iter()
                .filter(|r| inserted.contains(r.id.as_ref()))
                .map(|r| {
                    serde_json::json!({"id": r.id.as_ref(), "name": r.name.as_ref(),
                "phone": r.phone.as_ref(), "email": r.email.as_ref(), "tags": r.tags.as_ref(),
                "created_at": r.created_at.as_ref()})
                }),
        );
    }
    Ok((events, inserted))
}

pub async fn create(
    state: &AppState,
    org_id: Uuid,
    input: &ContactInput,
) -> AppResult<ContactView> {
    let mut c = clean(input, &state.config.default_region)?;
    crate::contacts::fields::typed(&state.db, org_id, &mut c.custom_fields).await?;
    // The contact and its webhook event commit together.
    let txn = crate::platform::db::begin_write(&state.db).await?;
    let created = insert(&txn, org_id, c, state.clock.now()).await?;
    txn.commit().await?;
    // A number on the suppression list stays there: the new contact shows it.
    view(state, org_id, created.id).await
}

pub async fn update(
    state: &AppState,
    org_id: Uuid,
    id: Uuid,
    input: &ContactInput,
) -> AppResult<ContactView> {
    let existing = find_in_org(&state.db, org_id, id).await?;
    let mut c = clean(input, &state.config.default_region)?;
    crate::contacts::fields::typed(&state.db, org_id, &mut c.custom_fields).await?;
    let phone = c.phone.clone();
    let new_number = existing.phone != c.phone;
    let mut am: contact::ActiveModel = existing.into();
    if new_number {
        // What the carrier said was about the old number.
        am.unreachable_reason = Set(None);
        am.unreachable_at = Set(None);
    }
    am.name = Set(c.name);
    am.phone = Set(c.phone);
    am.email = Set(c.email);
    am.tags = Set(serde_json::json!(c.tags));
    am.custom_fields = Set(serde_json::Value::Object(c.custom_fields));
    am.notes = Set(c.notes);
    am.time_zone = Set(c.time_zone);
    // Consent changes only when the form says so, and is stamped when it does.
    if input.consent.is_some() {
        am.consent_source = Set(c.consent.source.as_str().to_owned());
        am.consent_at = Set((c.consent.source != ConsentSource::None)
            .then(|| c.consent.at.unwrap_or_else(|| state.clock.now())));
        am.consent_note = Set(c.consent.note);
    }
    am.updated_at = Set(state.clock.now());
    am.update(&state.db)
        .await
        .map_err(|e| duplicate_phone(e, &phone))?;
    view(state, org_id, id).await
}

/// Manual opt-out or opt-in from the contacts page. Anyone may opt a contact out; only an
/// owner may clear an opt-out, and only with a reason (a contact who opted out by text clears
/// their own by texting START). Both are audited on the number.
pub async fn set_opted_out(
    state: &AppState,
    member: &Member,
    id: Uuid,
    opted_out: bool,
    reason: Option<String>,
) -> AppResult<ContactView> {
    let org_id = member.organization_id;
    let c = find_in_org(&state.db, org_id, id).await?;
    let reason = reason
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty());
    let why = opt_out::Because {
        actor_user_id: Some(member.user_id),
        reason: reason.clone(),
        message_id: None,
    };
    if opted_out {
        opt_out::record_opt_out(&state.db, id, OptOutSource::Manual, &why, state.clock.now())
            .await?;
    } else if let Some(phone) = c.phone.as_deref() {
        if opt_out::suppression_of(&state.db, org_id, phone)
            .await?
            .is_some()
        {
            member.require_owner()?;
            if reason.is_none() {
                return Err(AppError::validation(
                    "Say why the opt-out may be cleared (for example, the written consent you hold); it is kept in the audit.",
                ));
            }
            let txn = crate::platform::db::begin_write(&state.db).await?;
            opt_out::lift(&txn, org_id, phone, false, &why, state.clock.now()).await?;
            crate::audit::service::record(
                &txn,
                crate::audit::service::Entry {
                    organization_id: Some(org_id),
                    actor: Some(member.user_id),
                    action: crate::audit::model::AuditAction::OptOutCleared,
                    target: &format!("{} ({phone})", c.name),
                    detail: reason.clone(),
                },
                state.clock.now(),
            )
            .await?;
            txn.commit().await?;
        }
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
        // They texted first: they may be answered (not marketed to).
        consent: CleanConsent {
            source: ConsentSource::TextedFirst,
            at: Some(now),
            note: Some("texted us first".into()),
        },
    };
    match insert(db, org_id, fresh, now).await {
        Ok(c) => Ok(c),
        Err(AppError::Conflict(_)) => find()
            .await?
            .ok_or_else(|| AppError::Internal("contact race".into())),
        Err(e) => Err(e),
    }
}
