//! In Chromium: sign in as the demo user, open a conversation, send a text and see it sent,
//! then text in through the phone simulator and see it arrive live in the open conversation.
use crate::harness::*;
use crate::helpers::Backend;
use fantoccini::Locator;

async fn sign_in_send_and_receive_live(backend: Backend) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser().await;
    let tag = format!("{backend:?}").to_lowercase();

    b.open(&format!("{}/signin", server.base)).await;
    b.fill("#signin-email", herald::server::seed::DEMO_EMAIL)
        .await;
    b.fill("#signin-password", herald::server::seed::DEMO_PASSWORD)
        .await;
    b.shot(&format!("{tag}-01-sign-in")).await;
    b.click("#signin-submit").await;
    b.wait_for_text(".conversation-item", "Ada Lovelace").await;
    b.shot(&format!("{tag}-02-inbox")).await;

    // Open Ada's conversation and send from the composer.
    let items = b
        .client
        .find_all(Locator::Css(".conversation-item"))
        .await
        .unwrap();
    for item in items {
        if item.text().await.unwrap().contains("Ada Lovelace") {
            b.tap(&item).await;
            break;
        }
    }
    b.wait_for_text("#conversation-title", "Ada Lovelace").await;
    b.wait_for_text(".message.inbound", "move my cleaning")
        .await;
    let from = b.wait_for("#composer-from").await;
    assert!(
        from.prop("value")
            .await
            .unwrap()
            .is_some_and(|v| !v.is_empty()),
        "a number is chosen"
    );
    b.fill("#composer-body", "Of course! Tuesday at 3pm works.")
        .await;
    b.click("#composer-send").await;
    b.wait_for_text(".message.outbound", "Tuesday at 3pm").await;
    b.wait_for_text(".message.outbound .message-status", "sent")
        .await;
    b.wait_for_text(".message.outbound .via", "Front desk")
        .await;
    b.shot(&format!("{tag}-03-sent")).await;
    let conversation = b.client.window().await.unwrap();

    // A second tab: the phone simulator texts in as Ada.
    let tab = b.client.new_window(true).await.unwrap();
    b.client.switch_to_window(tab.handle).await.unwrap();
    b.open(&format!("{}/simulator", server.base)).await;
    b.fill("#sim-from", "+14155552671").await;
    b.fill("#sim-body", "Running 5 minutes late, sorry!").await;
    b.shot(&format!("{tag}-04-simulator")).await;
    b.click("#sim-send").await;
    b.wait_for_text("#sim-log", "Running 5 minutes late").await;

    // Back in the conversation: the text is there without a reload.
    b.client.switch_to_window(conversation).await.unwrap();
    b.wait_for_text(".message.inbound", "Running 5 minutes late")
        .await;
    b.shot(&format!("{tag}-05-live")).await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(sign_in_send_and_receive_live);
