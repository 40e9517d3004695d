//! In Chromium, on a desktop (both databases) and a 390 px phone: add a saved reply with merge
//! fields in Settings, type `/` in Ada's composer, pick it, see it filled in for Ada from the demo
//! user with its segments and cost, and send it.
use crate::harness::*;
use crate::helpers::Backend;
use std::time::Duration;

async fn composer_text(b: &Browser) -> String {
    b.wait_for("#composer-body")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default()
}

async fn insert_a_saved_reply_and_send_it(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.open(&format!("{}/settings", server.base)).await;
    b.fill("#saved-reply-name", "Hours").await;
    b.fill(
        "#saved-reply-body",
        "Hi {{contact.first_name|there}}, {{me.name}} here: we're open 9-5.",
    )
    .await;
    b.click("#saved-reply-save").await;
    b.wait_for_text("#saved-reply-list", "Hours").await;
    b.shot(&format!("{tag}-90-saved-replies")).await;
    b.assert_fits_width("the saved replies").await;

    b.open(&format!("{}/messaging", server.base)).await;
    open_conversation(&b, "Ada Lovelace").await;
    b.fill("#composer-body", "/ho").await;
    b.wait_for_text("#saved-replies .saved-reply", "Hours")
        .await;
    b.shot(&format!("{tag}-91-picker")).await;
    b.click("#saved-replies .saved-reply").await;
    let want = "Hi Ada, Dana Demo here: we're open 9-5.";
    for _ in 0..100 {
        if composer_text(&b).await == want {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(composer_text(&b).await, want, "filled in for Ada");
    // The caret stays in the composer, to go on writing (and a phone's tab bar stays away).
    let focused = b
        .client
        .execute(
            "return document.activeElement && document.activeElement.id;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        focused,
        serde_json::json!("composer-body"),
        "the composer keeps the focus"
    );
    b.wait_for_text("#composer-count", "1 segment").await;
    b.shot(&format!("{tag}-92-filled")).await;
    b.assert_fits_width("the composer with a saved reply").await;
    b.click("#composer-send").await;
    b.wait_for_text(".message.outbound", "Dana Demo here").await;
    b.shot(&format!("{tag}-93-sent")).await;
    b.client.clone().close().await.unwrap();
}

async fn saved_replies_on_a_desktop(backend: Backend) {
    insert_a_saved_reply_and_send_it(backend, Screen::Desktop).await
}

crate::on_both_databases!(saved_replies_on_a_desktop);
crate::on_a_phone!(insert_a_saved_reply_and_send_it);
