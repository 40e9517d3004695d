//! In Chromium: a plan awaiting approval notifies (the navigation counts it); the
//! notification opens the plan's own page; approving it there reads the notification. Then the
//! organisation's rules: the owner writes them on the settings page.
use crate::harness::*;
use crate::helpers::Backend;

async fn plan_notification_deep_links(backend: Backend) {
    plan_notification_deep_links_on(backend, Screen::Desktop).await
}

async fn plan_notification_deep_links_on(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.sign_in_demo(&server.base).await;

    b.ask_for_a_plan(
        &server.base,
        "tag everyone who has not replied in 30 days as quiet",
    )
    .await;
    b.wait_for(".plan-card[data-status='awaiting_approval']")
        .await;
    // The count (the demo's agent has drafted replies too): the sidebar on a desktop, the
    // "More" tab on a phone.
    b.wait_for("#nav-notifications .nav-count, #tab-more .count")
        .await;
    b.shot(&format!("{tag}-40-notification-count")).await;

    b.open(&format!("{}/notifications", server.base)).await;
    b.wait_for_text(
        "#notification-list",
        "Assistant has a plan for you to approve",
    )
    .await;
    b.assert_fits_width("the notifications").await;
    b.shot(&format!("{tag}-41-notifications")).await;
    b.click("li[data-kind='plan_awaiting'] .notification-open")
        .await;
    b.wait_for(".plan-card[data-status='awaiting_approval']")
        .await;
    b.wait_for(".plan-audit").await;
    let url = b.client.current_url().await.unwrap();
    assert!(url.path().starts_with("/plans/"), "{url}");
    b.assert_fits_width("the plan page").await;
    b.shot(&format!("{tag}-42-plan-page")).await;
    b.click(".plan-approve").await;
    b.wait_for(".plan-card[data-status='done']").await;

    b.open(&format!("{}/notifications", server.base)).await;
    // Deciding the plan read its notification.
    b.wait_for("#notification-list li[data-kind='plan_awaiting'].read")
        .await;
    b.shot(&format!("{tag}-43-notification-read")).await;

    // The organisation's rules, written by the owner.
    b.open(&format!("{}/settings", server.base)).await;
    b.fill("#settings-rules", "Never quote prices by text.")
        .await;
    b.click("#settings-save").await;
    b.wait_for_text("#settings-form .ok", "Saved").await;
    b.open(&format!("{}/settings", server.base)).await;
    b.wait_for_text("#settings-rules-help", "27 of 4000").await;
    b.assert_fits_width("the settings page").await;
    b.shot(&format!("{tag}-44-settings")).await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(plan_notification_deep_links);
crate::on_a_phone!(plan_notification_deep_links_on);
