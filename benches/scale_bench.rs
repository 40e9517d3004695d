//! The scale benchmark (issue 27): organisations of 1,000, 10,000 and 100,000 contacts with 10
//! texts each, on SQLite or PostgreSQL, and the reads a person makes timed at each size: the
//! inbox's first and next page, the contacts list's first page and a filtered one, a segment's
//! count, the navigation's counts, a conversation, a text search and the plans page; then a tag
//! plan and a campaign plan over a fifth of the contacts (`scale_plans.rs`). Each read's p50 and p95
//! print beside the goal (p95 ≤ 100 ms) and, in the same run, beside the old way to read the
//! same thing (grouping the message table), with the growth from the smallest size.
//!
//! `cargo run --release --features server --bin scale_bench -- [--sizes 1000,10000,100000] [--runs 30] [--postgres] [--analyze]`
#[path = "common.rs"]
mod common;
#[path = "scale_plans.rs"]
mod scale_plans;

use common::*;
use herald::auth::session::Member;
use herald::contacts::list;
use herald::contacts::model::ContactFilter;
use herald::inbox::list as conversation;
use herald::messaging::entity as message;
use herald::messaging::model::InboxFilter;
use herald::server::seed_scale::{seed, ScaleSpec};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const GOAL: Duration = Duration::from_millis(100);

