//! A client of the public API for the tests: it calls `/v1` with a key, and checks every answer
//! against the OpenAPI document the server publishes (the contract test, issue 31 §2): a status
//! the document does not list for that operation, or a body its schema refuses, fails the test.
use crate::helpers::*;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

pub struct Api<'a> {
    pub app: &'a TestApp,
    pub token: String,
    pub doc: Value,
    http: reqwest::Client,
}

pub struct Answer {
    pub status: StatusCode,
    pub body: Value,
    pub headers: reqwest::header::HeaderMap,
}

impl<'a> Api<'a> {
    pub async fn new(app: &'a TestApp, token: &str) -> Api<'a> {
        let doc: Value = reqwest::get(app.url("/v1/openapi.json"))
            .await
            .expect("openapi")
            .json()
            .await
            .expect("openapi json");
        Api {
            app,
            token: token.into(),
            doc,
            http: reqwest::Client::new(),
        }
    }

    pub fn with_token(&self, token: &str) -> Api<'a> {
        Api {
            app: self.app,
            token: token.into(),
            doc: self.doc.clone(),
            http: self.http.clone(),
        }
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.call(Method::GET, path, None, &[]).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Answer {
        self.call(Method::POST, path, Some(body), &[]).await
    }

    /// Calls `/v1{path}` and checks the answer against the document.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut req = self
            .http
            .request(method.clone(), self.app.url(&format!("/v1{path}")))
            .bearer_auth(&self.token);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        if let Some(b) = body {
            req = match b {
                Value::String(s) => req.header("content-type", "text/csv").body(s),
                other => req.json(&other),
            };
        }
        let res = req.send().await.expect("API request");
        let status = res.status();
        let headers = res.headers().clone();
        let text = res.text().await.unwrap_or_default();
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        self.check(&method, path, status, &body, &headers);
        Answer {
            status,
            body,
            headers,
        }
    }

    /// The contract: the operation lists the status (or its class), and its schema takes the body.
    fn check(
        &self,
        method: &Method,
        path: &str,
        status: StatusCode,
        body: &Value,
        headers: &reqwest::header::HeaderMap,
    ) {
        let path = path.split('?').next().unwrap();
        let Some(op) = operation(&self.doc, method, path) else {
            // A route the document does not have: a 404 problem, and nothing else.
            assert_eq!(
                status,
                StatusCode::NOT_FOUND,
                "{method} {path} is not in the document"
            );
            assert_eq!(body["status"], 404, "{body}");
            return;
        };
        let code = status.as_u16().to_string();
        let class = format!("{}XX", status.as_u16() / 100);
        let response = op["responses"]
            .get(&code)
            .or_else(|| op["responses"].get(&class))
            .unwrap_or_else(|| {
                panic!(
                    "{method} {path} answered {status}, which the document does not list: {body}"
                )
            });
        let Some(schema) = response["content"]
            .as_object()
            .and_then(|c| c.values().next())
            .map(|c| c["schema"].clone())
        else {
            return;
        };
        if status.is_client_error() || status.is_server_error() {
            let ct = headers
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            assert_eq!(ct, "application/problem+json", "{method} {path} {status}");
        }
        let mut root = schema.as_object().cloned().unwrap_or_default();
        root.insert("components".into(), self.doc["components"].clone());
        let validator = jsonschema::validator_for(&Value::Object(root)).expect("schema compiles");
        let errors: Vec<String> = validator.iter_errors(body).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{method} {path} answered {status} with a body its schema refuses: {errors:?}\n{body}"
        );
    }
}

/// The document's operation for a concrete path (`/contacts/123` matches `/contacts/{id}`).
pub fn operation<'v>(doc: &'v Value, method: &Method, path: &str) -> Option<&'v Value> {
    let want: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    doc["paths"]
        .as_object()?
        .iter()
        .find_map(|(template, item)| {
            let have: Vec<&str> = template.split('/').collect();
            let same = have.len() == want.len()
                && have
                    .iter()
                    .zip(&want)
                    .all(|(h, w)| h == w || (h.starts_with('{') && h.ends_with('}')));
            same.then(|| item.get(method.as_str().to_lowercase()))
                .flatten()
        })
}

/// An owner's new key with these scopes (and a rate, if given): its token and id.
pub async fn new_key(
    app: &TestApp,
    owner: &Org,
    name: &str,
    scopes: &[&str],
    rate: Option<(u32, u32)>,
) -> (String, String) {
    let v: Value = app
        .ok_as(
            &owner.client,
            "/api/api_keys/create",
            json!({"name": name, "scopes": scopes,
                   "rate_per_second": rate.map(|r| r.0), "burst": rate.map(|r| r.1)}),
        )
        .await;
    (
        v["token"].as_str().unwrap().to_owned(),
        v["key"]["id"].as_str().unwrap().to_owned(),
    )
}

pub const ALL_SCOPES: [&str; 7] = [
    "contacts:read",
    "contacts:write",
    "messages:read",
    "messages:send",
    "plans:read",
    "plans:write",
    "webhooks:manage",
];
