//! Reading a website: its address and, to the depth and page count the member set, the same-site
//! pages it links to, breadth first. Every connection goes through the outbound address guard
//! (`webhooks::guard`: public addresses only unless `WEBHOOK_ALLOW_PRIVATE`, checked after DNS and
//! connected to as checked), redirects included; robots.txt is obeyed (and its crawl delay, up to
//! two seconds); each request says who it is (`USER_AGENT`); a page is at most `PAGE_MAX_BYTES`
//! and only HTML or plain text is read.
use crate::knowledge::read::html;
use crate::webhooks::guard::{self, Purpose};
use reqwest::Url;
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};
use texting_robots::Robot;

/// What Herald calls itself to a website, and the name robots.txt rules are read for.
pub const USER_AGENT: &str =
    "HeraldBot/1.0 (reads the pages a business adds to its Herald knowledge)";
const ROBOTS_AGENT: &str = "HeraldBot";
/// A page's largest size; a bigger one is skipped.
pub const PAGE_MAX_BYTES: usize = 2 * 1024 * 1024;
const ROBOTS_MAX_BYTES: usize = 512 * 1024;
const PAGE_TIMEOUT: Duration = Duration::from_secs(15);
const REDIRECTS_MAX: usize = 5;
const DELAY_MAX: Duration = Duration::from_secs(2);
/// Links waiting beyond this many times the page count are not kept.
const QUEUE_FACTOR: usize = 10;
/// Links to files that are not pages.
const NOT_PAGES: &[&str] = &[
    "pdf", "jpg", "jpeg", "png", "gif", "webp", "svg", "ico", "css", "js", "zip", "mp4", "mp3",
    "mov", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "xml", "json", "woff", "woff2",
];

/// How far one reading goes.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub depth: u32,
    pub pages: u32,
    pub allow_private: bool,
    /// When to stop and keep what was read (a reading holds its lease until about then).
    pub deadline: Instant,
}

/// One page read: its address, title and main text.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub url: String,
    pub title: String,
    pub text: String,
    /// Whether the text is Markdown (from HTML) rather than plain.
    pub markdown: bool,
}

/// Why a reading did not work, and whether a later try may.
#[derive(Debug, Clone, PartialEq)]
pub struct CrawlError {
    pub why: String,
    pub retry: bool,
}

impl CrawlError {
    fn fail(why: impl Into<String>) -> Self {
        CrawlError {
            why: why.into(),
            retry: false,
        }
    }
    fn retry(why: impl Into<String>) -> Self {
        CrawlError {
            why: why.into(),
            retry: true,
        }
    }
}

/// A reading's pages, and what was passed over (in words, for the source's note).
#[derive(Debug, Default)]
pub struct Crawl {
    pub pages: Vec<Page>,
    pub skipped_by_robots: usize,
    pub skipped_other: usize,
}

/// What one request came to.
enum Fetched {
    Page { url: Url, body: Vec<u8>, html: bool },
    NotFound(String),
}

/// Connections per host, each pinned to the addresses the guard checked, and each host's rules.
struct Site {
    allow_private: bool,
    clients: HashMap<String, reqwest::Client>,
    robots: HashMap<String, Option<Robot>>,
}

impl Site {
    async fn client(&mut self, url: &Url) -> Result<reqwest::Client, CrawlError> {
        let host = url.host_str().unwrap_or_default().to_owned();
        let key = format!("{}:{}", host, url.port_or_known_default().unwrap_or(443));
        if let Some(c) = self.clients.get(&key) {
            return Ok(c.clone());
        }
        let addrs = guard::resolve_for(url, self.allow_private, Purpose::Website)
            .await
            .map_err(CrawlError::fail)?;
        let mut b = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(PAGE_TIMEOUT)
            .user_agent(USER_AGENT);
        if host.parse::<std::net::IpAddr>().is_err() {
            b = b.resolve_to_addrs(&host, &addrs);
        }
        let c = b.build().map_err(|e| CrawlError::retry(e.to_string()))?;
        self.clients.insert(key, c.clone());
        Ok(c)
    }

