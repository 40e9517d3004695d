//! Imports that map any export (issue 51 §4): a practice export's headers are guessed, every row
//! is checked before anything is written, the import goes a chunk at a time (a chunk sent twice
//! counts once, a stopped import resumes at its next row), refused rows download as a CSV with
//! their reasons (to the importing organisation only), and custom fields keep their types, on
//! the contact sheet too.
use crate::helpers::*;
use crate::on_both_databases;
use serde_json::{json, Value};

const EXPORT: &str = "Patient First Name,Patient Last Name,Mobile Phone,Home Phone,Birthdate,Next Appointment,Insurance\n\
Ada,Lovelace,415 555 2671,,12/10/1985,2027-01-05 14:30,Delta\n\
Alan,Turing,,(415) 555-2672,1912-06-23,,Aetna\n\
Bad,Date,415 555 2673,,soon,,\n\
Old,Friend,+1 415 555 2699,,,,\n\
Twin,Ada,(415) 555-2671,,,,\n";

fn rows(from: usize, to: usize) -> String {
    EXPORT
        .lines()
        .skip(from - 1)
        .take(to - from + 1)
        .collect::<Vec<_>>()
        .join("\n")
}

async fn a_practice_export_maps_checks_and_resumes(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Clinic Co").await;
    let other = app.new_org("Other Co").await;
    app.add_contact(&org, "Old Friend", "+14155552699").await;

    // The preview guesses every column and writes nothing.
    let p: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/import/preview",
            json!({"text": EXPORT, "first_row": 2, "mapping": null}),
        )
        .await;
    assert_eq!(
        p["mapping"],
        json!([{"to": "first_name"}, {"to": "last_name"}, {"to": "mobile"}, {"to": "phone"},
            {"to": "custom", "name": "birthday", "kind": "date"},
            {"to": "custom", "name": "next_appointment", "kind": "date"},
            {"to": "custom", "name": "insurance", "kind": "text"}]),
        "{p}"
    );
    assert_eq!(p["examples"][2], "415 555 2671");
    assert_eq!(p["sample"][0]["name"], "Ada Lovelace");
    assert_eq!(p["sample"][0]["phone"], "+14155552671");
    assert_eq!(
        p["sample"][1]["phone"], "+14155552672",
        "the home phone when no mobile"
    );
    assert_eq!(
        (p["rows"].as_u64(), p["refused"].as_u64()),
        (Some(5), Some(3))
    );
    let problems: Vec<(u64, String)> = p["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["row"].as_u64().unwrap(),
                e["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        problems.iter().map(|p| p.0).collect::<Vec<_>>(),
        vec![4, 5, 6],
        "{p}"
    );
    assert!(problems[0].1.contains("not a date"), "{problems:?}");
    assert!(problems[1].1.contains("already exists"), "{problems:?}");
    assert!(problems[2].1.contains("also on row 2"), "{problems:?}");
    assert_eq!(app.count("contact").await, 1, "a preview writes nothing");

    // A mapping that changes a field's type once the field exists is refused; so is one that
    // names nobody.
    let mut mapping = p["mapping"].clone();
    mapping[6] = json!({"to": "skip"});
    let header = rows(1, 1);
    let start = |fingerprint: &str, mapping: &Value| json!({"file_name": "export.csv", "header": header, "mapping": mapping, "total_rows": 5, "fingerprint": fingerprint});
    let nobody = json!([{"to": "skip"}, {"to": "skip"}, {"to": "skip"}, {"to": "skip"}, {"to": "skip"}, {"to": "skip"}, {"to": "skip"}]);
    let (status, body) = app
        .call_as(
            &org.client,
            "/api/contacts/import/start",
            start("n", &nobody),
        )
        .await;
    assert!(status.is_client_error(), "{body}");
    assert!(body.to_string().contains("Map a column"), "{body}");

    // A chunk at a time; the same chunk twice counts once; a chunk past the progress is refused.
    let job: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/import/start",
            start("f1", &mapping),
        )
        .await;
    let id = job["id"].clone();
    assert_eq!(job["rows_done"], 0);
    let chunk =
        |first: usize, to: usize| json!({"id": id, "first_row": first, "rows": rows(first, to)});
    let after: Value = app
        .ok_as(&org.client, "/api/contacts/import/rows", chunk(2, 3))
        .await;
    assert_eq!(
        (after["rows_done"].as_u64(), after["imported"].as_u64()),
        (Some(2), Some(2))
    );
    let again: Value = app
        .ok_as(&org.client, "/api/contacts/import/rows", chunk(2, 3))
        .await;
    assert_eq!(again["imported"], 2, "a chunk sent twice counts once");
    let (status, body) = app
        .call_as(&org.client, "/api/contacts/import/rows", chunk(5, 6))
        .await;
    assert!(
        status.is_client_error() && body.to_string().contains("at row 4"),
        "{body}"
    );
    // Stopped here: the same file and mapping find the import, and the page offers it.
    let resumed: Value = app
        .ok_as(
            &org.client,
            "/api/contacts/import/start",
            start("f1", &mapping),
        )
        .await;
    assert_eq!(
        (resumed["id"].clone(), resumed["rows_done"].as_u64()),
        (id.clone(), Some(2))
    );
    let open: Value = app
        .ok_as(&org.client, "/api/contacts/import/unfinished", json!({}))
        .await;
    assert_eq!(open["id"], id);
    let none: Value = app
        .ok_as(&other.client, "/api/contacts/import/unfinished", json!({}))
        .await;
    assert!(
        none.is_null(),
        "another organisation sees no import of this one's"
    );
    let (status, _) = app
        .call_as(&other.client, "/api/contacts/import/rows", chunk(4, 6))
        .await;
    assert_eq!(
        status.as_u16(),
        404,
        "another organisation cannot add to it"
    );
    let done: Value = app
        .ok_as(&org.client, "/api/contacts/import/rows", chunk(4, 6))
        .await;
    assert_eq!(done["done"], true, "{done}");
    assert_eq!(
        (done["imported"].as_u64(), done["refused"].as_u64()),
        (Some(2), Some(3))
    );
    assert_eq!(app.count("contact").await, 3);

    // Typed custom fields: dates as dates; the skipped column left out.
    let ada = &app.search_contacts(&org.client, json!("Lovelace")).await[0];
    assert_eq!(ada["phone"], "+14155552671");
    assert_eq!(
        ada["custom_fields"],
        json!({"birthday": "1985-12-10", "next_appointment": "2027-01-05 14:30"})
    );
    assert_eq!(app.count_where("contact_field", "kind = 'date'").await, 2);
    let text_birthday = {
        let mut m = mapping.clone();
        m[4] = json!({"to": "custom", "name": "birthday", "kind": "text"});
        m
    };
    let (status, body) = app
        .call_as(
            &org.client,
            "/api/contacts/import/start",
            start("f2", &text_birthday),
        )
        .await;
    assert!(
        status.is_client_error() && body.to_string().contains("already a date field"),
        "{body}"
    );

    // The refused rows, with their reasons, to this organisation only.
    let path = format!(
        "/api/contacts/import/refused.csv?id={}",
        id.as_str().unwrap()
    );
    let res = org.client.get(app.url(&path)).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let csv = res.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(
        lines[0].starts_with("Patient First Name,") && lines[0].ends_with(",problem"),
        "{csv}"
    );
    assert!(
        lines[1].starts_with("Bad,Date,") && lines[1].contains("Row 4:"),
        "{csv}"
    );
    let res = other.client.get(app.url(&path)).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 404);
}

on_both_databases!(a_practice_export_maps_checks_and_resumes);
