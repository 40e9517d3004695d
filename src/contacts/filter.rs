//! A `ContactFilter` as SQL, on both databases: tags through `contact_tag`, opt-outs through the
//! suppression list, recency through the per-conversation rows, custom fields through each
//! database's JSON functions. Every query this builds is scoped to one organisation and reads
//! indexes, never whole tables into memory; counts are `COUNT`s, pages are keysets.
use crate::contacts::consent::ConsentSource;
use crate::contacts::edits::clean_tag;
use crate::contacts::entity::contact;
use crate::contacts::model::{ContactFilter, FieldOp, FieldTest};
use crate::error::{AppError, AppResult};
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, Func, Query, SelectStatement, SimpleExpr};
use sea_orm::{ColumnTrait, Condition, DbBackend};
use uuid::Uuid;

/// Contacts a hand-picked list may name.
pub const IDS_MAX: usize = 500;
/// Tags one test may name.
const TAGS_MAX: usize = 50;

fn tag_members(org_id: Uuid, tags: &[String]) -> SelectStatement {
    Query::select()
        .column(Alias::new("contact_id"))
        .from(Alias::new("contact_tag"))
        .and_where(Expr::col(Alias::new("organization_id")).eq(org_id))
        .and_where(Expr::col(Alias::new("tag")).is_in(tags.iter().cloned()))
        .to_owned()
}

/// Contacts whose conversation's `column` (last_inbound_at or last_outbound_at) is since `at`: a
/// range of the `(organization_id, column)` index, for a filter that has nothing narrower.
fn recent(org_id: Uuid, column: &str, at: DateTime<Utc>) -> SelectStatement {
    Query::select()
        .column(Alias::new("contact_id"))
        .from(Alias::new("conversation"))
        .and_where(Expr::col(Alias::new("organization_id")).eq(org_id))
        .and_where(Expr::col(Alias::new(column)).gte(at))
        .to_owned()
}

/// The same test for one contact (correlated): a probe of the conversation's primary key. Used
/// under `NOT EXISTS`, and under `EXISTS` when tags or ids already narrow the contacts, so that
/// neither database builds the set of every recent conversation to test a few thousand against.
fn recent_for_contact(column: &str, at: DateTime<Utc>) -> SelectStatement {
    let cv = Alias::new("cv");
    Query::select()
        .expr(Expr::val(1))
        .from_as(Alias::new("conversation"), cv.clone())
        .and_where(
            Expr::col((cv.clone(), Alias::new("contact_id")))
                .equals((contact::Entity, contact::Column::Id)),
        )
        .and_where(Expr::col((cv, Alias::new(column))).gte(at))
        .to_owned()
}

/// Whether the contact carries one of `tags` (correlated): a probe of `contact_tag`'s primary key.
fn tagged(tags: &[String]) -> SelectStatement {
    let ct = Alias::new("ct");
    Query::select()
        .expr(Expr::val(1))
        .from_as(Alias::new("contact_tag"), ct.clone())
        .and_where(
            Expr::col((ct.clone(), Alias::new("contact_id")))
                .equals((contact::Entity, contact::Column::Id)),
        )
        .and_where(Expr::col((ct, Alias::new("tag"))).is_in(tags.iter().cloned()))
        .to_owned()
}

fn suppressed() -> SelectStatement {
    Query::select()
        .expr(Expr::val(1))
        .from(Alias::new("suppression"))
        .and_where(
            Expr::col((Alias::new("suppression"), Alias::new("organization_id")))
                .equals((contact::Entity, contact::Column::OrganizationId)),
        )
        .and_where(
            Expr::col((Alias::new("suppression"), Alias::new("phone")))
                .equals((contact::Entity, contact::Column::Phone)),
        )
        .to_owned()
}

fn tags(list: &[String], what: &str) -> AppResult<Vec<String>> {
    if list.len() > TAGS_MAX {
        return Err(AppError::validation(format!(
            "{what}: at most {TAGS_MAX} tags."
        )));
    }
    Ok(list
        .iter()
        .map(|t| clean_tag(t))
        .filter(|t| !t.is_empty())
        .collect())
}

fn days(n: Option<u32>, what: &str) -> AppResult<Option<i64>> {
    match n {
        None => Ok(None),
        Some(d) if (1..=3650).contains(&d) => Ok(Some(d as i64)),
        Some(_) => Err(AppError::validation(format!(
            "{what} must be 1 to 3650 days."
        ))),
    }
}

