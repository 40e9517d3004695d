//! A fake OpenAI `/v1/embeddings` on loopback that keeps the provider's contract: every request
//! is checked against `CreateEmbeddingRequest` from `../shared/contracts/openai_openapi.json`
//! (400 with the reasons when it does not follow it), and answers `CreateEmbeddingResponse`: one
//! vector per input, in order, as wide as `dimensions` asks (1,536 otherwise). Its vectors are
//! made from words folded into a few concepts ("puppy" is "pet", "scared" is "nervous"), hashed into the
//! vector's places, so that texts worded differently can still be near, deterministically. It
//! can fail the next requests with a status, or stall them.
#![allow(dead_code)]
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Words that mean the same thing to the fake model, each group's first word its concept.
const CONCEPTS: &[&[&str]] = &[
    &[
        "pet", "pets", "puppy", "puppies", "dog", "dogs", "animal", "animals", "cat", "cats",
    ],
    &[
        "nervous",
        "scared",
        "afraid",
        "anxious",
        "anxiety",
        "fear",
        "frightened",
        "sedation",
        "calm",
    ],
    &[
        "whitening",
        "whiten",
        "bleach",
        "bleaching",
        "brighter",
        "brighten",
    ],
    &[
        "price", "cost", "costs", "fee", "fees", "charge", "much", "pay", "dollars",
    ],
    &["open", "opening", "hours", "closing", "close"],
    &["saturday", "weekend", "weekends", "sunday"],
];

const STOP: &[&str] = &[
    "a", "an", "the", "is", "are", "do", "does", "you", "your", "we", "our", "it", "of", "for",
    "to", "and", "or", "in", "on", "at", "my", "me", "i", "can", "what", "how", "with", "be",
];

pub enum Fail {
    Status(u16),
    Stall(Duration),
}

pub struct FakeEmbeddings {
    pub base: String,
    schema: jsonschema::Validator,
    failures: Mutex<VecDeque<Fail>>,
    /// Every request's inputs, in order of arrival.
    pub inputs: Mutex<Vec<Vec<String>>>,
    /// Each request's `dimensions` and `model`.
    pub asked: Mutex<Vec<(Option<u64>, String)>>,
    /// What the contract check refused.
    pub refused: Mutex<Vec<String>>,
}

impl FakeEmbeddings {
    /// The next requests fail, in order.
    pub fn fail_next(&self, f: Fail) -> &Self {
        self.failures.lock().unwrap().push_back(f);
        self
    }
    /// No more failures to come.
    pub fn failures_clear(&self) {
        self.failures.lock().unwrap().clear();
    }
    pub fn request_count(&self) -> usize {
        self.inputs.lock().unwrap().len()
    }
    /// Herald's settings for this fake, with `model` and vectors `dimensions` wide.
    pub fn settings(
        &self,
        model: &str,
        dimensions: usize,
    ) -> herald::platform::embedding_config::EmbeddingSettings {
        herald::platform::embedding_config::EmbeddingSettings {
            provider: "openai-compatible".into(),
            model: model.into(),
            api_key: "sk-test".into(),
            base_url: Some(format!("{}/v1", self.base)),
            dimensions,
            timeout: Duration::from_secs(5),
        }
    }
}

/// The contract's request schema (it has no references to resolve).
fn request_schema() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/contracts/openai_openapi.json"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("the contract"))
        .expect("the contract is JSON");
    let schema = doc["components"]["schemas"]["CreateEmbeddingRequest"].clone();
    assert!(
        !schema.to_string().contains("$ref"),
        "the request schema is self-contained"
    );
    jsonschema::validator_for(&schema).expect("the contract's schema compiles")
}

pub async fn start() -> Arc<FakeEmbeddings> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let fake = Arc::new(FakeEmbeddings {
        base: format!("http://{addr}"),
        schema: request_schema(),
        failures: Mutex::default(),
        inputs: Mutex::default(),
        asked: Mutex::default(),
        refused: Mutex::default(),
    });
    let app = Router::new()
        .route("/v1/embeddings", post(handle))
        .with_state(fake.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    fake
}

fn error(status: StatusCode, message: &str) -> (StatusCode, Json<Value>) {
    (
        status,
        Json(
            json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}}),
        ),
    )
}

async fn handle(
    State(fake): State<Arc<FakeEmbeddings>>,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let problems: Vec<String> = fake
        .schema
        .iter_errors(&body)
        .map(|e| e.to_string())
        .collect();
    let inputs: Vec<String> = match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => vec![],
    };
    // What the description adds to the schema: no empty string.
    let empty = inputs.iter().any(|s| s.is_empty());
    if !problems.is_empty() || empty || inputs.is_empty() {
        let why = if empty {
            "input cannot be an empty string".to_owned()
        } else {
            problems.join("; ")
        };
        fake.refused.lock().unwrap().push(why.clone());
        return error(StatusCode::BAD_REQUEST, &why);
    }
    fake.inputs.lock().unwrap().push(inputs.clone());
    let model = body["model"].as_str().unwrap_or_default().to_owned();
    let dims = body["dimensions"].as_u64();
    fake.asked.lock().unwrap().push((dims, model.clone()));
    let failure = fake.failures.lock().unwrap().pop_front();
    match failure {
        Some(Fail::Status(code)) => {
            return error(
                StatusCode::from_u16(code).unwrap(),
                "the fake provider failed",
            )
        }
        Some(Fail::Stall(d)) => {
            tokio::time::sleep(d).await;
            return error(StatusCode::GATEWAY_TIMEOUT, "stalled");
        }
        None => {}
    }
    let width = dims.unwrap_or(1536) as usize;
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector(t, width)}))
        .collect();
    let tokens: usize = inputs.iter().map(|t| t.split_whitespace().count()).sum();
    (
        StatusCode::OK,
        Json(json!({
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        })),
    )
}

/// A word's concept: its group's first word, else the word without a plural "s".
fn concept(word: &str) -> Option<String> {
    if STOP.contains(&word) || word.len() < 2 {
        return None;
    }
    if let Some(g) = CONCEPTS.iter().find(|g| g.contains(&word)) {
        return Some(g[0].to_owned());
    }
    Some(
        word.strip_suffix('s')
            .filter(|w| w.len() > 2)
            .unwrap_or(word)
            .to_owned(),
    )
}

/// FNV-1a, so the fake's vectors are the same on every run and machine.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// The text's vector: each concept adds ±1 at two hashed places.
pub fn vector(text: &str, width: usize) -> Vec<f64> {
    let mut v = vec![0.0; width.max(1)];
    let lower = text.to_lowercase();
    for word in lower
        .split(|c: char| !c.is_alphanumeric())
        .filter_map(concept)
    {
        for salt in ["a", "b"] {
            let h = fnv(&format!("{salt}{word}"));
            let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
            v[(h % width as u64) as usize] += sign;
        }
    }
    v
}
