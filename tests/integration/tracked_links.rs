//! Tracked links (issue 30 §4): a campaign's links go out as one short, unguessable link per
//! contact; a click redirects (302) and is counted (not a link preview's fetch, not a HEAD); an
//! unknown code is a bare 404; clicks show on the campaign's card and the contact's page. Turning
//! shortening off is part of what an approval covers. A saved reply's links are shortened per
//! contact too, the same link each time; a merge keeps a duplicate's links working.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use herald::links::model::CODE_LEN;
use herald::platform::sms::outbox::OutboxTransport;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

on_both_databases!(
    campaign_links_are_tracked_per_contact,
    saved_reply_links_are_tracked
);

const LINK: &str = "https://shop.example/spring?utm=sms";

/// The short links (prefix and code) in `body`.
fn short_links(body: &str, prefix: &str) -> Vec<String> {
    body.match_indices(prefix)
        .map(|(at, _)| body[at..at + prefix.len() + CODE_LEN].to_owned())
        .collect()
}

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn card(app: &TestApp, org: &Org, op: &Value) -> Value {
    app.ok_as(&org.client, "/api/operations/get", json!({"id": op}))
        .await
}

async fn campaign_links_are_tracked_per_contact(backend: Backend) {
    let outbox = Arc::new(OutboxTransport::default());
    let Some(app) = spawn_app_sending_to(backend, outbox.clone()).await else {
        return;
    };
    let c = crm(&app).await;
    let agent = assistant_agent(&app, c.org.org_id).await;
    let plan = campaign_plan(
        &app,
        &agent,
        &include_all(&[c.katherine, c.linus]),
        "Spring",
    )
    .await;
    let op = approve_and_draft(&app, &c.org, &json!(plan.id)).await;
    let s = sheet(&app, &c.org, &op).await;
    assert_eq!(s["operation"]["status"], "awaiting_approval", "{s}");
    let prefix = format!("{}/l/", app.state.config.public_url.trim_end_matches('/'));
    assert_eq!(
        s["operation"]["link_prefix"],
        json!(prefix),
        "on by default"
    );
    for it in s["items"].as_array().unwrap() {
        let text = format!("Hi {}! Spring sale: {LINK}. See you!", it["contact_name"]);
        edit_item(&app, &c.org, &it["id"], &text).await;
    }

    // Turning it off and on changes what an approval covers: a sheet seen before is refused.
    let seen = app.approve_body(&c.org.client, &op).await;
    let off: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/track_links",
            json!({"id": op, "on": false}),
        )
        .await;
    assert!(off["operation"]["link_prefix"].is_null(), "{off}");
    assert_ne!(off["digest"], seen["digest"]);
    let on: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/track_links",
            json!({"id": op, "on": true}),
        )
        .await;
    assert_eq!(on["digest"], seen["digest"], "the same sheet again");
    let other = app.new_org("Other Co").await;
    let (status, _) = app
        .call_as(
            &other.client,
            "/api/operations/track_links",
            json!({"id": op, "on": false}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "another organisation's campaign"
    );
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/approve",
            app.approve_body(&c.org.client, &op).await,
        )
        .await;
    let mut done = Value::Null;
    for _ in 0..300 {
        app.settle().await;
        done = card(&app, &c.org, &op).await;
        if done["status"] == "done" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(done["status"], "done", "{done}");

    // Each text carries its contact's own short link, and not the long one.
    let sent = outbox.sent();
    assert_eq!(sent.len(), 2);
    let mut codes = Vec::new();
    for sms in &sent {
        assert!(!sms.body.contains(LINK), "{}", sms.body);
        let found = short_links(&sms.body, &prefix);
        assert_eq!(found.len(), 1, "{}", sms.body);
        assert!(
            sms.body.contains(&format!("{}. See you!", found[0])),
            "{}",
            sms.body
        );
        codes.push((sms.to.clone(), found[0].clone()));
    }
    assert_ne!(codes[0].1, codes[1].1, "one link per contact");
    let katherine_link = codes
        .iter()
        .find(|(to, _)| to == "+14155552674")
        .map(|(_, l)| l.clone())
        .expect("Katherine's text");
    let path = katherine_link.trim_start_matches(app.state.config.public_url.trim_end_matches('/'));
    assert_eq!(card(&app, &c.org, &op).await["clicked"], 0);

    // A click redirects and counts; a link preview and a HEAD redirect without counting. A code
    // counts once a minute at most (issue 49 §9): the second tap at once does not count, a tap
    // a minute later does.
    let web = no_redirects();
    for i in 0..3 {
        if i == 2 {
            use herald::links::entity as tracked_link;
            use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
            let before = app.state.clock.now() - chrono::Duration::seconds(61);
            tracked_link::Entity::update_many()
                .col_expr(
                    tracked_link::Column::LastClickAt,
                    sea_orm::sea_query::Expr::value(Some(before)),
                )
                .filter(tracked_link::Column::Clicks.eq(1))
                .exec(&app.state.db)
                .await
                .unwrap();
        }
        let res = web.get(app.url(path)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::FOUND);
        assert_eq!(res.headers()["location"], LINK);
        let counted = app.count_where("tracked_link", "clicks > 0").await;
        assert_eq!(counted, 1);
        let clicks = app.count_where("tracked_link", "clicks = 2").await;
        assert_eq!(clicks, i64::from(i == 2), "tap {i}");
    }
    let res = web
        .get(app.url(path))
        .header(
            "user-agent",
            "facebookexternalhit/1.1 Facebot Twitterbot/1.0",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FOUND);
    let res = web.head(app.url(path)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FOUND);
    let clicks = app
        .count_where("tracked_link", "clicks = 2 AND first_click_at IS NOT NULL")
        .await;
    assert_eq!(clicks, 1, "two clicks by a person, on one link");

    // An unknown code, a malformed one and the bare path: the same bare 404.
    for p in ["/l/0000000000", "/l/short", "/l/abc%2F..%2Fx0000"] {
        let res = web.get(app.url(p)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{p}");
        assert!(res.headers().get("location").is_none());
        assert_eq!(res.text().await.unwrap(), "Not found", "{p}");
    }

    // The campaign's card counts the contacts who clicked; Katherine's page shows her clicks.
    assert_eq!(card(&app, &c.org, &op).await["clicked"], 1);
    let profile: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/profile",
            json!({"id": c.katherine}),
        )
        .await;
    assert_eq!(profile["link_clicks"], 2, "{profile}");
    assert!(profile["last_click_at"].is_string(), "{profile}");
    let touch = profile["touches"][0]["outcome"]
        .as_str()
        .unwrap_or_default();
    assert!(touch.contains("clicked 2 times"), "{profile}");
    let linus: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/profile",
            json!({"id": c.linus}),
        )
        .await;
    assert_eq!(linus["link_clicks"], 0, "{linus}");
    assert!(linus["last_click_at"].is_null());

    // The campaign's funnel on the Reports page: Katherine's text is delivered and she replies;
    // Linus opts out.
    let sid = {
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        herald::messaging::entity::Entity::find()
            .filter(herald::messaging::entity::Column::ContactId.eq(c.katherine))
            .filter(herald::messaging::entity::Column::Direction.eq("outbound"))
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
            .provider_sid
            .unwrap()
    };
    app.status_callback(&sid, "delivered", None).await;
    for (sid, from, body) in [
        (
            "SMfunnel00000000000000000000000001",
            "+14155552674",
            "Count me in!",
        ),
        ("SMfunnel00000000000000000000000002", "+14155552676", "STOP"),
    ] {
        app.post_webhook(&sms_params(sid, from, "+14155550100", body), None)
            .await;
    }
    app.settle().await;
    let csv = app.page_text(&c.org.client, "/reports/campaigns.csv").await;
    let row = csv.lines().nth(1).unwrap_or_default();
    assert!(
        row.ends_with(",2,2,2,2,1,1,1,1"),
        "audience … opted out: {csv}"
    );
    let html = app.page_text(&c.org.client, "/reports").await;
    assert_eq!(html.matches("class=\"campaign-row\"").count(), 1, "{html}");
    let theirs = other
        .client
        .get(app.url("/reports/campaigns.csv"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        theirs.text().await.unwrap().lines().count(),
        1,
        "the header alone"
    );
}

