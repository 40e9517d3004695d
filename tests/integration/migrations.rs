//! Every migration goes up, all the way down, and up again, on both databases.
use crate::helpers::*;
use crate::on_both_databases;
use migration::{Migrator, MigratorTrait};

async fn down_and_up_again(backend: Backend) {
    // On a database no server runs on: a background pass (the reports' rollup, a sweep) reading
    // a table while it is dropped is a race of the test's making, not a migration's fault.
    let Some((url, _guard)) = fresh_database(backend).await else {
        return;
    };
    let db = herald::platform::db::connect_and_migrate(&url)
        .await
        .expect("every migration goes up");
    let applied = Migrator::get_applied_migrations(&db).await.unwrap().len();
    assert_eq!(applied, Migrator::migrations().len());
    Migrator::down(&db, None)
        .await
        .expect("every down migration works");
    assert!(Migrator::get_applied_migrations(&db)
        .await
        .unwrap()
        .is_empty());
    Migrator::up(&db, None).await.expect("and up again");
    db.close().await.unwrap();
    let app = spawn_app_with(
        backend,
        Options {
            database: Some(url),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    app.new_org("After Migrations").await;
}

on_both_databases!(down_and_up_again);

/// Migration 30 numbers the texts already stored in time order and builds each conversation's
/// row from them: the inbox reads the same after the upgrade as the messages say.
async fn conversations_are_built_from_stored_texts(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Upgrade Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let spec = herald::server::seed_scale::ScaleSpec {
        contacts: 30,
        messages_each: 4,
        now: test_daytime(),
        unread_every: 3,
        vip_every: 0,
    };
    herald::server::seed_scale::seed(&app.state.db, org.org_id, number, &spec)
        .await
        .unwrap();
    let before = app.inbox(&org.client).await;
    app.stop().await;
    // A connection of its own, as a deploy's migration step has: the stopped server's pool holds
    // connections opened on its background runtime, whose reactor may be going away with it.
    let db = &sea_orm::Database::connect(&app.db_url).await.unwrap();
    // Back to before migration 30, however many came after it.
    let since_30 = Migrator::migrations()
        .iter()
        .filter(|m| m.name() >= "m20261126_000030")
        .count() as u32;
    Migrator::down(db, Some(since_30))
        .await
        .expect("migrations 30 and later down");
    Migrator::up(db, None)
        .await
        .expect("and up, from the texts");
    // A second server on the upgraded database, as after a deploy.
    let upgraded = spawn_app_with(
        backend,
        Options {
            database: Some(app.db_url.clone()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let after = upgraded.inbox(&org.client).await;
    assert_eq!(before, after);
    assert_eq!(after.as_array().unwrap().len(), 30);
    assert_eq!(after[0]["last_body"], "Text 3 with contact 0");
    assert_eq!(
        after[0]["unread"], 1,
        "contact 0's last inbound text is unread"
    );
    assert_eq!(after[1]["unread"], 0);
    let conv: serde_json::Value = upgraded
        .ok_as(
            &org.client,
            "/api/conversations/get",
            serde_json::json!({"contact_id": after[0]["contact_id"]}),
        )
        .await;
    let bodies: Vec<&str> = conv["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["body"].as_str().unwrap())
        .collect();
    assert_eq!(
        bodies,
        (0..4)
            .map(|j| format!("Text {j} with contact 0"))
            .collect::<Vec<_>>()
    );
}

on_both_databases!(conversations_are_built_from_stored_texts);
