//! In Chromium, on a desktop and a phone (issue 51 §2): a long conversation opens at its newest
//! text; a sent reply stays in view; "Show earlier messages" puts older texts above without
//! moving the one being read; on a phone, texts fill at least 60 % of the screen with the
//! composer empty, the tab bar steps aside while writing, the state controls fold behind one
//! button and the notes open as a sheet.
use crate::harness::*;
use crate::helpers::{test_daytime, Backend};
use herald::contacts::entity::contact;
use herald::server::seed_scale::{seed, ScaleSpec};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use std::time::Duration;

/// Whether the text holding `body` is wholly inside the history's visible box.
const IN_VIEW: &str = "const h = document.getElementById('history'); if (!h) return false; \
    const m = [...h.querySelectorAll('.message')].find(e => e.textContent.includes(arguments[0])); \
    if (!m) return false; const r = m.getBoundingClientRect(), v = h.getBoundingClientRect(); \
    return r.top >= v.top - 1 && r.bottom <= v.bottom + 1;";

async fn until_in_view(b: &Browser, body: &str) {
    for _ in 0..100 {
        let v = b.client.execute(IN_VIEW, vec![body.into()]).await.unwrap();
        if v.as_bool() == Some(true) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{body:?} never came into view in the history");
}

async fn a_long_conversation(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    let db = server.db().await;
    let (org, number) = demo_org_and_number(&db).await;
    let spec = ScaleSpec {
        contacts: 1,
        messages_each: 80,
        now: test_daytime() - chrono::Duration::minutes(5),
        unread_every: 1,
        vip_every: 0,
    };
    seed(&db, org, number, &spec).await.unwrap();
    let long = contact::Entity::find()
        .filter(contact::Column::OrganizationId.eq(org))
        .filter(contact::Column::Name.eq("Contact 000000"))
        .one(&db)
        .await
        .unwrap()
        .expect("the seeded contact");

    b.open(&format!("{}/messaging/{}", server.base, long.id))
        .await;
    b.wait_for_text(".message", "Text 79 with contact 0").await;
    until_in_view(&b, "Text 79 with contact 0").await;
    b.shot(&format!("{tag}-conversation-opens-at-newest")).await;

    if let Screen::Phone { height, .. } = screen {
        // Mostly conversation: the history's share of the screen, the composer empty.
        let share = b
            .client
            .execute(
                "return document.getElementById('history').getBoundingClientRect().height / window.innerHeight;",
                vec![],
            )
            .await
            .unwrap()
            .as_f64()
            .unwrap();
        println!("texts fill {:.0} % of a {height} px screen", share * 100.0);
        assert!(
            share >= 0.6,
            "texts fill {:.0} % of the screen",
            share * 100.0
        );
        // The state, snooze and assignee fold behind one button.
        let controls =
            "const c = document.getElementById('triage-controls'); return c.offsetParent !== null;";
        let shown = b.client.execute(controls, vec![]).await.unwrap();
        assert_eq!(shown.as_bool(), Some(false), "folded until asked");
        b.click("#triage-toggle").await;
        b.wait_for("#triage-controls.open #snooze-conversation")
            .await;
        b.shot(&format!("{tag}-conversation-options")).await;
        b.click("#triage-toggle").await;
        // The notes open as a sheet over the texts.
        b.click("#notes summary").await;
        let sheet = b
            .client
            .execute(
                "const n = document.getElementById('notes'); return n.open && getComputedStyle(n).position === 'fixed';",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(sheet.as_bool(), Some(true), "the notes are a sheet");
        b.shot(&format!("{tag}-conversation-notes-sheet")).await;
        b.click("#notes summary").await;
        // Writing: the tab bar steps aside.
        b.click("#composer-body").await;
        let tabbar = b
            .client
            .execute(
                "return getComputedStyle(document.querySelector('.tabbar')).visibility;",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(tabbar.as_str(), Some("hidden"), "no tab bar while writing");
    }

    // A reply: the view follows it.
    b.fill("#composer-body", "See you on Saturday at ten").await;
    b.click("#composer-send").await;
    b.wait_for_text(".message.outbound", "See you on Saturday at ten")
        .await;
    until_in_view(&b, "See you on Saturday at ten").await;
    b.shot(&format!("{tag}-conversation-after-sending")).await;

    // Earlier texts go above; the one at the top stays where it was.
    let top = "const h = document.getElementById('history'); h.scrollTop = 0; \
        const m = h.querySelector('.message'); return [m.textContent, m.getBoundingClientRect().top];";
    let before = b.client.execute(top, vec![]).await.unwrap();
    let first_text = before[0].as_str().unwrap().to_owned();
    let first_body = first_text
        .split("Text ")
        .nth(1)
        .map(|rest| format!("Text {}", rest.split(" with").next().unwrap()))
        .unwrap();
    b.click("#earlier-messages").await;
    b.wait_for_text(".message", "Text 0 with contact 0").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = b
        .client
        .execute(
            "const m = [...document.querySelectorAll('#history .message')].find(e => e.textContent.includes(arguments[0])); \
             return m.getBoundingClientRect().top;",
            vec![format!("{first_body} with contact 0").into()],
        )
        .await
        .unwrap();
    let moved = (after.as_f64().unwrap() - before[1].as_f64().unwrap()).abs();
    assert!(
        moved < 60.0,
        "{first_body} moved {moved} px when earlier texts were shown"
    );
    b.shot(&format!("{tag}-conversation-earlier")).await;
    b.client.clone().close().await.unwrap();
}

async fn a_long_conversation_on_a_desktop(backend: Backend) {
    a_long_conversation(backend, Screen::Desktop).await
}

crate::on_both_databases!(a_long_conversation_on_a_desktop);
crate::on_a_phone!(a_long_conversation);
