//! Herald on a phone, in Chromium's mobile emulation with touch: no page scrolls sideways at
//! 360×740 or 390×844, the navigation is a tab bar and a drawer with the counts kept, tap
//! targets are 44 px, and a contact is opted out from the bottom sheet.
use crate::harness::*;
use crate::helpers::Backend;
use fantoccini::Locator;
use std::time::Duration;

/// Every page of the signed-in app, with demo data, at both phone sizes.
async fn every_page_fits(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = screen.tag();
    let base = &server.base;
    let pages = [
        ("inbox", "/messaging", ".conversation-item"),
        ("assistant", "/assistant", "#assistant-input"),
        ("contacts", "/contacts", "#contacts-table"),
        ("numbers", "/numbers", "#numbers-free-form"),
        ("simulator", "/simulator", "#sim-body"),
        ("agents", "/agents", "#agents-table"),
        ("plans", "/plans", ".page-head"),
        ("operations", "/operations", ".page-head"),
        ("notifications", "/notifications", ".page-head"),
        ("team", "/team", ".table"),
    ];
    for (name, path, ready) in pages {
        b.open(&format!("{base}{path}")).await;
        b.wait_for(ready).await;
        settle().await;
        b.assert_fits_width(path).await;
        b.shot(&format!("{tag}40-{name}")).await;
    }
    // The pages behind an id: a conversation, an agent and one of its threads.
    b.open(&format!("{base}/messaging")).await;
    b.click(".conversation-item").await;
    b.wait_for("#composer-body").await;
    settle().await;
    b.assert_fits_width("a conversation").await;
    b.shot(&format!("{tag}41-conversation")).await;
    // The composer's Send button is on the screen, not cut off.
    let send = b.wait_for("#composer-send").await;
    let (x, _, w, _) = send.rectangle().await.unwrap();
    let width = match screen {
        Screen::Phone { width, .. } => width as f64,
        Screen::Desktop => 1280.0,
    };
    assert!(
        x >= 0.0 && x + w <= width,
        "Send is on screen: {x}+{w} of {width}"
    );

    b.open(&format!("{base}/agents")).await;
    b.click(".agent-link").await;
    b.wait_for("#agent-send-mode").await;
    settle().await;
    b.assert_fits_width("an agent").await;
    b.shot(&format!("{tag}42-agent")).await;
    b.client.clone().close().await.unwrap();
}

/// The drawer opens from the tab bar, shows the counts, and closes on a tap; the tab bar's
/// targets are thumb-sized; the sidebar is off the screen until asked for.
async fn drawer_and_tab_bar(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = screen.tag();
    b.open(&format!("{}/messaging", server.base)).await;
    b.wait_for(".conversation-item").await;
    settle().await;
    assert!(sidebar_right(&b).await <= 0.0, "the drawer starts closed");
    for el in b
        .client
        .find_all(Locator::Css("#tabbar .tab"))
        .await
        .unwrap()
    {
        let (_, _, w, h) = el.rectangle().await.unwrap();
        assert!(w >= 44.0 && h >= 44.0, "tab is {w}×{h}");
    }
    // The demo has two unread conversations; reading one takes the Inbox tab down to one.
    b.wait_for_text("#tab-inbox .count", "2").await;
    open_conversation(&b, "Ada Lovelace").await;
    b.wait_for_text("#tab-inbox .count", "1").await;
    b.click("#tab-inbox").await;
    b.wait_for(".conversation-item").await;
    b.shot(&format!("{tag}43-tab-bar")).await;

    b.click("#tab-more").await;
    b.wait_for(".sidebar.open").await;
    settle().await;
    assert!(sidebar_right(&b).await > 100.0, "the drawer is open");
    b.wait_for("#nav-inbox .nav-count").await;
    b.shot(&format!("{tag}44-drawer")).await;
    b.click("#nav-team").await;
    b.wait_for_text("h1", "Team").await;
    settle().await;
    assert!(
        sidebar_right(&b).await <= 0.0,
        "a tap in the drawer closes it"
    );
    assert!(b
        .client
        .current_url()
        .await
        .unwrap()
        .path()
        .ends_with("/team"));

    b.click("#tab-contacts").await;
    b.wait_for("#contacts-table").await;
    b.wait_for("#tab-contacts.active").await;
    b.client.clone().close().await.unwrap();
}

