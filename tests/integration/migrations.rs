//! Every migration goes up, all the way down, and up again, on both databases.
use crate::helpers::*;
use crate::on_both_databases;
use migration::{Migrator, MigratorTrait};

async fn down_and_up_again(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let db = &app.state.db;
    let applied = Migrator::get_applied_migrations(db).await.unwrap().len();
    assert_eq!(applied, Migrator::migrations().len());
    Migrator::down(db, None)
        .await
        .expect("every down migration works");
    assert!(Migrator::get_applied_migrations(db)
        .await
        .unwrap()
        .is_empty());
    Migrator::up(db, None).await.expect("and up again");
    app.new_org("After Migrations").await;
}

on_both_databases!(down_and_up_again);
