//! Reading knowledge (issue 52 §5): a website of 100 pages served on loopback, read as a member
//! adds it (goal ≤ 60 s), beside fetching the same pages one after another with no parsing; and
//! 50 documents of 10 MB uploaded at once and read, with the process's resident memory sampled
//! throughout (goal: at most 300 MB above idle), beside holding the 50 files in memory at once.
//!
//!   cargo run --release --features server --bin knowledge_reading_bench -- [--pages 100]
//!       [--documents 50] [--postgres]
#[path = "common.rs"]
mod common;

use common::*;
use herald::auth::session::Member;
use herald::knowledge::documents;
use herald::knowledge::entity::knowledge_source as source;
use herald::knowledge::model::{SourceStatus, WebInput};
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use std::time::{Duration, Instant};
use uuid::Uuid;

const PAGES_GOAL: Duration = Duration::from_secs(60);
const MEMORY_GOAL_MB: f64 = 300.0;
const DOCUMENT_BYTES: usize = 10 * 1024 * 1024;

fn owner(org: Uuid) -> Member {
    Member {
        user_id: Uuid::new_v4(),
        organization_id: org,
        role: herald::auth::model::Role::Owner,
    }
}

/// This process's resident memory, in MB: all of it, its own (anonymous: heap and stacks), and
/// files mapped into it (SQLite's database file, mapped for reading).
#[derive(Clone, Copy, Default)]
struct Rss {
    all: f64,
    anon: f64,
    file: f64,
}

fn rss_mb() -> Rss {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    Rss {
        all: field("VmRSS:"),
        anon: field("RssAnon:"),
        file: field("RssFile:"),
    }
}

/// A clinic page: a few paragraphs about treatment `i` (the home page for None), and links to
/// the other pages.
fn page(i: Option<usize>, pages: usize) -> String {
    let (title, i) = match i {
        Some(i) => (format!("Treatment {i}"), i),
        None => ("Home".to_owned(), pages),
    };
    let links: String = (0..pages)
        .map(|j| format!("<a href=\"/p/{j}\">Treatment {j}</a> "))
        .collect();
    let body: String = (0..6)
        .map(|k| {
            format!(
                "<p>Treatment {i} step {k}: the dentist checks the tooth, cleans it and explains \
                 the cost, which is {} dollars with a follow-up visit in {} weeks.</p>",
                100 + i * 7 + k,
                2 + k
            )
        })
        .collect();
    format!(
        "<html><head><title>{title}</title></head><body><nav>{links}</nav>\
         <main><h1>{title}</h1>{body}</main><footer>Bright Smile</footer></body></html>"
    )
}

