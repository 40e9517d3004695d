//! The server's half of the two web clients (`views::full_client`): a page that only the full
//! client carries is answered with the full client's script in place of the first-load client's.
//! scripts/build_web.sh writes the two page templates: `index.html` loads the first-load client,
//! `index-full.html` the full one.
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::path::Path;
use std::sync::Arc;

/// The full client's page template, beside `index.html`.
pub const FULL_TEMPLATE: &str = "index-full.html";
/// A rendered page larger than this is answered with an error rather than read whole.
const MAX_PAGE_BYTES: usize = 16 << 20;

/// The two clients' scripts, as their templates load them.
#[derive(Debug, Clone, PartialEq)]
pub struct Clients {
    first_load: String,
    full: String,
    /// The stylesheets only the full client's template links (the seldom pages' rules), as
    /// their `<link>` tags.
    full_css: String,
}

impl Clients {
    /// From the two templates in `public`. None when the build has one client only (a build
    /// without the split, or a folder without templates): every page then gets that client.
    pub fn read(public: &Path) -> Option<Self> {
        let first = std::fs::read_to_string(public.join("index.html")).ok()?;
        let full = std::fs::read_to_string(public.join(FULL_TEMPLATE)).ok()?;
        let first_sheets = stylesheets(&first);
        let clients = Self {
            first_load: script(&first)?,
            full: script(&full)?,
            full_css: stylesheets(&full)
                .into_iter()
                .filter(|s| !first_sheets.contains(s))
                .map(|href| format!("<link rel=\"stylesheet\" href=\"{href}\">"))
                .collect(),
        };
        (clients.first_load != clients.full).then_some(clients)
    }

    /// `page` loading the full client: its preload and its script name the full client's file,
    /// and its head links the full client's own stylesheets.
    pub fn swap(&self, page: &str) -> String {
        let page = page.replace(&self.first_load, &self.full);
        match page.find("</head>") {
            Some(at) if !self.full_css.is_empty() && !page.contains(&self.full_css) => {
                format!("{}{}{}", &page[..at], self.full_css, &page[at..])
            }
            _ => page,
        }
    }
}

/// The addresses of the stylesheets a page template links, in order.
fn stylesheets(page: &str) -> Vec<String> {
    page.match_indices("<link rel=\"stylesheet\" href=\"")
        .filter_map(|(at, tag)| {
            let start = at + tag.len();
            let end = page[start..].find('"')? + start;
            Some(page[start..end].to_owned())
        })
        .collect()
}

/// The address of the module script a page template loads.
fn script(page: &str) -> Option<String> {
    let start = page.find("<script type=\"module\"")?;
    let src = page[start..].find("src=\"")? + start + 5;
    let end = page[src..].find('"')? + src;
    Some(page[src..end].to_owned()).filter(|s| s.ends_with(".js"))
}

/// Whether `path` is a page only the full client carries.
pub fn wants_full_client(path: &str) -> bool {
    path.parse::<crate::ui::app::Route>()
        .is_ok_and(|route| route.in_full_client_only())
}

/// Middleware on the pages: a seldom-opened page's HTML loads the full client.
pub async fn answer(State(clients): State<Arc<Clients>>, req: Request, next: Next) -> Response {
    if req.method() != Method::GET || !wants_full_client(req.uri().path()) {
        return next.run(req).await;
    }
    let res = next.run(req).await;
    let is_page = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if !is_page {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_PAGE_BYTES).await {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::warn!(%error, "could not read a rendered page to give it the full client");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(
        parts,
        Body::from(clients.swap(&String::from_utf8_lossy(&bytes))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIRST: &str = r#"<html><head><link rel="modulepreload" href="/assets/herald-dxh01.js"></head><body><div id="main"></div><script type="module" async src="/assets/herald-dxh01.js"></script></body></html>"#;

    #[test]
    fn a_seldom_opened_page_loads_the_full_client() {
        let dir = std::env::temp_dir().join(format!("herald-clients-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.html"), FIRST).unwrap();
        assert_eq!(Clients::read(&dir), None, "one client: nothing to swap");
        std::fs::write(
            dir.join(FULL_TEMPLATE),
            FIRST.replace("herald-dxh01", "herald-full-dxh02").replace(
                "<head>",
                r#"<head><link rel="stylesheet" href="/assets/full-dxh03.css">"#,
            ),
        )
        .unwrap();
        let clients = Clients::read(&dir).unwrap();
        let page = clients.swap(FIRST);
        assert!(!page.contains("herald-dxh01"), "{page}");
        assert_eq!(page.matches("/assets/herald-full-dxh02.js").count(), 2);
        // The seldom pages' stylesheet comes with the full client, once.
        assert_eq!(page.matches("/assets/full-dxh03.css").count(), 1, "{page}");
        assert_eq!(clients.swap(&page), page, "swapped twice, the same");
        std::fs::remove_dir_all(&dir).unwrap();

        assert!(wants_full_client("/settings"));
        assert!(wants_full_client(
            "/agents/00000000-0000-0000-0000-000000000000"
        ));
        assert!(!wants_full_client("/messaging"));
        assert!(!wants_full_client("/signin"));
        assert!(!wants_full_client("/api/auth/me"));
    }
}
