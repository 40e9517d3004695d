//! Documents and websites as knowledge (issue 52 §1, §6): a PDF made here is read page by page
//! and its passages answer a question with their page; Markdown is split by its sections; a
//! scanned PDF fails with that reason; a kind Herald does not read, and a file over 10 MB, are
//! refused at upload; "Read again" reads anew; a deleted document answers nothing and its file
//! is gone; another organisation never finds it. A website served here on loopback is read to
//! its depth and page count, obeying robots.txt, naming itself, dropping menus and skipping a page
//! too large; a page that is missing fails with its reason; a private address is refused unless
//! allowed; a website's refresh comes round by the clock.
use crate::helpers::*;
use crate::knowledge::ask;
use crate::on_both_databases;
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use herald::platform::clock::ManualClock;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

on_both_databases!(documents_are_read_into_passages_that_answer);
on_both_databases!(websites_are_read_within_their_limits);

/// A PDF with one page for each of `pages` (an empty one has a drawn square and no text).
pub fn pdf(pages: &[&[&str]]) -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{dictionary, Document, Object, Stream};
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let resources = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font } });
    let mut kids: Vec<Object> = vec![];
    for lines in pages {
        let mut ops = vec![];
        if lines.is_empty() {
            ops.push(Operation::new(
                "re",
                vec![50.into(), 50.into(), 400.into(), 600.into()],
            ));
            ops.push(Operation::new("f", vec![]));
        } else {
            ops.push(Operation::new("BT", vec![]));
            ops.push(Operation::new("Tf", vec!["F1".into(), 12.into()]));
            ops.push(Operation::new("Td", vec![50.into(), 750.into()]));
            for line in *lines {
                ops.push(Operation::new("Tj", vec![Object::string_literal(*line)]));
                ops.push(Operation::new("Td", vec![0.into(), (-18).into()]));
            }
            ops.push(Operation::new("ET", vec![]));
        }
        let content = Content { operations: ops };
        let stream = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
        let page = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => stream,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        });
        kids.push(page.into());
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => kids, "Count" => count, "Resources" => resources,
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

/// Uploads a document as the Knowledge page does.
pub async fn upload(
    app: &TestApp,
    who: &Org,
    name: &str,
    kind: &str,
    bytes: Vec<u8>,
) -> (StatusCode, Value) {
    let mut url = reqwest::Url::parse(&app.url("/api/knowledge/document")).unwrap();
    url.query_pairs_mut().append_pair("name", name);
    crate::media_send::post_bytes(&who.client, url.as_str(), kind, bytes).await
}