async fn saved_reply_links_are_tracked(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let saved: Value = app
        .ok_as(
            &c.org.client,
            "/api/saved_replies/save",
            json!({"id": null, "input": {"name": "Booking", "body": "Hi {{contact.first_name}}, book at www.shop.example/book!"}}),
        )
        .await;
    let id = saved["id"].clone();
    let fill = |contact: uuid::Uuid| {
        let (client, id) = (c.org.client.clone(), id.clone());
        let app = &app;
        async move {
            app.ok_as::<Value>(
                &client,
                "/api/saved_replies/fill",
                json!({"id": id, "contact_id": contact}),
            )
            .await
            .as_str()
            .unwrap()
            .to_owned()
        }
    };
    let prefix = format!("{}/l/", app.state.config.public_url.trim_end_matches('/'));
    let first = fill(c.katherine).await;
    assert!(first.starts_with("Hi Katherine, book at "), "{first}");
    assert!(first.ends_with('!') && !first.contains("www."), "{first}");
    let link = short_links(&first, &prefix).pop().expect(&first);
    assert_eq!(fill(c.katherine).await, first, "the same link each time");
    let other = short_links(&fill(c.linus).await, &prefix).pop().unwrap();
    assert_ne!(other, link, "one link per contact");
    let path = link.trim_start_matches(app.state.config.public_url.trim_end_matches('/'));
    let res = no_redirects().get(app.url(path)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FOUND);
    assert_eq!(res.headers()["location"], "https://www.shop.example/book");
    let profile: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/profile",
            json!({"id": c.katherine}),
        )
        .await;
    assert_eq!(profile["link_clicks"], 1, "{profile}");

    // Linus merged into Katherine: his link (the same reply, the same address) still works, and
    // its clicks are hers now; her next fill keeps her own link.
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/merge",
            json!({"keep": c.katherine, "duplicate": c.linus, "apply": true}),
        )
        .await;
    let path = other.trim_start_matches(app.state.config.public_url.trim_end_matches('/'));
    let res = no_redirects().get(app.url(path)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FOUND, "a merged contact's link");
    let profile: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/profile",
            json!({"id": c.katherine}),
        )
        .await;
    assert_eq!(profile["link_clicks"], 2, "{profile}");
    assert_eq!(fill(c.katherine).await, first);
}

