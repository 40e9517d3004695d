//! The public API (issue 31 §1–2): an owner's key, shown once and stored hashed, reaches the
//! organisation's own contacts, conversations, texts and plans through `/v1`, each answer checked
//! against the OpenAPI document (`api_client`). Bad input is a problem detail; another
//! organisation's contact is not found; an idempotent send texts once, and another body under
//! its key is 409; a revoked key is 401; each call is audited with the key as its actor.
use crate::api_client::*;
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

on_both_databases!(
    a_key_reaches_the_organisation_as_the_app_does,
    a_key_over_its_rate_waits
);

async fn a_key_reaches_the_organisation_as_the_app_does(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    let number = app.add_number(&owner, "+14155550100").await;
    let dana = app.add_member(&owner, "Dana").await;

    // Only an owner makes keys, with known scopes and a name.
    let ask = |name: &str, scopes: Value| json!({"name": name, "scopes": scopes, "rate_per_second": null, "burst": null});
    let (s, _) = app
        .call_as(
            &dana.client,
            "/api/api_keys/create",
            ask("Mine", json!(["contacts:read"])),
        )
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, v) = app
        .call_as(
            &owner.client,
            "/api/api_keys/create",
            ask("Zap", json!(["admin"])),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    let (token, key_id) = new_key(&app, &owner, "Zapier", &ALL_SCOPES, None).await;
    assert!(token.starts_with("herald_") && token.len() > 40, "{token}");
    let page: Value = app
        .ok_as(&owner.client, "/api/api_keys", json!({"before": null}))
        .await;
    assert_eq!(page["total"], 1);
    assert_eq!(page["keys"][0]["name"], "Zapier");
    assert!(token.starts_with(page["keys"][0]["prefix"].as_str().unwrap()));
    assert!(
        !page.to_string().contains(&token),
        "the key is shown once only"
    );
    assert_eq!(
        app.count_where("api_key", &format!("token_hash LIKE '%{}%'", &token[7..20]))
            .await,
        0,
        "only a hash of the key is stored"
    );

    let api = Api::new(&app, &token).await;
    assert!(api.doc["openapi"].as_str().unwrap().starts_with("3.1"));

    // Contacts: create (the phone made E.164), bad input as a problem, import, pages, filters.
    let ada = api
        .post(
            "/contacts",
            json!({"name": "Ada Lovelace", "phone": "(415) 555-2671", "tags": ["vip"],
                   "consent": {"source": "web_form", "note": "signed up on the site"}}),
        )
        .await;
    assert_eq!(ada.status, StatusCode::CREATED, "{}", ada.body);
    assert_eq!(ada.body["phone"], "+14155552671");
    let ada_id = ada.body["id"].as_str().unwrap().to_owned();
    for bad in [
        json!({"name": "Bad phone", "phone": "12"}),
        json!({"name": "X", "phone": "+14155552679", "colour": "red"}),
        json!({"name": "X", "phone": "+14155552679", "consent": {"source": "texted_first"}}),
    ] {
        let r = api.post("/contacts", bad.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}: {}", r.body);
        assert!(!r.body["detail"].as_str().unwrap().is_empty());
    }
    let imported = api
        .post(
            "/contacts/import",
            Value::String("name,phone,tags\nBob,+14155552672,vip\nCy,+14155552673,\n".into()),
        )
        .await;
    assert_eq!(imported.body["imported"], 2, "{}", imported.body);
    let first = api.get("/contacts?limit=2").await;
    assert_eq!(
        (
            first.body["total"].clone(),
            first.body["data"].as_array().unwrap().len()
        ),
        (json!(3), 2)
    );
    let next = first.body["next_cursor"].as_str().unwrap();
    let last = api.get(&format!("/contacts?limit=2&cursor={next}")).await;
    assert_eq!(last.body["data"].as_array().unwrap().len(), 1);
    assert!(last.body["next_cursor"].is_null());
    assert_eq!(api.get("/contacts?tags=vip").await.body["total"], 2);
    // Any segment filter, in the body: tagged vip and not Ada, paged.
    let found = api
        .post(
            "/contacts/search",
            json!({"filter": {"tags_any": ["vip"], "search": "Bob"}, "limit": 1}),
        )
        .await;
    assert_eq!(
        (
            found.body["total"].clone(),
            found.body["data"][0]["name"].clone()
        ),
        (json!(1), json!("Bob")),
        "{}",
        found.body
    );
    let bad = api
        .post(
            "/contacts/search",
            json!({"filter": {"replied_within_days": "soon"}}),
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        api.get("/contacts?cursor=forged").await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        api.get("/contacts?limit=500").await.status,
        StatusCode::BAD_REQUEST
    );
    let patched = api
        .call(
            Method::PATCH,
            &format!("/contacts/{ada_id}"),
            Some(json!({"notes": "likes mornings"})),
            &[],
        )
        .await;
    assert_eq!(patched.body["notes"], "likes mornings", "{}", patched.body);
    assert_eq!(patched.body["name"], "Ada Lovelace");
    assert_eq!(patched.body["tags"], json!(["vip"]));

    // Another organisation's contact is not found.
    let other = app.new_org("Elsewhere").await;
    let theirs = app.add_contact(&other, "Zed", "+14155559999").await;
    assert_eq!(
        api.get(&format!("/contacts/{theirs}")).await.status,
        StatusCode::NOT_FOUND
    );
    let r = api
        .post("/messages", json!({"contact_id": theirs, "body": "hello"}))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.body);

    // An idempotent send: once, the replay answers the same text, another body is 409.
    let text = json!({"contact_id": ada_id, "phone_number_id": number, "body": "Your cleaning is booked for Tuesday."});
    let send = |body: Value| {
        let api = &api;
        async move {
            api.call(
                Method::POST,
                "/messages",
                Some(body),
                &[("Idempotency-Key", "booking-77")],
            )
            .await
        }
    };
    let one = send(text.clone()).await;
    assert_eq!(one.status, StatusCode::CREATED, "{}", one.body);
    let again = send(text.clone()).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
    assert_eq!(again.body["id"], one.body["id"]);
    assert_eq!(again.headers["idempotent-replayed"], "true");
    let mut changed = text.clone();
    changed["body"] = json!("Your cleaning is booked for Wednesday.");
    assert_eq!(send(changed).await.status, StatusCode::CONFLICT);
    app.settle().await;
    assert_eq!(
        app.count_where("message", "body = 'Your cleaning is booked for Tuesday.'")
            .await,
        1
    );
    // Every check the composer's send makes: an opted-out contact is refused.
    app.post_webhook(
        &sms_params(
            "SMapi00000000000000000000000001",
            "+14155552672",
            "+14155550100",
            "STOP",
        ),
        None,
    )
    .await;
    app.settle().await;
    let bob = api.get("/contacts?search=Bob").await.body["data"][0].clone();
    assert_eq!(bob["opted_out"], true, "{bob}");
    let refused = api
        .post(
            "/messages",
            json!({"contact_id": bob["id"], "body": "Sale today!"}),
        )
        .await;
    assert!(refused.status.is_client_error(), "{}", refused.body);
    assert_eq!(app.count_where("message", "body = 'Sale today!'").await, 0);

    // Conversations and their messages; segments, numbers, agents and plans read.
    let convs = api.get("/conversations").await;
    assert!(convs.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["contact_id"] == ada_id.as_str()));
    assert_eq!(
        api.get("/conversations?view=nonsense").await.status,
        StatusCode::BAD_REQUEST
    );
    let msgs = api.get(&format!("/conversations/{ada_id}/messages")).await;
    assert_eq!(
        msgs.body["data"][0]["body"],
        "Your cleaning is booked for Tuesday."
    );
    assert_eq!(
        api.get("/numbers").await.body["data"][0]["id"],
        number.to_string()
    );
    assert!(api.get("/agents").await.body["total"].as_u64().unwrap() >= 1);
    assert_eq!(api.get("/segments").await.status, StatusCode::OK);
    assert_eq!(api.get("/plans").await.body["total"], 0);
    assert_eq!(api.get("/nowhere").await.status, StatusCode::NOT_FOUND);

    // Each write is audited with the key as its actor; reads are counted on the key instead of
    // an audit row each (issue 49 §6).
    let audit: Value = app
        .ok_as(&owner.client, "/api/audit", json!({"before": null}))
        .await;
    let calls: Vec<&Value> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "api_call")
        .collect();
    assert!(
        calls.iter().all(|e| e["actor"] == "API key \"Zapier\""),
        "{audit}"
    );
    assert!(calls
        .iter()
        .any(|e| e["target"] == "POST /v1/messages" && e["detail"] == "answered 201"));
    assert!(
        calls
            .iter()
            .all(|e| !e["target"].as_str().unwrap().starts_with("GET ")),
        "no read is audited: {audit}"
    );
    let keys: Value = app
        .ok_as(&owner.client, "/api/api_keys", json!({"before": null}))
        .await;
    let zapier = keys["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "Zapier")
        .unwrap()
        .clone();
    assert!(zapier["reads"].as_u64().unwrap() >= 5, "{zapier}");

    // Without a key, with a wrong one, or a revoked one: 401, saying no more.
    for wrong in ["", "herald_nope", "Basic abc"] {
        let r = api.with_token(wrong).get("/contacts").await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
        assert_eq!(r.headers["www-authenticate"], "Bearer");
    }
    let _: Value = app
        .ok_as(&owner.client, "/api/api_keys/revoke", json!({"id": key_id}))
        .await;
    let r = api.get("/contacts").await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.body["detail"], "A valid API key is needed.");
}

