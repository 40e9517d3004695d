//! Issue 49 §10: malformed input to any server function is a 400 that names the field, never
//! Dioxus's 500 ("error deserializing …"). Every registered POST server function is sent bodies
//! no function reads (not JSON, a number, a string, null), signed in and signed out, and an
//! empty object signed out; then two of the review's own examples are checked word for word.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn post_raw(
    app: &TestApp,
    client: &reqwest::Client,
    path: &str,
    body: &str,
) -> (StatusCode, String) {
    let res = client
        .post(app.url(path))
        .header("Content-Type", "application/json")
        .header("Origin", "https://herald.example")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    (res.status(), res.text().await.unwrap())
}

async fn no_server_function_answers_malformed_input_with_500(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Malformed Co").await;
    let paths: Vec<&str> = dioxus::server::ServerFunction::collect()
        .iter()
        .filter(|f| f.method() == reqwest::Method::POST)
        .map(|f| f.path())
        .collect();
    assert!(paths.len() >= 100, "{} server functions", paths.len());
    let anon = new_client();
    for path in &paths {
        for (who, client) in [("signed in", &org.client), ("signed out", &anon)] {
            for body in ["{{", "123", "\"words\"", "null"] {
                let (status, text) = post_raw(&app, client, path, body).await;
                assert_eq!(
                    status,
                    StatusCode::BAD_REQUEST,
                    "{path} {who} {body}: {text}"
                );
                let reply: Value = serde_json::from_str(&text).unwrap();
                assert!(reply["data"]["Validation"].is_string(), "{path}: {reply}");
            }
        }
        let (status, text) = post_raw(&app, &anon, path, "{}").await;
        assert!(!status.is_server_error(), "{path} {{}}: {status} {text}");
    }
    // The review's examples: a missing digest on approve, "All" for a plan status.
    let op = uuid::Uuid::new_v4();
    let (status, reply) = app
        .call_as(&org.client, "/api/operations/approve", json!({"id": op}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("missing field `digest`"),
        "{reply}"
    );
    let (status, reply) = app
        .call_as(
            &org.client,
            "/api/plans/list",
            json!({"status": "All", "agent_id": null}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let words = reply["message"].as_str().unwrap();
    assert!(
        words.starts_with("The field `status` is malformed: unknown variant `All`"),
        "{words}"
    );
    // The session survived all of it.
    let me: Value = app.ok_as(&org.client, "/api/auth/me", Value::Null).await;
    assert_eq!(me["organization_name"], "Malformed Co");
}

on_both_databases!(no_server_function_answers_malformed_input_with_500);
