//! In Chromium (issue 51 §1): a person texts a group without the Assistant. On Contacts, filter
//! by a tag and save it as a segment; "Text these" opens New campaign with the segment, its exact
//! count and who is left out; write the words with a merge field and see them filled in; review
//! the texts, approve, and the texts are sent. A second campaign to the same people is warned of
//! the first.
use crate::harness::*;
use crate::helpers::Backend;

async fn a_segment_to_sent_texts(backend: Backend) {
    a_segment_to_sent_texts_on(backend, Screen::Desktop).await
}

async fn a_segment_to_sent_texts_on(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.sign_in_demo(&server.base).await;
    b.wait_for("#nav-assistant").await;
    b.open(&format!("{}/contacts", server.base)).await;
    b.fill("#filter-tag", "quote").await;
    b.wait_for_text("#contacts-count", "4 contacts").await;
    b.click("#segment-new").await;
    b.fill("#segment-name", "Quote leads").await;
    b.click("#segment-save").await;
    b.wait_for("#segment-delete").await;
    b.shot(&format!("{tag}-110-contacts-segment")).await;
    b.click("#text-these").await;

    // The segment, counted exactly, and who is left out and why.
    b.wait_for_text(
        "#campaign-count",
        "3 of 4 contacts in the segment 'Quote leads' will get this text",
    )
    .await;
    b.wait_for_text("#campaign-left-out", "1 left out: opted out")
        .await;
    b.fill(
        "#campaign-body",
        "Hi {{contact.first_name|there}}, we're open this Saturday 9-1. See you!",
    )
    .await;
    b.wait_for_text(
        "#campaign-preview",
        "Hi Katherine, we're open this Saturday 9-1.",
    )
    .await;
    b.wait_for_text("#campaign-length", "1 segment").await;
    b.wait_for_text("#campaign-length", "for 3 texts").await;
    b.shot(&format!("{tag}-111-new-campaign")).await;
    b.assert_fits_width("the new campaign screen").await;

    // The same review sheet, approval and sending as an agent's campaign.
    b.click("#campaign-create").await;
    b.wait_for_text("#draft-sheet", "Hi Linus, we're open this Saturday 9-1.")
        .await;
    b.wait_for(".operation-card[data-status='awaiting_approval']")
        .await;
    b.shot(&format!("{tag}-112-written-review")).await;
    let regenerate = b
        .client
        .find_all(fantoccini::Locator::Css(".draft-regenerate"))
        .await
        .unwrap();
    assert!(
        regenerate.is_empty(),
        "a person's own words offer no Regenerate"
    );
    b.click("#approve-all").await;
    b.wait_for(".operation-card[data-status='done']").await;
    // Boris, opted out, is counted and skipped with his reason.
    b.wait_for_text(".operation-card .op-sent", "Sent 3/4")
        .await;
    b.wait_for_text(".operation-card", "opted out: 1").await;
    b.shot(&format!("{tag}-113-written-sent")).await;

    // A second campaign to the same people says so before it can be approved.
    b.open(&format!("{}/operations", server.base)).await;
    b.click("#operations-new-campaign").await;
    b.wait_for("#campaign-audience-pick").await;
    b.fill("#campaign-tag", "lead").await;
    b.wait_for_text(
        "#campaign-audience .overlap",
        "3 of these contacts are in 'Hi there, we're open this Saturday 9-1",
    )
    .await;
    b.shot(&format!("{tag}-114-overlap-warning")).await;
    b.assert_fits_width("the overlap warning").await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(a_segment_to_sent_texts);
crate::on_a_phone!(a_segment_to_sent_texts_on);
