//! docs/deploy.md's proxy set-up, kept true: Herald (the real binary) behind a reverse proxy on
//! loopback that adds `X-Forwarded-For`, with `PUBLIC_URL` the proxy's address and
//! `TRUSTED_PROXY_HEADER` set. A webhook signed over the public address passes through the proxy;
//! one signed over Herald's own address does not; `/metrics` counts the proxy's client.
use crate::binary::{call, free_port, healthy, start};
use crate::helpers::*;
use crate::on_both_databases;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use serde_json::json;

const TOKEN: &str = "proxy-test-token";
/// The address the proxy says its client has.
const CLIENT: &str = "198.51.100.23";

/// Forwards every request to `upstream`, as nginx's `proxy_pass` with
/// `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for` and `Host $host` does.
async fn forward(State(upstream): State<String>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    let path = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut out = client.request(parts.method.clone(), format!("{upstream}{path}"));
    for (k, v) in parts.headers.iter() {
        if k != "x-forwarded-for" {
            out = out.header(k, v);
        }
    }
    let res = out
        .header("x-forwarded-for", CLIENT)
        .header("x-forwarded-proto", "https")
        .body(bytes)
        .send()
        .await
        .unwrap();
    let mut back = Response::builder().status(res.status().as_u16());
    for (k, v) in res.headers() {
        back = back.header(k.as_str(), v.as_bytes());
    }
    back.body(Body::from(res.bytes().await.unwrap()))
        .unwrap()
        .into_response()
}

async fn a_signed_webhook_through_the_proxy(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let port = free_port();
    let direct = format!("http://127.0.0.1:{port}");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let public = format!("http://{}", listener.local_addr().unwrap());
    let proxy = axum::Router::new()
        .fallback(forward)
        .with_state(direct.clone());
    tokio::spawn(async move { axum::serve(listener, proxy).await.unwrap() });
    let _server = start(
        &db,
        port,
        &[
            ("PUBLIC_URL", public.clone()),
            ("TWILIO_AUTH_TOKEN", TOKEN.into()),
            ("TRUSTED_PROXY_HEADER", "X-Forwarded-For".into()),
        ],
    );
    healthy(&direct).await;
    let owner = new_client();
    call(&owner, &public, "/api/auth/sign_up", json!({"form": {"organization_name": "Proxy Co", "name": "P", "email": "p@proxy.test", "password": "correct horse battery"}})).await;
    call(
        &owner,
        &public,
        "/api/numbers/create",
        json!({"input": {"number": "+14155550100", "friendly_name": "Main", "provider_sid": ""}}),
    )
    .await;
    let post = |signed_over: String, sid: &'static str| {
        let public = public.clone();
        async move {
            let params: Vec<(String, String)> =
                sms_params(sid, "+14155552671", "+14155550100", "Through the proxy")
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect();
            let sig = herald::messaging::signature::compute_signature(
                TOKEN,
                &format!("{signed_over}/webhooks/twilio/sms"),
                &params,
            );
            reqwest::Client::new()
                .post(format!("{public}/webhooks/twilio/sms"))
                .header("X-Twilio-Signature", sig)
                .form(&params)
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(
        post(public.clone(), "SMproxy000000000000000000000000001").await,
        200
    );
    assert_eq!(
        post(direct.clone(), "SMproxy000000000000000000000000002").await,
        403
    );
    let conversations: serde_json::Value = call(
        &owner,
        &public,
        "/api/conversations",
        serde_json::json!({"filter": "all", "after": null}),
    )
    .await;
    assert!(
        conversations.to_string().contains("Through the proxy"),
        "{conversations}"
    );
    // /metrics: the proxy's client is not loopback; Herald's own loopback caller is.
    let through = reqwest::get(format!("{public}/metrics"))
        .await
        .unwrap()
        .status();
    assert_eq!(through.as_u16(), 401);
    let local = reqwest::get(format!("{direct}/metrics"))
        .await
        .unwrap()
        .status();
    assert_eq!(local.as_u16(), 200);
}

on_both_databases!(a_signed_webhook_through_the_proxy);
