//! An organisation's sender profiles and which numbers send under them. Anyone in the
//! organisation reads them; owners add, change and remove profiles and move numbers between
//! them. Every query is scoped to the member's organisation: another's profile or number is
//! "not found".
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::phone_numbers::entity as phone_number;
use crate::platform::AppState;
use crate::sender_profiles::entity as profile;
use crate::sender_profiles::model::{Kind, Rate, Settings, Unit};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use uuid::Uuid;

/// Profiles an organisation may keep (the list is never paged: a business has a few).
pub const MAX_PROFILES: u64 = 50;

impl profile::Model {
    pub fn kind(&self) -> Kind {
        Kind::parse(&self.kind).unwrap_or(Kind::Unregistered)
    }

    pub fn rate(&self) -> Rate {
        let unit = Unit::parse(&self.rate_unit).unwrap_or(Unit::Second);
        Rate::new(self.rate.clamp(1, u32::MAX.into()) as u32, unit)
    }

    pub fn daily_cap(&self) -> Option<u64> {
        self.kind()
            .has_daily_cap()
            .then_some(self.daily_cap)
            .flatten()
            .map(|c| c.max(0) as u64)
    }

    /// Texts counted against the cap on the Pacific day `today`.
    pub fn used_on(&self, today: &str) -> u64 {
        match self.cap_day.as_deref() == Some(today) {
            true => self.cap_used.max(0) as u64,
            false => 0,
        }
    }
}

/// The organisation's profiles, by name.
pub async fn list(state: &AppState, org: Uuid) -> AppResult<Vec<profile::Model>> {
    Ok(profile::Entity::find()
        .filter(profile::Column::OrganizationId.eq(org))
        .order_by_asc(profile::Column::Name)
        .limit(MAX_PROFILES)
        .all(&state.db)
        .await?)
}

