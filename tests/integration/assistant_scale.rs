//! The Assistant's counts at a real business's size: 25,000 seeded contacts (past the 20,000 a
//! read once stopped at), and every count it gives (contacts, a tag, opt-outs, a quiet window)
//! equals the count SQL gives straight from the tables (tags as stored on the contact, texts in
//! the message table: other paths than the ones the tools read).
use crate::helpers::*;
use crate::on_both_databases;
use herald::contacts::entity::{contact, suppression};
use herald::messaging::entity as message;
use herald::server::seed_scale::{seed, seeded_phone, ScaleSpec};
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, Set};
use serde_json::{json, Value};

on_both_databases!(the_assistant_counts_what_sql_counts);

async fn ask(app: &TestApp, org: &Org, text: &str) -> String {
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/assistant/ask",
            json!({"text": text, "plan_mode": false}),
        )
        .await;
    app.settle().await;
    let view: Value = app.ok_as(&org.client, "/api/assistant", Value::Null).await;
    let last = view["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["kind"], "assistant", "{last}");
    last["detail"].as_str().unwrap_or("").to_owned()
}

/// The first whole number in an answer.
fn number_in(answer: &str) -> u64 {
    let digits: String = answer
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no count in {answer:?}"))
}

/// Contacts without an inbound text since `days` ago by the server's clock, counted from the
/// message table.
async fn quiet(app: &TestApp, org: uuid::Uuid, days: i64) -> u64 {
    let since = app.state.clock.now() - chrono::Duration::days(days);
    contact::Entity::find()
        .filter(contact::Column::OrganizationId.eq(org))
        .filter(
            contact::Column::Id.not_in_subquery(
                Query::select()
                    .column(message::Column::ContactId)
                    .from(message::Entity)
                    .and_where(Expr::col(message::Column::OrganizationId).eq(org))
                    .and_where(Expr::col(message::Column::Direction).eq("inbound"))
                    .and_where(Expr::col(message::Column::CreatedAt).gte(since))
                    .to_owned(),
            ),
        )
        .count(&app.state.db)
        .await
        .unwrap()
}

async fn the_assistant_counts_what_sql_counts(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Big Co").await;
    let number = app.add_number(&org, "+14155550100").await;
    let spec = ScaleSpec {
        contacts: 25_000,
        messages_each: 1,
        now: test_daytime(),
        unread_every: 0,
        vip_every: 10,
    };
    let db = &app.state.db;
    seed(db, org.org_id, number, &spec).await.unwrap();
    // Every 50th number opted out.
    let outs = (0..spec.contacts)
        .step_by(50)
        .map(|i| suppression::ActiveModel {
            id: Set(uuid::Uuid::new_v4()),
            organization_id: Set(org.org_id),
            phone: Set(seeded_phone(i)),
            source: Set("keyword".into()),
            reason: Set(None),
            message_id: Set(None),
            created_at: Set(test_daytime()),
            funnel_rolled: Set(false),
        });
    suppression::Entity::insert_many(outs)
        .exec(db)
        .await
        .unwrap();

    let all = contact::Entity::find()
        .filter(contact::Column::OrganizationId.eq(org.org_id))
        .count(db)
        .await
        .unwrap();
    let vip = contact::Entity::find()
        .filter(contact::Column::OrganizationId.eq(org.org_id))
        .filter(
            Expr::col(contact::Column::Tags)
                .cast_as("TEXT")
                .like("%\"vip\"%"),
        )
        .count(db)
        .await
        .unwrap();
    let opted = suppression::Entity::find()
        .filter(suppression::Column::OrganizationId.eq(org.org_id))
        .count(db)
        .await
        .unwrap();
    assert_eq!((all, vip, opted), (25_000, 2_500, 500), "the seed");

    let answer = ask(&app, &org, "How many contacts do we have?").await;
    assert_eq!(number_in(&answer), all, "{answer}");
    let answer = ask(&app, &org, "which contacts are tagged vip?").await;
    assert_eq!(number_in(&answer), vip, "{answer}");
    let answer = ask(&app, &org, "who has opted out?").await;
    assert_eq!(number_in(&answer), opted, "{answer}");
    for days in [14, 30] {
        let before = quiet(&app, org.org_id, days).await;
        let answer = ask(&app, &org, &format!("Who hasn't replied in {days} days?")).await;
        let after = quiet(&app, org.org_id, days).await;
        let n = number_in(&answer);
        assert!(
            (before..=after).contains(&n),
            "{answer} (SQL: {before} to {after})"
        );
        assert!(n > 10_000, "most of them: {n}");
    }
}
