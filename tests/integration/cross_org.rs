//! Every server function × {another organisation, a member without the role, signed out}. The
//! table is checked against the server functions the router serves, so a new one cannot be
//! added without a row: another organisation's ids answer 404 and its lists leak nothing, a
//! member gets 403 for an owner's power and through otherwise, and no session gets 401.
use crate::campaign_support::*;
use crate::cross_org_table::{alpha, table, Other, Role, Row};
use crate::helpers::*;
use crate::live_socket::open_live;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// Calls a row's function; the live socket is opened as a browser would.
pub(crate) async fn call(app: &TestApp, who: Option<&Org>, r: &Row) -> (StatusCode, Value) {
    if r.path == "/api/live/ws" {
        return match open_live(app, who, "inbox").await {
            Ok(_) => (StatusCode::SWITCHING_PROTOCOLS, Value::Null),
            Err(status) => (status, Value::Null),
        };
    }
    let anon = new_client();
    let client = who.map_or(&anon, |o| &o.client);
    let body = match (r.path, who) {
        ("/api/auth/password", Some(o)) => json!({"current": o.password, "new": o.password}),
        _ => r.body.clone(),
    };
    let reply = app.call_as(client, r.path, body).await;
    if let ("/api/auth/sessions/end_all", Some(o)) = (r.path, who) {
        // Signed out everywhere: sign in again, so that the rest of the table runs.
        let _: Value = app
            .ok_as(
                &o.client,
                "/api/auth/sign_in",
                json!({"form": {"email": o.email, "password": o.password}}),
            )
            .await;
    }
    reply
}

fn leaks(reply: &Value, secrets: &[String]) -> Option<String> {
    let text = reply.to_string();
    secrets.iter().find(|s| text.contains(s.as_str())).cloned()
}

