//! Every scope enforced across the whole public API (issue 31 §4), as a table generated from the
//! route list: the OpenAPI document is built from the same `routes!` the router serves, and each
//! operation names its scope. A key with every other scope is refused (403) on each operation; a
//! key with that scope alone gets past the check (whatever the answer to a made-up id is).
use crate::api_client::*;
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

on_both_databases!(each_operation_needs_its_scope);

async fn each_operation_needs_its_scope(backend: Backend) {
    // Two keys for each operation, past the default of twenty an organisation holds.
    let opts = Options {
        limits: Some(herald::platform::limits::Limits {
            api_keys: 100,
            ..Default::default()
        }),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    let (any, _) = new_key(&app, &owner, "Reader", &["contacts:read"], None).await;
    let doc = Api::new(&app, &any).await.doc;
    let mut table = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let scopes: Vec<&str> = op["security"][0]["api_key"]
                .as_array()
                .unwrap_or_else(|| panic!("{method} {path} names no scope"))
                .iter()
                .map(|s| s.as_str().unwrap())
                .collect();
            assert_eq!(scopes.len(), 1, "{method} {path}");
            assert!(
                ALL_SCOPES.contains(&scopes[0]),
                "{method} {path}: {}",
                scopes[0]
            );
            table.push((method.to_uppercase(), path.clone(), scopes[0]));
        }
    }
    assert!(table.len() >= 20, "the table covers every route: {table:?}");
    let fast = Some((1000, 10_000));
    for (method, template, scope) in &table {
        let others: Vec<&str> = ALL_SCOPES.into_iter().filter(|s| s != scope).collect();
        let (without, _) = new_key(&app, &owner, "Without", &others, fast).await;
        let (with, _) = new_key(&app, &owner, "With", &[scope], fast).await;
        let path = concrete(template);
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let body = match (method.as_str(), template.as_str()) {
            ("GET", _) => None,
            (_, "/contacts/import") => Some(Value::String("name,phone\n".into())),
            _ => Some(json!({})),
        };
        let api = Api::new(&app, &without).await;
        let refused = api.call(method.clone(), &path, body.clone(), &[]).await;
        assert_eq!(
            refused.status,
            StatusCode::FORBIDDEN,
            "{method} {path} without {scope}: {}",
            refused.body
        );
        let allowed = api
            .with_token(&with)
            .call(method.clone(), &path, body, &[])
            .await;
        assert!(
            ![StatusCode::FORBIDDEN, StatusCode::UNAUTHORIZED].contains(&allowed.status),
            "{method} {path} with {scope} alone: {} {}",
            allowed.status,
            allowed.body
        );
    }
}

/// The template with a made-up id in each parameter.
fn concrete(template: &str) -> String {
    template
        .split('/')
        .map(|seg| {
            if seg.starts_with('{') {
                uuid::Uuid::new_v4().to_string()
            } else {
                seg.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}
