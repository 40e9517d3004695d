//! Another site cannot act for a signed-in member: state-changing server functions and the
//! live WebSocket refuse a cross-site Origin or Sec-Fetch-Site, and change nothing.
use crate::helpers::*;
use crate::live_socket::open_live_from;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::json;

async fn another_site_cannot_act_for_a_member(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Csrf Co").await;
    let create = |headers: Vec<(&'static str, String)>| {
        let mut req = org.client.post(app.url("/api/contacts/create")).json(
            &json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": "Forged", "phone": "+14155552699", "email": "", "tags": []}}),
        );
        for (k, v) in headers {
            req = req.header(k, v);
        }
        req.send()
    };
    let here = app.base.clone();
    let refused = [
        vec![("origin", "https://evil.example".to_owned())],
        vec![("origin", "null".to_owned())],
        vec![("sec-fetch-site", "cross-site".to_owned())],
        vec![
            ("origin", here.clone()),
            ("sec-fetch-site", "cross-site".to_owned()),
        ],
    ];
    for headers in refused {
        let res = create(headers.clone()).await.unwrap();
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "{headers:?}");
        assert!(res.text().await.unwrap().contains("another site"));
    }
    assert_eq!(app.count("contact").await, 0, "nothing was created");

    // The app's own pages, and callers that are not browsers, go through.
    let res = create(vec![
        ("origin", here.clone()),
        ("sec-fetch-site", "same-origin".to_owned()),
    ])
    .await
    .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    assert_eq!(app.count("contact").await, 1);

    // Reading is not changing: a cross-site GET is answered (the cookie's SameSite rules it).
    let (status, _) = app
        .call_as(&org.client, "/api/numbers", serde_json::Value::Null)
        .await;
    assert!(status.is_success());

    // A page on another site cannot open a member's live socket.
    let live = open_live_from(&app, Some(&org), "inbox", Some("https://evil.example"))
        .await
        .err();
    assert_eq!(live, Some(StatusCode::FORBIDDEN));
    assert!(open_live_from(&app, Some(&org), "inbox", Some(&here))
        .await
        .is_ok());
}

on_both_databases!(another_site_cannot_act_for_a_member);
