//! In Chromium: the assistant, offline, plans a graph of tool calls; the card shows it in layers,
//! each step's arguments as a person reads them (names, the words with what a reference fills
//! marked, tags as chips) and the raw form behind "Details";
//! Simulate shows each step's predicted effect and the totals, changing nothing;
//! a person approves it and confirms all the remaining writes at once (the notes run as their
//! inputs arrive);
//! the text to the opted-out lead is refused when it runs, and the note that depends on it is
//! blocked while everyone else's go on. The agent then re-plans: the revision, beside the first
//! plan on the Plans page, keeps what completed and rewrites the blocked note.
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
    b.ask_for_a_plan(
        &server.base,
        "find the quote leads, tag them follow-up and text each a check-in",
    )
    .await;
    b.wait_for(".plan-card[data-status='awaiting_approval'] .step-plan")
        .await;
    // Three layers: find; the tag and the texts; the notes.
    b.wait_for_text(".step-layer", "Step 3").await;
    b.wait_for(".step-box[data-step='text_3']").await;
    // Read as a person reads it: before the find runs, each text says whom it will reach and
    // where the name will come from; the tags are chips; the raw form waits behind "Details".
    let text_0 = ".step-box[data-step='text_0']";
    b.wait_for_text(
        &format!("{text_0} .step-readable [data-arg='contact_id'] .step-fill"),
        "a contact from ‘Find the",
    )
    .await;
    b.wait_for_text(
        &format!("{text_0} [data-arg='body'] .step-fill"),
        "name from ‘Find the",
    )
    .await;
    b.wait_for_text(
        ".step-box[data-step='tag'] [data-arg='add'] .tag",
        "follow-up",
    )
    .await;
    let raw = b.wait_for(&format!("{text_0} .step-args")).await;
    assert_eq!(
        raw.text().await.unwrap(),
        "",
        "the raw arguments are shown before Details is opened"
    );
    b.shot(&format!("{tag}-60-step-plan")).await;
    b.assert_fits_width("the step plan").await;
    b.click(&format!("{text_0} .step-details summary")).await;
    b.wait_for_text(&format!("{text_0} .step-details"), "send_sms")
        .await;
    b.wait_for_text(
        &format!("{text_0} .step-args"),
        "{{find.result.contacts[0].id}}",
    )
    .await;
    b.shot(&format!("{tag}-60a-step-details")).await;
    b.assert_fits_width("a step's details").await;
    // The dry run: each step's predicted effect and the totals; nothing changes.
    b.click(".step-simulate").await;
    b.wait_for_text(".step-sim-totals", "Nothing was changed")
        .await;
    b.wait_for_text(
        ".step-box[data-step='text_2'] .step-predicted",
        "Would text Katherine",
    )
    .await;
    b.wait_for_text(
        ".step-box[data-step='text_1'] .step-predicted[data-predicted='failed']",
        "opted out",
    )
    .await;
    b.wait_for(".plan-card[data-status='awaiting_approval']")
        .await;
    b.shot(&format!("{tag}-60b-step-plan-simulated")).await;
    b.assert_fits_width("the simulated step plan").await;

    b.click(".plan-approve").await;
    b.wait_for(".step-box[data-step='tag'][data-status='awaiting_confirmation']")
        .await;
    b.wait_for(".step-box[data-step='find'][data-status='completed']")
        .await;
    // Once the find has run: names, and the words each text gets, what the find filled marked.
    b.wait_for_text(
        ".step-box[data-step='text_2'] [data-arg='contact_id'] .step-fill",
        "Katherine",
    )
    .await;
    b.wait_for_text(
        ".step-box[data-step='text_2'] [data-arg='body'] mark.step-fill",
        "Katherine",
    )
    .await;
    b.wait_for_text(
        ".step-box[data-step='tag'] [data-arg='contacts']",
        "contacts)",
    )
    .await;
    // Boris opted out: his text says it will not be sent before anyone confirms it.
    b.wait_for_text(
        ".step-box[data-step='text_1'] .step-wont-send",
        "Won't be sent: opted out",
    )
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
    // Completed steps say what they did in words; the raw result stays behind Details.
    let results = b
        .client
        .execute(
            "return [...document.querySelectorAll('.step-result')].map(e => e.innerText)",
            vec![],
        )
        .await
        .unwrap();
    let results: Vec<String> = serde_json::from_value(results).unwrap();
    assert!(!results.is_empty());
    assert!(
        results.iter().all(|r| !r.contains('{') && !r.contains('"')),
        "{results:?}"
    );
    b.shot(&format!("{tag}-63-step-plan-ended")).await;
    b.assert_fits_width("the finished step plan").await;
    // The failure asked the agent for a revision: on the Plans page the two stand side by side,
    // the completed steps frozen in the revision and the blocked note rewritten.
    b.open(&format!("{}/plans", server.base)).await;
    b.wait_for_text("#plans-table .plan-revision", "rev 2")
        .await;
    b.click("#plans-table tr.plan-row:has(.plan-revision)")
        .await;
    let rev2 = ".plan-revision-col[data-revision='2']";
    b.wait_for(&format!(
        "{rev2} .step-box[data-step='note_1'][data-status='ready']"
    ))
    .await;
    b.wait_for(&format!(
        "{rev2} .step-box[data-step='text_0'][data-status='completed']"
    ))
    .await;
    b.wait_for(".plan-revision-col[data-revision='1'] .plan-card[data-status='failed']")
        .await;
    b.shot(&format!("{tag}-64-revisions-side-by-side")).await;
    b.assert_fits_width("the revisions").await;
    b.click(&format!("{rev2} .plan-approve")).await;
    b.wait_for(&format!(
        "{rev2} .step-box[data-step='note_1'][data-status='awaiting_confirmation']"
    ))
    .await;
    b.click(&format!(
        "{rev2} .step-box[data-step='note_1'] .step-confirm"
    ))
    .await;
    b.wait_for(&format!("{rev2} .plan-card[data-status='done']"))
        .await;
    b.shot(&format!("{tag}-65-revision-done")).await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(step_plan_flow);
crate::on_a_phone!(step_plan_flow_on);
