//! Another organisation's ids answer 404 on every server function, and lists never leak.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn every_server_function_is_scoped(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let a = app.new_org("Alpha").await;
    let b = app.new_org("Bravo").await;
    let a_number = app.add_number(&a, "+14155550100").await;
    let b_number = app.add_number(&b, "+14155550200").await;
    let a_contact = app.add_contact(&a, "Alpha Person", "+14155552671").await;
    let b_contact = app.add_contact(&b, "Bravo Person", "+14155552672").await;
    app.post_webhook(
        &sms_params(
            "SMalpha0000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "alpha secret",
        ),
        None,
    )
    .await;

    let contact_input = json!({"name": "Hijack", "phone": "+14155552673", "email": "", "tags": []});
    let contact_input2 = contact_input.clone();
    let not_found: Vec<(&str, Value)> = vec![
        ("/api/contacts/get", json!({"id": a_contact})),
        (
            "/api/contacts/update",
            json!({"id": a_contact, "input": contact_input}),
        ),
        (
            "/api/contacts/opt_out",
            json!({"id": a_contact, "opted_out": true}),
        ),
        ("/api/conversations/get", json!({"contact_id": a_contact})),
        (
            "/api/messages/send",
            json!({"request": {"contact_id": a_contact, "phone_number_id": b_number, "body": "x"}}),
        ),
        (
            "/api/messages/send",
            json!({"request": {"contact_id": b_contact, "phone_number_id": a_number, "body": "x"}}),
        ),
        (
            "/api/numbers/update",
            json!({"id": a_number, "input": {"number": "+14155550300", "friendly_name": "mine", "provider_sid": ""}}),
        ),
        (
            "/api/simulator/send",
            json!({"text": {"from": "+14155552679", "to_number_id": a_number, "body": "x"}}),
        ),
    ];
    for (path, body) in not_found {
        let (status, reply) = app.call_as(&b.client, path, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {reply}");
    }

    let lists: Vec<(&str, Value)> = vec![
        ("/api/contacts/search", json!({"query": ""})),
        ("/api/conversations", Value::Null),
        ("/api/numbers", Value::Null),
        ("/api/members", Value::Null),
    ];
    for (path, body) in lists {
        let reply: Value = app.ok_as(&b.client, path, body).await;
        let text = reply.to_string();
        assert!(
            !text.contains("Alpha")
                && !text.contains(&a_contact.to_string())
                && !text.contains("+14155550100"),
            "{path} leaks: {text}"
        );
    }
    let report: Value = app
        .ok_as(
            &b.client,
            "/api/contacts/import",
            json!({"csv": "name,phone\nNew,+14155552671\n"}),
        )
        .await;
    assert_eq!(
        report["imported"], 1,
        "the same phone in another organisation is a different contact"
    );

    // Nothing of A's changed.
    let a_view: Value = app
        .ok_as(&a.client, "/api/contacts/get", json!({"id": a_contact}))
        .await;
    assert_eq!(a_view["name"], "Alpha Person");
    assert_eq!(a_view["opted_out"], false);
    let numbers: Value = app.ok_as(&a.client, "/api/numbers", Value::Null).await;
    assert_eq!(numbers[0]["number"], "+14155550100");
    assert_eq!(app.count("message").await, 1);

    // Without a session, every server function says to sign in.
    let anon = new_client();
    let anon_calls: Vec<(&str, Value)> = vec![
        ("/api/contacts/search", json!({"query": ""})),
        ("/api/contacts/get", json!({"id": a_contact})),
        ("/api/contacts/create", json!({"input": contact_input2})),
        (
            "/api/contacts/import",
            json!({"csv": "name,phone\nX,+14155552677\n"}),
        ),
        ("/api/conversations/get", json!({"contact_id": a_contact})),
        (
            "/api/messages/send",
            json!({"request": {"contact_id": a_contact, "phone_number_id": a_number, "body": "x"}}),
        ),
        (
            "/api/numbers/create",
            json!({"input": {"number": "+14155550999", "friendly_name": "x", "provider_sid": ""}}),
        ),
        (
            "/api/members/add",
            json!({"form": {"name": "x", "email": "x@x.test", "password": "longenough"}}),
        ),
        (
            "/api/simulator/send",
            json!({"text": {"from": "+14155552679", "to_number_id": a_number, "body": "x"}}),
        ),
    ];
    for (path, body) in anon_calls {
        let (status, _) = app.call_as(&anon, path, body).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
    }
    for path in ["/api/conversations", "/api/numbers", "/api/members"] {
        let (status, _) = app.call_as(&anon, path, Value::Null).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
    }
    let live = crate::live_socket::open_live(&app, None, "inbox")
        .await
        .err();
    assert_eq!(live, Some(StatusCode::UNAUTHORIZED), "/api/live/ws");
}

on_both_databases!(every_server_function_is_scoped);
