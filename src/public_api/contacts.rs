//! `/v1/contacts`: list (keyset pages, with segment and tag filters and the exact total), get,
//! create, update, delete and CSV import. A contact's opt-out state is read only here: deleting a
//! contact keeps their number's opt-out.
use crate::api_keys::service::Caller;
use crate::contacts::model::{ContactCursor, ContactFilter, ContactInput};
use crate::public_api::caller::need;
use crate::public_api::cursor;
use crate::public_api::problem::{rejected, ApiResult, Problem};
use crate::public_api::schema::{
    Contact, ContactList, ContactWrite, DeletedContact, ImportResult, ImportRowError,
};
use crate::server::AppState;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContactQuery {
    /// Name, e-mail or tag containing it, or a phone containing its digits.
    pub search: Option<String>,
    /// Tagged with any of these (comma-separated).
    pub tags: Option<String>,
    /// Only the members of this saved segment.
    pub segment_id: Option<Uuid>,
    pub opted_out: Option<bool>,
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// 1 to 200; 50 unless given.
    pub limit: Option<u64>,
}

#[utoipa::path(get, path = "/contacts", tag = "contacts", params(ContactQuery),
    security(("api_key" = ["contacts:read"])),
    responses((status = 200, body = ContactList), (status = "4XX", body = Problem)))]
pub async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    q: Result<Query<ContactQuery>, QueryRejection>,
) -> ApiResult<Json<ContactList>> {
    need(&caller, "contacts:read")?;
    let Query(q) = q.map_err(rejected)?;
    let org = caller.member.organization_id;
    let mut filter = match q.segment_id {
        Some(id) => segment_filter(&state, org, id).await?,
        None => ContactFilter::default(),
    };
    if let Some(s) = q.search.filter(|s| !s.trim().is_empty()) {
        filter.search = Some(s);
    }
    if let Some(t) = q.tags.as_deref() {
        filter.tags_any = crate::contacts::model::parse_tags(t);
    }
    if q.opted_out.is_some() {
        filter.opted_out = q.opted_out;
    }
    Ok(Json(
        page(&state, org, &filter, q.cursor.as_deref(), q.limit).await?,
    ))
}

/// Any filter the app's segments take, in the body.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContactSearch {
    #[serde(default)]
    pub filter: ContactFilter,
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// 1 to 200; 50 unless given.
    pub limit: Option<u64>,
}

#[utoipa::path(post, path = "/contacts/search", tag = "contacts", request_body = ContactSearch,
    security(("api_key" = ["contacts:read"])),
    responses((status = 200, body = ContactList), (status = "4XX", body = Problem)))]
pub async fn search(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Result<Json<ContactSearch>, JsonRejection>,
) -> ApiResult<Json<ContactList>> {
    need(&caller, "contacts:read")?;
    let Json(q) = body.map_err(rejected)?;
    let org = caller.member.organization_id;
    Ok(Json(
        page(&state, org, &q.filter, q.cursor.as_deref(), q.limit).await?,
    ))
}

/// One page of the contacts `filter` matches, in name order, with the exact total.
async fn page(
    state: &AppState,
    org: Uuid,
    filter: &ContactFilter,
    at: Option<&str>,
    limit: Option<u64>,
) -> ApiResult<ContactList> {
    let limit = cursor::limit(limit)?;
    let after: Option<ContactCursor> = cursor::decode(at)?;
    let now = state.clock.now();
    let total = crate::contacts::list::count(&state.db, org, filter, now).await?;
    let (rows, more) =
        crate::contacts::list::rows(&state.db, org, filter, now, after.as_ref(), limit).await?;
    let next_cursor = more.then(|| rows.last()).flatten().map(|c| {
        cursor::encode(&ContactCursor {
            name: c.name.clone(),
            id: c.id,
        })
    });
    let ids: Vec<Uuid> = rows.iter().map(|c| c.id).collect();
    let sources = crate::contacts::opt_out::sms_opt_outs(&state.db, &ids).await?;
    let data = rows
        .into_iter()
        .map(|c| {
            let source = sources.get(&c.id).cloned();
            crate::contacts::service::to_view(c, source).into()
        })
        .collect();
    Ok(ContactList {
        data,
        total,
        next_cursor,
    })
}

async fn segment_filter(state: &AppState, org: Uuid, id: Uuid) -> ApiResult<ContactFilter> {
    use crate::contacts::entity::segment;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    let row = segment::Entity::find_by_id(id)
        .filter(segment::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
        .ok_or_else(|| Problem::from(crate::error::AppError::not_found("That segment")))?;
    Ok(crate::contacts::segments::to_view(row)?.filter)
}

#[utoipa::path(get, path = "/contacts/{id}", tag = "contacts",
    params(("id" = Uuid, Path, description = "The contact's id")),
    security(("api_key" = ["contacts:read"])),
    responses((status = 200, body = Contact), (status = "4XX", body = Problem)))]
