//! In Chromium: ask the assistant in plan mode; the plan card appears; edit it and approve it;
//! the contacts are tagged. Then the RiskGated path: a small plan runs with no human.
use crate::harness::*;
use crate::helpers::Backend;
use fantoccini::Locator;

async fn plan_card_edit_approve(backend: Backend) {
    plan_card_edit_approve_on(backend, Screen::Desktop).await
}

async fn plan_card_edit_approve_on(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.sign_in_demo(&server.base).await;
    b.wait_for("#nav-assistant").await;

    b.ask_for_a_plan(
        &server.base,
        "tag everyone who has not replied in 30 days as quiet",
    )
    .await;
    b.wait_for(".plan-card[data-status='awaiting_approval']")
        .await;
    b.wait_for_text(".plan-counts", "3 in · 1 out").await;
    b.wait_for_text(".plan-exclusions", "opted out").await;
    b.shot(&format!("{tag}-20-plan-card")).await;
    // The navigation counts the plan that waits, live (the tab bar on a phone, the sidebar on
    // a desktop).
    b.wait_for_text("#tab-plans .count, #nav-plans .nav-count", "1")
        .await;
    b.assert_fits_width("the plan card").await;

    // Edit: leave Katherine out, rename it.
    b.click(".plan-edit").await;
    b.click(".plan-lists summary").await;
    b.click("input.plan-include[data-name='Katherine Johnson']")
        .await;
    b.fill(".plan-title-input", "Tag Grace and Linus as quiet")
        .await;
    b.shot(&format!("{tag}-21-plan-edit")).await;
    b.click(".plan-save").await;
    b.wait_for_text(".plan-counts", "2 in · 2 out").await;
    b.wait_for_text(".plan-title", "Tag Grace and Linus as quiet")
        .await;
    b.click(".plan-approve").await;
    b.wait_for(".plan-card[data-status='done']").await;
    b.shot(&format!("{tag}-22-plan-done")).await;
    b.assert_fits_width("the approved plan").await;

    b.open(&format!("{}/contacts", server.base)).await;
    b.fill("#contact-search", "quiet").await;
    // The unfiltered list shows them too: count only once the table answers this search.
    b.wait_for("#contacts-table[data-query='quiet']").await;
    b.wait_for_text("#contacts-table", "Grace Hopper").await;
    b.wait_for_text("#contacts-table", "Linus Torvalds").await;
    let rows = b
        .client
        .find_all(Locator::Css("#contacts-table .contact-row"))
        .await
        .unwrap();
    assert_eq!(
        rows.len(),
        2,
        "Grace and Linus were tagged quiet; Katherine was edited out"
    );
    b.shot(&format!("{tag}-23-tagged")).await;

    // RiskGated: "let it proceed on low-risk plans", then a small plan runs by itself.
    b.open(&format!("{}/agents", server.base)).await;
    // The list loads after the page: wait for it before looking for the Assistant's link.
    b.wait_for_text(".agent-link", "Assistant").await;
    let links = b
        .client
        .find_all(Locator::Css(".agent-link"))
        .await
        .unwrap();
    for l in links {
        if l.text().await.unwrap() == "Assistant" {
            b.tap(&l).await;
            break;
        }
    }
    b.wait_for("#agent-plan-approval").await;
    b.client
        .find(Locator::Css("#agent-plan-approval"))
        .await
        .unwrap()
        .select_by_value("risk_gated")
        .await
        .unwrap();
    b.click("#agent-save").await;
    b.wait_for_text(".agent-form .ok", "Saved").await;
    b.shot(&format!("{tag}-24-risk-gated")).await;
    b.ask_for_a_plan(
        &server.base,
        "tag everyone who has not replied in 30 days as dormant",
    )
    .await;
    b.wait_for_text(".plan-auto-note", "Plan auto-approved")
        .await;
    b.wait_for(".plan-card[data-status='done']").await;
    b.shot(&format!("{tag}-25-auto-approved")).await;
    b.open(&format!("{}/plans", server.base)).await;
    b.wait_for_text("#plans-table", "policy").await;
    b.shot(&format!("{tag}-26-plans-page")).await;
    // Searched and filtered (issue 29 §5): words in the title, any case; then also a status
    // none of them has, which says so.
    b.fill("#plans-search", "DORMANT\u{E007}").await;
    b.wait_for_text("#plans-count", "1 plan.").await;
    b.wait_for_text("#plans-table", "as \"dormant\"").await;
    b.wait_for("#plans-status")
        .await
        .select_by_value("stopped")
        .await
        .unwrap();
    b.wait_for("#plans-none").await;
    b.shot(&format!("{tag}-27-plans-filtered")).await;
    b.assert_fits_width("the plans filters").await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(plan_card_edit_approve);
crate::on_a_phone!(plan_card_edit_approve_on);
