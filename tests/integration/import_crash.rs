//! An import survives a crash (issue 51 §4), with the real server binary and SIGKILL: a mapped
//! import of 10,000 rows is sent a chunk at a time, and the server is killed three times while a
//! chunk is being written. Each time the restarted server finds the import by its file, at the
//! row after the last chunk it committed (a chunk and its progress commit together, so a killed
//! chunk is either wholly in or wholly out), and the import goes on from there. In the end every
//! row is a contact exactly once.
use crate::binary::{call, healthy, start, Server};
use crate::helpers::*;
use serde_json::{json, Value};
use std::time::Duration;

const ROWS: usize = 10_000;
const CHUNK: usize = 2_000;
const HEADER: &str = "First Name,Last Name,Mobile Phone";

fn row(i: usize) -> String {
    format!("Pat{i},Crash,(415) 7{:02}-{:04}", i / 10_000, i % 10_000)
}

/// Rows numbered as the file numbers them (the header is row 1) from `first`, at most `CHUNK`.
fn chunk(first: usize) -> String {
    (first..(first + CHUNK).min(ROWS + 2))
        .map(|n| row(n - 2))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn contacts(client: &reqwest::Client, base: &str) -> u64 {
    call(
        client,
        base,
        "/api/contacts/list",
        json!({"filter": {}, "after": null}),
    )
    .await["total"]
        .as_u64()
        .unwrap()
}

/// The import this file started: found again by its fingerprint, as the page finds it.
async fn resume(client: &reqwest::Client, base: &str, mapping: &Value) -> Value {
    call(
        client,
        base,
        "/api/contacts/import/start",
        json!({"file_name": "crash.csv", "header": HEADER, "mapping": mapping,
               "total_rows": ROWS, "fingerprint": "crash-file-1"}),
    )
    .await
}

async fn an_import_survives_three_kills(backend: Backend) {
    let Some((db, _guard)) = fresh_database(backend).await else {
        return;
    };
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server: Server = start(&db, port, &[]);
    healthy(&base).await;
    let client = new_client();
    call(&client, &base, "/api/auth/sign_up", json!({"form": {"organization_name": "Import Crash Co", "name": "O", "email": "o@import-crash.test", "password": "crash-test-pass"}})).await;
    let preview = call(
        &client,
        &base,
        "/api/contacts/import/preview",
        json!({"text": format!("{HEADER}\n{}", chunk(2)), "first_row": 2, "mapping": null}),
    )
    .await;
    assert_eq!(preview["refused"], 0, "{preview}");
    let mapping = preview["mapping"].clone();
    let mut job = resume(&client, &base, &mapping).await;
    let id = job["id"].clone();
    let mut kills = 0;
    while !job["done"].as_bool().unwrap() {
        let done = job["rows_done"].as_u64().unwrap() as usize;
        let first = done + 2;
        let body = json!({"id": id, "first_row": first, "rows": chunk(first)});
        // The first three chunks after a start are each cut short by a kill while being written.
        if kills < 3 && first == 2 + CHUNK * (kills + 1) {
            let (c, b) = (client.clone(), base.clone());
            let sent = tokio::spawn(async move {
                c.post(format!("{b}/api/contacts/import/rows"))
                    .json(&body)
                    .send()
                    .await
            });
            tokio::time::sleep(Duration::from_millis(15 + 20 * kills as u64)).await;
            server.kill_nine();
            let _ = sent.await;
            kills += 1;
            server = start(&db, port, &[]);
            healthy(&base).await;
            job = resume(&client, &base, &mapping).await;
            assert_eq!(job["id"], id, "the same import, found by its file");
            let at = job["rows_done"].as_u64().unwrap() as usize;
            assert!(
                at == done || at == done + CHUNK,
                "a killed chunk is wholly in or wholly out: {at} after {done}"
            );
            assert_eq!(
                contacts(&client, &base).await,
                job["imported"].as_u64().unwrap(),
                "the progress counts exactly the contacts written"
            );
            continue;
        }
        job = call(&client, &base, "/api/contacts/import/rows", body).await;
    }
    assert_eq!(kills, 3);
    assert_eq!(
        (job["imported"].as_u64(), job["refused"].as_u64()),
        (Some(ROWS as u64), Some(0)),
        "{job}"
    );
    assert_eq!(
        contacts(&client, &base).await,
        ROWS as u64,
        "every row once"
    );
    drop(server);
}

crate::on_both_databases!(an_import_survives_three_kills);