/// The website: `/` links to every page; each page to every other.
async fn serve(pages: usize) -> String {
    use axum::extract::Path;
    let router = axum::Router::new()
        .route(
            "/",
            axum::routing::get(move || async move { axum::response::Html(page(None, pages)) }),
        )
        .route(
            "/p/{i}",
            axum::routing::get(move |Path(i): Path<usize>| async move {
                axum::response::Html(page(Some(i), pages))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}")
}

async fn wait_read(state: &herald::platform::AppState, ids: &[Uuid], mut sample: impl FnMut()) {
    loop {
        let pending = source::Entity::find()
            .filter(source::Column::Id.is_in(ids.iter().copied()))
            .filter(source::Column::Status.is_in([SourceStatus::Queued, SourceStatus::Reading]))
            .count(&state.db)
            .await
            .unwrap();
        sample();
        if pending == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A document of about `bytes` of plain text, unlike the others (`n` in its words).
fn document_text(n: usize, bytes: usize) -> Vec<u8> {
    let mut out = String::with_capacity(bytes + 200);
    let mut i = 0;
    while out.len() < bytes {
        out.push_str(&format!(
            "Section {n}.{i}. Patients who book a visit for treatment {i} bring their insurance \
             card; the visit costs {} dollars and takes {} minutes.\n",
            50 + i % 400,
            15 + i % 60
        ));
        i += 1;
    }
    out.truncate(bytes);
    out.into_bytes()
}

#[tokio::main]
async fn main() {
    let postgres = flag("--postgres");
    let pages: usize = arg("--pages", 100);
    let docs: usize = arg("--documents", 50);
    let (_, state, org) =
        start_herald_configured(postgres, &[], |c| c.webhooks.allow_private = true, |_| {}).await;
    let db = if postgres { "PostgreSQL" } else { "SQLite" };
    println!("knowledge_reading_bench on {db} ({} build)", build_kind());
    let m = owner(org);

    // A website of `pages` pages on loopback.
    let base = serve(pages).await;
    let t = Instant::now();
    let client = reqwest::Client::new();
    for i in 0..pages {
        client
            .get(format!("{base}/p/{i}"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
    }
    let baseline = t.elapsed();
    let t = Instant::now();
    let site = documents::save_web(
        &state,
        &m,
        None,
        &WebInput {
            url: format!("{base}/"),
            depth: 1,
            pages: pages as u32 + 1,
            refresh_hours: None,
        },
    )
    .await
    .unwrap();
    wait_read(&state, &[site.id], || {}).await;
    let took = t.elapsed();
    let read = source::Entity::find_by_id(site.id)
        .one(&state.db)
        .await
        .unwrap()
        .unwrap();
    println!(
        "  reading a website of {} pages on loopback: {:.1} s   goal ≤ {} s: {}   baseline (plain GETs, no parsing) {:.2} s   ({}; {} passages)",
        pages + 1,
        took.as_secs_f64(),
        PAGES_GOAL.as_secs(),
        if took <= PAGES_GOAL && read.status == SourceStatus::Ready { "met" } else { "MISSED" },
        baseline.as_secs_f64(),
        read.error.unwrap_or_default(),
        read.passage_count
    );

    // `docs` documents of 10 MB, uploaded at once, memory sampled while they are read.
    let t = Instant::now();
    let mut ids = vec![];
    for n in 0..docs {
        let bytes = document_text(n, DOCUMENT_BYTES);
        let name = format!("handbook-{n}.txt");
        let row = documents::store_document(&state, &m, &name, "text/plain", bytes)
            .await
            .unwrap();
        ids.push(row.id);
    }
    let idle = rss_mb();
    for id in &ids {
        herald::knowledge::read::read_soon(&state, *id);
    }
    let mut peak = idle;
    wait_read(&state, &ids, || {
        let now = rss_mb();
        peak.all = peak.all.max(now.all);
        peak.anon = peak.anon.max(now.anon);
        peak.file = peak.file.max(now.file);
    })
    .await;
    let above = peak.all - idle.all;
    let ready = source::Entity::find()
        .filter(source::Column::Id.is_in(ids.clone()))
        .filter(source::Column::Status.eq(SourceStatus::Ready))
        .count(&state.db)
        .await
        .unwrap();
    let took = t.elapsed();
    // The baseline: the same files held in memory at once, as reading them all together would.
    let before = rss_mb().all;
    let held: Vec<Vec<u8>> = (0..docs)
        .map(|n| document_text(n, DOCUMENT_BYTES))
        .collect();
    let holding_all = rss_mb().all - before;
    drop(held);
    println!(
        "  memory reading {docs} documents of 10 MB: {above:.0} MB above idle at peak   goal ≤ {MEMORY_GOAL_MB} MB: {}   baseline (the {docs} files held at once) {holding_all:.0} MB   ({ready} of {docs} ready in {:.0} s)",
        if above <= MEMORY_GOAL_MB && ready as usize == docs { "met" } else { "MISSED" },
        took.as_secs_f64()
    );
    println!(
        "    of which at their peaks: the process's own memory {:.0} MB above idle, files mapped into it (SQLite's database file) {:.0} MB above idle",
        peak.anon - idle.anon,
        peak.file - idle.file
    );
}