async fn every_server_function_is_scoped(backend: Backend) {
    let Some(app) = spawn_app_with(backend, crate::cross_org_alpha::alpha_options()).await else {
        return;
    };
    let c = crm(&app).await;
    let member = app.add_member(&c.org, "Mo").await;
    let a = alpha(&app, &c, &member).await;
    let b = app.new_org("Bravo").await;
    let rows = table(&a, &c);

    // The table covers exactly the server functions the router serves.
    let served: BTreeSet<String> = dioxus::server::ServerFunction::collect()
        .iter()
        .map(|f| f.path().split('?').next().unwrap_or_default().to_owned())
        .collect();
    let listed: BTreeSet<String> = rows.iter().map(|r| r.path.to_owned()).collect();
    assert_eq!(
        served.difference(&listed).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "server functions without a row in this table"
    );
    assert_eq!(
        listed.difference(&served).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "rows for functions the router does not serve"
    );

    // Two more columns: a removed member's old session, and a session ended by its person's
    // password change elsewhere. Both are signed out for every function.
    let removed = app.add_member(&c.org, "Rex").await;
    let rex: Value = app
        .ok_as(&removed.client, "/api/auth/me", Value::Null)
        .await;
    let mut rex_page = open_live(&app, Some(&removed), "inbox")
        .await
        .expect("Rex's page");
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/members/remove",
            json!({"user_id": rex["user_id"]}),
        )
        .await;
    let pat = app.add_member(&c.org, "Pat").await;
    let pat_elsewhere = new_client();
    let _: Value = app
        .ok_as(
            &pat_elsewhere,
            "/api/auth/sign_in",
            json!({"form": {"email": pat.email, "password": pat.password}}),
        )
        .await;
    let mut pat_page = open_live(&app, Some(&pat), "inbox")
        .await
        .expect("Pat's page");
    let ended: u64 = app
        .ok_as(
            &pat.client,
            "/api/auth/password",
            json!({"current": pat.password, "new": "a brand new password"}),
        )
        .await;
    assert_eq!(
        ended, 2,
        "the other sessions (a browser and a page's) ended"
    );
    for (page, label) in [
        (&mut rex_page, "a removed member's"),
        (&mut pat_page, "a password-changed"),
    ] {
        assert!(
            crate::live_socket::closes_within(page, std::time::Duration::from_secs(5)).await,
            "{label} open page is closed at once"
        );
    }
    let stale = Org {
        client: pat_elsewhere,
        org_id: c.org.org_id,
        email: pat.email.clone(),
        password: "a brand new password",
    };
    for r in rows.iter().filter(|r| r.role != Role::Anyone) {
        for (who, label) in [
            (&removed, "a removed member"),
            (&stale, "a session ended by a password change"),
        ] {
            if r.path == "/api/live/ws" {
                continue; // its open pages closed, above
            }
            let status = app.call_as(&who.client, r.path, r.body.clone()).await.0;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{} as {label}", r.path);
        }
    }

    for r in &rows {
        // Signed out: 401, unless anyone may call it; nothing of A's either way.
        let (status, reply) = call(&app, None, r).await;
        if r.role == Role::Anyone {
            assert!(!status.is_server_error(), "{} signed out: {status}", r.path);
        } else {
            assert_eq!(
                status,
                StatusCode::UNAUTHORIZED,
                "{} signed out: {reply}",
                r.path
            );
        }
        assert_eq!(
            leaks(&reply, &a.secrets),
            None,
            "{} signed out leaks",
            r.path
        );

        // Another organisation's owner (sign-up and sign-out from a client of their own, so
        // that Bravo stays signed in).
        let (status, reply) = if r.role == Role::Anyone {
            call(&app, None, r).await
        } else {
            call(&app, Some(&b), r).await
        };
        match (r.other, r.role) {
            (Other::NotFound, _) => {
                assert_eq!(
                    status,
                    StatusCode::NOT_FOUND,
                    "{} from Bravo: {reply}",
                    r.path
                )
            }
            (Other::Own, Role::Anyone) => assert!(!status.is_server_error(), "{}", r.path),
            (Other::Refused, _) => assert_eq!(
                status,
                StatusCode::BAD_REQUEST,
                "{} from Bravo: {reply}",
                r.path
            ),
            (Other::Own, _) => {
                let ok = status.is_success() || status == StatusCode::SWITCHING_PROTOCOLS;
                assert!(ok, "{} from Bravo: {status} {reply}", r.path)
            }
        }
        assert_eq!(
            leaks(&reply, &a.secrets),
            None,
            "{} from Bravo leaks",
            r.path
        );
    }

    // A member of A's own organisation: refused an owner's power, and let through otherwise
    // (a record already in another state may answer 409, never 401, 403 or 404).
    for r in rows.iter().filter(|r| r.role != Role::Anyone) {
        let (status, reply) = call(&app, Some(&member), r).await;
        if r.role == Role::Itself {
            assert_eq!(
                status,
                StatusCode::NOT_FOUND,
                "{} as a member: {reply}",
                r.path
            );
        } else if r.role == Role::Owner {
            assert_eq!(
                status,
                StatusCode::FORBIDDEN,
                "{} as a member: {reply}",
                r.path
            );
            assert!(reply.to_string().contains("owner"), "{}: {reply}", r.path);
        } else {
            let through = status.is_success()
                || status == StatusCode::SWITCHING_PROTOCOLS
                || status == StatusCode::CONFLICT;
            assert!(through, "{} as a member: {status} {reply}", r.path);
        }
    }

    // Mixed ids, each half Bravo's own: still nothing of A's can be used.
    let b_number = app.add_number(&b, "+14155550200").await;
    let b_contact = app.add_contact(&b, "Bravo Person", "+14155552672").await;
    for (path, body) in [
        (
            "/api/messages/send",
            json!({"request": {"contact_id": c.katherine, "phone_number_id": b_number, "body": "from outside"}}),
        ),
        (
            "/api/messages/send",
            json!({"request": {"contact_id": b_contact, "phone_number_id": a.number, "body": "from outside"}}),
        ),
        (
            "/api/agents/assign_numbers",
            json!({"id": a.agent, "number_ids": [b_number]}),
        ),
    ] {
        let (status, reply) = app.call_as(&b.client, path, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {reply}");
    }
    // A contact with the same phone in another organisation is a different contact.
    let report: Value = app
        .ok_as(
            &b.client,
            "/api/contacts/import",
            json!({"csv": "name,phone\nNew,+14155552674\n"}),
        )
        .await;
    assert_eq!(report["imported"], 1);

    // Nothing of A's changed from outside, and no owner's power was used by the member.
    let view: Value = app
        .ok_as(&c.org.client, "/api/contacts/get", json!({"id": c.boris}))
        .await;
    assert_eq!(view["opted_out"], true, "Boris's manual opt-out stands");
    let numbers: Value = app.ok_as(&c.org.client, "/api/numbers", Value::Null).await;
    assert_eq!(numbers[0]["number"], "+14155550100");
    assert_eq!(numbers[0]["friendly_name"], "Main");
    assert_eq!(
        app.count_where("ai_agent", "send_mode = 'autonomous'")
            .await,
        1
    );
    assert_eq!(app.count_where("message", "body = 'from outside'").await, 0);
    assert_eq!(
        app.count_where("message", "body = 'from the table'").await,
        2,
        "only the member's own send and simulated text went in"
    );
}

on_both_databases!(every_server_function_is_scoped);
