//! In Chromium: ask for a campaign; approve the plan; drafting progress shows live; open the
//! review sheet, edit a draft and add a picture; approve; the messages are sent.
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
    b.ask_for_a_plan(&server.base, "follow up with quiet quote leads")
        .await;
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
    // Before approval, when it should finish and what holds it back (issue 30 §2).
    b.wait_for_text(".operation-card .op-estimate", "Estimated to finish")
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
    // A picture every text carries (issue 28 §3): each becomes one MMS, and the cost says so.
    let dir = std::env::temp_dir().join(format!("herald-campaign-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("offer-{tag}.png"));
    image::RgbImage::from_fn(900, 600, |x, y| {
        image::Rgb([(x / 4) as u8, 120, (y / 3) as u8])
    })
    .save(&file)
    .unwrap();
    b.wait_for_text("#campaign-pictures", "No picture").await;
    b.wait_for("#campaign-attach")
        .await
        .send_keys(file.to_str().unwrap())
        .await
        .expect("the file input takes the picture");
    b.wait_for(".campaign-picture img").await;
    b.wait_for_text("#campaign-pictures", "carries this picture, as one MMS")
        .await;
    b.wait_for_text("#campaign-cost", "an MMS").await;
    b.wait_for_text(".segments", "1 MMS").await;
    b.shot(&format!("{tag}-32b-campaign-picture")).await;
    b.assert_fits_width("the review sheet with a picture").await;
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
