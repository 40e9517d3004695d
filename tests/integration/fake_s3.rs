//! A fake S3-compatible bucket on loopback, doing what S3's PutObject and GetObject promise for
//! path-style requests: a PUT stores the body under its key (an ETag back), a GET answers it with
//! its ETag, length and time, or 404 with S3's XML error. It checks no signature.
#![allow(dead_code)]
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Default)]
pub struct FakeS3 {
    /// (bucket, key) → bytes.
    pub objects: Mutex<HashMap<(String, String), Vec<u8>>>,
}

impl FakeS3 {
    pub fn keys(&self, bucket: &str) -> Vec<String> {
        let mut keys: Vec<String> = self
            .objects
            .lock()
            .unwrap()
            .keys()
            .filter(|(b, _)| b == bucket)
            .map(|(_, k)| k.clone())
            .collect();
        keys.sort();
        keys
    }
}

fn etag(bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    format!("\"{:016x}\"", h.finish())
}

async fn put(
    State(s3): State<Arc<FakeS3>>,
    Path((bucket, key)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    let tag = etag(&body);
    s3.objects
        .lock()
        .unwrap()
        .insert((bucket, key), body.to_vec());
    (StatusCode::OK, [(header::ETAG, tag)]).into_response()
}

async fn get(
    State(s3): State<Arc<FakeS3>>,
    Path((bucket, key)): Path<(String, String)>,
) -> Response {
    match s3.objects.lock().unwrap().get(&(bucket, key.clone())) {
        Some(bytes) => (
            StatusCode::OK,
            [
                (header::ETAG, etag(bytes)),
                (
                    header::LAST_MODIFIED,
                    "Fri, 27 Nov 2026 12:00:00 GMT".to_owned(),
                ),
                (header::CONTENT_LENGTH, bytes.len().to_string()),
                (header::CONTENT_TYPE, "application/octet-stream".to_owned()),
            ],
            bytes.clone(),
        )
            .into_response(),
        None => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "application/xml")],
            format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NoSuchKey</Code>\
                 <Message>The specified key does not exist.</Message><Key>{key}</Key></Error>"
            ),
        )
            .into_response(),
    }
}

pub async fn start() -> (String, Arc<FakeS3>) {
    let s3 = Arc::new(FakeS3::default());
    let app = Router::new()
        .route("/{bucket}/{*key}", axum::routing::put(put).get(get))
        .with_state(s3.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), s3)
}
