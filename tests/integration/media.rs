//! Pictures texted in (issue 28 §3): Herald keeps a copy of each media item, fetched from the
//! (fake) Twilio with the account's credentials and its redirect followed, and shows it to the
//! organisation's members only, with a thumbnail. A file over the size limit, a "picture" that is
//! not one and a kind Herald does not keep are refused with their reason; a provider's failure is
//! tried again by the sweeper. The local folder and an S3-compatible bucket both hold the copies.
use crate::fake_twilio::{self, media_url, FakeTwilio};
use crate::helpers::*;
use crate::on_both_databases;
use herald::platform::config::TwilioConfig;
use herald::platform::media_config::{MediaConfig, S3Config};
use herald::platform::sms::twilio::TwilioTransport;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

on_both_databases!(pictures_are_kept_and_shown_to_members_only);
on_both_databases!(copies_go_to_an_s3_bucket);

const NUMBER: &str = "+14155550100";
const ADA: &str = "+14155552671";
const ACCOUNT: &str = "ACenv";
const TOKEN: &str = "env-token-0123456789abcdef";

pub(crate) fn png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_pixel(w, h, image::Rgb([30, 90, 200]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

pub(crate) async fn app_with(
    backend: Backend,
    media: MediaConfig,
) -> Option<(TestApp, String, Arc<FakeTwilio>)> {
    let (base, fake) = fake_twilio::start().await;
    fake.add_account(ACCOUNT, &[(ACCOUNT, TOKEN)], &[NUMBER, "+14155550199"]);
    let transport = TwilioTransport::new(TwilioConfig {
        account_sid: ACCOUNT.into(),
        auth_token: TOKEN.into(),
        messaging_service_sid: None,
        status_callback_url: None,
        api_base: base.clone(),
        timeout: Duration::from_secs(5),
    })
    .unwrap();
    let app = spawn_app_with(
        backend,
        Options {
            transport: Some(Arc::new(transport)),
            media: Some(media),
            ..Default::default()
        },
    )
    .await?;
    Some((app, base, fake))
}

/// Posts an inbound MMS whose items are (media SID, declared type), and waits for the copies.
async fn mms(app: &TestApp, base: &str, sid: &str, body: &str, items: &[(&str, &str)]) {
    let urls: Vec<String> = items
        .iter()
        .map(|(m, _)| media_url(base, ACCOUNT, m))
        .collect();
    let n = items.len().to_string();
    let mut params = sms_params(sid, ADA, NUMBER, body);
    params.retain(|(k, _)| *k != "NumMedia");
    params.push(("NumMedia", &n));
    let names: Vec<(String, String)> = (0..items.len())
        .flat_map(|i| {
            [
                (format!("MediaUrl{i}"), urls[i].clone()),
                (format!("MediaContentType{i}"), items[i].1.to_owned()),
            ]
        })
        .collect();
    for (k, v) in &names {
        params.push((k.as_str(), v.as_str()));
    }
    let res = app.post_webhook(&params, None).await;
    assert!(res.status().is_success(), "{}", res.status());
    app.settle().await;
}

pub(crate) async fn media_of(app: &TestApp, org: &Org, contact: &str) -> Vec<Value> {
    let conv: Value = app
        .ok_as(
            &org.client,
            "/api/conversations/get",
            json!({"contact_id": contact}),
        )
        .await;
    conv["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["media"].as_array().cloned().unwrap_or_default())
        .collect()
}

pub(crate) async fn fetch(
    app: &TestApp,
    client: &reqwest::Client,
    path: &str,
) -> reqwest::Response {
    client.get(app.url(path)).send().await.unwrap()
}

async fn pictures_are_kept_and_shown_to_members_only(backend: Backend) {
    let media = MediaConfig {
        max_bytes: 200_000,
        ..MediaConfig::temporary()
    };
    let dir = media.dir.clone();
    let Some((app, base, fake)) = app_with(backend, media).await else {
        return;
    };
    let owner = app.new_org("Media Co").await;
    app.add_number(&owner, NUMBER).await;
    let picture = png(640, 480);
    {
        let mut m = fake.media.lock().unwrap();
        m.insert("ME1".into(), ("image/png".into(), picture.clone()));
        m.insert(
            "ME2".into(),
            ("application/pdf".into(), b"%PDF-1.7 quote".to_vec()),
        );
        m.insert("ME3".into(), ("image/jpeg".into(), vec![0xff; 300_000]));
        m.insert(
            "ME4".into(),
            (
                "image/png".into(),
                b"<html><script>x</script></html>".to_vec(),
            ),
        );
        m.insert(
            "ME5".into(),
            ("text/html".into(), b"<html></html>".to_vec()),
        );
    }
    mms(
        &app,
        &base,
        "SMmedia1",
        "Here's the damage",
        &[("ME1", "image/png"), ("ME2", "application/pdf")],
    )
    .await;
    let contact = app.inbox(&owner.client).await[0]["contact_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let items = media_of(&app, &owner, &contact).await;
    assert_eq!(items.len(), 2, "{items:?}");
    let (pic, pdf) = (&items[0], &items[1]);
    assert_eq!(pic["status"], "stored", "{pic}");
    assert_eq!(pic["content_type"], "image/png");
    assert_eq!(pic["has_thumb"], true);
    assert_eq!(pdf["status"], "stored", "{pdf}");
    assert_eq!(pdf["has_thumb"], false);
    // The copies are in the local folder.
    assert!(walk(&dir) >= 3, "the picture, its thumbnail and the PDF");

    // A member sees the copy and the thumbnail; nobody else does.
    let pic_id = pic["id"].as_str().unwrap();
    let full = fetch(&app, &owner.client, &format!("/media/{pic_id}")).await;
    assert_eq!(full.status(), StatusCode::OK);
    assert_eq!(full.headers()["content-type"], "image/png");
    assert_eq!(full.headers()["x-content-type-options"], "nosniff");
    // Its own sandbox, not the app's policy over it (issue 49 §9).
    assert_eq!(
        full.headers()["content-security-policy"],
        "default-src 'none'; sandbox"
    );
    assert_eq!(full.bytes().await.unwrap().to_vec(), picture);
    let thumb = fetch(&app, &owner.client, &format!("/media/{pic_id}/thumb")).await;
    assert_eq!(thumb.status(), StatusCode::OK);
    let t = image::load_from_memory(&thumb.bytes().await.unwrap()).unwrap();
    assert_eq!((t.width(), t.height()), (320, 240));
    let doc = fetch(
        &app,
        &owner.client,
        &format!("/media/{}", pdf["id"].as_str().unwrap()),
    )
    .await;
    assert!(doc.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .starts_with("attachment"));
    let signed_out = fetch(&app, &new_client(), &format!("/media/{pic_id}")).await;
    assert_eq!(signed_out.status(), StatusCode::UNAUTHORIZED);
    let other = app.new_org("Other Co").await;
    let theirs = fetch(&app, &other.client, &format!("/media/{pic_id}")).await;
    assert_eq!(theirs.status(), StatusCode::NOT_FOUND);
    let junk = fetch(&app, &owner.client, "/media/not-an-id").await;
    assert_eq!(junk.status(), StatusCode::NOT_FOUND);

    // Refused, each with its reason: too large, a lie, a kind Herald does not keep.
    mms(
        &app,
        &base,
        "SMmedia2",
        "",
        &[
            ("ME3", "image/jpeg"),
            ("ME4", "image/png"),
            ("ME5", "text/html"),
        ],
    )
    .await;
    let items = media_of(&app, &owner, &contact).await;
    let errors: Vec<String> = items[2..]
        .iter()
        .map(|m| {
            assert_eq!(m["status"], "failed", "{m}");
            m["error"].as_str().unwrap().to_owned()
        })
        .collect();
    assert!(errors[0].contains("larger than"), "{errors:?}");
    assert!(
        errors[1].contains("not the image/png picture"),
        "{errors:?}"
    );
    assert!(errors[2].contains("does not keep text/html"), "{errors:?}");
    for m in &items[2..] {
        let r = fetch(
            &app,
            &owner.client,
            &format!("/media/{}", m["id"].as_str().unwrap()),
        )
        .await;
        assert_eq!(
            r.status(),
            StatusCode::NOT_FOUND,
            "nothing refused is served"
        );
    }

    // Twilio fails twice: the copy waits, and the sweeper's later tries keep it.
    *fake.media_failures.lock().unwrap() = 2;
    fake.media
        .lock()
        .unwrap()
        .insert("ME6".into(), ("image/png".into(), png(100, 50)));
    mms(&app, &base, "SMmedia3", "another", &[("ME6", "image/png")]).await;
    let pending = |items: &[Value]| items.last().unwrap()["status"].clone();
    assert_eq!(pending(&media_of(&app, &owner, &contact).await), "pending");
    for _ in 0..2 {
        due_now(&app).await;
        herald::media::copier::copy_due(&app.state).await.unwrap();
    }
    let last = media_of(&app, &owner, &contact).await.pop().unwrap();
    assert_eq!(last["status"], "stored", "{last}");
    assert_eq!(last["has_thumb"], true);
}

async fn copies_go_to_an_s3_bucket(backend: Backend) {
    let (endpoint, s3) = crate::fake_s3::start().await;
    let media = MediaConfig {
        s3: Some(S3Config {
            bucket: "herald-media".into(),
            endpoint: Some(endpoint),
            region: "us-east-1".into(),
            access_key_id: "test-key".into(),
            secret_access_key: "test-secret".into(),
        }),
        ..MediaConfig::temporary()
    };
    let Some((app, base, fake)) = app_with(backend, media).await else {
        return;
    };
    let owner = app.new_org("Bucket Co").await;
    app.add_number(&owner, NUMBER).await;
    let picture = png(50, 50);
    fake.media
        .lock()
        .unwrap()
        .insert("ME7".into(), ("image/png".into(), picture.clone()));
    mms(&app, &base, "SMs3", "", &[("ME7", "image/png")]).await;
    let contact = app.inbox(&owner.client).await[0]["contact_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let item = media_of(&app, &owner, &contact).await.pop().unwrap();
    assert_eq!(item["status"], "stored", "{item}");
    let keys = s3.keys("herald-media");
    assert_eq!(keys.len(), 2, "the picture and its thumbnail: {keys:?}");
    assert!(
        keys.iter()
            .all(|k| k.starts_with(&owner.org_id.to_string())),
        "{keys:?}"
    );
    let full = fetch(
        &app,
        &owner.client,
        &format!("/media/{}", item["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(full.bytes().await.unwrap().to_vec(), picture);
}

/// Makes every waiting copy due (the test's stand-in for time passing).
async fn due_now(app: &TestApp) {
    use sea_orm::{sea_query::Expr, EntityTrait};
    herald::media::entity::Entity::update_many()
        .col_expr(
            herald::media::entity::Column::NextTryAt,
            Expr::value(app.state.clock.now() - chrono::Duration::seconds(1)),
        )
        .exec(&app.state.db)
        .await
        .unwrap();
}

/// Files under `dir`, at any depth.
pub(crate) fn walk(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| {
                    let p = e.path();
                    if p.is_dir() {
                        walk(&p)
                    } else {
                        1
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}
