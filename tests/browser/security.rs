//! In Chromium, under the server's Content-Security-Policy and framing headers: every page of the
//! navigation opens and works, and the browser reports no policy violation on the way.
use crate::harness::*;
use crate::helpers::Backend;
use std::time::Duration;

const PAGES: [(&str, &str); 12] = [
    ("#nav-inbox", "Inbox"),
    ("#nav-assistant", "Assistant"),
    ("#nav-contacts", "Contacts"),
    ("#nav-numbers", "Phone numbers"),
    ("#nav-simulator", "Phone simulator"),
    ("#nav-agents", "Agents"),
    ("#nav-plans", "Plans"),
    ("#nav-operations", "Operations"),
    ("#nav-notifications", "Notifications"),
    ("#nav-team", "Team"),
    ("#nav-settings", "Organisation settings"),
    ("#nav-account", "Your account"),
];

async fn every_page_works_under_the_security_headers(backend: Backend) {
    let Some((server, b)) = signed_in(backend, Screen::Desktop).await else {
        return;
    };
    // The headers are there, on pages and on server functions alike.
    for path in ["/", "/signin", "/api/auth/me"] {
        let res = reqwest::get(format!("{}{path}", server.base))
            .await
            .unwrap();
        let h = res.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("frame-ancestors 'none'") && csp.contains("object-src 'none'"),
            "{path}: {csp}"
        );
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["referrer-policy"], "same-origin", "{path}");
    }
    // Every page of the navigation, moved through as a person would, with violations recorded.
    // The first seldom-opened page loads the full client (`views::full_client`): a new document,
    // so the recorder keeps what it saw in the tab's session storage and is put back after it.
    let record = "if (!window.__csp) { window.__csp = true; document.addEventListener('securitypolicyviolation', e => { const seen = JSON.parse(sessionStorage.csp || '[]'); seen.push(e.violatedDirective + ' ' + e.blockedURI); sessionStorage.csp = JSON.stringify(seen); }); }";
    b.open(&format!("{}/messaging", server.base)).await;
    b.client.execute(record, vec![]).await.unwrap();
    for (link, heading) in PAGES {
        b.click(link).await;
        b.wait_for_text("h1", heading).await;
        b.wait_for("body[data-hydrated='true']").await;
        b.client.execute(record, vec![]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    b.shot("80-security-headers-account").await;
    let violations = b
        .client
        .execute("return JSON.parse(sessionStorage.csp || '[]')", vec![])
        .await
        .unwrap();
    assert_eq!(
        violations,
        serde_json::json!([]),
        "no page broke the policy"
    );
    // The pages the server renders (the audit log, from the Team page) open from their links.
    b.open(&format!("{}/team", server.base)).await;
    b.click("#open-audit").await;
    b.wait_for_text("h1", "Audit log").await;
    b.wait_for("#audit-count").await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(every_page_works_under_the_security_headers);