/// A custom field's value as lower-case text, in this database's JSON dialect. The name is
/// checked first: letters, digits, spaces, `_` and `-` only, so it can stand in a JSON path.
fn field_text(backend: DbBackend, field: &str) -> AppResult<SimpleExpr> {
    let ok = !field.is_empty()
        && field.chars().count() <= 64
        && field
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-'));
    if !ok {
        return Err(AppError::validation(format!(
            "\"{field}\" is not a custom field name (letters, digits, spaces, _ and -)."
        )));
    }
    let raw = match backend {
        DbBackend::Postgres => format!("(contact.custom_fields::jsonb ->> '{field}')"),
        _ => format!("json_extract(contact.custom_fields, '$.\"{field}\"')"),
    };
    Ok(Func::lower(Expr::cust(raw)).into())
}

fn field_test(backend: DbBackend, t: &FieldTest) -> AppResult<SimpleExpr> {
    let value = field_text(backend, t.field.trim())?;
    let v = t.value.trim().to_lowercase();
    Ok(match t.op {
        FieldOp::Present => value.clone().is_not_null().and(value.ne("")),
        FieldOp::Equals => value.eq(v),
        FieldOp::Contains => {
            let term = v.replace(['%', '_'], "");
            value.like(format!("%{term}%"))
        }
    })
}

fn search(org_id: Uuid, q: &str) -> Option<Condition> {
    let q = q.trim().to_lowercase();
    if q.is_empty() {
        return None;
    }
    let term = q.replace(['%', '_'], "");
    let like = format!("%{term}%");
    let lower = |c: contact::Column| Expr::expr(Func::lower(Expr::col((contact::Entity, c))));
    let mut any = Condition::any()
        .add(lower(contact::Column::Name).like(like.clone()))
        .add(lower(contact::Column::Email).like(like))
        .add(contact::Column::Id.in_subquery(tag_members(org_id, &[term])));
    let digits: String = q.chars().filter(|c| c.is_ascii_digit()).collect();
    if !digits.is_empty() {
        any = any.add(contact::Column::Phone.contains(digits));
    }
    Some(any)
}

/// The filter as a condition on `contact`, within `org_id`, at `now`.
pub fn condition(
    f: &ContactFilter,
    org_id: Uuid,
    backend: DbBackend,
    now: DateTime<Utc>,
) -> AppResult<Condition> {
    condition_with(f, org_id, backend, now, false)
}

/// The same condition with every tag and recency test a probe of the contact's own rows, for
/// a page in name order when matches are common: the name index drives and the read stops at
/// the page, instead of gathering every contact a tag carries and sorting them.
pub fn condition_in_name_order(
    f: &ContactFilter,
    org_id: Uuid,
    backend: DbBackend,
    now: DateTime<Utc>,
) -> AppResult<Condition> {
    condition_with(f, org_id, backend, now, true)
}

