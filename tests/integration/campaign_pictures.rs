//! Pictures in campaigns (issue 28 §3): on the review sheet an owner adds a picture that every
//! text of the campaign carries, as one MMS through the same ledger and gate, with Twilio fetching
//! it from each text's own expiring address. The approval covers the pictures seen (a changed
//! picture changes the digest); they change only in review; a composer cannot take a campaign's
//! picture and the unsent-upload sweep leaves it; another organisation reaches none of it.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::media::{app_with, fetch, png};
use crate::media_send::upload;
use crate::on_both_databases;
use herald::platform::media_config::MediaConfig;
use reqwest::StatusCode;
use serde_json::{json, Value};

on_both_databases!(every_campaign_text_carries_its_picture);

async fn every_campaign_text_carries_its_picture(backend: Backend) {
    let media = MediaConfig::temporary();
    let dir = media.dir.clone();
    let Some((app, _base, fake)) = app_with(backend, media).await else {
        return;
    };
    let c = crm(&app).await;
    ask(&app, &c.org, FOLLOW_UP).await;
    let plan = first_plan(&app, &c.org).await;
    let op = approve_and_draft(&app, &c.org, &plan["id"]).await;
    let before = sheet(&app, &c.org, &op).await;
    assert_eq!(before["operation"]["status"], "awaiting_approval");
    assert_eq!(before["operation"]["pictures"], json!([]));
    let drafted = before["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["status"] == "drafted")
        .count();
    assert_eq!(drafted, 2, "Katherine and Linus");

    let picture = png(600, 400);
    let (s, up) = upload(&app, &c.org.client, "image/png", picture.clone()).await;
    assert_eq!(s, StatusCode::OK, "{up}");
    let set = |ids: Value| json!({"id": op, "upload_ids": ids});

    // Another organisation can neither set it on this campaign nor use it on its own.
    let other = app.new_org("Other Co").await;
    let (s, _) = app
        .call_as(
            &other.client,
            "/api/operations/pictures",
            set(json!([up["id"]])),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (_, theirs) = upload(&app, &other.client, "image/png", png(10, 10)).await;
    let (s, _) = app
        .call_as(
            &c.org.client,
            "/api/operations/pictures",
            set(json!([theirs["id"]])),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "another organisation's upload");
    let ids: Vec<Value> = (0..11).map(|_| up["id"].clone()).collect();
    let (s, _) = app
        .call_as(&c.org.client, "/api/operations/pictures", set(json!(ids)))
        .await;
    assert_eq!(s, StatusCode::OK, "the same picture twice is one picture");

    let with: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/pictures",
            set(json!([up["id"]])),
        )
        .await;
    assert_eq!(with["operation"]["pictures"][0]["id"], up["id"]);
    assert_ne!(
        with["digest"], before["digest"],
        "the picture is part of what is approved"
    );
    // Its thumbnail, for the sheet: members of the organisation only.
    let thumb = format!("/media/{}/thumb", up["id"].as_str().unwrap());
    let got = fetch(&app, &c.org.client, &thumb).await;
    assert_eq!(got.status(), StatusCode::OK);
    assert_eq!(got.headers()["content-type"], "image/jpeg");
    assert_eq!(
        fetch(&app, &other.client, &thumb).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        fetch(&app, &new_client(), &thumb).await.status(),
        StatusCode::UNAUTHORIZED
    );

    // A composer cannot take the campaign's picture.
    let katherine = c.katherine;
    let number: Value = app.ok_as(&c.org.client, "/api/numbers", Value::Null).await;
    let (s, _) = app
        .call_as(
            &c.org.client,
            "/api/messages/send",
            json!({"request": {"contact_id": katherine, "phone_number_id": number[0]["id"], "body": "x", "media_ids": [up["id"]]}}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // The sweep of unsent uploads leaves it, however old.
    {
        use sea_orm::{sea_query::Expr, EntityTrait};
        herald::media::entity::upload::Entity::update_many()
            .col_expr(
                herald::media::entity::upload::Column::CreatedAt,
                Expr::value(app.state.clock.now() - chrono::Duration::hours(48)),
            )
            .exec(&app.state.db)
            .await
            .unwrap();
    }
    herald::media::upload::sweep_unsent(&app.state)
        .await
        .unwrap();
    let kept = sheet(&app, &c.org, &op).await;
    assert_eq!(kept["operation"]["pictures"][0]["id"], up["id"]);
    assert_eq!(kept["digest"], with["digest"]);

    // An approval of the sheet as it was before the picture is refused.
    let (s, _) = app
        .call_as(
            &c.org.client,
            "/api/operations/approve",
            json!({"id": op, "digest": before["digest"]}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    let sent_before = fake.count();
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/operations/approve",
            json!({"id": op, "digest": kept["digest"]}),
        )
        .await;
    app.settle().await;
    let done = sheet(&app, &c.org, &op).await;
    assert_eq!(done["operation"]["sent"], 2, "{done}");
    let texts: Vec<_> = fake.sent.lock().unwrap()[sent_before..].to_vec();
    assert_eq!(texts.len(), 2);
    let mut urls = Vec::new();
    for t in &texts {
        assert_eq!(t.media_urls.len(), 1, "one MMS each: {t:?}");
        assert!(!t.body.is_empty());
        urls.push(t.media_urls[0].clone());
        let path = t.media_urls[0]
            .strip_prefix("https://herald.example")
            .expect("the public address");
        let got = fetch(&app, &new_client(), path).await;
        assert_eq!(got.status(), StatusCode::OK);
        assert_eq!(got.bytes().await.unwrap().to_vec(), picture);
    }
    assert_ne!(urls[0], urls[1], "each text has its own address");
    let conv: Value = app
        .ok_as(
            &c.org.client,
            "/api/conversations/get",
            json!({"contact_id": katherine}),
        )
        .await;
    let last = conv["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["media_count"], 1, "{last}");
    assert_eq!(last["media"][0]["status"], "stored");

    // Sent: the pictures no longer change, and their one copy stays on disk.
    let (s, _) = app
        .call_as(&c.org.client, "/api/operations/pictures", set(json!([])))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(
        crate::media::walk(&dir) >= 2,
        "the picture and its thumbnail"
    );
}
