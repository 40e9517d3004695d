//! A suggest-mode agent answering many people in one quarter hour sends its owner one
//! notification that counts the conversations, not one per text; the first text's notice still
//! names the person and links to the conversation.
use crate::agent_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::notifications::entity as notification;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

on_both_databases!(drafts_roll_up_per_agent_per_quarter_hour);

async fn drafts(s: &Setup) -> Vec<notification::Model> {
    notification::Entity::find()
        .filter(notification::Column::Kind.eq("drafts"))
        .filter(notification::Column::OrganizationId.eq(s.org.org_id))
        .all(&s.app.state.db)
        .await
        .unwrap()
}

async fn drafts_roll_up_per_agent_per_quarter_hour(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    text_in(
        &s,
        "SMrollup000000000000000000000000",
        "+14155552700",
        "+14155550100",
        "Are you open on Saturday?",
    )
    .await;
    let first = drafts(&s).await;
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(first[0].title.contains("replies for"), "{}", first[0].title);
    assert!(first[0].link.as_deref().unwrap().starts_with("/messaging/"));
    for i in 1..5 {
        text_in(
            &s,
            &format!("SMrollup{i:024}"),
            &format!("+1415555{:04}", 2700 + i),
            "+14155550100",
            "Are you open on Saturday?",
        )
        .await;
    }
    let all = drafts(&s).await;
    assert_eq!(
        all.len(),
        1,
        "one notification for the quarter hour: {all:?}"
    );
    assert!(
        all[0]
            .title
            .ends_with("drafted replies for 5 conversations"),
        "{}",
        all[0].title
    );
    assert_eq!(all[0].link.as_deref(), Some("/messaging"));
    assert!(all[0].read_at.is_none());
    let counts: serde_json::Value = s
        .app
        .ok_as(&s.org.client, "/api/attention", serde_json::Value::Null)
        .await;
    assert_eq!(counts["unread_notifications"], 1, "{counts}");
}
