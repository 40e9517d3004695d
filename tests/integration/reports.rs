//! The Reports page (issue 30 §5) against hand-counted SQL on a seeded organisation: 300
//! contacts with 6 texts each over 90 days (counted by the rollup's first passes, as a history
//! from before the rollups would be), and real texts with their carriers' callbacks. Days are the
//! organisation's (Los Angeles here). The totals, each day's figures, the failures by reason,
//! the delivery rate, the cost, one number's report and both CSV exports agree with SQL; bad
//! input keeps what was typed and says why; another organisation sees none of it.
use crate::helpers::*;
use crate::on_both_databases;
use chrono::{Duration, NaiveDate};
use herald::server::seed_scale::{seed, ScaleSpec};
use reqwest::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use serde_json::{json, Value};

on_both_databases!(reports_equal_hand_counted_sql);

const ZONE: chrono_tz::Tz = chrono_tz::America::Los_Angeles;

/// The number inside `<… id="{id}">…</…>` of the page.
fn figure(html: &str, id: &str) -> String {
    let at = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("{id} in {html}"));
    let open = at + html[at..].find('>').unwrap() + 1;
    let close = open + html[open..].find('<').unwrap();
    html[open..close].to_owned()
}

/// (direction, body, media count, created_at, status) of the organisation's texts.
type Text = (String, String, i32, chrono::DateTime<chrono::Utc>, String);

async fn texts(app: &TestApp, org: uuid::Uuid, number: Option<uuid::Uuid>) -> Vec<Text> {
    use herald::messaging::entity as message;
    let mut q = message::Entity::find()
        .select_only()
        .columns([
            message::Column::Direction,
            message::Column::Body,
            message::Column::MediaCount,
            message::Column::CreatedAt,
            message::Column::Status,
        ])
        .filter(message::Column::OrganizationId.eq(org));
    if let Some(n) = number {
        q = q.filter(message::Column::PhoneNumberId.eq(n));
    }
    q.into_tuple().all(&app.state.db).await.unwrap()
}

fn day(at: chrono::DateTime<chrono::Utc>) -> NaiveDate {
    at.with_timezone(&ZONE).date_naive()
}

async fn send(
    app: &TestApp,
    org: &Org,
    number: uuid::Uuid,
    contact: uuid::Uuid,
    body: &str,
) -> String {
    let sent: Value = app
        .ok_as(
            &org.client,
            "/api/messages/send",
            json!({"request": {"contact_id": contact, "phone_number_id": number, "body": body}}),
        )
        .await;
    let id: uuid::Uuid = sent["id"].as_str().unwrap().parse().unwrap();
    app.settle().await;
    herald::messaging::entity::Entity::find_by_id(id)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap()
        .provider_sid
        .expect("sent")
}

