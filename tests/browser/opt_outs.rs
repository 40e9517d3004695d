//! In Chromium: a text that might be an opt-out ("wrong number") shows as a "Possible opt-out"
//! item on the inbox and in the conversation, and a person dismisses it there; on a desktop
//! (both databases) and on a phone.
use crate::harness::*;
use crate::helpers::Backend;

async fn possible_opt_out_is_decided_by_a_person(backend: Backend) {
    possible_opt_out_on(backend, Screen::Desktop).await
}

async fn possible_opt_out_on(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.sign_in_demo(&server.base).await;

    // Grace texts the front desk from the phone simulator.
    b.open(&format!("{}/simulator", server.base)).await;
    b.fill("#sim-from", "+14155552672").await;
    b.fill("#sim-body", "I think you have the wrong number")
        .await;
    b.click("#sim-send").await;
    b.wait_for_text("#sim-log", "wrong number").await;

    b.open(&format!("{}/messaging", server.base)).await;
    b.wait_for_text("#possible-opt-outs", "Possible opt-outs (1)")
        .await;
    b.assert_fits_width("the inbox with a possible opt-out")
        .await;
    b.shot(&format!("{tag}-60-possible-opt-out-inbox")).await;
    b.click(".possible-opt-out-link").await;
    b.wait_for_text(".possible-opt-out", "wrong number").await;
    b.assert_fits_width("the conversation with a possible opt-out")
        .await;
    b.shot(&format!("{tag}-61-possible-opt-out")).await;
    b.click("#dismiss-opt-out").await;
    // Dismissed: the item is gone, and the contact is still subscribed.
    for _ in 0..100 {
        let left = b
            .client
            .find_all(fantoccini::Locator::Css(".possible-opt-out"))
            .await
            .unwrap();
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(b
        .client
        .find_all(fantoccini::Locator::Css(".possible-opt-out"))
        .await
        .unwrap()
        .is_empty());
    b.shot(&format!("{tag}-62-possible-opt-out-dismissed"))
        .await;
    b.open(&format!("{}/messaging", server.base)).await;
    b.wait_for("#conversation-list").await;
    assert!(b
        .client
        .find_all(fantoccini::Locator::Css("#possible-opt-outs"))
        .await
        .unwrap()
        .is_empty());
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(possible_opt_out_is_decided_by_a_person);
crate::on_a_phone!(possible_opt_out_on);
