//! In Chromium, on a desktop (both databases) and a 390 px phone: Settings links to the
//! server-rendered Developers page, styled as the app is; the owner creates an API key with
//! chosen scopes, sees its secret once, and revokes it; then subscribes a webhook to a receiver
//! on loopback and sees a test event delivered.
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

    // A webhook to a receiver here: its secret once, then a test event that shows as delivered.
    let receiver = receiver().await;
    b.fill("#webhook-url", "ftp://nowhere").await;
    b.click("#webhook-create").await;
    b.wait_for_text("#webhook-error", "https://").await;
    b.fill("#webhook-url", &receiver).await;
    b.click("#webhook-create").await;
    b.wait_for_text("#webhook-secret", "not shown again").await;
    let secret = b
        .wait_for("#webhook-secret-value")
        .await
        .text()
        .await
        .unwrap();
    assert!(secret.starts_with("whsec_"), "{secret}");
    b.click(".webhook-test").await;
    let page = format!("{}/developers", server.base);
    let mut delivered = false;
    for _ in 0..150 {
        b.client.goto(&page).await.unwrap();
        let states = b
            .client
            .find_all(fantoccini::Locator::Css(".delivery-status"))
            .await
            .unwrap();
        for s in states {
            delivered |= s.text().await.unwrap_or_default() == "delivered";
        }
        if delivered {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    if !delivered {
        let section = b
            .client
            .execute("const w = document.getElementById('webhooks'); return w ? w.innerText : document.body.innerText;", vec![])
            .await
            .unwrap_or_default();
        panic!("the test event was never delivered; the page says: {section}");
    }
    b.wait_for_text(".delivery-code", "204").await;
    b.client
        .execute(
            "document.getElementById('webhooks').scrollIntoView()",
            vec![],
        )
        .await
        .unwrap();
    b.shot(&format!("{tag}-97-webhooks")).await;
    b.assert_fits_width("the webhooks with a delivery").await;
    b.client.clone().close().await.unwrap();
}

async fn developers_on_a_desktop(backend: Backend) {
    create_and_revoke_a_key(backend, Screen::Desktop).await
}

crate::on_both_databases!(developers_on_a_desktop);
crate::on_a_phone!(create_and_revoke_a_key);

/// A receiver on loopback that takes every delivery (204): its URL.
async fn receiver() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hooks", listener.local_addr().unwrap());
    let app = axum::Router::new().route(
        "/hooks",
        axum::routing::post(|| async { axum::http::StatusCode::NO_CONTENT }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    url
}
