//! The built web app's static files (the `public/` folder scripts/build_web.sh writes beside the
//! server): served precompressed, brotli or gzip as the browser's `Accept-Encoding` allows, from
//! `.br` and `.gz` files beside each one. The build writes the `.br` files; Herald writes any
//! missing `.gz` at start-up. A hashed asset
//! (`name-dxh<hex>.ext`) never changes, so it is cached for a year as immutable; other files
//! (manifest, icons) revalidate. Pages and server functions are never stored (`no-store`).
use axum::body::Body;
use axum::http::{header, HeaderValue, Request, Response};
use axum::middleware::Next;
use axum::Router;
use std::path::{Path, PathBuf};
use tower::ServiceExt;
use tower_http::services::ServeFile;

/// How long a hashed asset may be cached: a year, never revalidated.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Files whose name does not change with their content: ask the server each time.
pub const REVALIDATE: &str = "no-cache";
/// Pages and server functions.
pub const NO_STORE: &str = "no-store";

/// Larger files are served as they are: only a debug build's wasm is this big, and compressing
/// it would take the server's time for nothing.
const MAX_GZIP_BYTES: u64 = 16 * 1024 * 1024;

/// Worth compressing: text and wasm; images and fonts are compressed already.
const COMPRESSIBLE: &[&str] = &[
    "wasm",
    "js",
    "mjs",
    "css",
    "json",
    "svg",
    "txt",
    "map",
    "webmanifest",
    "ico",
];

pub use crate::platform::config::public_dir;

/// Whether `name` is a content-hashed asset, named as dx names them (`main-dxh12ab34cd.js`).
pub fn is_hashed(name: &str) -> bool {
    name.rsplit_once("-dxh").is_some_and(|(_, rest)| {
        let hash: String = rest.chars().take_while(|c| *c != '.').collect();
        !hash.is_empty() && hash.chars().all(|c| c.is_ascii_hexdigit())
    })
}

/// Every file under `public` to serve, with its route; `index.html` and `index-full.html` are the
/// page templates (`full_client`), and
/// the compressed siblings are served in place of their originals.
pub fn files(public: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut dirs = vec![public.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            let template = path == public.join("index.html")
                || path == public.join(crate::server::full_client::FULL_TEMPLATE);
            if template || ext == "br" || ext == "gz" {
                continue;
            }
            let Ok(rel) = path.strip_prefix(public) else {
                continue;
            };
            let route: Vec<String> = rel
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            out.push((format!("/{}", route.join("/")), path));
        }
    }
    out.sort();
    out
}

/// Writes a `.gz` beside every compressible file that lacks one (or has an older one). Answers
/// how many it wrote; a read-only folder is logged and served uncompressed.
pub fn gzip_missing(public: &Path) -> usize {
    use flate2::{write::GzEncoder, Compression};
    use std::io::Write;
    let mut written = 0;
    for (_, path) in files(public) {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if !COMPRESSIBLE.contains(&ext) || size > MAX_GZIP_BYTES {
            continue;
        }
        let gz = sibling(&path, "gz");
        let fresh = match (modified(&path), modified(&gz)) {
            (Some(src), Some(done)) => done >= src,
            _ => false,
        };
        if fresh {
            continue;
        }
        let result = std::fs::read(&path).and_then(|bytes| {
            let mut enc = GzEncoder::new(Vec::new(), Compression::best());
            enc.write_all(&bytes)?;
            let tmp = sibling(&path, "gz.tmp");
            std::fs::write(&tmp, enc.finish()?)?;
            std::fs::rename(&tmp, &gz)
        });
        match result {
            Ok(()) => written += 1,
            Err(error) => {
                tracing::warn!(file = %path.display(), %error, "could not write a gzip copy; serving it uncompressed");
            }
        }
    }
    written
}

fn sibling(path: &Path, ext: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(ext);
    PathBuf::from(name)
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).ok()?.modified().ok()
}

/// Routes for every static file, precompressed and with its caching rule.
pub fn routes<S: Clone + Send + Sync + 'static>(mut router: Router<S>, public: &Path) -> Router<S> {
    for (route, path) in files(public) {
        let rule = if is_hashed(&route) {
            IMMUTABLE
        } else {
            REVALIDATE
        };
        let service = ServeFile::new(&path)
            .precompressed_br()
            .precompressed_gzip()
            .map_request(|req: Request<Body>| req)
            .map_response(move |mut res: Response<_>| {
                let h = res.headers_mut();
                h.insert(header::CACHE_CONTROL, HeaderValue::from_static(rule));
                // A shared cache must keep one copy per encoding.
                h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
                res
            });
        router = router.route_service(&route, service);
    }
    router
}

/// Middleware: a response that set no caching rule of its own (a page, a server function, a
/// webhook) is never stored.
pub async fn no_store_by_default(req: Request<Body>, next: Next) -> Response<Body> {
    let mut res = next.run(req).await;
    res.headers_mut()
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static(NO_STORE));
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_names_are_dx_content_hashes() {
        assert!(is_hashed("/assets/herald_bg-dxh3f2a9c01.wasm"));
        assert!(is_hashed("/assets/main-dxhabcdef.css"));
        assert!(!is_hashed("/manifest.json"));
        assert!(!is_hashed("/assets/main-dxh.js"));
        assert!(!is_hashed("/assets/main-dxh12zz.js"));
    }

    #[test]
    fn lists_files_but_not_the_template_or_compressed_copies() {
        let dir = std::env::temp_dir().join(format!("herald-assets-{}", uuid::Uuid::new_v4()));
        let p = dir.as_path();
        std::fs::create_dir_all(p.join("assets")).unwrap();
        for f in [
            "index.html",
            "index-full.html",
            "manifest.json",
            "assets/app-dxh1a2b.js",
            "assets/app-dxh1a2b.js.br",
        ] {
            std::fs::write(p.join(f), "x").unwrap();
        }
        let routes: Vec<String> = files(p).into_iter().map(|(r, _)| r).collect();
        assert_eq!(routes, ["/assets/app-dxh1a2b.js", "/manifest.json"]);
        assert_eq!(gzip_missing(p), 2);
        assert!(p.join("assets/app-dxh1a2b.js.gz").is_file());
        assert_eq!(gzip_missing(p), 0, "fresh copies are kept");
        std::fs::remove_dir_all(p).unwrap();
    }
}
