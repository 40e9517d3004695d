//! Saved replies: saving (a name unique per organisation, a text whose merge fields are known),
//! the picker's pages, deleting (its creator or an owner), and filling one in for a contact from
//! the member who will send it.
use crate::auth::entity::{organization, user};
use crate::auth::model::Role;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::messaging::merge::{check, render, MergeValues};
use crate::messaging::model::MAX_SMS_CHARS;
use crate::platform::AppState;
use crate::saved_replies::entity as saved_reply;
use crate::saved_replies::model::{
    SavedReplyInput, SavedReplyPage, SavedReplyView, SAVED_REPLY_NAME_MAX, SAVED_REPLY_PAGE,
};
use sea_orm::sea_query::LikeExpr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};
use uuid::Uuid;

fn key(name: &str) -> String {
    name.trim().to_lowercase()
}

fn to_view(r: saved_reply::Model) -> SavedReplyView {
    SavedReplyView {
        id: r.id,
        name: r.name,
        body: r.body,
    }
}

fn taken(name: &str) -> AppError {
    AppError::Conflict(format!("There is a saved reply called \"{name}\" already."))
}

/// One page of the organisation's saved replies whose name starts with `query`, in name order.
pub async fn list<C: ConnectionTrait>(
    db: &C,
    org: Uuid,
    query: &str,
    after: Option<String>,
) -> AppResult<SavedReplyPage> {
    let prefix: String = key(query)
        .chars()
        .flat_map(|c| match c {
            '%' | '_' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    let q = saved_reply::Entity::find()
        .filter(saved_reply::Column::OrganizationId.eq(org))
        .filter(
            saved_reply::Column::NameKey.like(LikeExpr::new(format!("{prefix}%")).escape('\\')),
        );
    let total = q.clone().count(db).await?;
    let mut page = q;
    if let Some(after) = after {
        page = page.filter(saved_reply::Column::NameKey.gt(after));
    }
    let mut rows = page
        .order_by_asc(saved_reply::Column::NameKey)
        .limit(SAVED_REPLY_PAGE + 1)
        .all(db)
        .await?;
    let more = rows.len() as u64 > SAVED_REPLY_PAGE;
    rows.truncate(SAVED_REPLY_PAGE as usize);
    let next = more
        .then(|| rows.last().map(|r| r.name_key.clone()))
        .flatten();
    Ok(SavedReplyPage {
        items: rows.into_iter().map(to_view).collect(),
        total,
        next,
    })
}

/// A name of 1 to 80 characters and a text of 1 to 1,600 whose merge fields are known.
fn clean(input: &SavedReplyInput) -> AppResult<(String, String)> {
    let name = input.name.trim();
    if name.is_empty() || name.chars().count() > SAVED_REPLY_NAME_MAX {
        return Err(AppError::validation(format!(
            "A saved reply's name is 1 to {SAVED_REPLY_NAME_MAX} characters."
        )));
    }
    let body = input.body.trim();
    if body.is_empty() || body.chars().count() > MAX_SMS_CHARS {
        return Err(AppError::validation(format!(
            "A saved reply's text is 1 to {MAX_SMS_CHARS} characters."
        )));
    }
    check(body).map_err(|e| AppError::Validation(e.to_string()))?;
    Ok((name.to_owned(), body.to_owned()))
}

async fn find(state: &AppState, org: Uuid, id: Uuid) -> AppResult<saved_reply::Model> {
    saved_reply::Entity::find_by_id(id)
        .filter(saved_reply::Column::OrganizationId.eq(org))
        .one(&state.db)
        .await?
        .ok_or_else(|| AppError::not_found("Saved reply"))
}

/// Adds a saved reply (any member), or changes one (any member: the team's replies are shared).
pub async fn save(
    state: &AppState,
    m: &Member,
    id: Option<Uuid>,
    input: &SavedReplyInput,
) -> AppResult<SavedReplyView> {
    let (name, body) = clean(input)?;
    let now = state.clock.now();
    let row = match id {
        Some(id) => {
            let mut am: saved_reply::ActiveModel = find(state, m.organization_id, id).await?.into();
            am.name = Set(name.clone());
            am.name_key = Set(key(&name));
            am.body = Set(body);
            am.updated_at = Set(now);
            am.links_by_owner = Set(m.role == Role::Owner);
            am.update(&state.db).await
        }
        None => {
            let kept = saved_reply::Entity::find()
                .filter(saved_reply::Column::OrganizationId.eq(m.organization_id))
                .count(&state.db)
                .await?;
            let limit = state.config.limits.saved_replies;
            if kept >= limit {
                return Err(AppError::Validation(format!(
                    "An organisation keeps at most {limit} saved replies: delete one first."
                )));
            }
            saved_reply::ActiveModel {
                id: Set(Uuid::new_v4()),
                organization_id: Set(m.organization_id),
                name: Set(name.clone()),
                name_key: Set(key(&name)),
                body: Set(body),
                created_by: Set(Some(m.user_id)),
                created_at: Set(now),
                updated_at: Set(now),
                links_by_owner: Set(m.role == Role::Owner),
            }
            .insert(&state.db)
            .await
        }
    }
    .map_err(|e| {
        if crate::platform::db::is_unique_violation(&e) {
            taken(&name)
        } else {
            e.into()
        }
    })?;
    tracing::info!(saved_reply = %row.id, "saved reply saved");
    Ok(to_view(row))
}

/// Deletes a saved reply: its creator or an owner may.
pub async fn delete(state: &AppState, m: &Member, id: Uuid) -> AppResult<()> {
    let row = find(state, m.organization_id, id).await?;
    if m.role != Role::Owner && row.created_by != Some(m.user_id) {
        return Err(AppError::NotPermitted(
            "Only its creator or an owner can delete a saved reply.".into(),
        ));
    }
    saved_reply::Entity::delete_by_id(id)
        .exec(&state.db)
        .await?;
    Ok(())
}

/// What fills the merge fields for `contact_id` when `m` sends.
pub async fn values(state: &AppState, m: &Member, contact_id: Uuid) -> AppResult<MergeValues> {
    let c = crate::contacts::service::find_in_org(&state.db, m.organization_id, contact_id).await?;
    let custom = MergeValues::custom_fields(&c.custom_fields);
    let org_name = organization::Entity::find_by_id(m.organization_id)
        .one(&state.db)
        .await?
        .map(|o| o.name)
        .unwrap_or_default();
    let me_name = user::Entity::find_by_id(m.user_id)
        .one(&state.db)
        .await?
        .map(|u| u.name)
        .unwrap_or_default();
    Ok(MergeValues {
        contact_name: c.name,
        custom,
        org_name,
        me_name,
    })
}

/// The saved reply's text for the contact, every field filled (a field nothing fills is refused)
/// and its links shortened.
pub async fn fill(state: &AppState, m: &Member, id: Uuid, contact_id: Uuid) -> AppResult<String> {
    let row = find(state, m.organization_id, id).await?;
    let values = values(state, m, contact_id).await?;
    let text = render(&row.body, &values).map_err(|e| AppError::Validation(e.to_string()))?;
    // Its links become this contact's tracked short links (the same ones each time it is used),
    // when an owner wrote the reply or the link's domain is on the organisation's list: a member
    // cannot hide where a link goes behind the business's own short address (issue 49 §9).
    let domains = short_link_domains(state, m.organization_id).await?;
    let by_owner = row.links_by_owner;
    let allowed = move |link: &str| {
        by_owner
            || crate::links::service::host_of(link)
                .is_some_and(|h| crate::links::service::host_allowed(&h, &domains))
    };
    crate::links::service::shorten_only(
        &state.db,
        &state.config.public_url,
        m.organization_id,
        crate::links::service::Scope::Reply(row.id),
        contact_id,
        &text,
        state.clock.now(),
        &allowed,
    )
    .await
}

/// The domains a member's saved reply may shorten: the organisation's list, one per line.
pub async fn short_link_domains(state: &AppState, org: Uuid) -> AppResult<Vec<String>> {
    let listed: Option<Option<String>> = organization::Entity::find_by_id(org)
        .select_only()
        .column(organization::Column::ShortLinkDomains)
        .into_tuple()
        .one(&state.db)
        .await?;
    Ok(listed
        .flatten()
        .unwrap_or_default()
        .split(['\n', ','])
        .map(|d| d.trim().to_ascii_lowercase())
        .filter(|d| !d.is_empty())
        .collect())
}

/// The saved replies a new organisation starts with (issue 51 §6): the answers a front desk
/// gives every day, each with merge fields that fill from the contact, editable like any other.
pub const STARTERS: [(&str, &str); 5] = [
    (
        "Thanks",
        "Thanks, {{contact.first_name|there}}! We've got your message and will reply shortly. — {{org.name}}",
    ),
    (
        "Confirm appointment",
        "Hi {{contact.first_name|there}}, you're all set. Reply here if you need to change the time.",
    ),
    (
        "Running late",
        "Hi {{contact.first_name|there}}, thanks for letting us know. We'll hold your spot for 15 minutes.",
    ),
    (
        "Opening hours",
        "Hi {{contact.first_name|there}}, we're open Monday to Friday, 9 to 5. Text us any time and we'll reply when we're in.",
    ),
    (
        "Call me",
        "Hi {{contact.first_name|there}}, this is {{me.name}} at {{org.name}}. When is a good time to call you?",
    ),
];

/// Writes the starter replies for a new organisation, in the caller's transaction.
pub async fn insert_starters<C: ConnectionTrait>(
    txn: &C,
    org_id: Uuid,
    owner_id: Uuid,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<()> {
    let rows = STARTERS
        .iter()
        .map(|(name, body)| saved_reply::ActiveModel {
            id: Set(Uuid::new_v4()),
            organization_id: Set(org_id),
            name: Set((*name).to_owned()),
            name_key: Set(key(name)),
            body: Set((*body).to_owned()),
            created_by: Set(Some(owner_id)),
            created_at: Set(now),
            updated_at: Set(now),
            links_by_owner: Set(true),
        });
    saved_reply::Entity::insert_many(rows).exec(txn).await?;
    Ok(())
}

#[cfg(test)]
mod starter_tests {
    use crate::saved_replies::model::SavedReplyInput;

    #[test]
    fn every_starter_is_a_saved_reply_the_form_would_take() {
        for (name, body) in super::STARTERS {
            let input = SavedReplyInput {
                name: name.into(),
                body: body.into(),
            };
            super::clean(&input).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
