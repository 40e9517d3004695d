//! Adding, editing and finding the organisation's numbers.
use crate::contacts::phone::normalize_phone;
use crate::error::{AppError, AppResult};
use crate::phone::PhoneNumber;
use crate::phone_numbers::entity as phone_number;
use crate::phone_numbers::model::{PhoneNumberInput, PhoneNumberView};
use crate::platform::db::is_unique_violation;
use crate::platform::AppState;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, Set,
};
use uuid::Uuid;

pub fn to_view(p: phone_number::Model) -> PhoneNumberView {
    PhoneNumberView {
        id: p.id,
        number: p.number.into_string(),
        friendly_name: p.friendly_name,
        provider_sid: p.provider_sid,
        auto_assign: p.auto_assign,
    }
}

pub async fn list(state: &AppState, org_id: Uuid) -> AppResult<Vec<phone_number::Model>> {
    Ok(phone_number::Entity::find()
        .filter(phone_number::Column::OrganizationId.eq(org_id))
        .order_by_asc(phone_number::Column::CreatedAt)
        .all(&state.db)
        .await?)
}

/// A number as people name it: "Front desk (+14155550100)", or the number alone when it has no
/// name.
pub fn label(n: &crate::phone_numbers::entity::Model) -> String {
    let number = n.number.as_str();
    match n.friendly_name.trim() {
        "" => number.to_owned(),
        name => format!("{name} ({number})"),
    }
}

/// The organisation's number with this id, or NotFound (also for another organisation's id).
pub async fn find_in_org<C: ConnectionTrait>(
    db: &C,
    org_id: Uuid,
    id: Uuid,
) -> AppResult<phone_number::Model> {
    phone_number::Entity::find_by_id(id)
        .filter(phone_number::Column::OrganizationId.eq(org_id))
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("Phone number"))
}

/// Whichever organisation owns this E.164 number.
pub async fn find_by_number<C: ConnectionTrait>(
    db: &C,
    number: &str,
) -> AppResult<Option<phone_number::Model>> {
    Ok(phone_number::Entity::find()
        .filter(phone_number::Column::Number.eq(number))
        .one(db)
        .await?)
}

fn taken(e: sea_orm::DbErr, number: &PhoneNumber) -> AppError {
    if is_unique_violation(&e) {
        AppError::Conflict(format!("{number} is already registered in Herald."))
    } else {
        e.into()
    }
}

fn clean(
    state: &AppState,
    input: &PhoneNumberInput,
) -> AppResult<(PhoneNumber, String, Option<String>)> {
    let number = normalize_phone(&input.number, &state.config.default_region)?;
    let name = input.friendly_name.trim();
    let sid = input.provider_sid.trim();
    Ok((
        number.clone(),
        if name.is_empty() {
            number.into_string()
        } else {
            name.to_owned()
        },
        (!sid.is_empty()).then(|| sid.to_owned()),
    ))
}

/// With a real provider, only a number the account has may be added; its provider id comes
/// from the account. The local outbox takes any number, for demos.
async fn check_owned(
    state: &AppState,
    org_id: Uuid,
    number: &PhoneNumber,
    sid: Option<String>,
) -> AppResult<Option<String>> {
    use crate::platform::sms::Ownership;
    // The organisation's own account when it connected one; else the server's.
    let account = crate::provider_accounts::service::account_for(state, org_id).await?;
    match state.transport.ownership(number, account.as_ref()).await {
        Ok(Ownership::Unchecked) => Ok(sid),
        Ok(Ownership::Owned { provider_sid }) => Ok(Some(provider_sid)),
        Ok(Ownership::NotOwned) => Err(AppError::Validation(format!(
            "{number} is not a number of this {} account, so Herald cannot send from it or \
             receive its texts. Buy or port it there first.",
            state.transport.name()
        ))),
        Err(e) => Err(AppError::Validation(format!(
            "Could not check {number} with the provider ({e}). Try again."
        ))),
    }
}

pub async fn create(
    state: &AppState,
    org_id: Uuid,
    input: &PhoneNumberInput,
) -> AppResult<PhoneNumberView> {
    let (number, name, sid) = clean(state, input)?;
    let sid = check_owned(state, org_id, &number, sid).await?;
    let m = phone_number::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(org_id),
        number: Set(number.clone()),
        friendly_name: Set(name),
        provider_sid: Set(sid),
        ai_agent_id: Set(None),
        text_agent_id: Set(None),
        created_at: Set(state.clock.now()),
        auto_assign: Set(input.auto_assign),
        assigned_last: Set(None),
        unregistered_at: Set(None),
        unregistered_code: Set(None),
        sender_profile_id: Set(None),
    }
    .insert(&state.db)
    .await
    .map_err(|e| taken(e, &number))?;
    state.numbers().forget_all();
    Ok(to_view(m))
}

pub async fn update(
    state: &AppState,
    org_id: Uuid,
    id: Uuid,
    input: &PhoneNumberInput,
) -> AppResult<PhoneNumberView> {
    let existing = find_in_org(&state.db, org_id, id).await?;
    let (number, name, sid) = clean(state, input)?;
    let sid = check_owned(state, org_id, &number, sid).await?;
    let mut am: phone_number::ActiveModel = existing.into();
    am.number = Set(number.clone());
    am.friendly_name = Set(name);
    am.provider_sid = Set(sid);
    am.auto_assign = Set(input.auto_assign);
    let saved = am.update(&state.db).await.map_err(|e| taken(e, &number))?;
    state.numbers().forget_all();
    Ok(to_view(saved))
}