    /// GETs `url`, following redirects (each checked by the guard), at most `max` bytes.
    async fn get(&mut self, url: &Url, max: usize) -> Result<Fetched, CrawlError> {
        let mut url = url.clone();
        for _ in 0..=REDIRECTS_MAX {
            let checked =
                guard::check_address(url.as_str(), Purpose::Website).map_err(CrawlError::fail)?;
            let client = self.client(&checked).await?;
            let mut res = client
                .get(checked.clone())
                .send()
                .await
                .map_err(|e| CrawlError::retry(format!("{url} did not answer: {e}")))?;
            let status = res.status();
            if status.is_redirection() {
                let next = res
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .and_then(|l| url.join(l).ok())
                    .ok_or_else(|| CrawlError::fail(format!("{url} redirects nowhere.")))?;
                url = next;
                continue;
            }
            if status.is_server_error() {
                return Err(CrawlError::retry(format!("{url} answered {status}.")));
            }
            if !status.is_success() {
                return Ok(Fetched::NotFound(format!("{url} answered {status}.")));
            }
            let kind = res
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|t| t.to_str().ok())
                .unwrap_or("text/html")
                .to_ascii_lowercase();
            let html = kind.starts_with("text/html") || kind.starts_with("application/xhtml");
            if !html && !kind.starts_with("text/plain") {
                return Ok(Fetched::NotFound(format!("{url} is not a page ({kind}).")));
            }
            if res.content_length().is_some_and(|n| n as usize > max) {
                return Ok(Fetched::NotFound(format!(
                    "{url} is larger than Herald reads."
                )));
            }
            let mut body = Vec::new();
            while let Some(chunk) = res
                .chunk()
                .await
                .map_err(|e| CrawlError::retry(format!("{url} stopped answering: {e}")))?
            {
                if body.len() + chunk.len() > max {
                    return Ok(Fetched::NotFound(format!(
                        "{url} is larger than Herald reads."
                    )));
                }
                body.extend_from_slice(&chunk);
            }
            return Ok(Fetched::Page { url, body, html });
        }
        Err(CrawlError::fail(format!("{url} redirects too many times.")))
    }

    /// The host's robots.txt rules: None allows everything (no file); a server that fails to
    /// answer for it is taken to forbid everything, as search engines take it.
    async fn robot(&mut self, url: &Url) -> Result<Option<&Robot>, CrawlError> {
        let origin = url.origin().ascii_serialization();
        if !self.robots.contains_key(&origin) {
            let at = Url::parse(&format!("{origin}/robots.txt"))
                .map_err(|e| CrawlError::fail(e.to_string()))?;
            let rules = match self.get(&at, ROBOTS_MAX_BYTES).await {
                Ok(Fetched::Page { body, .. }) => Robot::new(ROBOTS_AGENT, &body).ok(),
                Ok(Fetched::NotFound(_)) => None,
                Err(e) if e.retry => {
                    return Err(CrawlError::retry(format!(
                        "{origin}'s robots.txt could not be read, so Herald reads nothing there \
                         yet: {}",
                        e.why
                    )))
                }
                Err(e) => return Err(e),
            };
            self.robots.insert(origin.clone(), rules);
        }
        Ok(self.robots.get(&origin).and_then(Option::as_ref))
    }
}

/// The address as a page's key: no fragment.
fn key(u: &Url) -> String {
    let mut u = u.clone();
    u.set_fragment(None);
    u.to_string()
}

fn is_page_link(u: &Url) -> bool {
    let ext = u
        .path()
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    matches!(u.scheme(), "http" | "https") && !NOT_PAGES.contains(&ext.as_str())
}

