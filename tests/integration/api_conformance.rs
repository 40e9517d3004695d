//! The public API against its own document, with outside tools (issue 49 §10): the published
//! `/v1/openapi.json` passes openapi-spec-validator, and schemathesis, with every check, finds
//! nothing wrong: no server error, no status or content type the document does not list, no body
//! its schema refuses, nothing the schema allows refused (but for what it means, a 422; see
//! `schemathesis.toml`) and nothing it refuses taken. Both tools are Python (`scripts/setup.sh
//! --test` installs them); without them this test fails rather than passing unseen.
use crate::api_client::*;
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::{Method, StatusCode};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

on_both_databases!(
    the_document_is_valid_and_the_api_keeps_to_it,
    a_refusal_says_whose_it_is_and_why
);

/// Fixed, so that a run can be repeated; bounded, so that it stays well under a minute.
const SEED: &str = "7";
const EXAMPLES: &str = "30";

const SETUP: &str = "the API conformance test needs schemathesis and openapi-spec-validator \
                     (Python): run scripts/setup.sh --test";

/// Runs `program` with `args` in `dir`, feeding it `stdin`, off the async workers (the server
/// under test runs on them).
async fn run(program: &str, args: Vec<String>, dir: &Path, stdin: Option<Vec<u8>>) -> Output {
    let program = program.to_owned();
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut child = Command::new(&program)
            .args(&args)
            .current_dir(&dir)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{program} could not start ({e}): {SETUP}"));
        if let Some(bytes) = stdin {
            use std::io::Write;
            let mut pipe = child.stdin.take().expect("stdin");
            pipe.write_all(&bytes).expect("write stdin");
        }
        child.wait_with_output().expect("wait")
    })
    .await
    .expect("join")
}

