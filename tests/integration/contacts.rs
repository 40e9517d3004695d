//! Contacts: E.164 normalisation, search, edits, opt-outs and CSV import.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn create_search_edit(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Contacts Co").await;
    let c: Value = app
        .ok_as(&org.client, "/api/contacts/create", json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": "Ada Lovelace", "phone": "(415) 555-2671", "email": "ada@x.test", "tags": ["VIP, patient"]}}))
        .await;
    assert_eq!(c["phone"], "+14155552671");
    assert_eq!(c["tags"], json!(["vip", "patient"]));
    app.add_contact(&org, "Grace Hopper", "+44 20 7946 0958")
        .await;

    let (status, body) = app
        .call_as(
            &org.client,
            "/api/contacts/create",
            json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": "Bad", "phone": "12345", "email": "", "tags": []}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("is not a valid phone number"),
        "{body}"
    );
    let (status, body) = app
        .call_as(
            &org.client,
            "/api/contacts/create",
            json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": "Dup", "phone": "+1 415 555 2671", "email": "", "tags": []}}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");

    for (q, expect) in [
        ("ada", "Ada Lovelace"),
        ("7946", "Grace Hopper"),
        ("vip", "Ada Lovelace"),
        ("HOPPER", "Grace Hopper"),
    ] {
        let found: Value = app.search_contacts(&org.client, json!(q)).await;
        let names: Vec<&str> = found
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, vec![expect], "search {q}");
    }

    let edited: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/update",
            json!({"id": c["id"], "input": {"name": "Ada King", "phone": "+14155552671", "email": "", "tags": ["lead"], "time_zone": "Europe/London", "notes": "Prefers mornings"}}),
        )
        .await;
    assert_eq!(edited["name"], "Ada King");
    assert_eq!(edited["tags"], json!(["lead"]));
    assert_eq!(edited["time_zone"], "Europe/London");
    let (status, _) = app
        .call_as(&org.client, "/api/contacts/update", json!({"id": c["id"], "input": {"name": "X", "phone": "", "email": "", "tags": [], "time_zone": "Mars/Base"}}))
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "an unknown time zone is refused"
    );
}

async fn manual_opt_out_and_in(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Opt Co").await;
    let id = app.add_contact(&org, "Ada", "+14155552671").await;
    let v: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/opt_out",
            json!({"id": id, "opted_out": true}),
        )
        .await;
    assert_eq!(v["opted_out"], true);
    assert_eq!(v["opt_out_source"], "manual");
    let v: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/opt_out",
            json!({"id": id, "opted_out": false, "reason": "a new consent form"}),
        )
        .await;
    assert_eq!(v["opted_out"], false);
}

async fn csv_import_all_or_nothing(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Import Co").await;
    app.add_contact(&org, "Existing", "+14155552699").await;
    let bad = "name,phone,email,tags\nAda,+14155552671,ada@x.test,vip\nBad phone,123,,\nTwin,415-555-2671,,\nOld,+14155552699,,\nWrong mail,+14155552672,nope,\n";
    let report: Value = app
        .ok_as(&org.client, "/api/contacts/import", json!({"csv": bad}))
        .await;
    assert_eq!(report["imported"], 0);
    let lines: Vec<u64> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, vec![3, 4, 6], "{report}");
    assert_eq!(app.count("contact").await, 1, "nothing was half-imported");

    let dup_in_db = "name,phone\nAda,+14155552671\nOld,+14155552699\n";
    let report: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/import",
            json!({"csv": dup_in_db}),
        )
        .await;
    assert_eq!(report["imported"], 0);
    assert_eq!(report["errors"][0]["line"], 3);
    assert!(report["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("already exists"));

    let good = "Name,Phone,Email,Tags\nAda,+14155552671,ada@x.test,\"vip, patient\"\nGrace,(415) 555-2672,,lead\n";
    let report: Value = app
        .ok_as(&org.client, "/api/contacts/import", json!({"csv": good}))
        .await;
    assert_eq!(report["imported"], 2, "{report}");
    assert_eq!(app.count("contact").await, 3);
    let found: Value = app.search_contacts(&org.client, json!("patient")).await;
    assert_eq!(found[0]["name"], "Ada");
}

on_both_databases!(
    create_search_edit,
    manual_opt_out_and_in,
    csv_import_all_or_nothing
);
