//! In Chromium: the learning loop. Katherine is tagged family; twice the owner leaves her out of
//! the follow-up campaign and approves it; "Review lessons" on the assistant's page makes one lesson; the next
//! campaign leaves her out by itself; the owner rewords the lesson (version 2) and disables it.
use crate::harness::*;
use crate::helpers::Backend;
use fantoccini::Locator;

async fn open_assistant_agent(b: &Browser, base: &str) {
    b.open(&format!("{base}/agents")).await;
    b.wait_for(".agent-link").await;
    for l in b
        .client
        .find_all(Locator::Css(".agent-link"))
        .await
        .unwrap()
    {
        if l.text().await.unwrap() == "Assistant" {
            b.tap(&l).await;
            break;
        }
    }
    b.wait_for("#lessons").await;
}

async fn ask_for_the_campaign(b: &Browser, base: &str) {
    b.ask_for_a_plan(base, "follow up with quiet quote leads")
        .await;
}

/// Waits until exactly `n` elements match `css`.
async fn wait_count(b: &Browser, css: &str, n: usize) {
    for _ in 0..200 {
        let found = b
            .client
            .find_all(Locator::Css(css))
            .await
            .map(|v| v.len())
            .unwrap_or(0);
        if found == n {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("never {n} of {css}");
}

async fn corrections_become_a_lesson(backend: Backend) {
    corrections_become_a_lesson_on(backend, Screen::Desktop).await
}

async fn corrections_become_a_lesson_on(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.sign_in_demo(&server.base).await;

    // Katherine is family.
    b.open(&format!("{}/contacts", server.base)).await;
    b.fill("#contact-search", "Katherine").await;
    b.wait_for("#contacts-table[data-query='Katherine']").await;
    b.click("#contacts-table .contact-row").await;
    b.fill("#contact-tags", "lead, quote, family").await;
    b.click("#contact-save").await;
    b.wait_for_text("#contacts-table", "family").await;

    // Twice: the campaign has her in, and the owner leaves her out.
    for round in 1..=2 {
        ask_for_the_campaign(&b, &server.base).await;
        b.wait_for_text(
            ".plan-card[data-status='awaiting_approval'] .plan-counts",
            "2 in",
        )
        .await;
        b.click(".plan-card[data-status='awaiting_approval'] .plan-edit")
            .await;
        b.click(".plan-card[data-status='awaiting_approval'] .plan-lists summary")
            .await;
        b.click("input.plan-include[data-name='Katherine Johnson']")
            .await;
        b.click(".plan-save").await;
        b.wait_for_text(
            ".plan-card[data-status='awaiting_approval'] .plan-counts",
            "1 in",
        )
        .await;
        b.click(".plan-card[data-status='awaiting_approval'] .plan-approve")
            .await;
        // Approved, each campaign plan waits on its campaign (its drafts are not reviewed here).
        wait_count(&b, ".plan-card[data-status='executing']", round).await;
    }

    // Review lessons: one lesson, with the corrections it came from.
    open_assistant_agent(&b, &server.base).await;
    b.click("#review-lessons").await;
    b.wait_for_text("#review-report", "1 new lesson").await;
    b.wait_for("li.lesson[data-rule='exclude_tag:family']")
        .await;
    b.click(".lesson-sources summary").await;
    b.wait_for_text(".lesson-sources", "Left Katherine Johnson out")
        .await;
    b.assert_fits_width("the lessons").await;
    b.shot(&format!("{tag}-50-lesson")).await;

    // The next campaign follows it.
    ask_for_the_campaign(&b, &server.base).await;
    b.wait_for_text(
        ".plan-exclusions",
        "a lesson: Leave out contacts tagged family",
    )
    .await;
    b.shot(&format!("{tag}-51-lesson-applied")).await;

    // The owner rewords it, then switches it off.
    open_assistant_agent(&b, &server.base).await;
    b.fill(".lesson-text", "Never send quote follow-ups to family.")
        .await;
    b.click(".lesson-save").await;
    b.wait_for_text(".lesson", "Version 2").await;
    b.click(".lesson-enabled").await;
    b.wait_for("li.lesson.disabled").await;
    b.shot(&format!("{tag}-52-lesson-edited")).await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(corrections_become_a_lesson);
crate::on_a_phone!(corrections_become_a_lesson_on);
