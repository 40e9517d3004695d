//! `/v1`'s own extractors: whatever a request gets wrong is a 400 problem that names the body's
//! field (`pointer`) or the parameter (`parameter`), never axum's plain text.
//!
//! - `Body<T>`: a JSON body, checked against `T`'s schema in the published document first
//!   (`contract::check`), so the server takes exactly what the document allows. A number with a
//!   zero fraction is an integer, as JSON Schema says (`307.0` where a count goes is 307).
//! - `Csv`: a `text/csv` body, not empty.
//! - `Id`: a path id, a UUID as the document writes it (`xxxxxxxx-xxxx-…`).
//! - `Params<T>`: the query.
use crate::public_api::contract;
use crate::public_api::problem::Problem;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// A UUID in the hyphenated form `format: uuid` means, and no other (`Uuid::parse_str` also
/// takes braces, a `urn:uuid:` prefix and no hyphens).
pub fn strict_uuid(s: &str) -> Option<Uuid> {
    let b = s.as_bytes();
    let hyphens = [8, 13, 18, 23];
    let ok = b.len() == 36
        && b.iter().enumerate().all(|(i, c)| {
            if hyphens.contains(&i) {
                *c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        });
    ok.then(|| Uuid::parse_str(s).ok()).flatten()
}

/// A query value's text, refused with U+0000 in it (`contract::TEXT`).
pub fn text_param(name: &str, value: Option<String>) -> Result<Option<String>, Problem> {
    match value {
        Some(v) if v.contains('\0') => Err(Problem::bad_parameter(
            name,
            format!("`{name}` may not contain the character U+0000."),
        )),
        other => Ok(other),
    }
}

/// A query value that is an id.
pub fn id_param(name: &str, value: Option<&str>) -> Result<Option<Uuid>, Problem> {
    value
        .map(|v| {
            strict_uuid(v).ok_or_else(|| {
                Problem::bad_parameter(name, format!("`{name}` is not a UUID: \"{v}\"."))
            })
        })
        .transpose()
}

fn is_json(headers: &HeaderMap) -> bool {
    let Some(ct) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

async fn bytes<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, Problem> {
    Bytes::from_request(req, state)
        .await
        .map_err(|e| Problem::new(e.status(), e.body_text()))
}

/// Turns every number with a zero fraction that fits an integer into that integer.
fn integral(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 {
                if f >= 0.0 && f < u64::MAX as f64 {
                    *v = Value::from(f as u64);
                } else if f < 0.0 && f >= i64::MIN as f64 {
                    *v = Value::from(f as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral),
        Value::Object(map) => map.values_mut().for_each(integral),
        _ => {}
    }
}

/// JSON Pointer escaping of one reference token.
fn token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// A JSON body of type `T`, as the document describes it.
pub struct Body<T>(pub T);

impl<T, S> FromRequest<S> for Body<T>
where
    T: DeserializeOwned + ToSchema,
    S: Send + Sync,
{
    type Rejection = Problem;

    async fn from_request(req: Request, state: &S) -> Result<Self, Problem> {
        if !is_json(req.headers()) {
            return Err(Problem::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Send the body as JSON (Content-Type: application/json).",
            ));
        }
        let raw = bytes(req, state).await?;
        let mut value: Value = serde_json::from_slice(&raw)
            .map_err(|e| Problem::bad_request(format!("The body is not JSON: {e}.")))?;
        contract::check(&T::name(), &value).map_err(|(at, words)| Problem::bad_body(&at, words))?;
        integral(&mut value);
        serde_path_to_error::deserialize(value)
            .map(Body)
            .map_err(|e| {
                use serde_path_to_error::Segment;
                let at: String = e
                    .path()
                    .iter()
                    .map(|s| match s {
                        Segment::Seq { index } => format!("/{index}"),
                        Segment::Map { key } => format!("/{}", token(key)),
                        Segment::Enum { variant } => format!("/{}", token(variant)),
                        Segment::Unknown => "/?".into(),
                    })
                    .collect();
                let field = if at.is_empty() {
                    "The body".to_owned()
                } else {
                    format!("`{}`", &at[1..])
                };
                Problem::bad_body(&at, format!("{field}: {}", e.inner()))
            })
    }
}

/// A `text/csv` body: not empty, no U+0000 (`contract::csv_schema`).
pub struct Csv(pub String);

impl<S: Send + Sync> FromRequest<S> for Csv {
    type Rejection = Problem;

    async fn from_request(req: Request, state: &S) -> Result<Self, Problem> {
        let csv = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("text/csv"));
        if !csv {
            return Err(Problem::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Send the file as text/csv.",
            ));
        }
        let raw = bytes(req, state).await?;
        let text = String::from_utf8(raw.to_vec())
            .map_err(|_| Problem::bad_request("The file is not UTF-8 text."))?;
        if text.is_empty() {
            return Err(Problem::bad_request(
                "The file is empty: send a header row, then a contact a row.",
            ));
        }
        if text.contains('\0') {
            return Err(Problem::bad_request(
                "The file may not contain the character U+0000.",
            ));
        }
        Ok(Csv(text))
    }
}