async fn a_key_over_its_rate_waits(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    let (token, _) = new_key(&app, &owner, "Slow", &["contacts:read"], Some((1, 3))).await;
    let api = Api::new(&app, &token).await;
    for _ in 0..3 {
        assert_eq!(api.get("/contacts").await.status, StatusCode::OK);
    }
    let r = api.get("/contacts").await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.body);
    let wait: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=2).contains(&wait), "{wait}");
    assert_eq!(r.body["retry_after"], wait);
    // Another key of the organisation has a rate of its own.
    let (other, _) = new_key(&app, &owner, "Fast", &["contacts:read"], None).await;
    assert_eq!(
        api.with_token(&other).get("/contacts").await.status,
        StatusCode::OK
    );
    // The default: 10 a second with bursts of 50.
    let page: Value = app
        .ok_as(&owner.client, "/api/api_keys", json!({"before": null}))
        .await;
    let fast = page["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "Fast")
        .unwrap();
    assert_eq!(
        (fast["rate_per_second"].clone(), fast["burst"].clone()),
        (json!(10), json!(50))
    );
}

on_both_databases!(an_owner_manages_keys_on_the_developers_page);

/// The server-rendered Developers page: an owner creates a key (its secret in that answer
/// alone, the name escaped), the key works, and revoking it stops it; a member is told it is an
/// owner's page; a post from another site changes nothing; a visitor goes to sign in.
async fn an_owner_manages_keys_on_the_developers_page(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    let page = owner
        .client
        .get(app.url("/developers"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(
        html.contains("id=\"api-key-form\"") && html.contains("0 keys."),
        "{html}"
    );

    let made = owner
        .client
        .post(app.url("/developers/keys"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=Shop+%3Cb%3Ebot%3C%2Fb%3E&scope=contacts%3Aread&scope=messages%3Asend")
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), StatusCode::CREATED);
    let html = made.text().await.unwrap();
    assert!(!html.contains("<b>bot</b>"), "the name is escaped");
    let token = html
        .split("id=\"api-key-token\">")
        .nth(1)
        .and_then(|s| s.split('<').next())
        .expect("the new key's secret")
        .to_owned();
    assert!(token.starts_with("herald_"));
    let again = owner
        .client
        .get(app.url("/developers"))
        .send()
        .await
        .unwrap();
    let html = again.text().await.unwrap();
    assert!(!html.contains(&token), "the secret is shown once");
    assert!(
        html.contains("contacts:read, messages:send") && html.contains("1 key."),
        "{html}"
    );

    let api = Api::new(&app, &token).await;
    assert_eq!(api.get("/contacts").await.status, StatusCode::OK);
    assert_eq!(api.get("/plans").await.status, StatusCode::FORBIDDEN);

    // Nothing typed wrong is lost: the name stays in the form, with the reason.
    let bad = owner
        .client
        .post(app.url("/developers/keys"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=Nightly+sync")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    let html = bad.text().await.unwrap();
    assert!(
        html.contains("Choose at least one scope") && html.contains("value=\"Nightly sync\""),
        "{html}"
    );

    // A post from another site changes nothing.
    let keys: Value = app
        .ok_as(&owner.client, "/api/api_keys", json!({"before": null}))
        .await;
    let id = keys["keys"][0]["id"].as_str().unwrap().to_owned();
    let forged = owner
        .client
        .post(app.url(&format!("/developers/keys/{id}/revoke")))
        .header("origin", "https://evil.example")
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    assert_eq!(api.get("/contacts").await.status, StatusCode::OK);
    let revoked = owner
        .client
        .post(app.url(&format!("/developers/keys/{id}/revoke")))
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::OK, "back on the page");
    assert!(revoked.text().await.unwrap().contains("revoked "));
    assert_eq!(api.get("/contacts").await.status, StatusCode::UNAUTHORIZED);

    let dana = app.add_member(&owner, "Dana").await;
    let html = dana
        .client
        .get(app.url("/developers"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains("developers-owner-only") && !html.contains("api-key-form"));
    let sneaky = dana
        .client
        .post(app.url("/developers/keys"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=Mine&scope=contacts%3Aread")
        .send()
        .await
        .unwrap();
    assert_eq!(sneaky.status(), StatusCode::FORBIDDEN);

    let visitor = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = visitor.get(app.url("/developers")).send().await.unwrap();
    assert_eq!(r.headers()["location"], "/signin");
}
