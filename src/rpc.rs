//! One lean client for every server function: the first-load budget pays for each call site.
//!
//! `server_fn!` wraps a function exactly as Dioxus's `#[post]`/`#[get]` would. On the server it
//! *is* that attribute: the same route, extractors, error encoding and registration, so the
//! router's own list of server functions (which the cross-organisation test walks) is unchanged.
//! On the clients (web, desktop, mobile) it becomes a small function that serialises its arguments
//! and hands them to one non-generic request function. Dioxus's own client stub is generic over
//! every argument, return and error type, and an optimiser inlines all of it into each caller
//! (4–9 KB of wasm per call site); here only the argument encoder and the result decoder are per
//! function. The wire format is Dioxus's: a JSON object of the named arguments (an empty body when
//! there are none), the JSON of the result on success, and `{message, code, data}` on an error,
//! with `data` the serialised `AppError`.

/// Defines a server function: `#[post("/api/…")]` with any arguments, or `#[get("/api/…")]` with
/// none. The return type must be spelled `Result<T, AppError>`.
#[macro_export]
macro_rules! server_fn {
    (
        #[get($path:literal)]
        $(#[$attr:meta])*
        $vis:vis async fn $name:ident() -> Result<$ok:ty, AppError> { $($body:tt)* }
    ) => {
        #[cfg(feature = "server")]
        $(#[$attr])*
        #[dioxus::prelude::get($path)]
        $vis async fn $name() -> Result<$ok, AppError> { $($body)* }

        #[cfg(not(feature = "server"))]
        $(#[$attr])*
        $vis async fn $name() -> Result<$ok, AppError> {
            $crate::rpc::call::<$ok>(false, $path, String::new()).await
        }
    };
    (
        #[post($path:literal)]
        $(#[$attr:meta])*
        $vis:vis async fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> Result<$ok:ty, AppError> {
            $($body:tt)*
        }
    ) => {
        #[cfg(feature = "server")]
        $(#[$attr])*
        #[dioxus::prelude::post($path)]
        $vis async fn $name($($arg: $ty),*) -> Result<$ok, AppError> { $($body)* }

        // The arguments' check, run on the raw body before Dioxus reads it (`server::arg_check`).
        #[cfg(feature = "server")]
        const _: () = {
            #[derive(serde::Deserialize)]
            #[allow(dead_code)]
            struct Args {
                $($arg: $ty,)*
            }
            $crate::rpc::inventory::submit! {
                $crate::rpc::ArgCheck { path: $path, check: $crate::rpc::check_args::<Args> }
            }
        };

        #[cfg(not(feature = "server"))]
        $(#[$attr])*
        $vis async fn $name($($arg: $ty),*) -> Result<$ok, AppError> {
            #[derive(serde::Serialize)]
            struct Args<'a> {
                $($arg: &'a $ty,)*
                #[serde(skip)]
                _borrow: ::core::marker::PhantomData<&'a ()>,
            }
            let args = Args { $($arg: &$arg,)* _borrow: ::core::marker::PhantomData };
            match $crate::rpc::encode(&args) {
                Ok(body) => $crate::rpc::call::<$ok>(true, $path, body).await,
                Err(err) => Err(err),
            }
        }
    };
}

#[cfg(not(feature = "server"))]
pub use client::{call, encode, upload};

#[cfg(feature = "server")]
pub use inventory;

/// One server function's argument check: its path, and a function that reads a body as its
/// arguments would be read and names what is wrong.
#[cfg(feature = "server")]
pub struct ArgCheck {
    pub path: &'static str,
    pub check: fn(&[u8]) -> Result<(), String>,
}

#[cfg(feature = "server")]
inventory::collect!(ArgCheck);

/// Reads `bytes` as the arguments `T` (an empty body is no arguments, as Dioxus reads it); the
/// error names the field and says what was wrong with it.
#[cfg(feature = "server")]
pub fn check_args<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<(), String> {
    let bytes: &[u8] = if bytes.is_empty() { b"{}" } else { bytes };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(_) => Ok(()),
        Err(e) => Err(arg_error(&e.path().to_string(), e.inner())),
    }
}

/// A malformed argument in words: which field, and what it should have been.
#[cfg(feature = "server")]
fn arg_error(path: &str, e: &serde_json::Error) -> String {
    // serde's own words end with where in the text it stopped; the field says it better.
    let words = e.to_string();
    let words = match words.rfind(" at line ") {
        Some(i) => &words[..i],
        None => &words,
    };
    match (path, e.classify()) {
        (_, serde_json::error::Category::Syntax | serde_json::error::Category::Eof) => {
            format!("The request is not valid JSON: {words}.")
        }
        (".", _) | ("", _) => format!("The request's arguments are malformed: {words}."),
        (field, _) => format!("The field `{field}` is malformed: {words}."),
    }
}

/// The server renders the composer but never runs its handlers: an upload is the client's.
#[cfg(feature = "server")]
pub async fn upload<T>(
    _path: &str,
    _content_type: &str,
    _bytes: Vec<u8>,
) -> Result<T, crate::error::AppError> {
    Err(crate::error::AppError::ServerFn(
        "files are uploaded by the app, not the server".into(),
    ))
}

#[cfg(not(feature = "server"))]
mod client {
    use crate::error::AppError;
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Serialize};

    /// The arguments as the JSON object Dioxus's server side reads.
    pub fn encode(args: &impl Serialize) -> Result<String, AppError> {
        serde_json::to_string(args).map_err(|e| AppError::Validation(e.to_string()))
    }

    /// Calls one server function and decodes its answer.
    pub async fn call<T: DeserializeOwned>(
        post: bool,
        path: &'static str,
        body: String,
    ) -> Result<T, AppError> {
        let bytes = send(post, path, body).await?;
        let bytes: &[u8] = if bytes.is_empty() { b"null" } else { &bytes };
        serde_json::from_slice(bytes).map_err(|e| AppError::ServerFn(e.to_string()))
    }

    /// POSTs raw bytes of `content_type` (a picture to `/api/media/upload`, a document to
    /// `/api/knowledge/document?name=…`) and decodes the JSON answer, with the server's
    /// `AppError` on failure.
    pub async fn upload<T: DeserializeOwned>(
        path: &str,
        content_type: &str,
        bytes: Vec<u8>,
    ) -> Result<T, AppError> {
        let (status, answer) = transport_bytes(path, content_type, bytes)
            .await
            .map_err(AppError::ServerFn)?;
        if !(200..300).contains(&status) {
            return Err(error_from(status, &answer));
        }
        serde_json::from_slice(&answer).map_err(|e| AppError::ServerFn(e.to_string()))
    }

    #[cfg(target_arch = "wasm32")]
    async fn transport_bytes(
        path: &str,
        content_type: &str,
        bytes: Vec<u8>,
    ) -> Result<(u16, Vec<u8>), String> {
        use gloo_net::http::{Method, RequestBuilder};
        let body = js_sys::Uint8Array::from(bytes.as_slice());
        let response = RequestBuilder::new(path)
            .method(Method::POST)
            .header("Content-Type", content_type)
            .body(body)
            .map_err(|e| e.to_string())?
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        Ok((status, response.binary().await.map_err(|e| e.to_string())?))
    }

    #[cfg(not(target_arch = "wasm32"))]
    async fn transport_bytes(
        path: &str,
        content_type: &str,
        bytes: Vec<u8>,
    ) -> Result<(u16, Vec<u8>), String> {
        use dioxus::fullstack::{ClientRequest, Method};
        let request = ClientRequest::new(Method::POST, path.to_string(), &())
            .header("Content-Type", content_type.to_owned())
            .map_err(|e| e.to_string())?;
        let response = request
            .send_raw_bytes(bytes)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let answer = response.bytes().await.map_err(|e| e.to_string())?;
        Ok((status, answer.to_vec()))
    }

    /// The request itself, once for every server function: the body on success, the decoded
    /// `AppError` otherwise.
    #[inline(never)]
    async fn send(post: bool, path: &'static str, body: String) -> Result<Vec<u8>, AppError> {
        // No arguments: no body, as Dioxus sends it.
        let body = (!(body.is_empty() || body == "{}")).then_some(body);
        let (status, bytes) = transport(post, path, body)
            .await
            .map_err(AppError::ServerFn)?;
        if (200..300).contains(&status) {
            Ok(bytes)
        } else {
            Err(error_from(status, &bytes))
        }
    }

    /// In the browser: the page's own `fetch`, relative to its origin (no URL parser, header
    /// map or HTTP client compiled into the wasm).
    #[cfg(target_arch = "wasm32")]
    async fn transport(
        post: bool,
        path: &'static str,
        body: Option<String>,
    ) -> Result<(u16, Vec<u8>), String> {
        use gloo_net::http::{Method, RequestBuilder};
        let builder =
            RequestBuilder::new(path).method(if post { Method::POST } else { Method::GET });
        let request = match body {
            None => builder.build(),
            Some(body) => builder
                .header("Content-Type", "application/json")
                .body(body),
        }
        .map_err(|e| e.to_string())?;
        let response = request.send().await.map_err(|e| e.to_string())?;
        let status = response.status();
        let bytes = response.binary().await.map_err(|e| e.to_string())?;
        Ok((status, bytes))
    }

    /// Desktop and mobile: Dioxus's client, to `HERALD_SERVER_URL`.
    #[cfg(not(target_arch = "wasm32"))]
    async fn transport(
        post: bool,
        path: &'static str,
        body: Option<String>,
    ) -> Result<(u16, Vec<u8>), String> {
        use dioxus::fullstack::{ClientRequest, Method};
        let method = if post { Method::POST } else { Method::GET };
        let request = ClientRequest::new(method, path.to_string(), &());
        let response = match body {
            None => request.send_empty_body().await,
            Some(body) => match request.header("Content-Type", "application/json") {
                Ok(request) => request.send_raw_bytes(body.into_bytes()).await,
                Err(err) => Err(err),
            },
        }
        .map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let bytes = response.bytes().await.map_err(|e| e.to_string())?;
        Ok((status, bytes.to_vec()))
    }

    /// What Dioxus writes for a failed server function.
    #[derive(Deserialize)]
    struct ErrorPayload {
        message: String,
        code: u16,
        data: Option<AppError>,
    }

    /// The server's `AppError` when it sent one; otherwise one made from the status, as Dioxus's
    /// own client does (a 401 is "sign in", a 403 "owner only", …).
    #[inline(never)]
    fn error_from(status: u16, bytes: &[u8]) -> AppError {
        match serde_json::from_slice::<ErrorPayload>(bytes) {
            Ok(ErrorPayload {
                data: Some(err), ..
            }) => err,
            Ok(ErrorPayload { message, code, .. }) => AppError::from_status(code, message),
            Err(_) => {
                let text = String::from_utf8_lossy(bytes);
                AppError::from_status(status, format!("HTTP {status}: {text}"))
            }
        }
    }
}