/// The id in a path with one parameter.
pub struct Id(pub Uuid);

impl<S: Send + Sync> FromRequestParts<S> for Id {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        axum::extract::RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|e| Problem::bad_request(e.body_text()))
            .and_then(|params| {
                let (name, value) = params
                    .iter()
                    .next()
                    .map(|(n, v)| (n.to_owned(), v.to_owned()))
                    .ok_or_else(|| Problem::bad_request("The path has no id."))?;
                strict_uuid(&value).map(Id).ok_or_else(|| {
                    Problem::bad_parameter(&name, format!("`{name}` is not a UUID: \"{value}\"."))
                })
            })
    }
}

/// The query, read into `T`; what does not fit is a 400 naming the parameter if it can.
pub struct Params<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Params<T> {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Problem> {
        let q = parts.uri.query().unwrap_or_default();
        let whole = serde_urlencoded::from_str::<T>(q);
        whole.map(Params).map_err(|e| {
            // The parameter at fault: the first that is refused on its own.
            let pairs: Vec<(String, String)> = serde_urlencoded::from_str(q).unwrap_or_default();
            let alone = pairs.iter().find_map(|(k, v)| {
                let one = serde_urlencoded::to_string([(k, v)]).ok()?;
                serde_urlencoded::from_str::<T>(&one)
                    .err()
                    .map(|e| (k.clone(), e))
            });
            match alone {
                Some((name, e)) => Problem::bad_parameter(&name, format!("`{name}`: {e}.")),
                None => Problem::bad_request(format!("The query is not valid: {e}.")),
            }
        })
    }
}

/// The `Idempotency-Key` header, if sent: visible ASCII and spaces, not only spaces, at most
/// `contract::IDEMPOTENCY_KEY_MAX` (`contract::IDEMPOTENCY_KEY`).
pub fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, Problem> {
    let Some(v) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    let b = v.as_bytes();
    let ok = !b.is_empty()
        && b.len() <= contract::IDEMPOTENCY_KEY_MAX
        && b.iter().all(|c| (b' '..=b'~').contains(c))
        && b.iter().any(|c| *c != b' ');
    if !ok {
        return Err(Problem::bad_parameter(
            "Idempotency-Key",
            format!(
                "An Idempotency-Key is 1 to {} visible ASCII characters (and spaces).",
                contract::IDEMPOTENCY_KEY_MAX
            ),
        ));
    }
    Ok(Some(String::from_utf8_lossy(b).trim().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_hyphenated_form_is_a_uuid() {
        let id = Uuid::new_v4();
        assert_eq!(strict_uuid(&id.to_string()), Some(id));
        assert_eq!(strict_uuid(&id.to_string().to_uppercase()), Some(id));
        for other in [
            id.simple().to_string(),
            id.urn().to_string(),
            id.braced().to_string(),
        ] {
            assert_eq!(strict_uuid(&other), None, "{other}");
        }
    }

    #[test]
    fn a_zero_fraction_is_an_integer() {
        let mut v = json!({"a": 307.0, "b": [1.5, -2.0], "c": 1e300, "d": "3.0"});
        integral(&mut v);
        assert_eq!(v, json!({"a": 307, "b": [1.5, -2], "c": 1e300, "d": "3.0"}));
    }
}