/// The source with `id` once it is read (ready or failed), within 30 s.
pub async fn settled(app: &TestApp, who: &Org, id: &Value) -> Value {
    for _ in 0..300 {
        let (status, page) = app
            .call_as(
                &who.client,
                "/api/knowledge",
                json!({"kind": null, "after": null}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{page}");
        let found = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| &s["id"] == id)
            .cloned()
            .expect("the source is listed");
        if !matches!(found["status"].as_str(), Some("queued" | "reading")) {
            return found;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the source was not read within 30 s");
}

fn titles(hits: &[Value]) -> Vec<String> {
    hits.iter()
        .map(|h| h["source_title"].as_str().unwrap().to_owned())
        .collect()
}

async fn documents_are_read_into_passages_that_answer(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let clinic = app.new_org("Bright Smiles").await;
    let other = app.new_org("Other Dental").await;
    let price_list = pdf(&[
        &[
            "Bright Smile price list.",
            "Teeth whitening costs 350 dollars.",
        ],
        &[
            "Night guards are 420 dollars each.",
            "Crowns start at 900 dollars.",
        ],
    ]);
    let (status, doc) = upload(
        &app,
        &clinic,
        "price-list.pdf",
        "application/pdf",
        price_list,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    assert_eq!(doc["kind"], "document");
    let doc = settled(&app, &clinic, &doc["id"]).await;
    assert_eq!(doc["status"], "ready", "{doc}");
    assert!(
        doc["passages"].as_u64().unwrap() >= 2,
        "one passage a page at least: {doc}"
    );
    assert_eq!(doc["origin"], "price-list.pdf");
    assert!(doc["last_read_at"].is_string());
    let hits = ask(&app, &clinic, "How much is a night guard?").await;
    assert_eq!(hits[0]["source_title"], "price-list.pdf", "{hits:?}");
    assert_eq!(hits[0]["locator"], "page 2");
    assert!(
        hits[0]["text"].as_str().unwrap().contains("420"),
        "{hits:?}"
    );
    assert!(
        hits[0]["score"].as_f64().unwrap() >= 0.6,
        "it answers: {hits:?}"
    );
    // Another organisation never finds it.
    assert!(ask(&app, &other, "How much is a night guard?")
        .await
        .is_empty());

    // Markdown, split by its sections; its words answer too.
    let md = "# Parking\n\nFree parking behind the clinic on Elm Street.\n\n# Children\n\nWe see children from age three.";
    let (status, notes) = upload(&app, &clinic, "visiting.md", "", md.as_bytes().to_vec()).await;
    assert_eq!(status, StatusCode::OK, "{notes}");
    assert_eq!(
        settled(&app, &clinic, &notes["id"]).await["status"],
        "ready"
    );
    assert_eq!(
        titles(&ask(&app, &clinic, "where can I park").await)[0],
        "visiting.md"
    );

    // A scan has no text: it fails, saying so.
    let (status, scan) = upload(&app, &clinic, "scan.pdf", "application/pdf", pdf(&[&[]])).await;
    assert_eq!(status, StatusCode::OK, "{scan}");
    let scan = settled(&app, &clinic, &scan["id"]).await;
    assert_eq!(scan["status"], "failed");
    assert!(
        scan["error"]
            .as_str()
            .unwrap()
            .contains("looks like a scan"),
        "{scan}"
    );
    assert_eq!(scan["passages"], 0);

    // Refused at the door, each with its reason, nothing kept.
    let (status, body) = upload(
        &app,
        &clinic,
        "photo.png",
        "image/png",
        b"\x89PNG\r\n".to_vec(),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("Herald reads PDF, plain text, Markdown and HTML"),
        "{body}"
    );
    let big = vec![b'a'; 10 * 1024 * 1024 + 1];
    let (status, body) = upload(&app, &clinic, "huge.txt", "text/plain", big).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("larger than 10 MB"),
        "{body}"
    );
    let (status, body) = upload(&app, &clinic, "", "text/plain", b"words".to_vec()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (_, page) = app
        .call_as(
            &clinic.client,
            "/api/knowledge",
            json!({"kind": "document", "after": null}),
        )
        .await;
    assert_eq!(
        page["total"], 3,
        "only the three accepted documents: {page}"
    );
    // A signed-out upload is refused.
    let res = app
        .client
        .post(app.url("/api/knowledge/document?name=x.txt"))
        .header("Content-Type", "text/plain")
        .body("words")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);

    // Read again: queued, then ready with fresh passages.
    let (status, again) = app
        .call_as(
            &clinic.client,
            "/api/knowledge/read_again",
            json!({"id": doc["id"]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert!(
        matches!(
            again["status"].as_str(),
            Some("queued" | "reading" | "ready")
        ),
        "{again}"
    );
    assert_eq!(settled(&app, &clinic, &doc["id"]).await["status"], "ready");
    let (status, renamed) = app
        .call_as(
            &clinic.client,
            "/api/knowledge/rename",
            json!({"id": doc["id"], "title": "Price list 2026"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{renamed}");
    assert_eq!(
        titles(&ask(&app, &clinic, "How much is a night guard?").await)[0],
        "Price list 2026"
    );

    // Deleted: no later answer finds it, and its file is gone from the store.
    let key = format!(
        "{}/knowledge/{}",
        clinic.org_id,
        doc["id"].as_str().unwrap()
    );
    assert!(app.state.media().get(&key).await.is_ok());
    let (status, _) = app
        .call_as(
            &clinic.client,
            "/api/knowledge/delete",
            json!({"id": doc["id"]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        !titles(&ask(&app, &clinic, "How much is a night guard?").await)
            .contains(&"Price list 2026".to_owned())
    );
    assert!(
        app.state.media().get(&key).await.is_err(),
        "the file is deleted"
    );
}

/// What the test website saw: each path asked for, and who asked.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(String, String)>>>);

impl Seen {
    fn paths(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|(p, _)| p.clone())
            .collect()
    }
    fn count(&self, path: &str) -> usize {
        self.paths().iter().filter(|p| *p == path).count()
    }
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{title}</title></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/hours\">Hours</a> <a href=\"/prices\">Prices</a> \
         <a href=\"/private/staff\">Staff</a> <a href=\"/big\">Big</a> <a href=\"/gone\">Old</a> \
         <a href=\"https://elsewhere.example/\">Partner</a> <a href=\"/logo.png\">Logo</a> \
         <a href=\"http://127.0.0.1:1/closed\">Old site</a></nav>\
         <main>{body}</main><footer>Copyright Bright Smile Dental</footer></body></html>"
    )
}

async fn site_page(
    State(seen): State<Seen>,
    uri: Uri,
    headers: HeaderMap,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let agent = headers
        .get("user-agent")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    seen.0.lock().unwrap().push((uri.path().to_owned(), agent));
    let html = |s: String| ([("content-type", "text/html; charset=utf-8")], s).into_response();
    match uri.path() {
        "/robots.txt" => "User-agent: *\nDisallow: /private/\n".into_response(),
        "/" => html(page("Bright Smile Dental", "<h1>Welcome</h1><p>A family dental clinic on Elm Street.</p>")),
        "/hours" => html(page("Opening hours", "<h1>Opening hours</h1><p>Saturday 9am to 1pm. Sunday closed.</p><p><a href=\"/hours/holidays\">Holidays</a></p>")),
        "/hours/holidays" => html(page("Holidays", "<p>Closed on Thanksgiving Day.</p>")),
        "/prices" => html(page("Prices", "<h1>Prices</h1><p>Teeth whitening costs $350.</p>")),
        "/private/staff" => html(page("Staff only", "<p>The staff door code is 4321.</p>")),
        "/big" => html(format!("<p>{}</p>", "padding ".repeat(400_000))),
        _ => (StatusCode::NOT_FOUND, "not here").into_response(),
    }
}

/// A small clinic website on loopback; answers its address and what it saw.
async fn serve_site() -> (String, Seen) {
    let seen = Seen::default();
    let router = axum::Router::new()
        .fallback(site_page)
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (format!("http://{addr}"), seen)
}

async fn add_site(
    app: &TestApp,
    who: &Org,
    url: &str,
    depth: u32,
    pages: u32,
    refresh: Option<u32>,
) -> (StatusCode, Value) {
    app.call_as(
        &who.client,
        "/api/knowledge/website",
        json!({"id": null, "input": {"url": url, "depth": depth, "pages": pages, "refresh_hours": refresh}}),
    )
    .await
}

async fn websites_are_read_within_their_limits(backend: Backend) {
    // Private addresses are refused by default, as for webhooks.
    let Some(guarded) = spawn_app(backend).await else {
        return;
    };
    let (base, _) = serve_site().await;
    let someone = guarded.new_org("Careful Clinic").await;
    let (status, body) = add_site(&guarded, &someone, &base, 1, 10, None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("private address"),
        "{body}"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("Herald reads public websites only"),
        "{body}"
    );
    drop(guarded);

    let clock = Arc::new(ManualClock::at(test_daytime()));
    let app = spawn_app_with(
        backend,
        Options {
            webhooks: Some(herald::webhooks::WebhookSettings {
                allow_private: true,
                ..Default::default()
            }),
            clock: Some(clock.clone()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let (base, seen) = serve_site().await;
    let clinic = app.new_org("Bright Smiles").await;
    let (status, site) = add_site(&app, &clinic, &format!("{base}/"), 1, 20, Some(24)).await;
    assert_eq!(status, StatusCode::OK, "{site}");
    assert_eq!(site["kind"], "web");
    let site = settled(&app, &clinic, &site["id"]).await;
    assert_eq!(site["status"], "ready", "{site}");
    let note = site["error"].as_str().unwrap();
    assert!(
        note.starts_with("3 pages read"),
        "home, hours and prices: {note}"
    );
    assert!(
        note.contains("1 passed over as the site's robots.txt asks"),
        "{note}"
    );
    assert!(
        note.contains("3 not read"),
        "the big page, the missing one, and one on another port whose robots.txt does not \
         answer (passed over, the rest still read): {note}"
    );
    let paths = seen.paths();
    assert!(
        !paths.contains(&"/private/staff".to_owned()),
        "robots.txt obeyed: {paths:?}"
    );
    assert!(
        !paths.contains(&"/hours/holidays".to_owned()),
        "one link deep only: {paths:?}"
    );
    assert!(
        !paths.contains(&"/logo.png".to_owned()),
        "pictures are not pages: {paths:?}"
    );
    assert_eq!(seen.count("/robots.txt"), 1);
    for (_, agent) in seen.0.lock().unwrap().iter() {
        assert!(agent.starts_with("HeraldBot/1.0"), "{agent}");
    }
    let hits = ask(&app, &clinic, "Are you open on Saturday?").await;
    assert_eq!(hits[0]["locator"], format!("{base}/hours"), "{hits:?}");
    assert!(hits[0]["text"]
        .as_str()
        .unwrap()
        .contains("Saturday 9am to 1pm"));
    assert!(
        hits.iter()
            .all(|h| !h["text"].as_str().unwrap().contains("Copyright")),
        "footers are not knowledge: {hits:?}"
    );
    assert!(
        ask(&app, &clinic, "staff door code").await.is_empty(),
        "nothing from the private page"
    );

    // Its refresh comes round by the clock: the sweeper reads it again a day later.
    assert_eq!(site["web"]["refresh_hours"], 24);
    let reads_of_home = seen.count("/");
    assert_eq!(
        site["next_read_at"].as_str().map(|t| t.len() > 10),
        Some(true),
        "{site}"
    );
    herald::knowledge::read::read_due(&app.state).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(seen.count("/"), reads_of_home, "not due yet");
    clock.advance(chrono::Duration::hours(25));
    // The sweeper would take it up as well; either reads it once.
    herald::knowledge::read::read_due(&app.state).await.unwrap();
    for _ in 0..300 {
        if seen.count("/") > reads_of_home
            && settled(&app, &clinic, &site["id"]).await["status"] == "ready"
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(seen.count("/"), reads_of_home + 1, "read again once");

    // Deeper, but two pages at most.
    let (_, two) = add_site(&app, &clinic, &format!("{base}/hours"), 3, 2, None).await;
    let two = settled(&app, &clinic, &two["id"]).await;
    assert!(
        two["error"].as_str().unwrap().starts_with("2 pages read"),
        "{two}"
    );

    // A missing page fails with its reason; a bad address and bad limits are refused.
    let (_, gone) = add_site(&app, &clinic, &format!("{base}/gone"), 0, 1, None).await;
    let gone = settled(&app, &clinic, &gone["id"]).await;
    assert_eq!(gone["status"], "failed");
    assert!(gone["error"].as_str().unwrap().contains("404"), "{gone}");
    for (url, depth, pages, refresh, words) in [
        ("ftp://files.example/", 0, 1, None, "starts with https://"),
        (
            "https://user:pw@clinic.example/",
            0,
            1,
            None,
            "no user name or password",
        ),
        (base.as_str(), 9, 1, None, "at most 5 deep"),
        (base.as_str(), 1, 500, None, "between 1 and 200 pages"),
        (base.as_str(), 1, 5, Some(5), "every day, every week"),
    ] {
        let (status, body) = add_site(&app, &clinic, url, depth, pages, refresh).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{url}: {body}");
        assert!(
            body["message"].as_str().unwrap().contains(words),
            "{url}: {body}"
        );
    }
    // Another organisation finds none of it.
    let other = app.new_org("Other Dental").await;
    assert!(ask(&app, &other, "Are you open on Saturday?")
        .await
        .is_empty());
}