/// A read's name, its p50 and p95, and the old way's p50 and p95 where there was one.
type Row = (
    &'static str,
    (Duration, Duration),
    Option<(Duration, Duration)>,
);

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    let postgres = std::env::args().any(|a| a == "--postgres");
    let sizes: Vec<usize> = arg("--sizes", "1000,10000,100000".to_string())
        .split(',')
        .map(|s| s.trim().parse().expect("--sizes takes numbers"))
        .collect();
    let runs: usize = arg("--runs", 30);
    let db_name = if postgres { "PostgreSQL" } else { "SQLite" };
    println!("scale_bench on {db_name}: {runs} runs a read; goal p95 ≤ 100 ms at every size");
    // read → size → p95, for the growth column.
    let mut p95s: BTreeMap<&'static str, Vec<(usize, Duration)>> = BTreeMap::new();
    for &n in &sizes {
        let (_, state, org) = start_herald(postgres, &["+14155550100"]).await;
        let number = herald::phone_numbers::service::list(&state, org)
            .await
            .unwrap()[0]
            .id;
        let spec = ScaleSpec {
            contacts: n,
            messages_each: 10,
            now: daytime(),
            unread_every: 7,
            vip_every: 10,
        };
        let start = Instant::now();
        let ids = seed(&state.db, org, number, &spec).await.unwrap();
        println!(
            "\n{n} contacts, {} messages: seeded in {:.1} s",
            n * 10,
            start.elapsed().as_secs_f64()
        );
        // A database in service has statistics (PostgreSQL's autovacuum, SQLite's ANALYZE):
        // with --analyze they are gathered after the bulk load, as they would be by then.
        if flag("--analyze") {
            use sea_orm::ConnectionTrait;
            // PostgreSQL: the seed writes each conversation's row ten times within a minute
            // (its trigger runs per message), leaving nine dead versions of every row: 176 MB
            // for 100,000 rows that fill 18 MB. In service, autovacuum reclaims each version as
            // it dies and new ones reuse the space; the bench compacts the table once instead.
            let sql = if postgres {
                "VACUUM FULL conversation; VACUUM ANALYZE"
            } else {
                "ANALYZE"
            };
            for statement in sql.split("; ") {
                state.db.execute_unprepared(statement).await.unwrap();
            }
            println!("statistics gathered ({sql})");
        }
        let owner = herald::auth::entity::membership::Entity::find()
            .filter(herald::auth::entity::membership::Column::OrganizationId.eq(org))
            .one(&state.db)
            .await
            .unwrap()
            .unwrap();
        let member = Member {
            user_id: owner.user_id,
            organization_id: org,
            role: herald::auth::model::Role::Owner,
        };
        let db = &state.db;
        let now = state.clock.now();
        let viewer = herald::inbox::views::Viewer {
            organization_id: org,
            user_id: owner.user_id,
            now,
            number: None,
        };
        let viewer = &viewer;
        let first = conversation::inbox(db, viewer, InboxFilter::All, None)
            .await
            .unwrap();
        let segment = ContactFilter {
            tags_any: vec!["vip".into()],
            opted_out: Some(false),
            replied_within_days: Some(30),
            ..Default::default()
        };
        let quiet_vips = ContactFilter {
            tags_any: vec!["vip".into()],
            no_reply_within_days: Some(30),
            ..Default::default()
        };
        let mut rows: Vec<Row> = vec![];
        let inbox = percentiles(runs, || async {
            conversation::inbox(db, viewer, InboxFilter::All, None)
                .await
                .unwrap();
        })
        .await;
        // The old inbox: the message table grouped per contact on every call.
        let old_inbox = percentiles(runs.min(5), || async {
            let _: Vec<(uuid::Uuid, chrono::DateTime<chrono::Utc>)> = message::Entity::find()
                .select_only()
                .column(message::Column::ContactId)
                .column_as(message::Column::CreatedAt.max(), "last_at")
                .filter(message::Column::OrganizationId.eq(org))
                .group_by(message::Column::ContactId)
                .order_by_desc(Expr::col("last_at"))
                .limit(200)
                .into_tuple()
                .all(db)
                .await
                .unwrap();
        })
        .await;
        rows.push(("inbox, first page", inbox, Some(old_inbox)));
        let next = first.next.clone();
        rows.push((
            "inbox, next page",
            percentiles(runs, || async {
                conversation::inbox(db, viewer, InboxFilter::All, next.clone())
                    .await
                    .unwrap();
            })
            .await,
            None,
        ));
        rows.push((
            "inbox, unread view",
            percentiles(runs, || async {
                conversation::inbox(db, viewer, InboxFilter::Unread, None)
                    .await
                    .unwrap();
            })
            .await,
            None,
        ));
        rows.push((
            "inbox, open view",
            percentiles(runs, || async {
                conversation::inbox(db, viewer, InboxFilter::Open, None)
                    .await
                    .unwrap();
            })
            .await,
            None,
        ));
        rows.push((
            "inbox view counts (7 views)",
            percentiles(runs, || async {
                herald::inbox::views::counts(db, viewer).await.unwrap();
            })
            .await,
            None,
        ));
        rows.push((
            "contacts, first page",
            percentiles(runs, || async {
                list::page(db, org, &ContactFilter::default(), now, None)
                    .await
                    .unwrap();
            })
            .await,
            None,
        ));
        let quiet = percentiles(runs, || async {
            list::page(db, org, &quiet_vips, now, None).await.unwrap();
        })
        .await;
        // The way before: the count first, then the page its plan was chosen by.
        let old_quiet = percentiles(runs, || async {
            let total = list::count(db, org, &quiet_vips, now).await.unwrap();
            let backend = db.get_database_backend();
            let cond = if total >= list::COMMON {
                herald::contacts::filter::condition_in_name_order(&quiet_vips, org, backend, now)
            } else {
                herald::contacts::filter::condition(&quiet_vips, org, backend, now)
            };
            let (page, _) = list::rows_where(db, cond.unwrap(), None, list::PAGE)
                .await
                .unwrap();
            let ids: Vec<_> = page.iter().map(|c| c.id).collect();
            herald::contacts::opt_out::sms_opt_outs(db, &ids)
                .await
                .unwrap();
        })
        .await;
        rows.push(("contacts, vip and quiet 30 days", quiet, Some(old_quiet)));
        rows.push((
            "segment count (vip, subscribed, replied in 30 days)",
            percentiles(runs, || async {
                list::count(db, org, &segment, now).await.unwrap();
            })
            .await,
            None,
        ));
        let counts = percentiles(runs, || async {
            herald::attention::service::counts(&state, &member)
                .await
                .unwrap();
        })
        .await;
        // The old count: distinct contacts with an unread inbound text, from the message table.
        let old_counts = percentiles(runs.min(5), || async {
            message::Entity::find()
                .select_only()
                .column(message::Column::ContactId)
                .distinct()
                .filter(message::Column::OrganizationId.eq(org))
                .filter(message::Column::Direction.eq("inbound"))
                .filter(message::Column::ReadAt.is_null())
                .count(db)
                .await
                .unwrap();
        })
        .await;
        rows.push(("attention counts", counts, Some(old_counts)));
        let contact = ids[n / 2];
        rows.push((
            "a conversation",
            percentiles(runs, || async {
                herald::messaging::conversation::history(db, org, contact, None)
                    .await
                    .unwrap();
            })
            .await,
            None,
        ));
        rows.push((
            "search texts (\"contact 12\"), first page",
            percentiles(runs, || async {
                herald::messaging::search::search(db, org, "contact 12", None)
                    .await
                    .unwrap();
            })
            .await,
            None,
        ));
        rows.push((
            "plans page",
            percentiles(runs, || async {
                herald::plans::service::list(&state, &member, Default::default(), None)
                    .await
                    .unwrap();
            })
            .await,
            None,
        ));
        println!(
            "{:<54} {:>9} {:>9} {:>7}  {:>22}",
            "read", "p50 ms", "p95 ms", "goal", "old way p95 (same run)"
        );
        for (name, (p50, p95), old) in rows {
            let verdict = if p95 <= GOAL { "met" } else { "MISSED" };
            let old = old.map(|(_, p)| ms(p)).unwrap_or_else(|| "-".into());
            println!(
                "{name:<54} {:>9} {:>9} {verdict:>7}  {old:>22}",
                ms(p50),
                ms(p95)
            );
            p95s.entry(name).or_default().push((n, p95));
        }
        println!(
            "\n{:<54} {:>12} {:>9} {:>7}",
            "plans over a segment", "figure", "goal", ""
        );
        for f in scale_plans::plans_over_a_segment(&state, org, &member).await {
            let verdict = if f.met { "met" } else { "MISSED" };
            println!("{:<54} {:>12} {:>9} {verdict:>7}", f.what, f.value, f.goal);
        }
    }
    if sizes.len() > 1 {
        println!(
            "\ngrowth of p95 from {} to {} contacts (logarithmic would be about {:.1}x):",
            sizes[0],
            sizes[sizes.len() - 1],
            (sizes[sizes.len() - 1] as f64).ln() / (sizes[0] as f64).ln()
        );
        for (name, by_size) in &p95s {
            let (a, b) = (by_size[0].1, by_size[by_size.len() - 1].1);
            println!(
                "{name:<54} {:>7.1}x",
                b.as_secs_f64() / a.as_secs_f64().max(1e-6)
            );
        }
    }
}