async fn reports_equal_hand_counted_sql(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Report Co").await;
    {
        use sea_orm::ConnectionTrait;
        app.state
            .db
            .execute_unprepared(
                "UPDATE organization SET time_zone = 'America/Los_Angeles' WHERE name = 'Report Co'",
            )
            .await
            .unwrap();
    }
    let main = app.add_number(&org, "+14155550140").await;
    let second = app.add_number(&org, "+14155550141").await;
    let now = app.state.clock.now();
    let spec = ScaleSpec {
        contacts: 300,
        messages_each: 6,
        now,
        unread_every: 0,
        vip_every: 0,
    };
    let ids = seed(&app.state.db, org.org_id, main, &spec).await.unwrap();
    // From the second number: one delivered, one filtered (30007), one unreachable (30003),
    // one long text (two segments) without a report yet; and one text in.
    let long = "x".repeat(200);
    let bodies = [
        "See you at 5",
        "Spring sale today",
        "Your order shipped",
        long.as_str(),
    ];
    let mut sids = Vec::new();
    for (i, b) in bodies.iter().enumerate() {
        sids.push(send(&app, &org, second, ids[i], b).await);
    }
    app.status_callback(&sids[0], "delivered", None).await;
    app.status_callback(&sids[1], "undelivered", Some("30007"))
        .await;
    app.status_callback(&sids[2], "failed", Some("30003")).await;
    app.post_webhook(
        &sms_params(
            "SMreport000000000000000000000000001",
            &herald::server::seed_scale::seeded_phone(5),
            "+14155550141",
            "Is the sale on?",
        ),
        None,
    )
    .await;
    app.settle().await;

    // The last 90 days, in the organisation's days.
    let today = day(now);
    let from = today - Duration::days(89);
    let q = format!("/reports?from={from}&to={today}");
    let res = org.client.get(app.url(&q)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let html = res.text().await.unwrap();

    let all = texts(&app, org.org_id, None).await;
    let within = |t: &&Text| day(t.3) >= from && day(t.3) <= today;
    let count = |dir: &str| all.iter().filter(within).filter(|t| t.0 == dir).count() as u64;
    let (ins, outs) = (count("inbound"), count("outbound"));
    assert!(
        ins > 400 && outs > 400,
        "the seed lies in the range: {ins} {outs}"
    );
    let g = herald::ui::components::grouped;
    assert_eq!(figure(&html, "total-in"), g(ins));
    assert_eq!(figure(&html, "total-out"), g(outs));
    let status = |s: &str| all.iter().filter(within).filter(|t| t.4 == s).count() as f64;
    let (delivered, undelivered, failed) =
        (status("delivered"), status("undelivered"), status("failed"));
    assert_eq!((undelivered, failed), (1.0, 1.0));
    let rate = delivered * 100.0 / (delivered + undelivered + failed);
    assert_eq!(figure(&html, "delivery-rate"), format!("{rate:.1} %"));
    let cost: f64 = all
        .iter()
        .filter(within)
        .filter(|t| t.0 == "outbound")
        .map(|t| herald::campaign::segments::segments(&t.1).count.max(1) as f64 * 7900.0)
        .sum();
    assert_eq!(figure(&html, "total-cost"), format!("${:.2}", cost / 1e6));
    let filtered = herald::platform::carrier_errors::lookup("30007")
        .unwrap()
        .words;
    let unreachable = herald::platform::carrier_errors::lookup("30003")
        .unwrap()
        .words;
    assert!(
        html.contains(filtered) && html.contains(unreachable),
        "{html}"
    );
    assert!(
        html.contains("<svg class=\"chart\""),
        "the charts are drawn by the server"
    );

    // Each day's figures, exported, agree with SQL day by day.
    let csv = org
        .client
        .get(app.url(&format!(
            "/reports/daily.csv?from={from}&to={today}&number="
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(csv.status(), StatusCode::OK);
    assert!(csv.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let csv = csv.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 91, "a header and a row a day: {csv}");
    for line in &lines[1..] {
        let cells: Vec<&str> = line.split(',').collect();
        let d: NaiveDate = cells[0].parse().unwrap();
        let on = |dir: &str| {
            all.iter()
                .filter(|t| day(t.3) == d && t.0 == dir)
                .count()
                .to_string()
        };
        assert_eq!(
            (cells[1], cells[2]),
            (on("inbound").as_str(), on("outbound").as_str()),
            "{line}"
        );
    }
    let failures = app
        .page_text(
            &org.client,
            &format!("/reports/failures.csv?from={from}&to={today}"),
        )
        .await;
    assert!(
        failures.contains(",30007,1") && failures.contains(",30003,1"),
        "{failures}"
    );

    // One number's report.
    let html = app
        .page_text(&org.client, &format!("{q}&number={second}"))
        .await;
    assert_eq!(figure(&html, "total-out"), "4");
    assert_eq!(figure(&html, "total-in"), "1");
    assert_eq!(figure(&html, "delivery-rate"), "33.3 %");
    let cost = (1.0 + 1.0 + 1.0 + 2.0) * 7900.0 / 1e6;
    assert_eq!(figure(&html, "total-cost"), format!("${cost:.2}"));

    // Bad input: said, with what was typed kept, and the default range shown.
    let res = org
        .client
        .get(app.url("/reports?from=yesterday&to=2026-01-01"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let html = res.text().await.unwrap();
    assert!(
        figure(&html, "report-error").contains("&#34;yesterday&#34; is not a date"),
        "{html}"
    );
    assert!(html.contains("value=\"yesterday\""), "{html}");
    let other = app.new_org("Other Co").await;
    let res = other
        .client
        .get(app.url(&format!("{q}&number={second}")))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        StatusCode::BAD_REQUEST,
        "another organisation's number"
    );
    let html = app.page_text(&other.client, &q).await;
    assert_eq!(figure(&html, "total-out"), "0");
    let res = other
        .client
        .get(app.url(&format!(
            "/reports/daily.csv?from={from}&to={today}&number={second}"
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    // Counted once: more passes change nothing.
    herald::reports::rollup::catch_up(&app.state, 5)
        .await
        .unwrap();
    let again = app.page_text(&org.client, &q).await;
    assert_eq!(figure(&again, "total-out"), g(outs));
}
