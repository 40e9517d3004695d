//! In Chromium, on a desktop (both databases) and a 390 px phone: a note with a mention in Ada's
//! conversation is shown apart as a note, with its author, and never as a text.
use crate::harness::*;
use crate::helpers::Backend;
use fantoccini::Locator;

async fn a_note_with_a_mention(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.open(&format!("{}/messaging", server.base)).await;
    open_conversation(&b, "Ada Lovelace").await;
    // A phone says "Notes": the heading's row is short.
    let label = match screen {
        Screen::Desktop => "Internal notes",
        Screen::Phone { .. } => "Notes",
    };
    b.wait_for_text("#notes summary", &format!("{label} (0)"))
        .await;
    b.click("#notes summary").await;
    b.fill("#note-body", "@Dana Demo she prefers a call after 5.")
        .await;
    b.click("#note-add").await;
    b.wait_for_text("#note-list .note", "prefers a call after 5")
        .await;
    b.wait_for_text("#note-list .note", "Note · Dana Demo")
        .await;
    b.wait_for_text("#notes summary", &format!("{label} (1)"))
        .await;
    let texts = b.client.find_all(Locator::Css(".message")).await.unwrap();
    for t in texts {
        assert!(
            !t.text().await.unwrap().contains("prefers a call"),
            "a note is never shown as a text"
        );
    }
    b.shot(&format!("{tag}-95-note")).await;
    b.assert_fits_width("a conversation's notes").await;
    b.client.clone().close().await.unwrap();
}

async fn notes_on_a_desktop(backend: Backend) {
    a_note_with_a_mention(backend, Screen::Desktop).await
}

crate::on_both_databases!(notes_on_a_desktop);
crate::on_a_phone!(a_note_with_a_mention);
