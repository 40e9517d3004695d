//! Making short links and counting their clicks. A code is made once per (campaign or saved
//! reply, contact, link) and reused when the same text goes to the same person again (a retried
//! send, a saved reply filled twice), so a contact's clicks on one link add up in one row.
use crate::error::{AppError, AppResult};
use crate::links::entity as tracked_link;
use crate::links::model::{self, CODE_LEN, PATH};
use chrono::{DateTime, Utc};
use rand::Rng;
use sea_orm::sea_query::{Expr, ExprTrait, Func, OnConflict, SimpleExpr};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, Set};
use sha2::{Digest, Sha256};
use uuid::Uuid;

const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// What made a link: a campaign's text, or a saved reply filled for a contact.
#[derive(Clone, Copy, Debug)]
pub enum Scope {
    Campaign(Uuid),
    Reply(Uuid),
}

impl Scope {
    fn key(self) -> String {
        match self {
            Self::Campaign(id) => format!("campaign:{id}"),
            Self::Reply(id) => format!("reply:{id}"),
        }
    }
    fn operation(self) -> Option<Uuid> {
        match self {
            Self::Campaign(id) => Some(id),
            Self::Reply(_) => None,
        }
    }
}

/// `PUBLIC_URL/l/`: every short link starts with it.
pub fn prefix(public_url: &str) -> String {
    format!("{}{PATH}", public_url.trim_end_matches('/'))
}

/// A fresh code from the thread's CSPRNG.
fn new_code() -> String {
    let mut rng = rand::thread_rng();
    (0..CODE_LEN)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
        .collect()
}

/// Where a link goes: a `www.` link without its scheme goes over https.
fn target(link: &str) -> String {
    match link.get(..4) {
        Some(w) if w.eq_ignore_ascii_case("www.") => format!("https://{link}"),
        _ => link.to_owned(),
    }
}

fn url_hash(url: &str) -> String {
    Sha256::digest(url.as_bytes())[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `text` for `contact_id` with every link replaced by its short link (made now, or reused).
pub async fn shorten<C: ConnectionTrait>(
    db: &C,
    public_url: &str,
    org: Uuid,
    scope: Scope,
    contact_id: Uuid,
    text: &str,
    now: DateTime<Utc>,
) -> AppResult<String> {
    shorten_only(db, public_url, org, scope, contact_id, text, now, &|_| true).await
}

/// Like `shorten`, for the links `allowed` lets through; the others stay as written.
#[allow(clippy::too_many_arguments)]
pub async fn shorten_only<C: ConnectionTrait>(
    db: &C,
    public_url: &str,
    org: Uuid,
    scope: Scope,
    contact_id: Uuid,
    text: &str,
    now: DateTime<Utc>,
    allowed: &(dyn Fn(&str) -> bool + Sync),
) -> AppResult<String> {
    let found = model::find(text);
    if found.is_empty() {
        return Ok(text.to_owned());
    }
    let prefix = prefix(public_url);
    let mut codes = Vec::with_capacity(found.len());
    for r in &found {
        let link = &text[r.clone()];
        if !link.starts_with(&prefix) && allowed(link) {
            codes.push(code_for(db, org, scope, contact_id, &target(link), now).await?);
        }
    }
    let mut codes = codes.into_iter();
    Ok(model::replace(text, &prefix, |link| match allowed(link) {
        true => format!("{prefix}{}", codes.next().unwrap_or_default()),
        false => link.to_owned(),
    }))
}

/// The host a link names (`www.` links included), in lower case.
pub fn host_of(link: &str) -> Option<String> {
    let full = if link.to_ascii_lowercase().starts_with("www.") {
        format!("https://{link}")
    } else {
        link.to_owned()
    };
    reqwest::Url::parse(&full)
        .ok()?
        .host_str()
        .map(str::to_ascii_lowercase)
}

/// Whether `host` is one of `domains` or under one of them (`shop.example.com` under
/// `example.com`).
pub fn host_allowed(host: &str, domains: &[String]) -> bool {
    domains.iter().any(|d| {
        let d = d.trim().trim_start_matches("*.").to_ascii_lowercase();
        !d.is_empty() && (host == d || host.ends_with(&format!(".{d}")))
    })
}

/// The code of (scope, contact, url): the existing one, or a new one.
async fn code_for<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    scope: Scope,
    contact_id: Uuid,
    url: &str,
    now: DateTime<Utc>,
) -> AppResult<String> {
    let (key, hash) = (scope.key(), url_hash(url));
    let existing = || {
        tracked_link::Entity::find()
            .filter(tracked_link::Column::Scope.eq(key.as_str()))
            .filter(tracked_link::Column::ContactId.eq(contact_id))
            .filter(tracked_link::Column::UrlHash.eq(hash.as_str()))
            .one(db)
    };
    if let Some(row) = existing().await? {
        return Ok(row.code);
    }
    // Two instances may make the same link at once: the unique (scope, contact, hash) keeps
    // one, and both read it back. A code that collides (one in 2^59) is drawn again.
    for _ in 0..3 {
        let row = tracked_link::ActiveModel {
            id: Set(Uuid::new_v4()),
            organization_id: Set(org),
            code: Set(new_code()),
            scope: Set(key.clone()),
            operation_id: Set(scope.operation()),
            contact_id: Set(contact_id),
            url_hash: Set(hash.clone()),
            url: Set(url.to_owned()),
            clicks: Set(0),
            first_click_at: Set(None),
            last_click_at: Set(None),
            created_at: Set(now),
            funnel_rolled: Set(false),
        };
        let inserted = tracked_link::Entity::insert(row)
            .on_conflict(
                OnConflict::columns([
                    tracked_link::Column::Scope,
                    tracked_link::Column::ContactId,
                    tracked_link::Column::UrlHash,
                ])
                .do_nothing()
                .to_owned(),
            )
            .exec_without_returning(db)
            .await;
        match inserted {
            Ok(_) => {}
            Err(e) if crate::platform::db::is_unique_violation(&e) => continue,
            Err(e) => return Err(e.into()),
        }
        if let Some(row) = existing().await? {
            return Ok(row.code);
        }
    }
    Err(AppError::Internal("could not make a short link".into()))
}

/// A code's clicks count once a minute at most: a burst of requests (a script, a robot that
/// follows links) costs one write a minute, not one per request.
pub const CLICK_EVERY_SECS: i64 = 60;

/// Counts a click on `code` (unless `count` is false: a link preview, not a person, or it was
/// clicked in the last minute) and says where it goes; None for a code that is not one.
pub async fn click<C: ConnectionTrait>(
    db: &C,
    code: &str,
    count: bool,
    now: DateTime<Utc>,
) -> AppResult<Option<String>> {
    if code.len() != CODE_LEN || !code.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Ok(None);
    }
    let Some(row) = tracked_link::Entity::find()
        .filter(tracked_link::Column::Code.eq(code))
        .one(db)
        .await?
    else {
        return Ok(None);
    };
    let since = now - chrono::Duration::seconds(CLICK_EVERY_SECS);
    let recent = row.last_click_at.is_some_and(|at| at > since);
    if count && !recent {
        // Conditional too: of two instances counting at once, one counts.
        tracked_link::Entity::update_many()
            .col_expr(
                tracked_link::Column::Clicks,
                Expr::col(tracked_link::Column::Clicks).add(1),
            )
            .col_expr(tracked_link::Column::LastClickAt, Expr::value(Some(now)))
            .col_expr(
                tracked_link::Column::FirstClickAt,
                SimpleExpr::from(Func::coalesce([
                    Expr::col(tracked_link::Column::FirstClickAt),
                    Expr::value(Some(now)),
                ])),
            )
            .filter(tracked_link::Column::Id.eq(row.id))
            .filter(
                sea_orm::Condition::any()
                    .add(tracked_link::Column::LastClickAt.is_null())
                    .add(tracked_link::Column::LastClickAt.lte(since)),
            )
            .exec(db)
            .await?;
    }
    Ok(Some(row.url))
}

