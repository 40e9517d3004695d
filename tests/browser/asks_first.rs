//! In Chromium (issue 51 §6): what cannot be undone asks first. Cancelling a campaign, deleting
//! a segment and deleting a saved reply each turn their button into a question; "Keep" changes
//! nothing, and only the second press does it.
use crate::harness::*;
use crate::helpers::Backend;
use fantoccini::Locator;

async fn gone(b: &Browser, css: &str) -> bool {
    b.client.find(Locator::Css(css)).await.is_err()
}

async fn destructive_actions_ask_first(backend: Backend) {
    let Some((server, b)) = signed_in(backend, Screen::Desktop).await else {
        return;
    };
    let base = server.base.clone();
    // A campaign waiting for review.
    b.ask_for_a_plan(&base, "follow up with quiet quote leads")
        .await;
    b.wait_for(".plan-card[data-status='awaiting_approval']")
        .await;
    b.click(".plan-approve").await;
    b.wait_for(".operation-card[data-status='awaiting_approval']")
        .await;
    b.click(".review-link").await;
    b.wait_for("#draft-sheet .draft-row").await;
    b.click("#cancel-operation").await;
    b.wait_for_text(".confirm", "Cancel this campaign?").await;
    b.shot("asks-first-cancel-campaign").await;
    b.click(".confirm-keep").await;
    b.wait_for("#cancel-operation").await;
    assert!(gone(&b, "#cancel-operation-confirm").await, "Keep keeps it");
    b.click("#cancel-operation").await;
    b.click("#cancel-operation-confirm").await;
    b.wait_for(".operation-card[data-status='cancelled']").await;

    // A segment.
    b.open(&format!("{base}/contacts")).await;
    b.fill("#filter-tag", "patient").await;
    b.click("#segment-new").await;
    b.fill("#segment-name", "Patients").await;
    b.click("#segment-save").await;
    b.wait_for_text("#segment-bar .segment-words", "tagged patient")
        .await;
    b.click("#segment-delete").await;
    b.wait_for_text("#segment-bar .confirm", "Delete the segment “Patients”?")
        .await;
    b.click("#segment-delete-confirm").await;
    b.wait_until_gone_text("#segment-bar", "tagged patient")
        .await;

    // A saved reply: a new organisation's starters are there to delete.
    b.open(&format!("{base}/settings")).await;
    b.wait_for_text("#saved-reply-list", "Running late").await;
    let rows = b
        .client
        .find_all(Locator::Css("#saved-reply-list .saved-reply-row"))
        .await
        .unwrap();
    let mut late = None;
    for r in rows {
        if r.text().await.unwrap().contains("Running late") {
            late = Some(r);
        }
    }
    let late = late.expect("the Running late starter");
    let delete = late
        .find(Locator::Css("button[id^='delete-saved-reply-']"))
        .await
        .unwrap();
    b.tap(&delete).await;
    b.wait_for_text("#saved-reply-list .confirm", "Delete “Running late”?")
        .await;
    b.click("#saved-reply-list .confirm-yes").await;
    b.wait_until_gone_text("#saved-reply-list", "Running late")
        .await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(destructive_actions_ask_first);
