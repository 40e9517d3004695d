//! Sending pictures (issue 28 §3): a member uploads a JPEG, PNG or GIF of at most 5 MB (checked
//! to be what it says), and the text goes as one MMS through the same send path, with Twilio
//! fetching the picture from an unguessable address that expires. Refusals lose nothing and say
//! why; another organisation cannot use the upload.
use crate::helpers::*;
use crate::media::{app_with, fetch, media_of, png};
use crate::on_both_databases;
use herald::platform::media_config::MediaConfig;
use reqwest::StatusCode;
use serde_json::{json, Value};

on_both_databases!(a_picture_goes_as_one_mms);

pub(crate) async fn upload(
    app: &TestApp,
    client: &reqwest::Client,
    kind: &str,
    bytes: Vec<u8>,
) -> (StatusCode, Value) {
    post_bytes(client, &app.url("/api/media/upload"), kind, bytes).await
}

/// POSTs a file's bytes as the app does (its type in `Content-Type`): the status and the JSON
/// answer (or its text).
pub(crate) async fn post_bytes(
    client: &reqwest::Client,
    url: &str,
    kind: &str,
    bytes: Vec<u8>,
) -> (StatusCode, Value) {
    let res = client
        .post(url)
        .header("Content-Type", kind)
        .body(bytes)
        .send()
        .await
        .unwrap();
    let status = res.status();
    let text = res.text().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn a_picture_goes_as_one_mms(backend: Backend) {
    let media = MediaConfig::temporary();
    let dir = media.dir.clone();
    let Some((app, _base, fake)) = app_with(backend, media).await else {
        return;
    };
    let owner = app.new_org("Send Co").await;
    let number = app.add_number(&owner, "+14155550100").await;
    let ada = app
        .add_contact(&owner, "Ada Lovelace", "+14155552671")
        .await;
    let picture = png(400, 300);

    // Refused, each saying why: nothing, too large, a false picture, not a picture, signed out.
    let (s, _) = upload(&app, &owner.client, "image/png", vec![]).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let mut big = picture.clone();
    big.resize(5 * 1024 * 1024 + 10, 0);
    let (s, body) = upload(&app, &owner.client, "image/png", big).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("at most 5 MB"),
        "{body}"
    );
    let (s, body) = upload(&app, &owner.client, "image/png", b"<html>".to_vec()).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("not the image/png picture"),
        "{body}"
    );
    let (s, body) = upload(&app, &owner.client, "application/pdf", b"%PDF-1.7".to_vec()).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("JPEG, PNG or GIF"),
        "{body}"
    );
    let (s, _) = upload(&app, &new_client(), "image/png", picture.clone()).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(
        app.count("media_upload").await,
        0,
        "nothing refused was kept"
    );

    let (s, up) = upload(&app, &owner.client, "image/png", picture.clone()).await;
    assert_eq!(s, StatusCode::OK, "{up}");
    assert_eq!(up["content_type"], "image/png");
    let send = |body: &str, ids: Vec<&Value>| json!({"request": {"contact_id": ada, "phone_number_id": number, "body": body, "media_ids": ids}});

    // Another organisation cannot send it.
    let other = app.new_org("Other Co").await;
    let their_number = app.add_number(&other, "+14155550199").await;
    let theirs = app.add_contact(&other, "Grace", "+14155552672").await;
    let (s, _) = app
        .call_as(
            &other.client,
            "/api/messages/send",
            json!({"request": {"contact_id": theirs, "phone_number_id": their_number, "body": "x", "media_ids": [up["id"]]}}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(fake.count(), 0);

    // One MMS, through the same path: Twilio gets the words and the picture's address.
    let sent: Value = app
        .ok_as(
            &owner.client,
            "/api/messages/send",
            send("Here's the map", vec![&up["id"]]),
        )
        .await;
    assert_eq!(sent["send_state"], "sent", "{sent}");
    assert_eq!(sent["media_count"], 1);
    let twilio = fake.sent.lock().unwrap().last().cloned().unwrap();
    assert_eq!(twilio.body, "Here's the map");
    assert_eq!(twilio.media_urls.len(), 1);
    let url = &twilio.media_urls[0];
    let path = url
        .strip_prefix("https://herald.example")
        .expect("the public address")
        .to_owned();
    assert!(path.starts_with("/m/") && path.len() > 40, "{path}");
    // Twilio fetches it with no session; a guessed token finds nothing.
    let got = fetch(&app, &new_client(), &path).await;
    assert_eq!(got.status(), StatusCode::OK);
    assert_eq!(got.headers()["content-type"], "image/png");
    assert_eq!(got.bytes().await.unwrap().to_vec(), picture);
    // One character off (never the same character: a token may end in "0").
    let last = if path.ends_with('0') { '1' } else { '0' };
    let guessed = fetch(
        &app,
        &new_client(),
        &format!("{}{last}", &path[..path.len() - 1]),
    )
    .await;
    assert_eq!(guessed.status(), StatusCode::NOT_FOUND);
    // The conversation shows it with its thumbnail.
    let shown = media_of(&app, &owner, &ada.to_string()).await;
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0]["status"], "stored");
    assert_eq!(shown[0]["has_thumb"], true);

    // A picture alone is a text too.
    let (_, up2) = upload(&app, &owner.client, "image/png", png(10, 10)).await;
    let alone: Value = app
        .ok_as(
            &owner.client,
            "/api/messages/send",
            send("", vec![&up2["id"]]),
        )
        .await;
    assert_eq!(alone["send_state"], "sent", "{alone}");
    assert_eq!(fake.sent.lock().unwrap().last().unwrap().body, "");

    // A text takes its uploads; one never sent is removed after a day, with its files, while
    // the sent texts' pictures stay.
    assert_eq!(
        app.count("media_upload").await,
        0,
        "both were taken by their texts"
    );
    let (_, left) = upload(&app, &owner.client, "image/png", png(20, 20)).await;
    assert_eq!(app.count("media_upload").await, 1);
    let files = crate::media::walk(&dir);
    assert_eq!(
        herald::media::upload::sweep_unsent(&app.state)
            .await
            .unwrap(),
        0,
        "too young"
    );
    {
        use sea_orm::{sea_query::Expr, EntityTrait};
        herald::media::entity::upload::Entity::update_many()
            .col_expr(
                herald::media::entity::upload::Column::CreatedAt,
                Expr::value(app.state.clock.now() - chrono::Duration::hours(25)),
            )
            .exec(&app.state.db)
            .await
            .unwrap();
    }
    assert_eq!(
        herald::media::upload::sweep_unsent(&app.state)
            .await
            .unwrap(),
        1
    );
    assert_eq!(app.count("media_upload").await, 0);
    assert_eq!(
        crate::media::walk(&dir),
        files - 2,
        "the picture and its thumbnail"
    );
    let (s, _) = app
        .call_as(
            &owner.client,
            "/api/messages/send",
            send("late", vec![&left["id"]]),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "a removed upload cannot be sent");
    let still = fetch(&app, &new_client(), &path).await;
    assert_eq!(still.status(), StatusCode::OK, "a sent picture stays");

    // After a week the address is gone.
    {
        use sea_orm::{sea_query::Expr, EntityTrait};
        herald::media::entity::Entity::update_many()
            .col_expr(
                herald::media::entity::Column::CreatedAt,
                Expr::value(app.state.clock.now() - chrono::Duration::days(8)),
            )
            .exec(&app.state.db)
            .await
            .unwrap();
    }
    let expired = fetch(&app, &new_client(), &path).await;
    assert_eq!(expired.status(), StatusCode::NOT_FOUND);
}
