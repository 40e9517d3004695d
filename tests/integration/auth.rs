//! Sign-up, sign-in, sessions, cookies, rate limiting and members.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn sign_up_sign_in_sign_out(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Acme").await;
    let me: Value = app.ok_as(&org.client, "/api/auth/me", Value::Null).await;
    assert_eq!(me["organization_name"], "Acme");
    assert_eq!(me["role"], "owner");

    // The session lives in the database and the cookie is HttpOnly, SameSite=Lax and Secure over https.
    let fresh = new_client();
    let res = fresh
        .post(app.url("/api/auth/sign_in"))
        .json(&json!({"form": {"email": org.email, "password": "correct horse battery"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let cookie = res
        .headers()
        .get("set-cookie")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(cookie.starts_with("herald_session="), "{cookie}");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Secure"),
        "{cookie}"
    );
    assert_eq!(app.count("session").await, 2);

    let (status, _) = app.call_as(&fresh, "/api/auth/sign_out", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        app.count("session").await,
        1,
        "signing out deletes the session row"
    );
    let me: Value = app.ok_as(&fresh, "/api/auth/me", Value::Null).await;
    assert_eq!(me, Value::Null);
    let (status, body) = app
        .call_as(&fresh, "/api/contacts/search", json!({"query": ""}))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["message"], "Please sign in to continue.");
}

async fn cookie_is_not_secure_over_http(backend: Backend) {
    let opts = Options {
        public_url: "http://127.0.0.1:8080".into(),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let res = new_client()
        .post(app.url("/api/auth/sign_up"))
        .json(&json!({"form": {"organization_name": "Plain", "name": "P", "email": "p@plain.test", "password": "longenough"}}))
        .send()
        .await
        .unwrap();
    let cookie = res
        .headers()
        .get("set-cookie")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        cookie.contains("HttpOnly") && !cookie.contains("Secure"),
        "{cookie}"
    );
}

async fn bad_credentials_and_rate_limit(backend: Backend) {
    let opts = Options {
        sign_in_attempts_per_minute: 5,
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Limits").await;
    let client = new_client();
    let attempt = |password: &'static str| {
        app.call_as(
            &client,
            "/api/auth/sign_in",
            json!({"form": {"email": org.email, "password": password}}),
        )
    };
    let (status, body) = attempt("wrong password").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        body["message"],
        "That email and password do not match an account."
    );
    for _ in 0..4 {
        attempt("wrong password").await;
    }
    let (status, body) = attempt("correct horse battery").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("Too many sign-in attempts"),
        "{body}"
    );
    // Another email from the same address is limited too.
    let (status, _) = app
        .call_as(
            &client,
            "/api/auth/sign_in",
            json!({"form": {"email": "x@y.test", "password": "whatever1"}}),
        )
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
}

