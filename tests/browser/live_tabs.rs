//! Live updates never freeze the app: ten Herald tabs open at once, then twenty page loads in
//! one tab (each page holds its own live subscription, a WebSocket, not one of the browser's six
//! HTTP/1.1 connections per host). Every page shows its data within two seconds, and a text sent
//! through the simulator appears live in the last tab.
use crate::harness::*;
use crate::helpers::Backend;
use std::time::{Duration, Instant};

/// A page and what it shows once its data is there.
const PAGES: [(&str, &str, &str); 8] = [
    ("/messaging", ".conversation-item", "Ada Lovelace"),
    ("/contacts", "#contacts-table", "Grace Hopper"),
    ("/numbers", "#numbers-table", "Front desk"),
    ("/agents", "#agents-table", "Text Reply"),
    ("/team", ".page", "Dana Demo"),
    ("/simulator", "#sim-to", "Front desk"),
    ("/notifications", ".page", "Notifications"),
    ("/assistant", ".page", "Assistant"),
];

/// Loads `path` and answers how long until its data showed.
async fn load(b: &Browser, base: &str, (path, css, text): (&str, &str, &str)) -> Duration {
    let started = Instant::now();
    b.client.goto(&format!("{base}{path}")).await.unwrap();
    b.wait_for_text(css, text).await;
    started.elapsed()
}

async fn ten_tabs_and_twenty_loads(backend: Backend) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser().await;
    let tag = format!("{backend:?}").to_lowercase();
    b.sign_in_demo(&server.base).await;
    let first = b.client.window().await.unwrap();
    let mut slowest = Duration::ZERO;
    // Ten tabs, each on a page with a live subscription.
    for i in 0..10 {
        let tab = b.client.new_window(true).await.unwrap();
        b.client.switch_to_window(tab.handle).await.unwrap();
        let took = load(&b, &server.base, PAGES[i % PAGES.len()]).await;
        slowest = slowest.max(took);
    }
    // Twenty page loads in the last tab.
    for i in 0..20 {
        let took = load(&b, &server.base, PAGES[(i * 3) % PAGES.len()]).await;
        slowest = slowest.max(took);
    }
    println!("ten tabs and twenty loads ({tag}): the slowest page showed its data in {slowest:?}");
    assert!(
        slowest < Duration::from_secs(2),
        "a page took {slowest:?} to show its data"
    );
    // The last tab shows Ada's conversation; the first tab texts in as Ada.
    load(&b, &server.base, PAGES[0]).await;
    open_conversation(&b, "Ada Lovelace").await;
    let last = b.client.window().await.unwrap();
    b.client.switch_to_window(first).await.unwrap();
    b.open(&format!("{}/simulator", server.base)).await;
    b.fill("#sim-from", "+14155552671").await;
    b.fill("#sim-body", "Live after ten tabs").await;
    b.click("#sim-send").await;
    b.client.switch_to_window(last).await.unwrap();
    b.wait_for_text(".message.inbound", "Live after ten tabs")
        .await;
    b.shot(&format!("{tag}-40-live-after-ten-tabs")).await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(ten_tabs_and_twenty_loads);
