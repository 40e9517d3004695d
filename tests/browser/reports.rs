//! In Chromium, on a desktop and a phone: the Reports page (issue 30 §5) opens from the
//! navigation, draws its charts (SVG the server laid out), shows the totals and the failures,
//! keeps a typed range after "Show", shows how fast texts were answered and the AI's share,
//! lets the owner open the business-hours form, and fits a phone's width.
use crate::harness::*;
use crate::helpers::Backend;

async fn the_reports_page(backend: Backend, screen: Screen, tag: &str) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    b.open(&format!("{}/messaging", server.base)).await;
    if matches!(screen, Screen::Phone { .. }) {
        b.click("#menu-button").await;
        b.wait_for("#sidebar.open").await;
        // The drawer slides in: tap the link once it has stopped, on the screen.
        let settled = "const s = document.getElementById('sidebar'); \
            const r = document.getElementById('nav-reports').getBoundingClientRect(); \
            return getComputedStyle(s).transform === 'none' && r.left >= 0 && r.width > 0;";
        for _ in 0..50 {
            let v = b.client.execute(settled, vec![]).await.unwrap();
            if v.as_bool() == Some(true) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    b.click("#nav-reports").await;
    b.wait_for_text("h1", "Reports").await;
    b.wait_for("#report-texts svg.chart rect").await;
    b.wait_for("#report-cost svg.chart").await;
    b.wait_for("#total-out").await;
    b.wait_for_text("#report-failures h2", "Why texts failed")
        .await;
    b.wait_for_text("#report-daily", "Download as CSV").await;
    // Show the same range again: the query is in the address, the figures as they were.
    let out = b.wait_for("#total-out").await.text().await.unwrap();
    b.click("#report-range button").await;
    // The form's GET loads the page again, the range in its address.
    let mut url = b.client.current_url().await.unwrap();
    for _ in 0..100 {
        if url.query().unwrap_or_default().contains("from=") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        url = b.client.current_url().await.unwrap();
    }
    assert!(url.query().unwrap_or_default().contains("from="), "{url}");
    b.wait_for("#report-texts svg.chart").await;
    assert_eq!(b.wait_for("#total-out").await.text().await.unwrap(), out);
    b.assert_fits_width("the Reports page").await;
    let db = format!("{backend:?}").to_lowercase();
    b.shot(&format!("{db}-{tag}-reports")).await;
    // How fast texts were answered, in business hours, and the AI's share by agent.
    b.wait_for_text("#report-answers h2", "How fast texts were answered")
        .await;
    b.wait_for("#response-median").await;
    b.wait_for_text("#business-hours", "09:00–17:00").await;
    b.wait_for_text("#report-ai h2", "The AI's share").await;
    b.wait_for("#ai-share").await;
    // The demo's agents offered suggestions on its texts.
    b.wait_for_text("#report-ai .agent-row.total", "All agents")
        .await;
    b.click("#report-answers summary").await;
    b.wait_for("#hours-open").await;
    b.client
        .execute(
            "document.getElementById('report-answers').scrollIntoView()",
            vec![],
        )
        .await
        .unwrap();
    b.assert_fits_width("the answers and the AI's share").await;
    b.shot(&format!("{db}-{tag}-reports-answers")).await;
    b.client.clone().close().await.unwrap();
}

async fn reports_on_a_desktop(backend: Backend) {
    the_reports_page(backend, Screen::Desktop, "desktop").await;
}

async fn reports_on_a_phone(backend: Backend) {
    the_reports_page(backend, Screen::PHONE, "phone").await;
}

crate::on_both_databases!(reports_on_a_desktop, reports_on_a_phone);
