//! Numbers a carrier refused as unregistered (issue 30 §1): a 30034 (unregistered US A2P 10DLC)
//! or 30032 (unverified toll-free) marks the sending number, tells every owner once, and shows
//! owners a banner naming the number and the registration it lacks, until a text from it is
//! delivered again.
use crate::error::AppResult;
use crate::notifications::service::{notify, Notice};
use crate::phone_numbers::entity as phone_number;
use crate::platform::carrier_errors::{action, CarrierAction};
use crate::platform::events::{DomainEvent, Listener};
use crate::platform::AppState;
use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

/// Marks the number unregistered for `code` and, the first time, tells every owner.
pub async fn refused(
    state: &AppState,
    org: Uuid,
    phone_number_id: Uuid,
    code: &str,
    now: DateTime<Utc>,
) -> AppResult<()> {
    let res = phone_number::Entity::update_many()
        .col_expr(phone_number::Column::UnregisteredAt, Expr::value(Some(now)))
        .col_expr(
            phone_number::Column::UnregisteredCode,
            Expr::value(Some(code.trim().to_owned())),
        )
        .filter(phone_number::Column::Id.eq(phone_number_id))
        .filter(phone_number::Column::OrganizationId.eq(org))
        .filter(phone_number::Column::UnregisteredAt.is_null())
        .exec(&state.db)
        .await?;
    if res.rows_affected != 1 {
        return Ok(());
    }
    let Some(n) = phone_number::Entity::find_by_id(phone_number_id)
        .one(&state.db)
        .await?
    else {
        return Ok(());
    };
    tracing::warn!(number = %n.number, code, "carrier refused a text as unregistered");
    for user_id in crate::auth::owners::owner_ids(&state.db, org).await? {
        notify(
            state,
            Notice {
                agent_id: None,
                organization_id: org,
                user_id,
                kind: "number",
                title: format!("Carriers block texts from {}", n.number),
                body: banner(&n.number, code),
                link: Some("/settings/sending".into()),
                source_key: Some(format!(
                    "number:{}:unregistered:{}:{user_id}",
                    n.id,
                    now.timestamp()
                )),
            },
        )
        .await?;
    }
    Ok(())
}

/// A text from the number was delivered: its registration works, and the banner goes.
pub async fn delivered<C: ConnectionTrait>(db: &C, phone_number_id: Uuid) -> AppResult<()> {
    phone_number::Entity::update_many()
        .col_expr(
            phone_number::Column::UnregisteredAt,
            Expr::value(None::<DateTime<Utc>>),
        )
        .col_expr(
            phone_number::Column::UnregisteredCode,
            Expr::value(None::<String>),
        )
        .filter(phone_number::Column::Id.eq(phone_number_id))
        .filter(phone_number::Column::UnregisteredAt.is_not_null())
        .exec(db)
        .await?;
    Ok(())
}

/// Hears delivery statuses (`DomainEvent::MessageStatus`): a refusal as unregistered marks the
/// sending number and tells its owners; a delivered text clears the mark.
pub struct RegistrationWatch;

#[async_trait::async_trait]
impl Listener for RegistrationWatch {
    async fn on(&self, state: &AppState, event: &DomainEvent) -> AppResult<()> {
        let DomainEvent::MessageStatus {
            organization_id,
            phone_number_id,
            status,
            error_code,
            ..
        } = event
        else {
            return Ok(());
        };
        match error_code.as_deref() {
            Some(code) if action(code) == CarrierAction::Unregistered => {
                let now = state.clock.now();
                refused(state, *organization_id, *phone_number_id, code, now).await
            }
            _ if status == "delivered" => delivered(&state.db, *phone_number_id).await,
            _ => Ok(()),
        }
    }
}

/// The banner's words for a number refused with `code`: what is missing, and what to do.
fn banner(number: &str, code: &str) -> String {
    let missing = match code.trim() {
        "30032" => "its toll-free verification",
        _ => "its US A2P 10DLC registration (a brand and a campaign it belongs to)",
    };
    format!(
        "Carriers are blocking texts from {number}: it lacks {missing}. {}",
        crate::platform::carrier_errors::explain(code)
    )
}

/// The banners owners see: one per number carriers refused as unregistered, oldest first.
pub async fn banners<C: ConnectionTrait>(db: &C, org: Uuid) -> AppResult<Vec<String>> {
    Ok(phone_number::Entity::find()
        .filter(phone_number::Column::OrganizationId.eq(org))
        .filter(phone_number::Column::UnregisteredAt.is_not_null())
        .order_by_asc(phone_number::Column::UnregisteredAt)
        .all(db)
        .await?
        .into_iter()
        .map(|n| banner(&n.number, n.unregistered_code.as_deref().unwrap_or("30034")))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::banner;

    #[test]
    fn the_banner_names_the_number_and_the_registration_it_lacks() {
        let b = banner("+15550001111", "30034");
        assert!(
            b.contains("+15550001111") && b.contains("10DLC") && b.contains("30034"),
            "{b}"
        );
        let b = banner("+18005550000", "30032");
        assert!(
            b.contains("toll-free verification") && b.contains("30032"),
            "{b}"
        );
    }
}
