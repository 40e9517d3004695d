//! Fake hosted models on loopback that keep the providers' real contracts: an OpenAI-compatible
//! Chat Completions endpoint and Anthropic's Messages endpoint. Each checks every request's
//! history the way its provider does (a tool result must answer the call right before it, every
//! call must be answered) and answers 400 with the provider's own error text when it does not.
//! Otherwise it plays back a script: tool calls, text, an HTTP error, a stall, or an answer
//! computed from the request.
#![allow(dead_code)]
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dialect {
    OpenAi,
    Anthropic,
}

/// A provider-neutral reading of one request, for steps that answer from it.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub system: String,
    pub tools: Vec<String>,
    /// (name, description) of each tool offered, in the order offered.
    pub tool_defs: Vec<(String, String)>,
    /// (role, text) in order; tool results read as ("tool", content).
    pub messages: Vec<(String, String)>,
}

impl Seen {
    /// The newest tool result's content as JSON, if any.
    pub fn last_result(&self) -> Option<Value> {
        self.messages
            .iter()
            .rev()
            .find(|(r, _)| r == "tool")
            .and_then(|(_, c)| serde_json::from_str(herald::ai_agent::taint::unfenced(c)).ok())
    }
    /// Every tool result's content that parses as JSON, oldest first.
    pub fn results(&self) -> Vec<Value> {
        self.messages
            .iter()
            .filter(|(r, _)| r == "tool")
            .filter_map(|(_, c)| serde_json::from_str(herald::ai_agent::taint::unfenced(c)).ok())
            .collect()
    }
    pub fn user_texts(&self) -> Vec<&str> {
        self.messages
            .iter()
            .filter(|(r, _)| r == "user")
            .map(|(_, t)| t.as_str())
            .collect()
    }
}

pub type Answer = Box<dyn Fn(&Seen) -> Step + Send + Sync>;

pub enum Step {
    /// Tool calls: (name, raw JSON arguments as the model wrote them, possibly malformed).
    Calls(Vec<(String, String)>),
    Text(String),
    /// An HTTP error with this status.
    Status(u16),
    /// Waits this long before answering an error (a client with a shorter timeout gives up).
    Stall(Duration),
    /// Answers from what the request carries.
    Dynamic(Answer),
}

impl Step {
    pub fn call(name: &str, args: Value) -> Step {
        Step::Calls(vec![(name.into(), args.to_string())])
    }
    pub fn raw_call(name: &str, raw: &str) -> Step {
        Step::Calls(vec![(name.into(), raw.into())])
    }
    pub fn text(t: &str) -> Step {
        Step::Text(t.into())
    }
}

pub struct FakeLlm {
    pub dialect: Dialect,
    pub base: String,
    script: Mutex<VecDeque<Step>>,
    /// Used when the script is empty.
    fallback: Mutex<Option<Answer>>,
    pub requests: Mutex<Vec<Value>>,
    /// The provider's error text for each request it refused.
    pub refused: Mutex<Vec<String>>,
    calls: Mutex<u64>,
}

impl FakeLlm {
    pub fn push(&self, step: Step) -> &Self {
        self.script.lock().unwrap().push_back(step);
        self
    }
    pub fn otherwise(&self, answer: Answer) {
        *self.fallback.lock().unwrap() = Some(answer);
    }
    pub fn remaining(&self) -> usize {
        self.script.lock().unwrap().len()
    }
    pub fn request_count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
    /// Every request so far, read the same way whatever the dialect.
    pub fn seen(&self) -> Vec<Seen> {
        let requests = self.requests.lock().unwrap();
        requests.iter().map(|r| read(self.dialect, r)).collect()
    }
    /// The settings that point Herald's rig client at this fake.
    pub fn settings(&self, timeout: Duration) -> herald::ai_agent::llm::rig::RigSettings {
        herald::ai_agent::llm::rig::RigSettings {
            provider: match self.dialect {
                Dialect::OpenAi => "openai-compatible".into(),
                Dialect::Anthropic => "anthropic".into(),
            },
            model: "fake-model".into(),
            api_key: "sk-test".into(),
            base_url: Some(match self.dialect {
                Dialect::OpenAi => format!("{}/v1", self.base),
                Dialect::Anthropic => self.base.clone(),
            }),
            timeout,
        }
    }
}