/// One of the organisation's profiles.
pub async fn find(state: &AppState, org: Uuid, id: Uuid) -> AppResult<profile::Model> {
    profile::Entity::find_by_id(id)
        .filter(profile::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Sender profile"))
}

/// The profile a number sends under, if any.
pub async fn of_number(state: &AppState, number_id: Uuid) -> AppResult<Option<profile::Model>> {
    let number = phone_number::Entity::find_by_id(number_id)
        .one(&state.db)
        .await?;
    Ok(match number.and_then(|n| n.sender_profile_id) {
        Some(id) => profile::Entity::find_by_id(id).one(&state.db).await?,
        None => None,
    })
}

/// Adds a profile (`id` None) or changes one; answers it. Names are unique in an organisation.
pub async fn save(
    state: &AppState,
    m: &Member,
    id: Option<Uuid>,
    s: Settings,
) -> AppResult<profile::Model> {
    m.require_owner()?;
    let org = m.organization_id;
    let same_name = profile::Entity::find()
        .filter(profile::Column::OrganizationId.eq(org))
        .filter(profile::Column::Name.eq(s.name.clone()))
        .one(&state.db)
        .await?;
    if same_name.is_some_and(|p| Some(p.id) != id) {
        return Err(AppError::Validation(format!(
            "There is already a profile named \"{}\".",
            s.name
        )));
    }
    let now = state.clock.now();
    let mut row = match id {
        Some(id) => find(state, org, id).await?.into(),
        None => {
            let n = profile::Entity::find()
                .filter(profile::Column::OrganizationId.eq(org))
                .count(&state.db)
                .await?;
            if n >= MAX_PROFILES {
                return Err(AppError::Validation(format!(
                    "An organisation keeps at most {MAX_PROFILES} sender profiles."
                )));
            }
            profile::ActiveModel {
                id: Set(Uuid::new_v4()),
                organization_id: Set(org),
                next_send_us: Set(None),
                cap_day: Set(None),
                cap_used: Set(0),
                created_at: Set(now),
                ..Default::default()
            }
        }
    };
    row.name = Set(s.name);
    row.kind = Set(s.kind.as_str().to_owned());
    row.rate = Set(s.rate.n.into());
    row.rate_unit = Set(s.rate.unit.as_str().to_owned());
    row.daily_cap = Set(s.daily_cap.map(|c| c as i64));
    row.updated_at = Set(now);
    let saved = match id {
        Some(_) => row.update(&state.db).await?,
        None => row.insert(&state.db).await?,
    };
    tracing::info!(profile = %saved.id, kind = %saved.kind, "sender profile saved");
    Ok(saved)
}

/// Removes a profile; its numbers go back to the default (paced on their own).
pub async fn delete(state: &AppState, m: &Member, id: Uuid) -> AppResult<()> {
    m.require_owner()?;
    let p = find(state, m.organization_id, id).await?;
    let txn = crate::platform::db::begin_write(&state.db).await?;
    phone_number::Entity::update_many()
        .col_expr(
            phone_number::Column::SenderProfileId,
            Expr::value(Option::<Uuid>::None),
        )
        .filter(phone_number::Column::OrganizationId.eq(p.organization_id))
        .filter(phone_number::Column::SenderProfileId.eq(p.id))
        .exec(&txn)
        .await?;
    profile::Entity::delete_by_id(p.id).exec(&txn).await?;
    txn.commit().await?;
    Ok(())
}

/// Puts a number under a profile, or (None) back to the default.
pub async fn assign(
    state: &AppState,
    m: &Member,
    number_id: Uuid,
    profile_id: Option<Uuid>,
) -> AppResult<()> {
    m.require_owner()?;
    let org = m.organization_id;
    if let Some(p) = profile_id {
        find(state, org, p).await?;
    }
    let done = phone_number::Entity::update_many()
        .col_expr(
            phone_number::Column::SenderProfileId,
            Expr::value(profile_id),
        )
        .filter(phone_number::Column::Id.eq(number_id))
        .filter(phone_number::Column::OrganizationId.eq(org))
        .exec(&state.db)
        .await?;
    if done.rows_affected == 0 {
        return Err(AppError::not_found("Phone number"));
    }
    Ok(())
}

/// A page of the organisation's numbers with their profile ids, by number, and how many there
/// are in all.
pub async fn numbers(
    state: &AppState,
    org: Uuid,
    limit: u64,
) -> AppResult<(Vec<(Uuid, String, Option<Uuid>)>, u64)> {
    let q = phone_number::Entity::find().filter(phone_number::Column::OrganizationId.eq(org));
    let all = q.clone().count(&state.db).await?;
    let rows = q
        .select_only()
        .columns([
            phone_number::Column::Id,
            phone_number::Column::Number,
            phone_number::Column::SenderProfileId,
        ])
        .order_by_asc(phone_number::Column::Number)
        .limit(limit)
        .into_tuple()
        .all(&state.db)
        .await?;
    Ok((rows, all))
}

/// Reads the form as typed and saves it, owners only (a member is refused before the form is
/// read).
#[allow(clippy::too_many_arguments)]
pub async fn save_typed(
    state: &AppState,
    m: &Member,
    id: Option<&str>,
    name: &str,
    kind: &str,
    rate: &str,
    unit: &str,
    cap: &str,
) -> AppResult<profile::Model> {
    m.require_owner()?;
    let id = match id.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => Some(Uuid::parse_str(s).map_err(|_| AppError::not_found("Sender profile"))?),
        None => None,
    };
    save(state, m, id, Settings::parse(name, kind, rate, unit, cap)?).await
}

/// How many of the organisation's numbers each profile holds (None: in no profile).
pub async fn numbers_per_profile(
    state: &AppState,
    org: Uuid,
) -> AppResult<std::collections::HashMap<Option<Uuid>, u64>> {
    let rows: Vec<(Option<Uuid>, i64)> = phone_number::Entity::find()
        .select_only()
        .column(phone_number::Column::SenderProfileId)
        .column_as(phone_number::Column::Id.count(), "n")
        .filter(phone_number::Column::OrganizationId.eq(org))
        .group_by(phone_number::Column::SenderProfileId)
        .into_tuple()
        .all(&state.db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(p, n)| (p, n.max(0) as u64))
        .collect())
}
