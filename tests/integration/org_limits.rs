//! Issue 49 §6: limits per organisation. Its API keys together share one rate, so more keys buy
//! no more requests (another organisation's key is not slowed); it holds a bounded number of keys,
//! saved replies and open invitations, and a bounded size of pictures waiting to be sent; each
//! refusal says which limit and what to do.
use crate::api_client::{new_key, Api};
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::json;

fn small() -> herald::platform::limits::Limits {
    herald::platform::limits::Limits {
        api_rate_per_second: 1,
        api_burst: 4,
        api_keys: 3,
        // A new organisation's five starters count: two more fit.
        saved_replies: 7,
        open_invitations: 2,
        upload_bytes: 100_000,
    }
}

async fn an_organisation_stays_within_its_limits(backend: Backend) {
    let opts = Options {
        limits: Some(small()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Limited").await;
    let other = app.new_org("Neighbour").await;

    // Three keys, each allowed 1,000 a second: together still four at once, then one a second.
    let mut keys = Vec::new();
    for i in 0..3 {
        let (token, _) = new_key(
            &app,
            &org,
            &format!("k{i}"),
            &["contacts:read"],
            Some((1000, 1000)),
        )
        .await;
        keys.push(token);
    }
    let (status, reply) = app
        .call_as(
            &org.client,
            "/api/api_keys/create",
            json!({"name": "k3", "scopes": ["contacts:read"], "rate_per_second": null, "burst": null}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("at most 3 API keys"),
        "{reply}"
    );
    let api = Api::new(&app, &keys[0]).await;
    let mut limited = 0;
    for i in 0..9 {
        let answer = api.with_token(&keys[i % 3]).get("/contacts?limit=1").await;
        if answer.status == StatusCode::TOO_MANY_REQUESTS {
            limited += 1;
            assert!(answer.headers.contains_key("retry-after"));
        }
    }
    assert!(
        limited >= 4,
        "the organisation's shared limit: {limited} of 9 refused"
    );
    let (theirs, _) = new_key(&app, &other, "theirs", &["contacts:read"], None).await;
    let answer = api.with_token(&theirs).get("/contacts?limit=1").await;
    assert_eq!(
        answer.status,
        StatusCode::OK,
        "another organisation is not slowed"
    );

    // Saved replies and open invitations.
    for i in 0..3 {
        let (status, reply) = app
            .call_as(
                &org.client,
                "/api/saved_replies/save",
                json!({"id": null, "input": {"name": format!("Reply {i}"), "body": "Hello"}}),
            )
            .await;
        if i < 2 {
            assert_eq!(status, StatusCode::OK, "{reply}");
        } else {
            assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
            assert!(reply["message"]
                .as_str()
                .unwrap()
                .contains("at most 7 saved replies"));
        }
    }
    for i in 0..3 {
        let (status, reply) = app
            .call_as(
                &org.client,
                "/api/invitations/create",
                json!({"role": "member"}),
            )
            .await;
        if i < 2 {
            assert_eq!(status, StatusCode::OK, "{reply}");
        } else {
            assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
            assert!(reply["message"]
                .as_str()
                .unwrap()
                .contains("2 open invitations"));
        }
    }

    // Pictures kept for texts not sent yet: 100 KB here.
    let picture = noisy_png(120, 100);
    assert!(picture.len() > 30_000, "{}", picture.len());
    let mut sizes = 0;
    let mut refused = None;
    for _ in 0..20 {
        let (status, reply) =
            crate::media_send::upload(&app, &org.client, "image/png", picture.clone()).await;
        if status == StatusCode::OK {
            sizes += picture.len();
            continue;
        }
        refused = Some((status, reply));
        break;
    }
    let (status, reply) = refused.expect("the quota is reached");
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert!(reply.to_string().contains("its limit"), "{reply}");
    assert!(
        sizes <= 100_000 && sizes + picture.len() > 100_000,
        "{sizes}"
    );
}

/// A picture of noise: it does not compress, so its size is about its pixels'.
fn noisy_png(w: u32, h: u32) -> Vec<u8> {
    let mut x: u32 = 2463534242;
    let img = image::RgbImage::from_fn(w, h, |_, _| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        image::Rgb([x as u8, (x >> 8) as u8, (x >> 16) as u8])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

on_both_databases!(an_organisation_stays_within_its_limits);