/// A test app whose model is `llm` (through rig, giving up after `timeout`) and whose texts go
/// to the returned outbox.
pub async fn spawn_with(
    backend: crate::helpers::Backend,
    llm: &FakeLlm,
    timeout: Duration,
) -> Option<(
    crate::helpers::TestApp,
    Arc<herald::platform::sms::outbox::OutboxTransport>,
)> {
    let model =
        Arc::new(herald::ai_agent::llm::rig::RigModel::new(&llm.settings(timeout)).unwrap());
    let outbox = Arc::new(herald::platform::sms::outbox::OutboxTransport::default());
    let options = crate::helpers::Options {
        model: Some(model),
        transport: Some(outbox.clone()),
        ..Default::default()
    };
    let app = crate::helpers::spawn_app_with(backend, options).await?;
    Some((app, outbox))
}

pub async fn start(dialect: Dialect) -> Arc<FakeLlm> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let fake = Arc::new(FakeLlm {
        dialect,
        base: format!("http://{addr}"),
        script: Mutex::default(),
        fallback: Mutex::default(),
        requests: Mutex::default(),
        refused: Mutex::default(),
        calls: Mutex::new(0),
    });
    let app = Router::new()
        .route("/v1/chat/completions", post(handle))
        .route("/v1/messages", post(handle))
        .with_state(fake.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    fake
}

async fn handle(
    State(fake): State<Arc<FakeLlm>>,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    fake.requests.lock().unwrap().push(body.clone());
    let checked = match fake.dialect {
        Dialect::OpenAi => check_openai(&body),
        Dialect::Anthropic => check_anthropic(&body),
    }
    .and_then(|_| images_of(fake.dialect, &body).map(|_| ()));
    if let Err(message) = checked {
        fake.refused.lock().unwrap().push(message.clone());
        return (
            StatusCode::BAD_REQUEST,
            Json(error_body(fake.dialect, &message)),
        );
    }
    let seen = read(fake.dialect, &body);
    let step = fake.script.lock().unwrap().pop_front();
    let step = match step {
        Some(s) => s,
        None => match &*fake.fallback.lock().unwrap() {
            Some(answer) => answer(&seen),
            None => Step::text("(the fake's script is finished)"),
        },
    };
    let step = match step {
        Step::Dynamic(answer) => answer(&seen),
        other => other,
    };
    match step {
        Step::Stall(d) => {
            // The client has given up by now; the next step stays for its retry.
            tokio::time::sleep(d).await;
            (
                StatusCode::GATEWAY_TIMEOUT,
                Json(error_body(fake.dialect, "stalled")),
            )
        }
        Step::Status(code) => (
            StatusCode::from_u16(code).unwrap(),
            Json(error_body(fake.dialect, "the fake provider failed")),
        ),
        Step::Calls(calls) => {
            let n = {
                let mut c = fake.calls.lock().unwrap();
                *c += 1;
                *c
            };
            (StatusCode::OK, Json(reply(fake.dialect, n, None, &calls)))
        }
        Step::Text(t) => (StatusCode::OK, Json(reply(fake.dialect, 0, Some(&t), &[]))),
        Step::Dynamic(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(error_body(
                fake.dialect,
                "a dynamic step answered another dynamic step",
            )),
        ),
    }
}

fn error_body(dialect: Dialect, message: &str) -> Value {
    match dialect {
        Dialect::OpenAi => {
            json!({"error": {"message": message, "type": "invalid_request_error", "param": "messages", "code": null}})
        }
        Dialect::Anthropic => {
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
        }
    }
}

