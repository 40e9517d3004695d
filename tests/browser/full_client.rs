//! The two web clients (`views::full_client`): the everyday pages run on the small first-load
//! client; a seldom-opened page, reached by a link, loads the full client from the server at its
//! address, works there, and the full client then moves between pages without loading again.
use crate::harness::*;
use crate::helpers::Backend;

/// The module script the current document loaded.
async fn client(b: &Browser) -> String {
    b.client
        .execute(
            "return document.querySelector('script[type=module]').getAttribute('src')",
            vec![],
        )
        .await
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

async fn a_seldom_opened_page_loads_the_full_client(backend: Backend) {
    let Some((server, b)) = signed_in(backend, Screen::Desktop).await else {
        return;
    };
    b.open(&format!("{}/messaging", server.base)).await;
    let first = client(&b).await;
    assert!(first.starts_with("/assets/herald-dxh"), "{first}");

    // A link to the settings: the page comes back with the full client, hydrated and working.
    b.click("#nav-settings").await;
    b.wait_for_text("h1", "Organisation settings").await;
    b.wait_for("body[data-hydrated='true']").await;
    let full = client(&b).await;
    assert!(full.starts_with("/assets/herald-full-dxh"), "{full}");
    let url = b.client.current_url().await.unwrap();
    assert_eq!(url.path(), "/settings");
    b.fill("#settings-rules", "Texts end with our shop's name.")
        .await;
    b.click("#settings-save").await;
    b.wait_for_text("#settings-form .ok", "Saved").await;
    b.shot("90-full-client-settings").await;

    // From here the full client moves between pages in place: the document stays the same.
    b.client
        .execute("window.__same_document = true;", vec![])
        .await
        .unwrap();
    b.click("#nav-inbox").await;
    b.wait_for_text("h1", "Inbox").await;
    b.click("#nav-team").await;
    b.wait_for_text("h1", "Team").await;
    let same = b
        .client
        .execute("return window.__same_document === true", vec![])
        .await
        .unwrap();
    assert_eq!(same, serde_json::json!(true), "no second load");

    // Back returns to the page before the settings, not to a loading page.
    b.client.back().await.unwrap();
    b.wait_for_text("h1", "Inbox").await;
    b.client.back().await.unwrap();
    b.wait_for_text("h1", "Organisation settings").await;
    b.client.back().await.unwrap();
    b.wait_for_text("h1", "Inbox").await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(a_seldom_opened_page_loads_the_full_client);