/// Sign-up is limited per address and per email (normalised as accounts store it).
async fn sign_up_is_rate_limited(backend: Backend) {
    let opts = Options {
        sign_ups_per_minute: 3,
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    for i in 0..3 {
        app.new_org(&format!("Org {i}")).await;
    }
    let (status, body) = app
        .call_as(
            &new_client(),
            "/api/auth/sign_up",
            json!({"form": {"organization_name": "One too many", "name": "X", "email": "late@x.test", "password": "correct horse battery"}}),
        )
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert!(body["message"]
        .as_str()
        .unwrap()
        .starts_with("Too many sign-ups"));
    assert_eq!(app.count("organization").await, 3);
}

/// A client address from a header counts only when a proxy is trusted to set it; otherwise a
/// caller could pick a fresh address for every attempt. Emails count however they are typed.
async fn proxy_addresses_only_when_trusted(backend: Backend) {
    for trusted in [false, true] {
        let opts = Options {
            sign_in_attempts_per_minute: 3,
            trusted_proxy_header: trusted.then(|| "x-forwarded-for".to_owned()),
            ..Default::default()
        };
        let Some(app) = spawn_app_with(backend, opts).await else {
            return;
        };
        let client = new_client();
        let mut limited = 0;
        for i in 0..6 {
            let res = client
                .post(app.url("/api/auth/sign_in"))
                .header("x-forwarded-for", format!("203.0.113.9, 198.51.100.{i}"))
                .json(&json!({"form": {"email": format!("user{i}@x.test"), "password": "wrong password"}}))
                .send()
                .await
                .unwrap();
            if res.status() == StatusCode::TOO_MANY_REQUESTS {
                limited += 1;
            }
        }
        if trusted {
            assert_eq!(limited, 0, "each proxied address has its own allowance");
        } else {
            assert_eq!(
                limited, 3,
                "the header is ignored: one address, three attempts"
            );
        }
    }
    let opts = Options {
        sign_in_attempts_per_minute: 3,
        trusted_proxy_header: Some("x-forwarded-for".to_owned()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let mut last = StatusCode::OK;
    for (i, email) in ["Same@X.test", " same@x.test", "SAME@x.TEST ", "same@x.test"]
        .iter()
        .enumerate()
    {
        // One address: the email counts however it is typed.
        last = new_client()
            .post(app.url("/api/auth/sign_in"))
            .header("x-forwarded-for", "198.51.100.7")
            .json(&json!({"form": {"email": email, "password": format!("wrong {i}")}}))
            .send()
            .await
            .unwrap()
            .status();
    }
    assert_eq!(
        last,
        StatusCode::TOO_MANY_REQUESTS,
        "one email, however typed"
    );
}

/// Issue 49 §9: a stranger who keeps trying someone's email from their own address is slowed
/// down more and more, and the person still signs in from theirs at once.
async fn a_stranger_cannot_lock_a_person_out(backend: Backend) {
    // Ten a minute, as by default: the stranger's twelve tries would have used up the email's.
    let opts = Options {
        sign_in_attempts_per_minute: 10,
        trusted_proxy_header: Some("x-forwarded-for".to_owned()),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let org = app.new_org("Lockout").await;
    let try_from = |address: &'static str, password: &'static str| {
        let email = org.email.clone();
        let url = app.url("/api/auth/sign_in");
        async move {
            let res = new_client()
                .post(url)
                .header("x-forwarded-for", address)
                .json(&json!({"form": {"email": email, "password": password}}))
                .send()
                .await
                .unwrap();
            let status = res.status();
            (status, res.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let mut waits = Vec::new();
    for _ in 0..12 {
        let (status, body) = try_from("203.0.113.66", "guess guess").await;
        if status == StatusCode::TOO_MANY_REQUESTS {
            waits.push(body["message"].as_str().unwrap_or_default().to_owned());
        } else {
            assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        }
    }
    assert!(waits.iter().all(|w| w.starts_with("Too many")), "{waits:?}");
    assert!(
        waits[0].starts_with("Too many wrong passwords from here"),
        "{waits:?}"
    );
    assert!(
        waits.len() >= 6,
        "the stranger waits after five wrong passwords: {waits:?}"
    );
    // The person, from their own address, signs straight in.
    let (status, body) = try_from("198.51.100.20", "correct horse battery").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["SignedIn"]["organization_name"], "Lockout");
}

async fn sign_up_validation(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Taken").await;
    let c = new_client();
    let (status, body) = app
        .call_as(&c, "/api/auth/sign_up", json!({"form": {"organization_name": "Again", "name": "", "email": org.email.to_uppercase(), "password": "longenough"}}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let (status, body) = app
        .call_as(&c, "/api/auth/sign_up", json!({"form": {"organization_name": "X", "name": "", "email": "a@b.test", "password": "short"}}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["message"].as_str().unwrap().contains("at least 8"));
    assert_eq!(
        app.count("organization").await,
        1,
        "a refused sign-up creates nothing"
    );
}

async fn owner_adds_members(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Team Co").await;
    app.invite(&org, "Mo", "mo@team.test", "member-pass", "member")
        .await;
    let members: Value = app.ok_as(&org.client, "/api/members", Value::Null).await;
    assert_eq!(members.as_array().unwrap().len(), 2);
    let mo = new_client();
    let me: Value = app
        .ok_as(
            &mo,
            "/api/auth/sign_in",
            json!({"form": {"email": "mo@team.test", "password": "member-pass"}}),
        )
        .await;
    assert_eq!(me["SignedIn"]["role"], "member");
    assert_eq!(me["SignedIn"]["organization_id"], org.org_id.to_string());
    let (status, _) = app
        .call_as(&mo, "/api/invitations/create", json!({"role": "member"}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "only owners invite");
    let (status, _) = app
        .call_as(
            &mo,
            "/api/numbers/create",
            json!({"input": {"number": "+14155550111", "friendly_name": "x", "provider_sid": ""}}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "only owners add numbers");
}

/// The sweep deletes sessions past their expiry, and their cookies no longer sign anyone in.
async fn expired_sessions_are_swept(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let old = app.new_org("Old Co").await;
    let fresh = app.new_org("Fresh Co").await;
    use herald::auth::entity::session;
    use sea_orm::sea_query::Expr;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    let now = app.state.clock.now();
    session::Entity::update_many()
        .col_expr(
            session::Column::ExpiresAt,
            Expr::value(now - chrono::Duration::hours(1)),
        )
        .filter(session::Column::OrganizationId.eq(old.org_id))
        .exec(&app.state.db)
        .await
        .unwrap();
    assert_eq!(app.count("session").await, 2);
    let swept = herald::auth::session::sweep_expired(&app.state)
        .await
        .unwrap();
    assert_eq!(swept, 1);
    assert_eq!(app.count("session").await, 1);
    let (status, _) = app.call_as(&old.client, "/api/numbers", Value::Null).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app
        .call_as(&fresh.client, "/api/numbers", Value::Null)
        .await;
    assert!(status.is_success());
}

on_both_databases!(
    expired_sessions_are_swept,
    sign_up_is_rate_limited,
    proxy_addresses_only_when_trusted,
    a_stranger_cannot_lock_a_person_out,
    sign_up_sign_in_sign_out,
    cookie_is_not_secure_over_http,
    bad_credentials_and_rate_limit,
    sign_up_validation,
    owner_adds_members,
);