/// Reads the site at `start` within `limits`.
pub async fn crawl(start: &str, limits: Limits) -> Result<Crawl, CrawlError> {
    let start = guard::check_address(start, Purpose::Website).map_err(CrawlError::fail)?;
    let mut site = Site {
        allow_private: limits.allow_private,
        clients: HashMap::new(),
        robots: HashMap::new(),
    };
    let mut out = Crawl::default();
    let mut queue: VecDeque<(Url, u32)> = VecDeque::from([(start.clone(), 0)]);
    let mut seen: HashSet<String> = HashSet::from([key(&start)]);
    let mut host = start.host_str().unwrap_or_default().to_owned();
    let max_pages = limits.pages.max(1) as usize;
    while let Some((url, depth)) = queue.pop_front() {
        if out.pages.len() >= max_pages || Instant::now() >= limits.deadline {
            break;
        }
        let first = out.pages.is_empty() && url == start;
        // A page on another origin of the site (http beside https, another port) whose
        // robots.txt cannot be read is passed over; only the first page's stops the reading.
        let robot = match site.robot(&url).await {
            Ok(r) => r,
            Err(e) if first => return Err(e),
            Err(_) => {
                out.skipped_other += 1;
                continue;
            }
        };
        let delay = match robot {
            Some(r) if !r.allowed(url.as_str()) => {
                if first {
                    return Err(CrawlError::fail(format!(
                        "The site's robots.txt asks {ROBOTS_AGENT} not to read {url}."
                    )));
                }
                out.skipped_by_robots += 1;
                continue;
            }
            Some(r) => r
                .delay
                .map(|d| Duration::from_secs_f32(d.max(0.0)).min(DELAY_MAX)),
            None => None,
        };
        if let (Some(d), false) = (delay, first) {
            tokio::time::sleep(d).await;
        }
        let (final_url, body, is_html) = match site.get(&url, PAGE_MAX_BYTES).await {
            Ok(Fetched::Page { url, body, html }) => (url, body, html),
            Ok(Fetched::NotFound(why)) if first => return Err(CrawlError::fail(why)),
            Err(e) if first => return Err(e),
            Ok(Fetched::NotFound(_)) | Err(_) => {
                out.skipped_other += 1;
                continue;
            }
        };
        if first {
            // The site is where its address led (example.com to www.example.com).
            host = final_url.host_str().unwrap_or_default().to_owned();
        } else if final_url.host_str() != Some(host.as_str()) {
            out.skipped_other += 1;
            continue;
        }
        let text = String::from_utf8_lossy(&body);
        let page = if is_html {
            html::read(&text)
        } else {
            html::PageText {
                text: text.trim().to_owned(),
                ..Default::default()
            }
        };
        if depth < limits.depth {
            let base = page
                .base
                .as_deref()
                .and_then(|b| final_url.join(b).ok())
                .unwrap_or_else(|| final_url.clone());
            for link in &page.links {
                let Ok(u) = base.join(link) else { continue };
                if u.host_str() != Some(host.as_str()) || !is_page_link(&u) {
                    continue;
                }
                if seen.len() < max_pages * QUEUE_FACTOR && seen.insert(key(&u)) {
                    queue.push_back((u, depth + 1));
                }
            }
        }
        if !page.text.trim().is_empty() {
            out.pages.push(Page {
                url: key(&final_url),
                title: page.title,
                text: page.text,
                markdown: is_html,
            });
        }
    }
    if out.pages.is_empty() {
        return Err(CrawlError::fail(format!(
            "There is no text to read at {start}."
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_pages_are_followed() {
        for (u, page) in [
            ("https://a.example/prices", true),
            ("https://a.example/menu.PDF", false),
            ("https://a.example/logo.png", false),
            ("mailto:hi@a.example", false),
            ("https://a.example/about.html", true),
        ] {
            assert_eq!(is_page_link(&Url::parse(u).unwrap()), page, "{u}");
        }
        assert_eq!(
            key(&Url::parse("https://a.example/x#top").unwrap()),
            "https://a.example/x"
        );
    }
}
