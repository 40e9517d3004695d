//! In Chromium: a suggest-mode agent on the front desk; a text through the simulator; its drafts'
//! notification opens the conversation with three suggestion cards in sight, the bubble saying
//! "3 suggested replies"; "Use this reply"; sent from the number that was texted.
use crate::harness::*;
use crate::helpers::Backend;
use fantoccini::Locator;

async fn suggest_mode_panel(backend: Backend) {
    suggest_mode_panel_on(backend, Screen::Desktop).await
}

async fn suggest_mode_panel_on(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.sign_in_demo(&server.base).await;
    b.wait_for_text("#model-badge, #topbar-model", "Offline model")
        .await;

    // The demo's Text Reply agent is in suggest mode on the front desk.
    b.open(&format!("{}/agents", server.base)).await;
    b.click(".agent-link").await;
    b.wait_for("#agent-send-mode").await;
    let mode = b
        .client
        .find(Locator::Css("#agent-send-mode"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap();
    assert_eq!(mode.as_deref(), Some("suggest"));
    b.wait_for("input.assign-number[data-number='+14155550100']:checked")
        .await;
    b.shot(&format!("{tag}-10-agent")).await;

    // The demo's Ada texted the front desk: the agent's drafts are announced, and the
    // notification opens her conversation with them showing.
    b.open(&format!("{}/notifications", server.base)).await;
    b.wait_for_text(
        ".notification[data-kind='drafts']",
        "drafted 3 replies for Ada Lovelace",
    )
    .await;
    b.wait_for_text(
        ".notification[data-kind='drafts'] .notification-open",
        "Pick a reply",
    )
    .await;
    b.click(".notification[data-kind='drafts'] .notification-open")
        .await;
    b.wait_for_text(".message.inbound", "cleaning").await;
    b.wait_for(".suggestion-card").await;
    b.shot(&format!("{tag}-10b-drafts-from-notification")).await;

    // A new contact texts the front desk through the simulator.
    b.open(&format!("{}/simulator", server.base)).await;
    b.fill("#sim-from", "+14155552688").await;
    b.fill("#sim-body", "Hi, could I move my appointment to Thursday?")
        .await;
    b.click("#sim-send").await;
    b.wait_for_text("#sim-log", "Thursday").await;

    b.open(&format!("{}/messaging", server.base)).await;
    b.wait_for_text(".conversation-item", "+14155552688").await;
    let items = b
        .client
        .find_all(Locator::Css(".conversation-item"))
        .await
        .unwrap();
    for item in items {
        if item.text().await.unwrap().contains("+14155552688") {
            b.tap(&item).await;
            break;
        }
    }
    // In sight (issue 51 §2): the bubble says how many, and the newest text's drafts are open
    // with nothing to tap first.
    b.wait_for_text(".message.inbound", "Thursday").await;
    b.wait_for_text(".message.inbound .suggested-count", "3 suggested replies")
        .await;
    b.wait_for(".suggestion-card").await;
    for _ in 0..100 {
        if b.client
            .find_all(Locator::Css(".suggestion-card"))
            .await
            .unwrap()
            .len()
            == 3
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let cards = b
        .client
        .find_all(Locator::Css(".suggestion-card"))
        .await
        .unwrap();
    assert_eq!(cards.len(), 3, "three suggestion cards");
    b.wait_for_text(".suggestions-head", "offline model").await;
    // In sight: the history is scrolled to the newest, and no card sits under the composer.
    let covered = "const h = document.getElementById('history').getBoundingClientRect();         const c = document.querySelector('.composer').getBoundingClientRect();         const last = [...document.querySelectorAll('.suggestion-card')].pop().getBoundingClientRect();         return [h.bottom <= c.top + 1, last.bottom <= h.bottom + 1 && last.top >= h.top - 1];";
    let mut seen = serde_json::Value::Null;
    for _ in 0..50 {
        seen = b.client.execute(covered, vec![]).await.unwrap();
        if seen == serde_json::json!([true, true]) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        seen,
        serde_json::json!([true, true]),
        "the history ends above the composer, and the last suggestion is in view"
    );
    let page = b.client.source().await.unwrap();
    assert!(!page.contains("% confident"), "no bare confidence figure");
    b.shot(&format!("{tag}-11-suggestions")).await;
    b.assert_fits_width("the suggestions panel").await;
    let first = cards[0]
        .find(Locator::Css(".suggestion-body"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let use_reply = cards[0].find(Locator::Css(".use-reply")).await.unwrap();
    b.tap(&use_reply).await;
    for _ in 0..50 {
        let v = b
            .client
            .find(Locator::Css("#composer-body"))
            .await
            .unwrap()
            .prop("value")
            .await
            .unwrap();
        if v.as_deref() == Some(first.as_str()) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let from = b
        .client
        .find(Locator::Css("#composer-from option:checked"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        from.contains("+14155550100"),
        "answers from the texted number: {from}"
    );
    b.shot(&format!("{tag}-12-composer")).await;
    b.click("#composer-send").await;
    b.wait_for_text(".message.outbound", &first).await;
    b.wait_for_text(".message.outbound .badge", "suggestion")
        .await;
    b.wait_for_text(".message.outbound .via", "Front desk")
        .await;
    b.shot(&format!("{tag}-13-sent")).await;
    b.assert_fits_width("the sent reply").await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(suggest_mode_panel);
crate::on_a_phone!(suggest_mode_panel_on);
