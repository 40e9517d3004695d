//! In Chromium, on a desktop (both databases) and a 390 px phone: Settings links to the
//! server-rendered Developers page, styled as the app is; the owner creates an API key with
//! chosen scopes, sees its secret once, and revokes it.
use crate::harness::*;
use crate::helpers::Backend;

async fn create_and_revoke_a_key(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.open(&format!("{}/settings", server.base)).await;
    b.click("#developers-link").await;
    b.wait_for("#api-key-form").await;
    let url = b.client.current_url().await.unwrap();
    assert!(url.path().ends_with("/developers"), "{url}");
    // The app's stylesheet styles it: its cards have the app's padding.
    let styled = b
        .client
        .execute(
            "return getComputedStyle(document.querySelector('.card')).paddingTop",
            vec![],
        )
        .await
        .unwrap();
    assert_ne!(styled.as_str(), Some("0px"), "the page is styled");
    b.fill("#api-key-name", "Zapier").await;
    b.click("input[data-scope='messages:send']").await;
    b.click("#api-key-create").await;
    b.wait_for_text("#api-key-secret", "not shown again").await;
    let token = b.wait_for("#api-key-token").await.text().await.unwrap();
    assert!(token.starts_with("herald_"), "{token}");
    b.wait_for_text(".api-key", "contacts:read, messages:send")
        .await;
    b.shot(&format!("{tag}-95-developers")).await;
    b.assert_fits_width("the Developers page with a new key")
        .await;
    b.click(".api-key-revoke").await;
    b.wait_for_text(".api-key-state", "revoked").await;
    b.shot(&format!("{tag}-96-key-revoked")).await;
    b.client.clone().close().await.unwrap();
}

async fn developers_on_a_desktop(backend: Backend) {
    create_and_revoke_a_key(backend, Screen::Desktop).await
}

crate::on_both_databases!(developers_on_a_desktop);
crate::on_a_phone!(create_and_revoke_a_key);