fn reply(dialect: Dialect, n: u64, text: Option<&str>, calls: &[(String, String)]) -> Value {
    match dialect {
        Dialect::OpenAi => {
            let tool_calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| json!({"id": format!("call_{n}_{i}"), "type": "function", "function": {"name": name, "arguments": args}}))
                .collect();
            json!({
                "id": format!("chatcmpl-{n}"), "object": "chat.completion", "created": 1, "model": "fake-model",
                "choices": [{"index": 0, "finish_reason": if calls.is_empty() { "stop" } else { "tool_calls" },
                    "message": {"role": "assistant", "content": text,
                        "tool_calls": if calls.is_empty() { Value::Null } else { json!(tool_calls) }}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
            })
        }
        Dialect::Anthropic => {
            let mut content: Vec<Value> = Vec::new();
            if let Some(t) = text {
                content.push(json!({"type": "text", "text": t}));
            }
            for (i, (name, args)) in calls.iter().enumerate() {
                // Anthropic's input is always an object; malformed JSON cannot be expressed.
                let input: Value = serde_json::from_str(args).unwrap_or_else(|_| json!({}));
                content.push(json!({"type": "tool_use", "id": format!("toolu_{n}_{i}"), "name": name, "input": input}));
            }
            json!({
                "id": format!("msg_{n}"), "type": "message", "role": "assistant", "model": "fake-model",
                "content": content,
                "stop_reason": if calls.is_empty() { "end_turn" } else { "tool_use" },
                "stop_sequence": null,
                "usage": {"input_tokens": 1, "output_tokens": 1}
            })
        }
    }
}

/// OpenAI's rules for `messages`: a `tool` message answers a call of the assistant message just
/// before it, and every call is answered before anything else.
pub fn check_openai(body: &Value) -> Result<(), String> {
    let msgs = body["messages"].as_array().cloned().unwrap_or_default();
    let mut pending: Vec<String> = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or("");
        if !pending.is_empty() && role != "tool" {
            return Err(format!("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {} (messages.[{i}].role)", pending.join(", ")));
        }
        match role {
            "assistant" => {
                pending = m["tool_calls"]
                    .as_array()
                    .map(|c| {
                        c.iter()
                            .filter_map(|c| c["id"].as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
            }
            "tool" => {
                let id = m["tool_call_id"].as_str().unwrap_or("");
                match pending.iter().position(|p| p == id) {
                    Some(k) => {
                        pending.remove(k);
                    }
                    None => return Err(format!("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages.[{i}].role)")),
                }
            }
            _ => {}
        }
    }
    if !pending.is_empty() {
        return Err(format!("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}", pending.join(", ")));
    }
    Ok(())
}

fn blocks(m: &Value) -> Vec<Value> {
    match &m["content"] {
        Value::String(s) => vec![json!({"type": "text", "text": s})],
        Value::Array(a) => a.clone(),
        _ => vec![],
    }
}

/// Anthropic's rules: the conversation starts with the user; every `tool_use` is answered by a
/// `tool_result` in the very next (user) message, results first; no result without its use.
pub fn check_anthropic(body: &Value) -> Result<(), String> {
    let msgs = body["messages"].as_array().cloned().unwrap_or_default();
    if msgs.first().map(|m| m["role"] != "user").unwrap_or(false) {
        return Err("messages: first message must use the \"user\" role".into());
    }
    for (i, m) in msgs.iter().enumerate() {
        let content = blocks(m);
        if m["role"] == "assistant" {
            let uses: Vec<String> = content
                .iter()
                .filter(|b| b["type"] == "tool_use")
                .filter_map(|b| b["id"].as_str().map(str::to_owned))
                .collect();
            if uses.is_empty() {
                continue;
            }
            let next = msgs.get(i + 1).filter(|n| n["role"] == "user");
            let next_blocks = next.map(blocks).unwrap_or_default();
            let answered: Vec<String> = next_blocks
                .iter()
                .filter(|b| b["type"] == "tool_result")
                .filter_map(|b| b["tool_use_id"].as_str().map(str::to_owned))
                .collect();
            let missing: Vec<&String> = uses.iter().filter(|u| !answered.contains(u)).collect();
            if !missing.is_empty() {
                return Err(format!("messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")));
            }
            let first_other = next_blocks.iter().position(|b| b["type"] != "tool_result");
            let last_result = next_blocks.iter().rposition(|b| b["type"] == "tool_result");
            if let (Some(o), Some(r)) = (first_other, last_result) {
                if o < r {
                    return Err(format!("messages.{}: `tool_result` blocks must come before any other content in the message.", i + 1));
                }
            }
        } else {
            let prev_uses: Vec<String> = i
                .checked_sub(1)
                .and_then(|p| msgs.get(p))
                .filter(|p| p["role"] == "assistant")
                .map(blocks)
                .unwrap_or_default()
                .iter()
                .filter(|b| b["type"] == "tool_use")
                .filter_map(|b| b["id"].as_str().map(str::to_owned))
                .collect();
            for (j, b) in content.iter().enumerate() {
                if b["type"] == "tool_result" {
                    let id = b["tool_use_id"].as_str().unwrap_or("");
                    if !prev_uses.iter().any(|u| u == id) {
                        return Err(format!("messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."));
                    }
                }
            }
        }
    }
    Ok(())
}

/// A picture a request carried: its declared type and its bytes.
#[derive(Clone, Debug)]
pub struct SeenImage {
    pub role: String,
    pub media_type: String,
    pub bytes: Vec<u8>,
}

/// The pictures of a request, checked as each provider checks them: OpenAI takes an
/// `image_url` part (a `data:` URL of PNG, JPEG, WEBP or GIF, or an http(s) URL) in a user
/// message only; Anthropic an `image` block whose base64 `source` is JPEG, PNG, GIF or WEBP, at
/// most 5 MB, and really of its `media_type`. Refused with the provider's own words otherwise.
pub fn images_of(dialect: Dialect, body: &Value) -> Result<Vec<SeenImage>, String> {
    use base64::Engine;
    let allowed = ["image/jpeg", "image/png", "image/gif", "image/webp"];
    let decode = |data: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|_| "Invalid base64 data for an image".to_owned())
    };
    let mut out = Vec::new();
    let msgs = body["messages"].as_array().cloned().unwrap_or_default();
    for (i, m) in msgs.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or("").to_owned();
        for (j, b) in blocks(m).iter().enumerate() {
            match (dialect, b["type"].as_str()) {
                (Dialect::OpenAi, Some("image_url")) => {
                    if role != "user" {
                        return Err(format!(
                            "Invalid 'messages[{i}]': image_url is only supported in user messages"
                        ));
                    }
                    let url = b["image_url"]["url"].as_str().unwrap_or("");
                    let Some(rest) = url.strip_prefix("data:") else {
                        if url.starts_with("https://") || url.starts_with("http://") {
                            continue;
                        }
                        return Err(format!("Invalid 'messages[{i}].content[{j}].image_url.url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,...'), but got a value of unsupported format."));
                    };
                    let (mime, data) = rest.split_once(";base64,").unwrap_or(("", ""));
                    if !allowed.contains(&mime) {
                        return Err(format!(
                            "Invalid MIME type: {mime}. Only image types are supported."
                        ));
                    }
                    out.push(SeenImage {
                        role: role.clone(),
                        media_type: mime.into(),
                        bytes: decode(data)?,
                    });
                }
                (Dialect::Anthropic, Some("image")) => {
                    let src = &b["source"];
                    if src["type"] != "base64" {
                        continue;
                    }
                    let mime = src["media_type"].as_str().unwrap_or("");
                    if !allowed.contains(&mime) {
                        return Err(format!("messages.{i}.content.{j}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"));
                    }
                    let data = src["data"].as_str().unwrap_or("");
                    if data.len() > 5 * 1024 * 1024 {
                        return Err(format!("messages.{i}.content.{j}.image.source.base64: image exceeds 5 MB maximum"));
                    }
                    let bytes = decode(data)?;
                    let actual = match image::guess_format(&bytes) {
                        Ok(image::ImageFormat::Jpeg) => "image/jpeg",
                        Ok(image::ImageFormat::Png) => "image/png",
                        Ok(image::ImageFormat::Gif) => "image/gif",
                        Ok(image::ImageFormat::WebP) => "image/webp",
                        _ => "unknown",
                    };
                    if actual != mime {
                        return Err(format!("messages.{i}.content.{j}.image.source.base64.data: Image does not match the provided media type {mime}"));
                    }
                    out.push(SeenImage {
                        role: role.clone(),
                        media_type: mime.into(),
                        bytes,
                    });
                }
                _ => {}
            }
        }
    }
    Ok(out)
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(|b| b["text"].as_str().or_else(|| b["content"].as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The request, read the same way whatever the dialect.
fn read(dialect: Dialect, body: &Value) -> Seen {
    let mut seen = Seen::default();
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    seen.tools = tools
        .iter()
        .filter_map(|t| {
            t["function"]["name"]
                .as_str()
                .or_else(|| t["name"].as_str())
                .map(str::to_owned)
        })
        .collect();
    seen.tool_defs = tools
        .iter()
        .map(|t| {
            let f = if t["function"].is_object() {
                &t["function"]
            } else {
                t
            };
            (
                f["name"].as_str().unwrap_or_default().to_owned(),
                f["description"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let msgs = body["messages"].as_array().cloned().unwrap_or_default();
    match dialect {
        Dialect::OpenAi => {
            for m in msgs {
                let role = m["role"].as_str().unwrap_or("").to_owned();
                if role == "system" {
                    seen.system = text_of(&m["content"]);
                    continue;
                }
                seen.messages.push((role, text_of(&m["content"])));
            }
        }
        Dialect::Anthropic => {
            seen.system = text_of(&body["system"]);
            for m in msgs {
                for b in blocks(&m) {
                    match b["type"].as_str() {
                        Some("tool_result") => {
                            seen.messages.push(("tool".into(), text_of(&b["content"])))
                        }
                        Some("text") => seen.messages.push((
                            m["role"].as_str().unwrap_or("").to_owned(),
                            text_of(&b["text"]),
                        )),
                        _ => {}
                    }
                }
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fakes_refuse_what_the_providers_refuse() {
        let bad = json!({"messages": [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "user", "content": "b"},
            {"role": "tool", "tool_call_id": "c1", "content": "{}"}
        ]});
        assert!(check_openai(&bad)
            .unwrap_err()
            .contains("must be followed by tool messages"));
        let bad = json!({"messages": [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
            {"role": "user", "content": "b"},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "{}"}]}
        ]});
        assert!(check_anthropic(&bad)
            .unwrap_err()
            .contains("without `tool_result` blocks"));
    }
}