/// How many of a campaign's contacts clicked one of its links.
pub async fn clicked_contacts<C: ConnectionTrait>(db: &C, operation_id: Uuid) -> AppResult<i64> {
    let n: Option<i64> = tracked_link::Entity::find()
        .select_only()
        .column_as(
            SimpleExpr::from(Func::count_distinct(Expr::col(
                tracked_link::Column::ContactId,
            ))),
            "n",
        )
        .filter(tracked_link::Column::OperationId.eq(operation_id))
        .filter(tracked_link::Column::Clicks.gt(0))
        .into_tuple()
        .one(db)
        .await?;
    Ok(n.unwrap_or(0))
}

/// A contact's clicks on the links texted to them: how many, and the last one's time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clicks {
    pub clicks: i64,
    pub last_at: Option<DateTime<Utc>>,
}

/// Clicks of `contact_id`, on one campaign's links (`operation`) or on all of them.
pub async fn contact_clicks<C: ConnectionTrait>(
    db: &C,
    contact_id: Uuid,
    operation: Option<Uuid>,
) -> AppResult<Clicks> {
    let mut q = tracked_link::Entity::find()
        .select_only()
        .column_as(tracked_link::Column::Clicks.sum(), "n")
        .column_as(tracked_link::Column::LastClickAt.max(), "last")
        .filter(tracked_link::Column::ContactId.eq(contact_id))
        .filter(tracked_link::Column::Clicks.gt(0));
    if let Some(op) = operation {
        q = q.filter(tracked_link::Column::OperationId.eq(op));
    }
    let row: Option<(Option<i64>, Option<DateTime<Utc>>)> = q.into_tuple().one(db).await?;
    let (n, last_at) = row.unwrap_or_default();
    Ok(Clicks {
        clicks: n.unwrap_or(0),
        last_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_long_random_and_url_safe() {
        let (a, b) = (new_code(), new_code());
        assert_eq!(a.len(), CODE_LEN);
        assert!(a.bytes().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a, b);
    }

    #[test]
    fn a_www_link_goes_over_https() {
        assert_eq!(target("www.a.example/x"), "https://www.a.example/x");
        assert_eq!(target("WWW.a.example"), "https://WWW.a.example");
        assert_eq!(target("http://a.example"), "http://a.example");
        assert_eq!(prefix("https://h.example/"), "https://h.example/l/");
    }
}