fn printed(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A working folder of its own, so that the tools' caches (`.hypothesis`, `.schemathesis`)
/// stay out of the tree and no run replays another's examples.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        let p = std::env::temp_dir().join(format!("herald-conformance-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&p).expect("scratch folder");
        Self(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn the_document_is_valid_and_the_api_keeps_to_it(backend: Backend) {
    // Room to go fast: schemathesis sends some fifty requests a second, past the organisation's
    // default rate, and a 429 would stand in for the answer under test.
    let limits = herald::platform::limits::Limits {
        api_rate_per_second: 100_000,
        api_burst: 100_000,
        ..Default::default()
    };
    let Some(app) = spawn_app_with(
        backend,
        Options {
            limits: Some(limits),
            ..Default::default()
        },
    )
    .await
    else {
        return;
    };
    let scratch = Scratch::new();
    let tools = run(
        "python3",
        vec![
            "-c".into(),
            "import schemathesis, openapi_spec_validator".into(),
        ],
        &scratch.0,
        None,
    )
    .await;
    assert!(tools.status.success(), "{SETUP}\n{}", printed(&tools));

    // A little of everything: a number, two contacts, a conversation with an inbound text, and a
    // key with every scope and room to go fast.
    let owner = app.new_org("Bright Smiles").await;
    app.add_number(&owner, "+14155550100").await;
    app.add_contact(&owner, "Ada Lovelace", "+14155552671")
        .await;
    app.add_contact(&owner, "Grace Hopper", "+14155552672")
        .await;
    app.post_webhook(
        &sms_params(
            "SMconformance00000000000000000001",
            "+14155552673",
            "+14155550100",
            "Hi, is Tuesday free?",
        ),
        None,
    )
    .await;
    app.settle().await;
    let (token, _) = new_key(&app, &owner, "Conformance", &ALL_SCOPES, Some((1000, 1000))).await;

    // The document, as published, passes openapi-spec-validator.
    let doc = reqwest::get(app.url("/v1/openapi.json"))
        .await
        .expect("the document")
        .bytes()
        .await
        .expect("its bytes");
    let valid = run(
        "python3",
        vec![
            "-c".into(),
            "import json, sys\nfrom openapi_spec_validator import validate\nvalidate(json.load(sys.stdin))"
                .into(),
        ],
        &scratch.0,
        Some(doc.to_vec()),
    )
    .await;
    assert!(
        valid.status.success(),
        "openapi-spec-validator refuses /v1/openapi.json:\n{}",
        printed(&valid)
    );

    // schemathesis with every check, in every phase.
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemathesis.toml");
    let started = Instant::now();
    // Through the interpreter that has it, whatever is on PATH.
    let cli = "import sys\nfrom schemathesis.cli import schemathesis\nsys.argv[0] = 'schemathesis'\nschemathesis()";
    let st = run(
        "python3",
        vec![
            "-c".into(),
            cli.into(),
            "--config-file".into(),
            config.display().to_string(),
            "--no-color".into(),
            "run".into(),
            app.url("/v1/openapi.json"),
            "--url".into(),
            app.url("/v1"),
            "-H".into(),
            format!("Authorization: Bearer {token}"),
            "--checks".into(),
            "all".into(),
            "--max-examples".into(),
            EXAMPLES.into(),
            "--seed".into(),
            SEED.into(),
            "--generation-database".into(),
            "none".into(),
        ],
        &scratch.0,
        None,
    )
    .await;
    let out = printed(&st);
    assert!(
        st.status.success(),
        "schemathesis found problems in /v1 ({backend:?}):\n{out}"
    );
    let stdout = String::from_utf8_lossy(&st.stdout);
    let summary = stdout
        .lines()
        .map(str::trim)
        .filter(|l| {
            l.contains(" generated, ")
                || (l.starts_with('=') && l.contains(" in "))
                || (l.contains(" (in ") && l.ends_with("s)"))
        })
        .collect::<Vec<_>>()
        .join("; ");
    eprintln!(
        "schemathesis on {backend:?}: {summary} ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
}

/// What schemathesis cannot see from outside: a text the compliance rules hold back is a 422 whose
/// problem type says why (quiet hours, with when it may go; no consent), not the provider's 502;
/// input the document refuses is a 400 naming the field or parameter; a number with a zero
/// fraction is an integer; a cursor is refused, never read as the first page.
async fn a_refusal_says_whose_it_is_and_why(backend: Backend) {
    use chrono::TimeZone;
    // 23:00 in New York (EDT): their quiet hours.
    let night = chrono::Utc.with_ymd_and_hms(2026, 6, 18, 3, 0, 0).unwrap();
    let Some(app) = spawn_app_with(
        backend,
        Options {
            clock: Some(std::sync::Arc::new(
                herald::platform::clock::ManualClock::at(night),
            )),
            ..Default::default()
        },
    )
    .await
    else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    let number = app.add_number(&owner, "+12125550100").await;
    let ann = app.add_contact(&owner, "Ann", "+12125550101").await;
    let (token, _) = new_key(&app, &owner, "Refusals", &ALL_SCOPES, None).await;
    let api = Api::new(&app, &token).await;

    let held = api
        .post(
            "/messages",
            json!({"contact_id": ann, "phone_number_id": number, "body": "Our spring hours are out"}),
        )
        .await;
    assert_eq!(
        held.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        held.body
    );
    assert_eq!(held.body["type"], herald::public_api::problem::QUIET_HOURS);
    let after: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(held.body["send_after"].clone()).expect("send_after");
    assert_eq!(
        after,
        chrono::Utc.with_ymd_and_hms(2026, 6, 18, 12, 0, 0).unwrap(),
        "08:00 in New York: {}",
        held.body
    );

    // No consent on record: refused for that, and said so.
    let bea = api
        .post("/contacts", json!({"name": "Bea", "phone": "+12125550102"}))
        .await;
    assert_eq!(bea.status, StatusCode::CREATED, "{}", bea.body);
    let refused = api
        .post(
            "/messages",
            json!({"contact_id": bea.body["id"], "body": "Our spring hours are out"}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        refused.body["type"],
        herald::public_api::problem::COMPLIANCE,
        "{}",
        refused.body
    );
    assert!(refused.body["detail"]
        .as_str()
        .unwrap()
        .contains("no marketing consent"));

    // What the document refuses is a 400 that names it.
    let bad = api.get("/contacts/not-an-id").await;
    assert_eq!(
        (bad.status, bad.body["parameter"].clone()),
        (StatusCode::BAD_REQUEST, json!("id")),
        "{}",
        bad.body
    );
    let bad = api
        .post(
            "/contacts/search",
            json!({"filter": {"replied_within_days": "soon"}}),
        )
        .await;
    assert_eq!(
        (bad.status, bad.body["pointer"].clone()),
        (
            StatusCode::BAD_REQUEST,
            json!("#/filter/replied_within_days")
        ),
        "{}",
        bad.body
    );
    let blank = api.post("/contacts", json!({"name": "  "})).await;
    assert_eq!(blank.status, StatusCode::BAD_REQUEST, "{}", blank.body);
    assert_eq!(
        blank.body["detail"],
        "Give the contact a name or a phone number."
    );
    for cursor in ["", "forged", "0.not-an-id"] {
        let r = api.get(&format!("/plans?cursor={cursor}")).await;
        assert_eq!(
            (r.status, r.body["parameter"].clone()),
            (StatusCode::BAD_REQUEST, json!("cursor")),
            "{cursor:?}: {}",
            r.body
        );
    }
    // Any cursor of the document's form is a place to start from.
    let anywhere = format!("{}.{}", i64::MAX / 2, uuid::Uuid::nil());
    assert_eq!(
        api.get(&format!("/plans?cursor={anywhere}")).await.status,
        StatusCode::OK
    );
    // 307.0 is an integer, as JSON Schema has it.
    let found = api
        .post(
            "/contacts/search",
            json!({"filter": {"no_reply_within_days": 307.0}, "limit": 2.0}),
        )
        .await;
    assert_eq!(found.status, StatusCode::OK, "{}", found.body);
    // A file without a usable header is not a contacts file; an empty one is no file.
    let not_csv = api.post("/contacts/import", json!("{}")).await;
    assert_eq!(not_csv.status, StatusCode::UNPROCESSABLE_ENTITY);
    let empty = api
        .call(Method::POST, "/contacts/import", Some(json!("")), &[])
        .await;
    assert_eq!(empty.status, StatusCode::BAD_REQUEST);
    // A method a route does not take is a problem too.
    let put = reqwest::Client::new()
        .put(app.url("/v1/contacts"))
        .bearer_auth(&token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(put.headers()["content-type"], "application/problem+json");
    assert!(put.headers().contains_key("allow"));
}
