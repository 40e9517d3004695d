//! Email (issue 51 §5) against aiosmtpd, a local SMTP server no one here wrote: an invitation goes
//! to whom it is for and the list says so, a forgotten password is reset from the emailed link
//! (an unknown address gets the same answer and no mail), and a member who chose it gets their
//! notifications by email. Without SMTP settings, the link is there to copy and the pages say that
//! email is not set up.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::smtp::{link_in, SmtpServer};
use serde_json::{json, Value};

async fn forgot(app: &TestApp, email: &str) -> (u16, String) {
    let res = app
        .client
        .post(format!("{}/forgot", app.base))
        .form(&[("email", email)])
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.text().await.unwrap())
}

async fn invitations_resets_and_notifications_go_by_email(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let opts = Options {
        email: Some(smtp.settings()),
        public_url: "https://herald.test".into(),
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let c = crm(&app).await;
    let org = &c.org;

    // An invitation for someone goes to them, and the list says whom it was for.
    let created: Value = app
        .ok_as(
            &org.client,
            "/api/invitations/create",
            json!({"role": "member", "email": "Nia@Clinic.test"}),
        )
        .await;
    assert_eq!(created["emailed"], true, "{created}");
    assert_eq!(created["email"], "nia@clinic.test");
    let mail = smtp.mail_to("nia@clinic.test").await;
    assert_eq!(mail.subject, "Join Campaign Co on Herald");
    assert_eq!(
        link_in(&mail.body, "https://herald.test/join/"),
        created["url"]
    );
    let (status, v) = app
        .call_as(
            &org.client,
            "/api/invitations/create",
            json!({"role": "member", "email": "not an address"}),
        )
        .await;
    assert_eq!(status.as_u16(), 400, "{v}");
    let list: Value = app
        .ok_as(&org.client, "/api/invitations", Value::Null)
        .await;
    assert_eq!(list[0][0]["email"], "nia@clinic.test", "{list}");
    assert_eq!(list[0][0]["status"], "pending");
    let nia = new_client();
    let _: Value = app
        .ok_as(
            &nia,
            "/api/invitations/accept",
            json!({"token": created["token"], "name": "Nia", "email": "nia@clinic.test", "password": "a long enough password"}),
        )
        .await;
    let list: Value = app
        .ok_as(&org.client, "/api/invitations", Value::Null)
        .await;
    assert_eq!(list[0][0]["status"], "accepted");
    assert_eq!(list[0][0]["accepted_by"], "Nia");

    // A forgotten password: the same answer for any address, a link only to a real account.
    let before = smtp.mails().len();
    let (status, page) = forgot(&app, "nobody@clinic.test").await;
    assert_eq!(status, 200);
    assert!(page.contains("If an account uses that address"), "{page}");
    let (status, page) = forgot(&app, "nia@clinic.test").await;
    assert_eq!(status, 200);
    assert!(page.contains("If an account uses that address"), "{page}");
    let mail = smtp.mail_titled("Choose a new Herald password").await;
    assert!(mail.to.contains("nia@clinic.test"), "{mail:?}");
    assert_eq!(
        smtp.mails().len(),
        before + 1,
        "no mail for an unknown address"
    );
    let link = link_in(&mail.body, "https://herald.test/reset/");
    let token = link.rsplit('/').next().unwrap();
    let _: Value = app
        .ok_as(
            &new_client(),
            "/api/auth/reset",
            json!({"token": token, "password": "a brand new password"}),
        )
        .await;
    let again = new_client();
    let (status, _) = app
        .call_as(
            &again,
            "/api/auth/sign_in",
            json!({"form": {"email": "nia@clinic.test", "password": "a brand new password"}}),
        )
        .await;
    assert_eq!(status.as_u16(), 200, "the new password signs in");

    // The owner chooses emailed notifications; a member's campaign then reaches them by email.
    let pref: Value = app.ok_as(&org.client, "/api/auth/email", Value::Null).await;
    assert_eq!(pref["notifications"], false);
    assert_eq!(pref["email_set_up"], true);
    let pref: Value = app
        .ok_as(
            &org.client,
            "/api/auth/email/notifications",
            json!({"on": true}),
        )
        .await;
    assert_eq!(pref["notifications"], true);
    let member = app.add_member(org, "Mo").await;
    let (status, op) = app
        .call_as(
            &member.client,
            "/api/campaigns/create",
            json!({"campaign": {"audience": {"kind": "tag", "tag": "quote"}, "body": "Open Saturday."}}),
        )
        .await;
    assert_eq!(status.as_u16(), 200, "{op}");
    app.settle().await;
    let mail = smtp.mail_to(&org.email).await;
    assert_eq!(mail.subject, "A campaign waits for your approval");
    assert!(
        mail.body.contains(&format!(
            "https://herald.test/operations/{}",
            op.as_str().unwrap()
        )),
        "{}",
        mail.body
    );
    assert!(
        smtp.mails().iter().all(|m| !m.to.contains(&member.email)),
        "Mo did not choose emailed notifications"
    );
}

on_both_databases!(invitations_resets_and_notifications_go_by_email);

async fn without_smtp_the_link_is_there_to_copy(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Plain Co").await;
    let created: Value = app
        .ok_as(
            &org.client,
            "/api/invitations/create",
            json!({"role": "member", "email": "nia@clinic.test"}),
        )
        .await;
    assert_eq!(created["emailed"], false);
    assert_eq!(created["email_set_up"], false);
    assert!(created["url"].as_str().unwrap().contains("/join/"));
    let (status, page) = forgot(&app, &org.email).await;
    assert_eq!(status, 400);
    assert!(
        page.contains("Email is not set up on this server"),
        "{page}"
    );
    let page = app
        .client
        .get(format!("{}/forgot", app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("id=\"forgot-no-email\""), "{page}");
    let (status, v) = app
        .call_as(
            &org.client,
            "/api/auth/email/notifications",
            json!({"on": true}),
        )
        .await;
    assert_eq!(status.as_u16(), 400, "{v}");
}

on_both_databases!(without_smtp_the_link_is_there_to_copy);
