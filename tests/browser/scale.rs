//! In Chromium, on a seeded large organisation (10,000 more contacts with two texts each in the
//! demo organisation): the inbox says how many conversations there are, pages on with "Show
//! more", filters to the unread ones, and a conversation opens; the Contacts, Assistant and
//! Plans pages render; a text search counts exactly; a filter is saved as a segment, and a plan over a filter shows its exact
//! members a page at a time; a step plan over a thousand VIPs shows its for_each steps. Each page's time to ready is printed (a figure, not a pass mark).
use crate::harness::*;
use crate::helpers::{test_daytime, Backend};
use fantoccini::Locator;
use herald::server::seed_scale::{seed, ScaleSpec};
use std::time::{Duration, Instant};

const SEEDED: usize = 10_000;

async fn items(b: &Browser) -> usize {
    b.client
        .find_all(Locator::Css(".conversation-item"))
        .await
        .map(|v| v.len())
        .unwrap_or(0)
}

/// Waits until at least `n` conversations are listed.
async fn wait_for_items(b: &Browser, n: usize) {
    for _ in 0..200 {
        if items(b).await >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the inbox never listed {n} conversations");
}

async fn timed_open(b: &Browser, url: &str, ready: &str, what: &str) {
    let start = Instant::now();
    b.client.goto(url).await.unwrap();
    b.wait_for(ready).await;
    println!(
        "{what}: ready in {} ms with {SEEDED} seeded contacts",
        start.elapsed().as_millis()
    );
}

async fn a_large_inbox_pages(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    let db = server.db().await;
    let (org_id, number_id) = demo_org_and_number(&db).await;
    let spec = ScaleSpec {
        contacts: SEEDED,
        messages_each: 2,
        now: test_daytime() - chrono::Duration::minutes(5),
        unread_every: 5,
        vip_every: 10,
    };
    seed(&db, org_id, number_id, &spec).await.unwrap();

    timed_open(
        &b,
        &format!("{}/messaging", server.base),
        ".conversation-item",
        "Inbox",
    )
    .await;
    b.wait_for_text("#inbox-count", "Showing 50 of 10,0").await;
    assert_eq!(items(&b).await, 50, "one page at a time");
    b.shot(&format!("{tag}-scale-01-inbox")).await;
    b.click("#inbox-more").await;
    wait_for_items(&b, 100).await;
    b.wait_for_text("#inbox-count", "Showing 100 of 10,0").await;
    b.shot(&format!("{tag}-scale-02-more")).await;
    if matches!(screen, Screen::Phone { .. }) {
        b.assert_fits_width("the inbox at size").await;
    }

    choose_view(&b, screen, "unread").await;
    b.wait_for_text("#inbox-count", "Showing 50 of 2,0").await;
    for el in b
        .client
        .find_all(Locator::Css(".conversation-item"))
        .await
        .unwrap()
    {
        let class = el.attr("class").await.unwrap().unwrap_or_default();
        assert!(class.contains("unread"), "only unread ones: {class}");
    }
    b.shot(&format!("{tag}-scale-03-unread")).await;

    choose_view(&b, screen, "all").await;
    // Searching the texts: exact counts, results that open their conversation.
    b.fill("#message-search", "contact 1234").await;
    b.wait_for("#search-count[data-query='contact 1234']").await;
    b.wait_for_text("#search-count", "2 texts found").await;
    b.shot(&format!("{tag}-scale-04a-search")).await;
    b.client
        .goto(&format!("{}/messaging", server.base))
        .await
        .unwrap();
    b.wait_for("#inbox-count").await;
    open_conversation(&b, "Contact 000000").await;
    b.wait_for_text(".message", "Text 1 with contact 0").await;
    b.shot(&format!("{tag}-scale-04-conversation")).await;

    timed_open(
        &b,
        &format!("{}/contacts", server.base),
        "#contacts-table",
        "Contacts",
    )
    .await;
    b.shot(&format!("{tag}-scale-05-contacts")).await;
    // A segment: the tag filter saved by name; picked, the list is exactly its members.
    b.fill("#filter-tag", "vip").await;
    b.wait_for_text("#contacts-count", "of 1,0").await;
    b.click("#segment-new").await;
    b.fill("#segment-name", "VIPs").await;
    b.click("#segment-save").await;
    b.wait_for_text("#segment-bar .segment-words", "tagged vip")
        .await;
    b.wait_for_text("#contacts-count", "of 1,0").await;
    let controls = b.client.find(Locator::Id("contact-filters")).await.unwrap();
    assert!(
        !controls.is_displayed().await.unwrap(),
        "a picked segment replaces the filter controls"
    );
    b.shot(&format!("{tag}-scale-06-segment")).await;
    // The segment's CSV: every member, not only the page shown.
    let href = b
        .wait_for("#export-contacts")
        .await
        .attr("href")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(
        href.contains("vip"),
        "the export follows the segment: {href}"
    );
    let csv = b
        .client
        .execute(
            "return fetch(arguments[0]).then(r => r.text())",
            vec![serde_json::json!(href)],
        )
        .await
        .unwrap();
    let exported = csv.as_str().unwrap_or_default().lines().count() - 1;
    let shown = b.wait_for("#contacts-count").await.text().await.unwrap();
    let total: usize = shown
        .rsplit("of ")
        .next()
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap();
    assert_eq!(exported, total, "{shown}");
    if matches!(screen, Screen::Phone { .. }) {
        b.assert_fits_width("the contacts page with a segment")
            .await;
    }
    timed_open(
        &b,
        &format!("{}/assistant", server.base),
        "body[data-hydrated='true']",
        "Assistant",
    )
    .await;
    // More quiet contacts than a list may name: the plan names a filter, and its card counts
    // the members exactly and pages through them.
    b.click("#plan-switch").await;
    b.fill(
        "#assistant-input",
        "tag everyone who has not replied in 30 days as dormant",
    )
    .await;
    b.click("#assistant-send").await;
    b.wait_for(".plan-card[data-status='awaiting_approval'] .plan-audience")
        .await;
    b.wait_for_text(".plan-members", "members").await;
    b.wait_for_text(".plan-audience-label", "no reply in 30 days")
        .await;
    b.click(".plan-audience .plan-lists summary").await;
    b.wait_for_text(".plan-audience-count", "Showing 50 of")
        .await;
    b.click(".plan-audience-more").await;
    b.wait_for_text(".plan-audience-count", "Showing 100 of")
        .await;
    b.shot(&format!("{tag}-scale-07-segment-plan")).await;
    if matches!(screen, Screen::Phone { .. }) {
        b.assert_fits_width("a plan over a filter").await;
    }
    // A step plan over more contacts than its list holds: one step per kind of write, run
    // once per contact; the card says over what, how many, a sample, and what the texts cost.
    b.fill(
        "#assistant-input",
        "find the vip contacts, tag them checked and text each a check-in",
    )
    .await;
    b.click("#assistant-send").await;
    b.wait_for_text(
        ".step-box[data-step='text'] .step-each",
        "For each contact the filter finds",
    )
    .await;
    b.wait_for_text(".step-box[data-step='text'] .step-each", "texts ×")
        .await;
    b.wait_for_text(
        ".step-box[data-step='note'] .step-each",
        "each item step `text` completes",
    )
    .await;
    b.shot(&format!("{tag}-scale-08-for-each-plan")).await;
    if matches!(screen, Screen::Phone { .. }) {
        b.assert_fits_width("a for_each step plan").await;
    }
    timed_open(
        &b,
        &format!("{}/plans", server.base),
        "body[data-hydrated='true']",
        "Plans",
    )
    .await;
    b.client.clone().close().await.unwrap();
}

mod desktop {
    crate::on_both_databases!(large_inbox);
    async fn large_inbox(backend: crate::helpers::Backend) {
        super::a_large_inbox_pages(backend, crate::harness::Screen::Desktop).await
    }
}

crate::on_a_phone!(a_large_inbox_pages);
