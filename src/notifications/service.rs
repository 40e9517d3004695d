//! Adding, listing and reading notifications, scoped to one member of one organisation.
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::notifications::entity as notification;
use crate::notifications::model::{NotificationCursor, NotificationPage, NotificationView};
use crate::platform::db::is_unique_violation;
use crate::platform::AppState;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
use uuid::Uuid;

/// What to tell whom.
pub struct Notice {
    pub organization_id: Uuid,
    pub user_id: Uuid,
    pub kind: &'static str,
    pub title: String,
    pub body: String,
    pub link: Option<String>,
    /// When set, a second notice with the same key is the same notice (answers the first id).
    pub source_key: Option<String>,
    /// The agent that raised it (an escalation), for the reports.
    pub agent_id: Option<Uuid>,
}

/// Adds a notification for one member; with a `source_key`, at most once.
pub async fn notify(state: &AppState, n: Notice) -> AppResult<Uuid> {
    if let Some(key) = &n.source_key {
        if let Some(existing) = by_key(state, key).await? {
            return Ok(existing);
        }
    }
    let id = Uuid::new_v4();
    let copy = (n.title.clone(), n.body.clone(), n.link.clone());
    let res = notification::ActiveModel {
        id: Set(id),
        organization_id: Set(n.organization_id),
        user_id: Set(n.user_id),
        kind: Set(n.kind.into()),
        title: Set(n.title),
        body: Set(n.body),
        link: Set(n.link),
        read_at: Set(None),
        created_at: Set(state.clock.now()),
        source_key: Set(n.source_key.clone()),
        agent_id: Set(n.agent_id),
        rolled_up: Set(false),
    }
    .insert(&state.db)
    .await;
    match res {
        Ok(_) => {
            state.live.publish(
                n.organization_id,
                crate::live_event::LiveEvent::NotificationCreated { user_id: n.user_id },
            );
            email_copy(state, n.user_id, copy);
            Ok(id)
        }
        // A concurrent writer of the same notice won.
        Err(e) if is_unique_violation(&e) => match &n.source_key {
            Some(key) => by_key(state, key)
                .await?
                .ok_or_else(|| AppError::Internal("notification race lost".into())),
            None => Err(e.into()),
        },
        Err(e) => Err(e.into()),
    }
}

/// Emails a copy of a new notice to its person, when they chose that and email is set up; in
/// the background (a slow mail server holds up nothing), and a failure is only logged.
fn email_copy(
    state: &AppState,
    user_id: Uuid,
    (title, body, link): (String, String, Option<String>),
) {
    if state.mailer().is_none() {
        return;
    }
    let bg = state.clone();
    state.tasks.spawn(async move {
        let Some(mailer) = bg.mailer() else { return };
        let person = crate::auth::entity::user::Entity::find_by_id(user_id)
            .one(&bg.db)
            .await;
        let Ok(Some(person)) = person else { return };
        if !person.email_notifications {
            return;
        }
        let open = link
            .map(|l| format!("\n\n{}{l}", bg.config.public_url.trim_end_matches('/')))
            .unwrap_or_default();
        let text = format!(
            "{body}{open}\n\nYou get these emails because you turned them on under Your account in Herald."
        );
        if let Err(e) = mailer.send(&person.email, &title, text).await {
            tracing::warn!(error = %e, "a notification could not be emailed");
        }
    });
}

/// A notice that sums up what happened in a window (its `source_key` names the window): the
/// first call adds it, later ones rewrite its words and bring it back as unread, so a busy
/// quarter hour is one notification, not one per event.
pub async fn roll_up(state: &AppState, n: Notice) -> AppResult<Uuid> {
    let (title, body, link) = (n.title.clone(), n.body.clone(), n.link.clone());
    let (org, user) = (n.organization_id, n.user_id);
    let (title_now, body_now) = (title.clone(), body.clone());
    let id = notify(state, n).await?;
    let changed = notification::Entity::update_many()
        .col_expr(notification::Column::Title, Expr::value(title))
        .col_expr(notification::Column::Body, Expr::value(body))
        .col_expr(notification::Column::Link, Expr::value(link))
        .col_expr(
            notification::Column::ReadAt,
            Expr::value(Option::<chrono::DateTime<chrono::Utc>>::None),
        )
        .col_expr(
            notification::Column::CreatedAt,
            Expr::value(state.clock.now()),
        )
        .filter(notification::Column::Id.eq(id))
        .filter(notification::Column::OrganizationId.eq(org))
        // A re-run that says the same leaves it as it is (read, if it was read).
        .filter(
            sea_orm::Condition::any()
                .add(notification::Column::Title.ne(title_now.clone()))
                .add(notification::Column::Body.ne(body_now.clone())),
        )
        .exec(&state.db)
        .await?;
    if changed.rows_affected == 0 {
        return Ok(id);
    }
    state.live.publish(
        org,
        crate::live_event::LiveEvent::NotificationCreated { user_id: user },
    );
    Ok(id)
}

