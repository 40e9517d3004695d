//! In Chromium: the demo's legacy suggester answers the reminders line; the owner edits its
//! persona, turns on auto-reply and binds a contact, from the agents page.
use crate::harness::*;
use crate::helpers::Backend;

async fn owner_edits_a_suggester(backend: Backend) {
    owner_edits_a_suggester_on(backend, Screen::Desktop).await
}

async fn owner_edits_a_suggester_on(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.sign_in_demo(&server.base).await;
    b.open(&format!("{}/agents", server.base)).await;
    let card = "form.suggester-card[data-suggester='Reminders suggester']";
    b.wait_for(&format!(
        "{card} input.suggester-number[data-number='+14155550101']:checked"
    ))
    .await;
    b.fill(
        &format!("{card} .suggester-persona"),
        "Confirm and move appointments; sign off as the Bright Smile team.",
    )
    .await;
    b.click(&format!("{card} .suggester-auto")).await;
    b.fill(&format!("{card} .suggester-contact-search"), "Grace")
        .await;
    b.click(&format!("{card} .suggester-add")).await;
    b.wait_for_text(&format!("{card} .suggester-contacts"), "Grace Hopper")
        .await;
    b.click(&format!("{card} .suggester-save")).await;
    b.wait_for_text(&format!("{card} .ok"), "Saved").await;
    b.open(&format!("{}/agents", server.base)).await;
    b.wait_for(&format!("{card} .suggester-auto:checked")).await;
    b.wait_for_text(&format!("{card} .suggester-contacts"), "Grace Hopper")
        .await;
    b.assert_fits_width("the suggesters").await;
    b.client
        .execute(
            "document.querySelector(\"form.suggester-card\").scrollIntoView();",
            vec![],
        )
        .await
        .unwrap();
    b.shot(&format!("{tag}-60-suggester")).await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(owner_edits_a_suggester);
crate::on_a_phone!(owner_edits_a_suggester_on);