/// Issue 49 §9: a member's saved reply keeps its links as written (a member cannot hide where a
/// link goes behind the business's short address), unless the link's domain is on the owners'
/// list; an owner's edit makes the reply's links short again.
async fn a_member_s_saved_reply_links_go_as_written(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let mo = app.add_member(&c.org, "Mo").await;
    let save = |who: &Org, id: Value, body: &str| {
        let (client, body) = (who.client.clone(), body.to_owned());
        let app = &app;
        async move {
            app.ok_as::<Value>(
                &client,
                "/api/saved_replies/save",
                json!({"id": id, "input": {"name": "Offer", "body": body}}),
            )
            .await
        }
    };
    let fill = |id: Value| {
        let client = mo.client.clone();
        let app = &app;
        let katherine = c.katherine;
        async move {
            app.ok_as::<Value>(
                &client,
                "/api/saved_replies/fill",
                json!({"id": id, "contact_id": katherine}),
            )
            .await
            .as_str()
            .unwrap()
            .to_owned()
        }
    };
    let body = "See https://phish.example/login and www.shop.example/deal";
    let saved = save(&mo, Value::Null, body).await;
    assert_eq!(
        fill(saved["id"].clone()).await,
        body,
        "a member's links go as written"
    );
    // The owners list shop.example: that link is shortened, the other stays.
    let settings: Value = app
        .ok_as(&c.org.client, "/api/organization", Value::Null)
        .await;
    let mut s = settings.clone();
    s["link_domains"] = json!("shop.example");
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/organization/update",
            json!({"settings": s}),
        )
        .await;
    let filled = fill(saved["id"].clone()).await;
    assert!(
        filled.starts_with("See https://phish.example/login and "),
        "{filled}"
    );
    assert!(!filled.contains("shop.example"), "{filled}");
    // An owner's words: every link is shortened.
    save(&c.org, saved["id"].clone(), body).await;
    let filled = fill(saved["id"].clone()).await;
    assert!(!filled.contains("phish.example"), "{filled}");
}

on_both_databases!(a_member_s_saved_reply_links_go_as_written);
