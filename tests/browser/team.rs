//! In Chromium: an owner invites someone by link, the new member opens it in a browser of their
//! own, chooses a password and lands signed in; the owner removes them, and the member's open tab
//! is signed out. On a desktop (both databases) and on a phone.
use crate::harness::*;
use crate::helpers::Backend;
use fantoccini::Locator;
use std::time::Duration;

async fn invitation_and_removal(backend: Backend) {
    invitation_on(backend, Screen::Desktop).await
}

async fn invitation_on(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    let owner = start_browser_on(screen).await;
    owner.sign_in_demo(&server.base).await;
    owner.open(&format!("{}/team", server.base)).await;
    owner.click("#invite-create").await;
    let url = owner.wait_for("#invite-url").await;
    let mut link = String::new();
    for _ in 0..100 {
        link = url.prop("value").await.unwrap().unwrap_or_default();
        if link.contains("/join/") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(link.starts_with(&server.base), "{link}");
    owner
        .assert_fits_width("the team page with an invitation")
        .await;
    owner.shot(&format!("{tag}-70-team-invitation")).await;

    let email = format!("newbie-{}@herald.test", uuid::Uuid::new_v4().simple());
    let member = start_browser_on(screen).await;
    member.open(&link).await;
    member.wait_for_text("#join-form h1", "Join").await;
    member.fill("#join-name", "Nia Newbie").await;
    member.fill("#join-email", &email).await;
    member.fill("#join-password", "nia's own password").await;
    member.assert_fits_width("the invitation page").await;
    member.shot(&format!("{tag}-71-join")).await;
    member.click("#join-submit").await;
    member.wait_for("#nav-assistant").await;
    member.wait_for("#conversation-list").await;
    member.shot(&format!("{tag}-72-joined-inbox")).await;

    // The owner removes the new member; the member's open tab goes to the sign-in page.
    owner.open(&format!("{}/team", server.base)).await;
    let row = format!("tr[data-email='{email}']");
    owner.wait_for(&row).await;
    owner.click(&format!("{row} .remove-member")).await;
    owner.click(&format!("{row} .remove-confirm")).await;
    owner.wait_for_text("#team-note", "was removed").await;
    owner
        .assert_fits_width("the team page after a removal")
        .await;
    owner.shot(&format!("{tag}-73-member-removed")).await;
    let mut signed_out = false;
    for _ in 0..150 {
        if member
            .client
            .find(Locator::Css("#signin-submit"))
            .await
            .is_ok()
        {
            signed_out = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(signed_out, "the removed member's open tab is signed out");
    member
        .shot(&format!("{tag}-74-removed-member-signed-out"))
        .await;
    member.client.clone().close().await.unwrap();
    owner.client.clone().close().await.unwrap();
}

crate::on_both_databases!(invitation_and_removal);
crate::on_a_phone!(invitation_on);
