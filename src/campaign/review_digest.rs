//! Approval binds to what was seen. The review sheet carries a digest of its drafts (each item's
//! id, status and words), of the campaign's pictures and of whether its links are shortened; "Approve all" sends it back, and a sheet
//! that changed since is refused.
//! Every change to a draft first takes the operation's row (a no-op UPDATE that also checks the
//! status), so an edit racing an approval either lands before it, and changes the digest, or
//! finds the operation no longer in review.
use crate::campaign::entity::{item, operation};
use crate::campaign::model::OperationStatus;
use crate::error::{AppError, AppResult};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// The digest of drafts given as (id, status, words), in any order.
pub fn digest<'a>(items: impl IntoIterator<Item = (Uuid, &'a str, Option<&'a str>)>) -> String {
    let mut rows: Vec<_> = items.into_iter().collect();
    rows.sort_by_key(|(id, _, _)| *id);
    let mut h = Sha256::new();
    for (id, status, draft) in rows {
        h.update(id.as_bytes());
        h.update(status.as_bytes());
        h.update([0]);
        h.update(draft.unwrap_or("").as_bytes());
        h.update([0xff]);
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The drafts' digest sealed with the campaign's pictures, in their order, and with whether its
/// links go out shortened; with no pictures and links shortened (the default) it is the drafts'
/// digest alone.
pub fn sealed(
    drafts: String,
    pictures: impl IntoIterator<Item = Uuid>,
    track_links: bool,
) -> String {
    let pictures: Vec<Uuid> = pictures.into_iter().collect();
    if pictures.is_empty() && track_links {
        return drafts;
    }
    let mut h = Sha256::new();
    h.update(drafts.as_bytes());
    for p in pictures {
        h.update(p.as_bytes());
    }
    if !track_links {
        h.update(b"links as written");
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Each item of the operation: its id, status and draft (what a digest covers).
pub async fn drafts<C: ConnectionTrait>(db: &C, operation_id: Uuid) -> AppResult<Vec<Draft>> {
    Ok(item::Entity::find()
        .select_only()
        .column(item::Column::Id)
        .column(item::Column::Status)
        .column(item::Column::Draft)
        .filter(item::Column::OperationId.eq(operation_id))
        .order_by_asc(item::Column::Id)
        .into_tuple()
        .all(db)
        .await?)
}

/// An item's id, status and draft.
pub type Draft = (Uuid, String, Option<String>);

/// The digest of the operation's drafts, pictures and link shortening as stored now.
pub async fn current<C: ConnectionTrait>(db: &C, operation_id: Uuid) -> AppResult<String> {
    let rows = drafts(db, operation_id).await?;
    let pictures = crate::campaign::pictures::of(db, operation_id).await?;
    let track_links = operation::Entity::find_by_id(operation_id)
        .one(db)
        .await?
        .is_none_or(|o| o.track_links);
    Ok(sealed(
        digest(
            rows.iter()
                .map(|(id, s, d)| (*id, s.as_str(), d.as_deref())),
        ),
        pictures.iter().map(|p| p.id),
        track_links,
    ))
}

/// Takes the operation's row for this transaction while it awaits review, or refuses.
pub async fn hold_in_review<C: ConnectionTrait>(
    txn: &C,
    operation_id: Uuid,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<()> {
    let res = operation::Entity::update_many()
        .col_expr(operation::Column::UpdatedAt, Expr::value(now))
        .filter(operation::Column::Id.eq(operation_id))
        .filter(operation::Column::Status.eq(OperationStatus::AwaitingApproval))
        .exec(txn)
        .await?;
    if res.rows_affected == 0 {
        return Err(AppError::Conflict(
            "Drafts can change only while the operation awaits review.".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::digest;
    use uuid::Uuid;

    #[test]
    fn the_digest_follows_every_word_and_status_but_not_the_order() {
        let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let base = digest([(a, "drafted", Some("Hi")), (b, "drafted", Some("Hello"))]);
        assert_eq!(
            base,
            digest([(b, "drafted", Some("Hello")), (a, "drafted", Some("Hi"))])
        );
        assert_ne!(
            base,
            digest([(a, "drafted", Some("Hi!")), (b, "drafted", Some("Hello"))])
        );
        assert_ne!(
            base,
            digest([(a, "skipped", Some("Hi")), (b, "drafted", Some("Hello"))])
        );
        assert_ne!(base, digest([(a, "drafted", Some("Hi"))]));
        assert_ne!(
            digest([(a, "drafted", Some("ab")), (b, "drafted", Some("c"))]),
            digest([(a, "drafted", Some("a")), (b, "drafted", Some("bc"))])
        );
    }
}
