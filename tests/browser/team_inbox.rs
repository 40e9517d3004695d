//! In Chromium, on a desktop (both databases) and a 390 px phone: the team inbox. Assign a
//! conversation to yourself and find it under Mine, counted in the sidebar and opened from it; close it and find it under Closed; reopen
//! and snooze it; when its time comes (moved on in the database, as the hours would) the server
//! wakes it and the open page shows it open again. On a phone the views open as a sheet. The
//! inbox narrowed to one number shows that number's conversations only. A text sent by hand
//! pauses the AI in that conversation ("AI paused: Dana Demo is handling this"), and Resume AI
//! ends the pause.
use crate::harness::*;
use crate::helpers::{test_daytime, Backend};
use fantoccini::Locator;
use herald::messaging::entity::conversation;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

async fn pick(b: &Browser, css: &str, label: &str) {
    for _ in 0..20 {
        let select = b.wait_for(css).await;
        if select.clone().select_by_label(label).await.is_ok() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    panic!("{css} never offered {label}");
}

/// On a phone the state, snooze and assignee fold behind "⋯" (issue 51 §2): open it first.
async fn show_controls(b: &Browser) {
    let folded = "const t = document.getElementById('triage-toggle'); \
        const c = document.getElementById('triage-controls'); \
        return t && t.offsetParent !== null && !c.classList.contains('open');";
    let v = b.client.execute(folded, vec![]).await.unwrap();
    if v.as_bool() == Some(true) {
        b.click("#triage-toggle").await;
        b.wait_for("#triage-controls.open").await;
    }
}

async fn assign_close_snooze_and_wake(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.open(&format!("{}/messaging", server.base)).await;
    // The inbox opens on the open conversations, with each view's count.
    b.wait_for("#filter-open.active").await;
    b.wait_for_text(".conversation-item", "Ada Lovelace").await;
    b.shot(&format!("{tag}-80-inbox-open")).await;
    if matches!(screen, Screen::Phone { .. }) {
        b.click("#inbox-views").await;
        b.wait_for("#inbox-filters.open").await;
        b.shot(&format!("{tag}-81-views-sheet")).await;
        b.click("#filter-open").await;
    }
    b.assert_fits_width("the inbox").await;

    // Narrowed to the Reminders line: Alan texted it, Ada the front desk.
    pick(&b, "#inbox-number", "Reminders line").await;
    b.wait_for_text("#conversation-list", "Alan Turing").await;
    b.wait_until_gone_text("#conversation-list", "Ada Lovelace")
        .await;
    b.shot(&format!("{tag}-80b-one-number")).await;
    pick(&b, "#inbox-number", "All numbers").await;
    b.wait_for_text("#conversation-list", "Ada Lovelace").await;

    // Assign Ada's conversation to me.
    open_conversation(&b, "Ada Lovelace").await;
    b.wait_for_text("#conversation-state", "Open").await;
    show_controls(&b).await;
    pick(&b, "#assign-conversation", "Me (Dana Demo)").await;
    b.wait_for_text("#conversation-state", "Open").await;
    b.shot(&format!("{tag}-82-assigned")).await;
    b.assert_fits_width("the conversation's triage bar").await;
    b.open(&format!("{}/messaging", server.base)).await;
    // The sidebar counts it under Mine, and its Mine opens the view (on a phone, in the drawer).
    if matches!(screen, Screen::Phone { .. }) {
        b.click("#menu-button").await;
    }
    b.wait_for_text("#nav-mine .nav-count", "1").await;
    b.wait_for("#nav-unassigned .nav-count").await;
    b.shot(&format!("{tag}-82b-sidebar-views")).await;
    b.click("#nav-mine").await;
    b.wait_for("#filter-mine.active").await;
    b.wait_for_text("#conversation-list", "Ada Lovelace").await;
    b.wait_for_text(".conv-triage .assignee-name", "Dana Demo")
        .await;
    b.shot(&format!("{tag}-83-mine")).await;

    // Close it: it leaves Open and shows under Closed.
    open_conversation(&b, "Ada Lovelace").await;
    show_controls(&b).await;
    b.click("#close-conversation").await;
    b.wait_for_text("#conversation-state", "Closed").await;
    b.open(&format!("{}/messaging", server.base)).await;
    b.wait_for("#filter-open.active").await;
    choose_view(&b, screen, "closed").await;
    b.wait_for_text("#conversation-list .conversation-item", "Ada Lovelace")
        .await;
    b.wait_for_text(".conv-triage .badge", "Closed").await;
    b.shot(&format!("{tag}-84-closed")).await;

    // Reopen and snooze it for an hour.
    open_conversation(&b, "Ada Lovelace").await;
    show_controls(&b).await;
    b.click("#reopen-conversation").await;
    b.wait_for_text("#conversation-state", "Open").await;
    show_controls(&b).await;
    pick(&b, "#snooze-conversation", "1 hour").await;
    b.wait_for_text("#conversation-state", "Snoozed until")
        .await;
    b.shot(&format!("{tag}-85-snoozed")).await;

    // The hour passes (in the database, as the clock would move it): the server's waker opens
    // it again and the page shows it without a reload.
    let db = server.db().await;
    // The server's clock started at the test's daytime and runs on: a minute before it is past.
    let past = test_daytime() - chrono::Duration::minutes(1);
    let woke = conversation::Entity::update_many()
        .col_expr(conversation::Column::SnoozedUntil, Expr::value(past))
        .filter(conversation::Column::State.eq("snoozed"))
        .exec(&db)
        .await
        .unwrap();
    assert_eq!(woke.rows_affected, 1);
    b.wait_for_text("#conversation-state", "Open").await;
    let reopen = b
        .client
        .find_all(Locator::Css("#reopen-conversation"))
        .await
        .unwrap();
    assert!(
        reopen.is_empty(),
        "an open conversation offers Close, not Reopen"
    );
    b.shot(&format!("{tag}-86-woke")).await;
    b.client.clone().close().await.unwrap();
}

async fn a_person_takes_over_and_resumes_the_ai(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.open(&format!("{}/messaging", server.base)).await;
    open_conversation(&b, "Ada Lovelace").await;
    b.wait_for_text("#conversation-state", "Open").await;
    b.fill("#composer-body", "I'll take this one, Ada.").await;
    b.click("#composer-send").await;
    b.wait_for_text(".message.outbound", "take this one").await;
    b.wait_for_text("#ai-paused", "Dana Demo is handling this")
        .await;
    b.shot(&format!("{tag}-87-ai-paused")).await;
    b.assert_fits_width("the AI-paused banner").await;
    b.click("#resume-ai").await;
    for _ in 0..100 {
        let banners = b.client.find_all(Locator::Css("#ai-paused")).await.unwrap();
        if banners.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let banners = b.client.find_all(Locator::Css("#ai-paused")).await.unwrap();
    assert!(banners.is_empty(), "Resume AI ends the pause");
    b.shot(&format!("{tag}-88-ai-resumed")).await;
    b.client.clone().close().await.unwrap();
}

async fn handoff_on_a_desktop(backend: Backend) {
    a_person_takes_over_and_resumes_the_ai(backend, Screen::Desktop).await
}

crate::on_both_databases!(handoff_on_a_desktop);

async fn team_inbox_on_a_desktop(backend: Backend) {
    assign_close_snooze_and_wake(backend, Screen::Desktop).await
}

crate::on_both_databases!(team_inbox_on_a_desktop);
crate::on_a_phone!(
    assign_close_snooze_and_wake,
    a_person_takes_over_and_resumes_the_ai
);
