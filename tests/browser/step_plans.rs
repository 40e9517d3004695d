//! In Chromium: the assistant, offline, plans a graph of tool calls; the card shows it in layers;
//! a person approves it and confirms all the remaining writes at once (the notes run as their
//! inputs arrive);
//! the text to the opted-out lead is refused when it runs, and the note that depends on it is
//! blocked while everyone else's go on.
use crate::harness::*;
use crate::helpers::Backend;

async fn step_plan_flow(backend: Backend) {
    step_plan_flow_on(backend, Screen::Desktop).await
}

async fn step_plan_flow_on(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.sign_in_demo(&server.base).await;
    b.wait_for("#nav-assistant").await;
    b.open(&format!("{}/assistant", server.base)).await;
    b.click("#plan-switch").await;
    b.fill(
        "#assistant-input",
        "find the quote leads, tag them follow-up and text each a check-in",
    )
    .await;
    b.click("#assistant-send").await;
    b.wait_for(".plan-card[data-status='awaiting_approval'] .step-plan")
        .await;
    // Three layers: find; the tag and the texts; the notes.
    b.wait_for_text(".step-layer", "Step 3").await;
    b.wait_for(".step-box[data-step='text_3']").await;
    b.shot(&format!("{tag}-60-step-plan")).await;
    b.assert_fits_width("the step plan").await;

    b.click(".plan-approve").await;
    b.wait_for(".step-box[data-step='tag'][data-status='awaiting_confirmation']")
        .await;
    b.wait_for(".step-box[data-step='find'][data-status='completed']")
        .await;
    b.wait_for_text(".step-box[data-step='text_2'] .step-args", "Katherine")
        .await;
    b.shot(&format!("{tag}-61-awaiting-confirmation")).await;
    b.click(".step-confirm-all").await;
    b.wait_for(".plan-card[data-status='failed']").await;
    b.wait_for(".step-box[data-step='text_1'][data-status='failed']")
        .await;
    b.wait_for(".step-box[data-step='note_1'][data-status='blocked']")
        .await;
    b.wait_for_text(
        ".step-box[data-step='note_1'] .step-error",
        "depends on failed step text_1",
    )
    .await;
    b.wait_for(".step-box[data-step='note_3'][data-status='completed']")
        .await;
    b.shot(&format!("{tag}-63-step-plan-ended")).await;
    b.assert_fits_width("the finished step plan").await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(step_plan_flow);
crate::on_a_phone!(step_plan_flow_on);
