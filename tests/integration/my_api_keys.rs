//! Issue 49 §9: the API keys a person made are listed with their sessions, and signing out
//! everywhere offers to revoke them (a key keeps acting for its maker after every session ends).
//! Revoked so, each is audited in its organisation and refused at once.
use crate::api_client::{new_key, Api, ALL_SCOPES};
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn signing_out_everywhere_can_revoke_a_person_s_keys(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Keys Co").await;
    let (first, _) = new_key(&app, &org, "Zapier", &ALL_SCOPES, None).await;
    let (second, _) = new_key(&app, &org, "Booking", &["contacts:read"], None).await;
    let mine: Value = app
        .ok_as(&org.client, "/api/auth/api_keys", Value::Null)
        .await;
    let names: Vec<&str> = mine
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{mine}");
    assert!(names.contains(&"Zapier") && names.contains(&"Booking"));
    assert_eq!(mine[0]["organization_name"], "Keys Co");
    let other = app.add_member(&org, "Mo").await;
    let theirs: Value = app
        .ok_as(&other.client, "/api/auth/api_keys", Value::Null)
        .await;
    assert_eq!(theirs, json!([]), "only the keys one made");

    // Without the choice, keys keep working.
    let _: Value = app
        .ok_as(&org.client, "/api/auth/sessions/end_all", json!({}))
        .await;
    let api = Api::new(&app, &first).await;
    assert_eq!(api.get("/contacts?limit=1").await.status, StatusCode::OK);
    // Signed in again, and out everywhere revoking them: refused at once, audited.
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/auth/sign_in",
            json!({"form": {"email": org.email, "password": org.password}}),
        )
        .await;
    let _: Value = app
        .ok_as(
            &org.client,
            "/api/auth/sessions/end_all",
            json!({"revoke_keys": true}),
        )
        .await;
    for token in [&first, &second] {
        let answer = api.with_token(token).get("/contacts?limit=1").await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    }
    let revoked = app
        .count_where("audit_log", "action = 'api_key_revoked'")
        .await;
    assert_eq!(revoked, 2);
}

on_both_databases!(signing_out_everywhere_can_revoke_a_person_s_keys);