fn condition_with(
    f: &ContactFilter,
    org_id: Uuid,
    backend: DbBackend,
    now: DateTime<Utc>,
    probes: bool,
) -> AppResult<Condition> {
    let mut all = Condition::all().add(contact::Column::OrganizationId.eq(org_id));
    if let Some(s) = f.search.as_deref().and_then(|q| search(org_id, q)) {
        all = all.add(s);
    }
    // One tag test drives (the contacts carrying it, from the tag index); the others are probes
    // of each of those contacts' own tags.
    let any = tags(&f.tags_any, "tags_any")?;
    let mut narrowed = f.ids.is_some() || probes;
    if !any.is_empty() {
        all = all.add(if probes {
            Expr::exists(tagged(&any))
        } else {
            contact::Column::Id.in_subquery(tag_members(org_id, &any))
        });
        narrowed = true;
    }
    for t in tags(&f.tags_all, "tags_all")? {
        all = all.add(if narrowed {
            Expr::exists(tagged(&[t]))
        } else {
            contact::Column::Id.in_subquery(tag_members(org_id, &[t]))
        });
        narrowed = true;
    }
    let none = tags(&f.tags_none, "tags_none")?;
    if !none.is_empty() {
        all = all.add(Expr::exists(tagged(&none)).not());
    }
    match f.opted_out {
        Some(true) => all = all.add(Expr::exists(suppressed())),
        Some(false) => all = all.add(Expr::exists(suppressed()).not()),
        None => {}
    }
    if let Some(m) = f.marketing_consent {
        let written: Vec<&str> = [ConsentSource::WebForm, ConsentSource::Imported]
            .into_iter()
            .filter(|c| c.allows_marketing())
            .map(|c| c.as_str())
            .collect();
        let c = contact::Column::ConsentSource;
        all = all.add(if m {
            c.is_in(written)
        } else {
            c.is_not_in(written)
        });
    }
    let since = |d: i64| now - Duration::days(d);
    let recency = [
        (
            f.replied_within_days,
            "replied_within_days",
            "last_inbound_at",
            true,
        ),
        (
            f.no_reply_within_days,
            "no_reply_within_days",
            "last_inbound_at",
            false,
        ),
        (
            f.texted_within_days,
            "texted_within_days",
            "last_outbound_at",
            true,
        ),
        (
            f.not_texted_within_days,
            "not_texted_within_days",
            "last_outbound_at",
            false,
        ),
    ];
    for (n, what, column, within) in recency {
        if let Some(d) = days(n, what)? {
            let at = since(d);
            all = all.add(match (within, narrowed) {
                (true, false) => contact::Column::Id.in_subquery(recent(org_id, column, at)),
                (true, true) => Expr::exists(recent_for_contact(column, at)),
                (false, _) => Expr::exists(recent_for_contact(column, at)).not(),
            });
            narrowed |= within;
        }
    }
    for t in &f.fields {
        all = all.add(field_test(backend, t)?);
    }
    if let Some(at) = f.created_after {
        all = all.add(contact::Column::CreatedAt.gte(at));
    }
    if let Some(at) = f.created_before {
        all = all.add(contact::Column::CreatedAt.lt(at));
    }
    if let Some(ids) = &f.ids {
        if ids.len() > IDS_MAX {
            return Err(AppError::validation(format!(
                "A hand-picked list holds at most {IDS_MAX} contacts; use a filter for more."
            )));
        }
        all = all.add(contact::Column::Id.is_in(ids.iter().copied()));
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::{EntityTrait, QueryFilter, QueryTrait};

    fn sql(f: &ContactFilter, backend: DbBackend) -> String {
        let c = condition(f, Uuid::nil(), backend, DateTime::UNIX_EPOCH).unwrap();
        contact::Entity::find().filter(c).build(backend).to_string()
    }

    #[test]
    fn in_name_order_every_set_test_is_a_probe() {
        let f = ContactFilter {
            tags_any: vec!["vip".into()],
            replied_within_days: Some(7),
            ..Default::default()
        };
        let c = condition_in_name_order(&f, Uuid::nil(), DbBackend::Sqlite, DateTime::UNIX_EPOCH);
        let probes = contact::Entity::find()
            .filter(c.unwrap())
            .build(DbBackend::Sqlite)
            .to_string();
        assert!(!probes.contains(" IN (SELECT"), "{probes}");
        assert_eq!(probes.matches("EXISTS").count(), 2, "{probes}");
        assert!(sql(&f, DbBackend::Sqlite).contains("\"id\" IN (SELECT"));
    }

    #[test]
    fn every_test_becomes_sql_on_both_databases() {
        let f = ContactFilter {
            search: Some("ada".into()),
            tags_any: vec!["VIP ".into()],
            tags_all: vec!["a".into(), "b".into()],
            tags_none: vec!["x".into()],
            opted_out: Some(false),
            marketing_consent: Some(true),
            replied_within_days: Some(7),
            no_reply_within_days: Some(30),
            fields: vec![FieldTest {
                field: "plan".into(),
                op: FieldOp::Equals,
                value: "Gold".into(),
            }],
            ..Default::default()
        };
        for backend in [DbBackend::Sqlite, DbBackend::Postgres] {
            let s = sql(&f, backend);
            assert!(s.contains("contact_tag") && s.contains("'vip'"), "{s}");
            assert!(s.contains("NOT EXISTS") || s.contains("NOT (EXISTS"), "{s}");
            assert!(s.contains("last_inbound_at"), "{s}");
            assert!(s.contains("'gold'"), "{s}");
        }
        assert!(sql(&f, DbBackend::Postgres).contains("->> 'plan'"));
        assert!(sql(&f, DbBackend::Sqlite).contains("json_extract"));
    }

    #[test]
    fn bad_input_is_refused_with_a_reason() {
        let bad_field = ContactFilter {
            fields: vec![FieldTest {
                field: "x' OR 1=1 --".into(),
                op: FieldOp::Present,
                value: String::new(),
            }],
            ..Default::default()
        };
        let too_many = ContactFilter {
            ids: Some(vec![Uuid::nil(); IDS_MAX + 1]),
            ..Default::default()
        };
        let bad_days = ContactFilter {
            replied_within_days: Some(0),
            ..Default::default()
        };
        for f in [bad_field, too_many, bad_days] {
            let e = condition(&f, Uuid::nil(), DbBackend::Sqlite, Utc::now()).unwrap_err();
            assert!(matches!(e, AppError::Validation(_)), "{e:?}");
        }
    }
}
