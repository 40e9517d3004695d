//! In Chromium, with aiosmtpd as the mail server (issue 51 §5): an owner invites someone by email
//! and the page says it went; the invitation list says whom it was for; they turn on emailed
//! notifications; a person who forgot their password asks on the sign-in page, opens the emailed
//! link, chooses a new one and signs in with it.
use crate::harness::*;
use crate::helpers::Backend;
use crate::smtp::{link_in, SmtpServer};

async fn email_flows(backend: Backend) {
    email_flows_on(backend, Screen::Desktop).await
}

async fn email_flows_on(backend: Backend, screen: Screen) {
    let smtp = SmtpServer::start().await;
    let settings = smtp.settings();
    let env = [
        ("SMTP_URL", settings.smtp_url),
        ("SMTP_FROM", settings.from),
    ];
    let Some(server) = start_web_server_with(backend, &env).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    let base = &server.base;
    b.sign_in_demo(base).await;

    b.open(&format!("{base}/team")).await;
    b.fill("#invite-email", "nia@clinic.test").await;
    b.click("#invite-create").await;
    b.wait_for_text("#invite-emailed", "Emailed to nia@clinic.test")
        .await;
    b.wait_for_text("#invitations", "nia@clinic.test").await;
    let mail = smtp.mail_to("nia@clinic.test").await;
    assert!(mail.body.contains("/join/"), "{}", mail.body);
    b.shot(&format!("{tag}-120-invited-by-email")).await;
    b.assert_fits_width("the team page").await;

    b.open(&format!("{base}/account")).await;
    b.click("#email-notifications").await;
    b.wait_for("#email-notifications:checked").await;
    b.shot(&format!("{tag}-121-emailed-notifications")).await;

    b.open(&format!("{base}/signin")).await;
    b.click("#signin-forgot").await;
    b.fill("#forgot-email", herald::server::seed::DEMO_EMAIL)
        .await;
    b.click("#forgot-send").await;
    b.wait_for_text("#forgot-said", "If an account uses that address")
        .await;
    b.shot(&format!("{tag}-122-forgot")).await;
    b.assert_fits_width("the forgot page").await;
    let mail = smtp.mail_titled("Choose a new Herald password").await;
    assert!(
        mail.to.contains(herald::server::seed::DEMO_EMAIL),
        "{mail:?}"
    );
    let link = link_in(&mail.body, "http");
    let path = &link[link.find("/reset/").expect("a reset link")..];
    b.open(&format!("{base}{path}")).await;
    b.fill("#reset-password", "a brand new password").await;
    b.click("#reset-submit").await;
    b.wait_for("#reset-done").await;
    b.open(&format!("{base}/signin")).await;
    b.fill("#signin-email", herald::server::seed::DEMO_EMAIL)
        .await;
    b.fill("#signin-password", "a brand new password").await;
    b.click("#signin-submit").await;
    b.wait_for("#nav-assistant").await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(email_flows);
crate::on_a_phone!(email_flows_on);
