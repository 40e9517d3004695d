//! `/v1/contacts`: list (keyset pages, with segment and tag filters and the exact total), get,
//! create, update, delete and CSV import. A contact's opt-out state is read only here: deleting a
//! contact keeps their number's opt-out.
use crate::api_keys::service::Caller;
use crate::contacts::model::{ContactCursor, ContactFilter, ContactInput};
use crate::platform::AppState;
use crate::public_api::caller::need;
use crate::public_api::cursor;
use crate::public_api::extract::{id_param, text_param, Body, Csv, Id, Params};
use crate::public_api::problem::{ApiResult, Problem};
use crate::public_api::schema::{
    Contact, ContactList, ContactPatch, DeletedContact, ImportResult, ImportRowError, NewContact,
    SearchFilter,
};
use axum::extract::State;
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
    #[param(value_type = Option<Uuid>)]
    pub segment_id: Option<String>,
    pub opted_out: Option<bool>,
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// 1 to 200; 50 unless given.
    pub limit: Option<u64>,
}

#[utoipa::path(get, path = "/contacts", tag = "contacts", operation_id = "listContacts",
    params(ContactQuery),
    security(("api_key" = ["contacts:read"])),
    responses((status = 200, body = ContactList, description = "A page of contacts, in name order"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Params(q): Params<ContactQuery>,
) -> ApiResult<Json<ContactList>> {
    need(&caller, "contacts:read")?;
    let org = caller.member.organization_id;
    let search = text_param("search", q.search)?;
    let tags = text_param("tags", q.tags)?;
    let mut filter = match id_param("segment_id", q.segment_id.as_deref())? {
        Some(id) => segment_filter(&state, org, id).await?,
        None => ContactFilter::default(),
    };
    if let Some(s) = search.filter(|s| !s.trim().is_empty()) {
        filter.search = Some(s);
    }
    if let Some(t) = tags.as_deref() {
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
    pub filter: SearchFilter,
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// 1 to 200; 50 unless given.
    pub limit: Option<u64>,
}

#[utoipa::path(post, path = "/contacts/search", tag = "contacts", operation_id = "searchContacts",
    request_body = ContactSearch,
    security(("api_key" = ["contacts:read"])),
    responses((status = 200, body = ContactList, description = "A page of the contacts the filter matches"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn search(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(q): Body<ContactSearch>,
) -> ApiResult<Json<ContactList>> {
    need(&caller, "contacts:read")?;
    let org = caller.member.organization_id;
    let filter = ContactFilter::from(q.filter);
    Ok(Json(
        page(&state, org, &filter, q.cursor.as_deref(), q.limit).await?,
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
    let after = cursor::read_contact(at)?.map(|(name, id)| ContactCursor { name, id });
    let now = state.clock.now();
    let total = crate::contacts::list::count(&state.db, org, filter, now).await?;
    let (rows, more) =
        crate::contacts::list::rows(&state.db, org, filter, now, after.as_ref(), limit).await?;
    let next_cursor = more
        .then(|| rows.last())
        .flatten()
        .map(|c| cursor::contact(&c.name, c.id));
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

#[utoipa::path(get, path = "/contacts/{id}", tag = "contacts", operation_id = "getContact",
    params(("id" = Uuid, Path, description = "The contact's id")),
    security(("api_key" = ["contacts:read"])),
    responses((status = 200, body = Contact, description = "The contact"),
        (status = "4XX", body = Problem, description = "Refused (see the problem); 404: no such contact")))]
pub async fn get(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Id(id): Id,
) -> ApiResult<Json<Contact>> {
    need(&caller, "contacts:read")?;
    let c = crate::contacts::service::view(&state, caller.member.organization_id, id).await?;
    Ok(Json(c.into()))
}

#[utoipa::path(post, path = "/contacts", tag = "contacts", operation_id = "createContact",
    request_body = NewContact,
    security(("api_key" = ["contacts:write"])),
    responses((status = 201, body = Contact, description = "The new contact"),
        (status = 409, body = Problem, description = "Another contact has that phone number"),
        (status = 422, body = Problem,
        description = "The phone number does not exist (or cannot be read as one)"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(w): Body<NewContact>,
) -> ApiResult<(StatusCode, Json<Contact>)> {
    need(&caller, "contacts:write")?;
    let w = ContactPatch::from(w);
    let consent = w.consent.as_ref().map(|c| c.to_input());
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

#[utoipa::path(patch, path = "/contacts/{id}", tag = "contacts", operation_id = "updateContact",
    request_body = ContactPatch,
    params(("id" = Uuid, Path, description = "The contact's id")),
    security(("api_key" = ["contacts:write"])),
    responses((status = 200, body = Contact, description = "The contact as it is now"),
        (status = 409, body = Problem, description = "Another contact has that phone number"),
        (status = 422, body = Problem,
        description = "The phone number does not exist, or the contact would have neither name nor phone"),
        (status = "4XX", body = Problem, description = "Refused (see the problem); 404: no such contact")))]
pub async fn update(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Id(id): Id,
    Body(w): Body<ContactPatch>,
) -> ApiResult<Json<Contact>> {
    need(&caller, "contacts:write")?;
    let org = caller.member.organization_id;
    let consent = w.consent.as_ref().map(|c| c.to_input());
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

#[utoipa::path(delete, path = "/contacts/{id}", tag = "contacts", operation_id = "deleteContact",
    params(("id" = Uuid, Path, description = "The contact's id")),
    security(("api_key" = ["contacts:write"])),
    responses((status = 200, body = DeletedContact,
        description = "The contact, their texts, pictures, notes and agent threads are gone; \
                       their number's opt-out stays."),
        (status = 409, body = Problem,
        description = "A text of theirs is in flight (a campaign, a scheduled text, an agent's reply)."),
        (status = "4XX", body = Problem, description = "Refused (see the problem); 404: no such contact")))]
pub async fn delete(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Id(id): Id,
) -> ApiResult<Json<DeletedContact>> {
    need(&caller, "contacts:write")?;
    let e = crate::records::erase::erase(&state, &caller.member, id).await?;
    Ok(Json(DeletedContact {
        id,
        deleted: true,
        messages: e.messages,
        pictures: e.pictures,
    }))
}

#[utoipa::path(post, path = "/contacts/import", tag = "contacts", operation_id = "importContacts",
    request_body(content = String, content_type = "text/csv",
        description = "A header row, then a contact a row. Headers are read as the import page reads them: name, phone, email, tags, consent, consent_at and consent_note, and an export's own (First Name and Last Name joined, Mobile Phone preferred to a phone, Birthdate as a date field); any other column becomes a custom field of its name."),
    security(("api_key" = ["contacts:write"])),
    responses((status = 200, body = ImportResult,
        description = "The contacts imported, or each row's problem (then none are)"),
        (status = 422, body = Problem,
        description = "The header row names neither a name nor a phone column (or cannot be read)"),
        (status = "4XX", body = Problem, description = "Refused (see the problem)")))]
pub async fn import(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Csv(body): Csv,
) -> ApiResult<Json<ImportResult>> {
    need(&caller, "contacts:write")?;
    let r =
        crate::contacts::import::import_csv(&state, caller.member.organization_id, &body).await?;
    // A header that names no column Herald reads: the text is not a contacts file at all.
    if let Some(header) = r.errors.iter().find(|e| e.line == 1) {
        return Err(Problem::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            header.message.clone(),
        ));
    }
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
