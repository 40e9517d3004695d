//! In Chromium: ask for a campaign; approve the plan; drafting progress shows live; open the
//! review sheet and edit a draft; approve; the messages are sent.
use crate::harness::*;
use crate::helpers::Backend;
use fantoccini::Locator;

async fn campaign_from_plan_to_sent(backend: Backend) {
    campaign_from_plan_to_sent_on(backend, Screen::Desktop).await
}

async fn campaign_from_plan_to_sent_on(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.sign_in_demo(&server.base).await;
    b.open(&format!("{}/assistant", server.base)).await;
    b.click("#plan-switch").await;
    b.fill("#assistant-input", "follow up with quiet quote leads")
        .await;
    b.click("#assistant-send").await;
    b.wait_for(".plan-card[data-status='awaiting_approval']")
        .await;
    b.wait_for_text(".plan-concept", "follow-up on the quote")
        .await;
    b.wait_for_text(".plan-counts", "2 in").await;
    b.shot(&format!("{tag}-30-campaign-plan")).await;
    b.click(".plan-approve").await;
    b.wait_for(".operation-card").await;
    b.wait_for_text(".operation-card .op-drafted", "Drafted 2/2")
        .await;
    b.shot(&format!("{tag}-31-drafting-progress")).await;
    b.wait_for(".operation-card[data-status='awaiting_approval']")
        .await;
    b.click(".review-link").await;
    b.wait_for("#draft-sheet .draft-row").await;
    b.wait_for_text(".segments", "GSM-7").await;
    b.shot(&format!("{tag}-32-review-sheet")).await;
    b.assert_fits_width("the review sheet").await;
    b.click(".draft-edit").await;
    b.fill(
        ".draft-input",
        "Hi! Just checking in on your quote. Want to book a quick call this week?",
    )
    .await;
    b.click(".draft-save").await;
    b.wait_for_text(".draft-row .badge", "edited").await;
    b.click("#approve-all").await;
    b.wait_for(".operation-card[data-status='done']").await;
    b.wait_for_text(".operation-card .op-sent", "Sent 2/2")
        .await;
    b.shot(&format!("{tag}-33-sent")).await;
    b.assert_fits_width("the sent campaign").await;
    b.open(&format!("{}/messaging", server.base)).await;
    b.wait_for_text(".conversation-item", "Just checking in on your quote")
        .await;
    let items = b
        .client
        .find_all(Locator::Css(".conversation-item"))
        .await
        .unwrap();
    assert!(items.len() >= 3);
    b.shot(&format!("{tag}-34-inbox")).await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(campaign_from_plan_to_sent);
crate::on_a_phone!(campaign_from_plan_to_sent_on);