/// A contact opted out by thumb: the row, the bottom sheet, "Opt out manually".
async fn opt_out_on(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = screen.tag();
    b.open(&format!("{}/contacts", server.base)).await;
    b.fill("#contact-search", "Grace").await;
    b.wait_for_text("#contacts-table", "Grace Hopper").await;
    b.click("#contacts-table .contact-row").await;
    b.wait_for("#contact-form #opt-out").await;
    settle().await;
    b.assert_fits_width("the contact sheet").await;
    b.shot(&format!("{tag}45-contact-sheet")).await;
    b.click("#opt-out").await;
    b.wait_for("#contact-form #opt-in").await;
    b.wait_for_text("#contacts-table", "opted out").await;
    b.shot(&format!("{tag}46-opted-out")).await;
    b.client.clone().close().await.unwrap();
}

/// The web app installs to a phone's home screen: a manifest with the name, colours and
/// icons, a favicon, and the page links to them.
async fn installs_to_a_home_screen(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let base = &server.base;
    let manifest: serde_json::Value = reqwest::get(format!("{base}/manifest.webmanifest"))
        .await
        .unwrap()
        .json()
        .await
        .expect("the manifest is JSON");
    assert_eq!(manifest["name"], "Herald");
    assert_eq!(manifest["display"], "standalone");
    assert_eq!(manifest["theme_color"], "#141a2e");
    let icons = manifest["icons"].as_array().unwrap();
    assert!(icons.iter().any(|i| i["sizes"] == "512x512"));
    for icon in icons
        .iter()
        .map(|i| i["src"].as_str().unwrap().to_string())
        .chain(["/favicon.ico".to_string()])
    {
        let res = reqwest::get(format!("{base}{icon}")).await.unwrap();
        assert!(res.status().is_success(), "{icon}: {}", res.status());
        assert!(!res.bytes().await.unwrap().is_empty(), "{icon} is empty");
    }
    let b = start_browser_on(screen).await;
    b.open(&format!("{base}/signin")).await;
    let links = b
        .client
        .execute(
            "return [document.querySelector('link[rel=manifest]')?.href, \
             document.querySelector('meta[name=theme-color]')?.content, \
             document.querySelector('meta[name=viewport]')?.content];",
            vec![],
        )
        .await
        .unwrap();
    assert!(links[0]
        .as_str()
        .unwrap()
        .ends_with("/manifest.webmanifest"));
    assert_eq!(links[1], "#141a2e");
    assert!(
        links[2].as_str().unwrap().contains("viewport-fit=cover"),
        "{links}"
    );
    b.assert_fits_width("the sign-in page").await;
    b.shot(&format!("{}47-sign-in", screen.tag())).await;
    b.client.clone().close().await.unwrap();
}

async fn sidebar_right(b: &Browser) -> f64 {
    b.client
        .execute(
            "return document.getElementById('sidebar').getBoundingClientRect().right;",
            vec![],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap()
}

/// Lets the drawer's transition and late resources finish before measuring.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(400)).await;
}

async fn every_page_fits_360(backend: Backend) {
    every_page_fits(
        backend,
        Screen::Phone {
            width: 360,
            height: 740,
        },
    )
    .await
}

crate::on_a_phone!(
    every_page_fits,
    drawer_and_tab_bar,
    opt_out_on,
    installs_to_a_home_screen
);

mod every_page_fits_at_360 {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn phone_sqlite() {
        super::every_page_fits_360(crate::helpers::Backend::Sqlite).await
    }
}