pub async fn get(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<Contact>> {
    need(&caller, "contacts:read")?;
    let c = crate::contacts::service::view(&state, caller.member.organization_id, id).await?;
    Ok(Json(c.into()))
}

#[utoipa::path(post, path = "/contacts", tag = "contacts", request_body = ContactWrite,
    security(("api_key" = ["contacts:write"])),
    responses((status = 201, body = Contact), (status = "4XX", body = Problem)))]
pub async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Result<Json<ContactWrite>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Contact>)> {
    need(&caller, "contacts:write")?;
    let Json(w) = body.map_err(rejected)?;
    let consent = consent_of(&w)?;
    let input = ContactInput {
        name: w.name.unwrap_or_default(),
        phone: w.phone.unwrap_or_default(),
        email: w.email.unwrap_or_default(),
        tags: w.tags.unwrap_or_default(),
        custom_fields: w.custom_fields.unwrap_or_default(),
        notes: w.notes.unwrap_or_default(),
        time_zone: w.time_zone.unwrap_or_default(),
        consent,
    };
    let c = crate::contacts::service::create(&state, caller.member.organization_id, &input).await?;
    Ok((StatusCode::CREATED, Json(c.into())))
}

#[utoipa::path(patch, path = "/contacts/{id}", tag = "contacts", request_body = ContactWrite,
    params(("id" = Uuid, Path, description = "The contact's id")),
    security(("api_key" = ["contacts:write"])),
    responses((status = 200, body = Contact), (status = "4XX", body = Problem)))]
pub async fn update(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<Uuid>,
    body: Result<Json<ContactWrite>, JsonRejection>,
) -> ApiResult<Json<Contact>> {
    need(&caller, "contacts:write")?;
    let Json(w) = body.map_err(rejected)?;
    let org = caller.member.organization_id;
    let consent = consent_of(&w)?;
    let now = crate::contacts::service::view(&state, org, id).await?;
    let input = ContactInput {
        name: w.name.unwrap_or(now.name),
        phone: w.phone.unwrap_or(now.phone.unwrap_or_default()),
        email: w.email.unwrap_or(now.email.unwrap_or_default()),
        tags: w.tags.unwrap_or(now.tags),
        custom_fields: w.custom_fields.unwrap_or(now.custom_fields),
        notes: w.notes.unwrap_or(now.notes),
        time_zone: w.time_zone.unwrap_or(now.time_zone.unwrap_or_default()),
        consent,
    };
    let c = crate::contacts::service::update(&state, org, id, &input).await?;
    Ok(Json(c.into()))
}

#[utoipa::path(delete, path = "/contacts/{id}", tag = "contacts",
    params(("id" = Uuid, Path, description = "The contact's id")),
    security(("api_key" = ["contacts:write"])),
    responses((status = 200, body = DeletedContact,
        description = "The contact, their texts, pictures, notes and agent threads are gone; \
                       their number's opt-out stays."),
        (status = 409, body = Problem,
        description = "A text of theirs is in flight (a campaign, a scheduled text, an agent's reply)."),
        (status = "4XX", body = Problem)))]
pub async fn delete(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<Uuid>,
) -> ApiResult<Json<DeletedContact>> {
    need(&caller, "contacts:write")?;
    let e = crate::contacts::erase::erase(&state, &caller.member, id).await?;
    Ok(Json(DeletedContact {
        id,
        deleted: true,
        messages: e.messages,
        pictures: e.pictures,
    }))
}

#[utoipa::path(post, path = "/contacts/import", tag = "contacts",
    request_body(content = String, content_type = "text/csv",
        description = "A header row (name, phone, email, tags, and custom fields), then a contact a row."),
    security(("api_key" = ["contacts:write"])),
    responses((status = 200, body = ImportResult), (status = "4XX", body = Problem)))]
pub async fn import(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: String,
) -> ApiResult<Json<ImportResult>> {
    need(&caller, "contacts:write")?;
    let r =
        crate::contacts::import::import_csv(&state, caller.member.organization_id, &body).await?;
    Ok(Json(ImportResult {
        imported: r.imported,
        errors: r
            .errors
            .into_iter()
            .map(|e| ImportRowError {
                line: e.line,
                message: e.message,
            })
            .collect(),
    }))
}

fn consent_of(w: &ContactWrite) -> ApiResult<Option<crate::compliance::model::ConsentInput>> {
    w.consent
        .as_ref()
        .map(|c| c.to_input().map_err(Problem::bad_request))
        .transpose()
}
