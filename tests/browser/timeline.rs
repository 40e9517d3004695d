//! In Chromium, on a desktop and a phone: a sent text's status mark opens its timeline (issue
//! 30 §1), which says what became of it and when; the page the server renders reads on a phone.
use crate::harness::*;
use crate::helpers::Backend;
use fantoccini::Locator;

async fn the_status_mark_opens_the_timeline(backend: Backend, screen: Screen, tag: &str) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    b.open(&format!("{}/messaging", server.base)).await;
    b.wait_for_text(".conversation-item", "Ada Lovelace").await;
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
    b.fill("#composer-body", "See you Tuesday at 3pm.").await;
    b.click("#composer-send").await;
    b.wait_for_text(".message.outbound .message-status", "sent")
        .await;
    b.click(".message.outbound:last-of-type a.message-status")
        .await;
    b.wait_for_text("h1", "What happened to this text").await;
    b.wait_for_text("#timeline", "Queued in Herald").await;
    b.wait_for_text("#timeline", "Accepted by the provider")
        .await;
    b.wait_for_text(".bubble", "See you Tuesday at 3pm.").await;
    let db = format!("{backend:?}").to_lowercase();
    b.shot(&format!("{db}-{tag}-timeline")).await;
    b.client.clone().close().await.unwrap();
}

async fn the_timeline_on_a_desktop(backend: Backend) {
    the_status_mark_opens_the_timeline(backend, Screen::Desktop, "desktop").await;
}

async fn the_timeline_on_a_phone(backend: Backend) {
    the_status_mark_opens_the_timeline(backend, Screen::PHONE, "phone").await;
}

crate::on_both_databases!(the_timeline_on_a_desktop, the_timeline_on_a_phone);
