//! Contacts as CSV (issue 28 §5): an owner exports the contacts a filter matches, every field,
//! tags, consent and the opt-out, a formula written as text; on a seeded organisation of 2,500
//! contacts every one of them, once, across pages; the export is audited; a member, a
//! signed-out caller and a bad filter are refused; another organisation's contacts never appear.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

on_both_databases!(an_owner_exports_the_filtered_contacts_as_csv);

async fn export(app: &TestApp, who: &Org, filter: &str) -> (StatusCode, String, String) {
    let url = format!(
        "{}?filter={}",
        app.url("/api/contacts/export.csv"),
        urlencode(filter)
    );
    let r = who.client.get(url).send().await.expect("export");
    let status = r.status();
    let kind = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (status, kind, r.text().await.unwrap())
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn rows(csv_text: &str) -> Vec<csv::StringRecord> {
    csv::Reader::from_reader(csv_text.as_bytes())
        .records()
        .map(|r| r.expect("a CSV row"))
        .collect()
}

async fn an_owner_exports_the_filtered_contacts_as_csv(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Export Co").await;
    let number = app.add_number(&owner, "+14155550100").await;
    let create = |name: &str, phone: &str, tags: &[&str], custom: Value| json!({"input": {"consent": {"source": "web_form", "note": "signed up"}, "name": name, "phone": phone, "email": "", "tags": tags, "custom_fields": custom}});
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/contacts/create",
            create(
                "Ada Lovelace",
                "+14155552671",
                &["vip"],
                json!({"plan": "Gold"}),
            ),
        )
        .await;
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/contacts/create",
            create(
                "=HYPERLINK(\"http://x\")",
                "+14155552672",
                &["vip"],
                json!({}),
            ),
        )
        .await;
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/contacts/create",
            create("Cy Young", "+14155552673", &["lead"], json!({})),
        )
        .await;
    // Ada opts out by text.
    app.post_webhook(
        &sms_params(
            "SMexport000000000000000000000001",
            "+14155552671",
            "+14155550100",
            "STOP",
        ),
        None,
    )
    .await;
    app.settle().await;

    let (status, kind, body) = export(&app, &owner, r#"{"tags_any":["vip"]}"#).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(kind.starts_with("text/csv"), "{kind}");
    assert!(body.starts_with("name,phone,email,tags,notes,time_zone,consent_source,consent_at,consent_note,opted_out,opt_out_source,created_at,custom_fields\n"), "{body}");
    let got = rows(&body);
    assert_eq!(got.len(), 2, "the vip contacts only: {body}");
    let ada = got.iter().find(|r| &r[0] == "Ada Lovelace").expect("Ada");
    assert_eq!(&ada[1], "+14155552671");
    assert_eq!(&ada[3], "vip");
    assert_eq!(&ada[6], "web_form");
    assert_eq!(&ada[8], "signed up");
    assert_eq!(&ada[9], "yes", "Ada opted out");
    assert!(!ada[10].is_empty(), "how she opted out");
    assert_eq!(&ada[12], r#"{"plan":"Gold"}"#);
    assert!(
        got.iter()
            .any(|r| &r[0] == "'=HYPERLINK(\"http://x\")" && &r[9] == "no"),
        "a formula is written as text: {body}"
    );
    assert_eq!(
        app.count_where("audit_log", "action = 'contacts_exported'")
            .await,
        1
    );

    // Refused: a member, nobody signed in, a filter Herald cannot read.
    let dana = app.add_member(&owner, "Dana").await;
    assert_eq!(export(&app, &dana, "{}").await.0, StatusCode::FORBIDDEN);
    let nobody = Org {
        client: new_client(),
        ..dana
    };
    assert_eq!(
        export(&app, &nobody, "{}").await.0,
        StatusCode::UNAUTHORIZED
    );
    let (status, _, said) = export(&app, &owner, "{\"tags_any\": 3}").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{said}");

    // At size: 2,500 more contacts, all of them, each once, over several pages.
    let spec = herald::server::seed_scale::ScaleSpec {
        contacts: 2_500,
        messages_each: 1,
        now: test_daytime(),
        unread_every: 0,
        vip_every: 0,
    };
    herald::server::seed_scale::seed(&app.state.db, owner.org_id, number, &spec)
        .await
        .unwrap();
    let (status, _, body) = export(&app, &owner, "").await;
    assert_eq!(status, StatusCode::OK);
    let all = rows(&body);
    assert_eq!(all.len(), 2_503, "every contact");
    let phones: std::collections::HashSet<&str> = all.iter().map(|r| r.get(1).unwrap()).collect();
    assert_eq!(phones.len(), 2_503, "each once");

    // Another organisation's owner gets their own (none), nothing of Export Co's.
    let other = app.new_org("Other Co").await;
    let (status, _, body) = export(&app, &other, "").await;
    assert_eq!(status, StatusCode::OK);
    assert!(rows(&body).is_empty(), "{body}");
}
