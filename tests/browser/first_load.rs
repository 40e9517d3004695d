//! The first visit on the release build, as a phone on a cold cache would make it: how much wasm,
//! js and css crosses the wire and how soon the page is interactive, printed beside the goals
//! (400 KB, 1 s) and beside this run's own baseline (the same files uncompressed; the moment
//! the HTML was ready). The files the page fetched, brotli-compressed as the server sends them,
//! must fit the 400 KB budget.
//!
//! History: the one client grew past the budget with each issue (452 KB with issue 26's access
//! pages, 510 KB with issue 28's saved replies, 499.5 KB with issue 29's step edits, with the
//! standard library compiled for size) while this test allowed 25 % over. Dioxus 0.7's own route
//! splitting (`--wasm-split`) does not hydrate a fullstack app (DioxusLabs/dioxus#4631, #5668), so
//! the client is now built twice (`views::full_client`): the first load fetches the client without
//! the seldom-opened pages, and those pages load the full client. The times are reported, never
//! asserted.
use crate::harness::*;
use crate::helpers::*;
use std::path::{Path, PathBuf};

/// What the first load may transfer for wasm, js and css together.
const BUDGET_BYTES: u64 = 400 * 1024;
/// How soon the page should be interactive after navigation starts.
const GOAL_MS: f64 = 1000.0;

fn kb(bytes: u64) -> String {
    format!("{:.1} KB", bytes as f64 / 1024.0)
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

fn with_ext(path: &Path, ext: &str) -> PathBuf {
    PathBuf::from(format!("{}.{ext}", path.display()))
}

/// One shipped file the page fetched: its kind and name, and its raw, gzip and brotli bytes.
struct Shipped {
    kind: &'static str,
    name: String,
    raw: u64,
    gzip: u64,
    brotli: u64,
}

/// The wasm, js and css files among `fetched` (URLs), as they lie in `public/assets` (a build
/// folder can also hold earlier builds' files, which no page asks for).
fn shipped(public: &Path, fetched: &[String]) -> Vec<Shipped> {
    let mut out: Vec<Shipped> = fetched
        .iter()
        .filter_map(|url| {
            let name = url.rsplit('/').next()?.to_owned();
            let kind = match name.rsplit('.').next()? {
                "wasm" => "wasm",
                "js" => "js",
                "css" => "css",
                _ => return None,
            };
            let p = public.join("assets").join(&name);
            Some(Shipped {
                kind,
                raw: size(&p),
                gzip: size(&with_ext(&p, "gz")),
                brotli: size(&with_ext(&p, "br")),
                name,
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out.dedup_by(|a, b| a.name == b.name);
    out
}

/// The full client's brotli wasm in the build's assets (`herald-full_bg-dxh….wasm.br`).
fn full_client_brotli(public: &Path) -> u64 {
    std::fs::read_dir(public.join("assets"))
        .map(|dir| {
            dir.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                    name.starts_with("herald-full_bg-dxh") && name.ends_with(".wasm.br")
                })
                .map(|p| size(&p))
                .sum()
        })
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_load_within_budget() {
    let dir = std::env::var("HERALD_RELEASE_WEB_DIR")
        .expect("HERALD_RELEASE_WEB_DIR names the release web build, scripts/build_web.sh's folder (scripts/test.sh sets it)");
    let Some((url, _db)) = fresh_database(Backend::Sqlite).await else {
        return;
    };
    let (base, _server) = start_server_in(&dir, &url, true, "first-load").await;
    let public = Path::new(&dir).join("public");

    // A new browser profile: nothing cached.
    let b = start_browser_on(Screen::PHONE).await;
    b.open(&format!("{base}/")).await;
    let report = b
        .client
        .execute(
            "const nav = performance.getEntriesByType('navigation')[0];
             return {
               hydrated: Number(document.body.dataset.hydratedAt),
               html: nav.domContentLoadedEventEnd,
               resources: performance.getEntriesByType('resource')
                 .map(r => [r.name.split('?')[0], r.transferSize, r.decodedBodySize]),
             };",
            vec![],
        )
        .await
        .unwrap();
    b.shot("first-load-phone").await;
    let mut wire = 0u64;
    let mut raw = 0u64;
    let mut fetched = Vec::new();
    for r in report["resources"].as_array().unwrap() {
        let name = r[0].as_str().unwrap_or_default();
        if [".wasm", ".js", ".css"].iter().any(|x| name.ends_with(x)) {
            wire += r[1].as_u64().unwrap_or(0);
            raw += r[2].as_u64().unwrap_or(0);
            fetched.push(name.to_owned());
        }
    }
    // The server writes its gzip copies in the background at start-up; the page did not wait.
    let mut files = shipped(&public, &fetched);
    for _ in 0..100 {
        if files.iter().all(|f| f.gzip > 0) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        files = shipped(&public, &fetched);
    }
    assert!(
        files.iter().any(|f| f.kind == "wasm"),
        "the page fetched the wasm: {fetched:?}"
    );
    let hydrated = report["hydrated"].as_f64().unwrap_or(f64::NAN);
    let html = report["html"].as_f64().unwrap_or(f64::NAN);

    println!("first load, release build, cold cache, headless Chromium at 390×844 on loopback");
    println!(
        "  {:<42} {:>10} {:>10} {:>10}",
        "file", "raw", "gzip", "brotli"
    );
    for f in &files {
        println!(
            "  {:<42} {:>10} {:>10} {:>10}",
            f.name,
            kb(f.raw),
            kb(f.gzip),
            kb(f.brotli)
        );
    }
    println!(
        "  transferred, wasm+js+css: {}   goal ≤ {}   baseline (the same files uncompressed): {}",
        kb(wire),
        kb(BUDGET_BYTES),
        kb(raw)
    );
    println!(
        "  interactive (hydrated):   {hydrated:.0} ms   goal ≤ {GOAL_MS:.0} ms   baseline (HTML ready): {html:.0} ms"
    );

    let wasm_br: u64 = files
        .iter()
        .filter(|f| f.kind == "wasm")
        .map(|f| f.brotli)
        .sum();
    assert!(wasm_br > 0, "the build wrote the brotli copy of the wasm");
    assert!(
        files.iter().all(|f| !f.name.starts_with("herald-full")),
        "the first load fetched the full client: {fetched:?}"
    );
    let brotli: u64 = files.iter().map(|f| f.brotli).sum();
    let full = full_client_brotli(&public);
    println!(
        "  brotli, wasm+js+css:      {}   goal ≤ {}   baseline (the full client's wasm, which the seldom-opened pages load): {}",
        kb(brotli),
        kb(BUDGET_BYTES),
        kb(full)
    );
    assert!(
        brotli <= BUDGET_BYTES,
        "the first load is {} of brotli wasm, js and css, over the {} budget",
        kb(brotli),
        kb(BUDGET_BYTES)
    );
    assert!(
        full > wasm_br,
        "the build wrote the full client beside the first-load one"
    );
    assert!(wire > 0, "the browser reported its transfers");
}