async fn by_key(state: &AppState, key: &str) -> AppResult<Option<Uuid>> {
    Ok(notification::Entity::find()
        .filter(notification::Column::SourceKey.eq(key))
        .one(&state.db)
        .await?
        .map(|n| n.id))
}

/// Marks the notices of `source_key` read for whoever they were for: what they asked is done.
/// A notice sent to each of several people carries the key and `/` and its person's id.
pub async fn resolve(state: &AppState, organization_id: Uuid, source_key: &str) -> AppResult<()> {
    let keys = sea_orm::Condition::any()
        .add(notification::Column::SourceKey.eq(source_key))
        .add(notification::Column::SourceKey.starts_with(format!("{source_key}/")));
    let open = notification::Entity::find()
        .filter(notification::Column::OrganizationId.eq(organization_id))
        .filter(keys)
        .filter(notification::Column::ReadAt.is_null())
        .all(&state.db)
        .await?;
    if open.is_empty() {
        return Ok(());
    }
    notification::Entity::update_many()
        .col_expr(
            notification::Column::ReadAt,
            Expr::value(Some(state.clock.now())),
        )
        .filter(notification::Column::Id.is_in(open.iter().map(|n| n.id)))
        .exec(&state.db)
        .await?;
    // The readers' counts and lists change as when a notice arrives.
    for n in open {
        state.live.publish(
            organization_id,
            crate::live_event::LiveEvent::NotificationCreated { user_id: n.user_id },
        );
    }
    Ok(())
}

/// The key of the notice of `source_key` sent to one of several people.
pub fn key_for(source_key: &str, user_id: Uuid) -> String {
    format!("{source_key}/{user_id}")
}

/// Notifications on one page.
pub const PAGE: u64 = 50;

/// One page of the member's notifications, newest first (after `after`), with the total.
pub async fn list(
    state: &AppState,
    member: &Member,
    after: Option<NotificationCursor>,
) -> AppResult<NotificationPage> {
    use crate::platform::keyset::newest_first;
    use sea_orm::PaginatorTrait;
    let mine = notification::Entity::find()
        .filter(notification::Column::OrganizationId.eq(member.organization_id))
        .filter(notification::Column::UserId.eq(member.user_id));
    let total = mine.clone().count(&state.db).await?;
    let order = (notification::Column::CreatedAt, notification::Column::Id);
    let after = after.map(|c| (c.created_at, c.id));
    let page = newest_first(&state.db, mine, order, after, PAGE).await?;
    let next = page.next(|n| NotificationCursor {
        created_at: n.created_at,
        id: n.id,
    });
    let items = page
        .rows
        .into_iter()
        .map(|n| NotificationView {
            id: n.id,
            kind: n.kind,
            title: n.title,
            body: n.body,
            link: n.link,
            read: n.read_at.is_some(),
            created_at: n.created_at,
        })
        .collect();
    Ok(NotificationPage { items, total, next })
}

pub async fn mark_read(state: &AppState, member: &Member, id: Uuid) -> AppResult<()> {
    let res = notification::Entity::update_many()
        .col_expr(
            notification::Column::ReadAt,
            Expr::value(Some(state.clock.now())),
        )
        .filter(notification::Column::Id.eq(id))
        .filter(notification::Column::UserId.eq(member.user_id))
        .filter(notification::Column::OrganizationId.eq(member.organization_id))
        .exec(&state.db)
        .await?;
    if res.rows_affected == 0 {
        return Err(AppError::not_found("Notification"));
    }
    Ok(())
}
