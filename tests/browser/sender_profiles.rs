//! In Chromium, on a desktop and a phone: Settings → Sending's sender profiles (issue 30 §2).
//! The owner adds a 10DLC profile (a bad daily cap first: why, and the form as typed), sees its
//! rate and today's use of its cap, and puts the demo's number under it; the page fits a
//! phone's width.
use crate::harness::*;
use crate::helpers::Backend;
use fantoccini::Locator;

async fn sender_profiles(backend: Backend, screen: Screen, tag: &str) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    b.client
        .goto(&format!("{}/settings/sending", server.base))
        .await
        .unwrap();
    b.wait_for_text("#sender-profiles h2", "Sender profiles")
        .await;
    b.wait_for("#no-profiles").await;
    b.wait_for_text("#default-profile", "on its own").await;
    b.click("#add-profile summary").await;
    b.fill("#add-profile .profile-name", "Spring promos").await;
    b.fill("#add-profile .profile-rate", "4500").await;
    b.fill("#add-profile .profile-cap", "lots").await;
    b.click("#profile-add").await;
    b.wait_for_text("#profile-error", "daily cap").await;
    // The form is open again with what was typed.
    let name = b
        .wait_for("#add-profile .profile-name")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    assert_eq!(name, "Spring promos");
    b.fill("#add-profile .profile-cap", "2000").await;
    b.click("#profile-add").await;
    b.wait_for_text("#sending-saved", "sender profile is saved")
        .await;
    b.wait_for_text("#profiles-table", "4,500 texts a minute")
        .await;
    b.wait_for_text("#profiles-table .profile-cap-words", "0 of 2,000")
        .await;
    // The demo's first number goes under it.
    b.wait_for("tr[data-number] .number-profile")
        .await
        .select_by_label("Spring promos")
        .await
        .unwrap();
    b.click("tr[data-number] .number-profile-save").await;
    b.wait_for_text("#sending-saved", "number's sender profile")
        .await;
    let chosen = b
        .client
        .find(Locator::Css(
            "tr[data-number] .number-profile option:checked",
        ))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(chosen, "Spring promos");
    b.wait_for_text("#profiles-table td.num", "1").await;
    b.assert_fits_width("Settings → Sending").await;
    let db = format!("{backend:?}").to_lowercase();
    b.shot(&format!("{db}-{tag}-sender-profiles")).await;
    b.client.clone().close().await.unwrap();
}

async fn sender_profiles_on_a_desktop(backend: Backend) {
    sender_profiles(backend, Screen::Desktop, "desktop").await;
}

async fn sender_profiles_on_a_phone(backend: Backend) {
    sender_profiles(backend, Screen::PHONE, "phone").await;
}

crate::on_both_databases!(sender_profiles_on_a_desktop, sender_profiles_on_a_phone);
