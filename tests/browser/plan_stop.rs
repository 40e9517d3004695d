//! In Chromium, on a desktop (both databases) and a 390 px phone (issue 29 §2 and §6): a step
//! plan waits on its writes; the notification says so and leads to the plan (scrolled to the
//! first waiting step); a person edits a text's words and confirms it, and it goes as edited.
//! Then a second plan is approved and stopped mid-run, after its tag step ran, with a reason:
//! its card says who stopped it and why, its waiting texts are skipped, and the first plan still
//! waits where it was.
use crate::harness::*;
use crate::helpers::Backend;

async fn stop_a_waiting_plan(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.sign_in_demo(&server.base).await;
    b.wait_for("#nav-assistant").await;
    b.ask_for_a_plan(
        &server.base,
        "find the quote leads, tag them follow-up and text each a check-in",
    )
    .await;
    b.wait_for(".plan-card[data-status='awaiting_approval'] .step-plan")
        .await;
    b.click(".plan-approve").await;
    b.wait_for(".step-box[data-step='tag'][data-status='awaiting_confirmation']")
        .await;
    // The owner is told which steps wait, and the notification leads to the plan.
    b.open(&format!("{}/notifications", server.base)).await;
    b.wait_for_text("#notification-list", "steps wait for you in")
        .await;
    b.shot(&format!("{tag}-70-steps-waiting")).await;
    b.click("li[data-kind='plan_steps_waiting'] .notification-open")
        .await;
    b.wait_for(".plan-card[data-status='executing'] .plan-stop")
        .await;
    // A text's words are edited before confirming it: it goes as edited.
    let first = ".step-box[data-step='text_0']";
    b.click(&format!("{first} .step-edit")).await;
    b.fill(
        &format!("{first} .step-edit-field[data-field='body']"),
        "Hi, your quote is ready. Reply YES to book a time.",
    )
    .await;
    b.shot(&format!("{tag}-70b-edit-text")).await;
    b.assert_fits_width("the step being edited").await;
    b.click(&format!("{first} .step-edit-save")).await;
    b.wait_for(&format!("{first}[data-status='completed']"))
        .await;
    b.wait_for_text(first, "Reply YES to book a time").await;
    let first_plan = ".plan-card[data-status='executing']";

    // A second plan of the same kind: approved, its tag step confirmed and run, its texts
    // waiting: mid-run. It is stopped with a reason.
    b.ask_for_a_plan(
        &server.base,
        "find the quote leads, tag them follow-up and text each a check-in",
    )
    .await;
    let second = ".plan-card[data-status='awaiting_approval']";
    b.wait_for(&format!("{second} .step-plan")).await;
    let id = b
        .wait_for(second)
        .await
        .attr("data-plan-id")
        .await
        .unwrap()
        .unwrap();
    let second = format!(".plan-card[data-plan-id='{id}']");
    b.click(&format!("{second} .plan-approve")).await;
    let tag_step = format!("{second} .step-box[data-step='tag']");
    b.wait_for(&format!("{tag_step}[data-status='awaiting_confirmation']"))
        .await;
    b.click(&format!("{tag_step} .step-confirm")).await;
    b.wait_for(&format!("{tag_step}[data-status='completed']"))
        .await;
    b.click(&format!("{second} .plan-stop")).await;
    b.fill(
        &format!("{second} .plan-stop-reason"),
        "Wrong list: these leads already booked",
    )
    .await;
    b.shot(&format!("{tag}-71-stop-reason")).await;
    b.click(&format!("{second} .plan-stop-send")).await;
    b.wait_for(&format!("{second}[data-status='stopped']"))
        .await;
    b.wait_for_text(
        &format!("{second} .plan-stopped"),
        "Wrong list: these leads already booked",
    )
    .await;
    b.wait_for_text(&format!("{second} .plan-stopped"), "Stopped by Dana Demo")
        .await;
    b.wait_for(&format!(
        "{second} .step-box[data-step='text_0'][data-status='skipped']"
    ))
    .await;
    b.wait_for(&format!("{tag_step}[data-status='completed']"))
        .await;
    b.shot(&format!("{tag}-72-stopped")).await;
    b.assert_fits_width("the stopped plan").await;
    // The first plan is untouched: still running, its tag step still waiting for a person.
    b.wait_for(&format!(
        "{first_plan} .step-box[data-step='tag'][data-status='awaiting_confirmation']"
    ))
    .await;
    b.client.clone().close().await.unwrap();
}

async fn stop_a_plan_on_a_desktop(backend: Backend) {
    stop_a_waiting_plan(backend, Screen::Desktop).await
}

crate::on_both_databases!(stop_a_plan_on_a_desktop);
crate::on_a_phone!(stop_a_waiting_plan);
