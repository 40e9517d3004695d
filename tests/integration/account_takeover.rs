//! Issue 49 §2: an owner's reset link set the password of the whole account, and signing in
//! opened the account's oldest organisation; so the owner of one organisation could take over a
//! member's account in another. Now an owner cannot reset an account that belongs elsewhere too,
//! an account in several organisations chooses one after signing in (and switches from the
//! menu), and every reset is audited and told to the person in each of their organisations.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn audit_actions(app: &TestApp, owner: &Org) -> Vec<Value> {
    let page: Value = app
        .ok_as(&owner.client, "/api/audit", json!({"before": null}))
        .await;
    page["entries"].as_array().unwrap().clone()
}

async fn sign_in(app: &TestApp, client: &reqwest::Client, form: Value) -> (StatusCode, Value) {
    app.call_as(client, "/api/auth/sign_in", json!({ "form": form }))
        .await
}

async fn an_owner_cannot_take_over_an_account_in_another_organisation(backend: Backend) {
    let opts = Options {
        sign_in_attempts_per_minute: 100,
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    // Vic owns Victim Dental; Eve owns Eve's Spa and invited Vic there too.
    let vic_org = app.new_org("Victim Dental").await;
    let eve = app.new_org("Eves Spa").await;
    let vic_in_eve = app
        .invite(&eve, "Vic", &vic_org.email, vic_org.password, "member")
        .await;
    let vic_id = app
        .ok_as::<Value>(&vic_in_eve, "/api/auth/me", Value::Null)
        .await["user_id"]
        .clone();

    // Eve asks for a reset link for Vic: refused, and the refusal says why.
    let (status, reply) = app
        .call_as(
            &eve.client,
            "/api/members/reset_link",
            json!({"user_id": vic_id}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("also belongs to another organisation"),
        "{reply}"
    );
    assert_eq!(app.count("password_reset").await, 0, "no link was made");

    // Signing in as Vic names no organisation: the two are listed, and no session starts.
    let sessions = app.count("session").await;
    let fresh = new_client();
    let creds = json!({"email": vic_org.email, "password": vic_org.password});
    let (status, reply) = sign_in(&app, &fresh, creds.clone()).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    let names: Vec<&str> = reply["Choose"]
        .as_array()
        .expect("a choice, not a session")
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Victim Dental", "Eves Spa"]);
    assert_eq!(app.count("session").await, sessions, "no session yet");
    let me: Value = app.ok_as(&fresh, "/api/auth/me", Value::Null).await;
    assert_eq!(me, Value::Null);

    // An organisation not the account's is refused; one of its own opens.
    let mut other = creds.clone();
    other["organization_id"] = json!(uuid::Uuid::new_v4());
    assert_eq!(
        sign_in(&app, &fresh, other).await.0,
        StatusCode::BAD_REQUEST
    );
    let mut chosen = creds.clone();
    chosen["organization_id"] = json!(eve.org_id);
    let (status, reply) = sign_in(&app, &fresh, chosen).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply["SignedIn"]["organization_name"], "Eves Spa");
    assert_eq!(reply["SignedIn"]["role"], "member");
    assert_eq!(
        reply["SignedIn"]["organizations"].as_array().unwrap().len(),
        2
    );

    // The switcher: the session moves to the other organisation, the old one ends.
    let before = app.count("session").await;
    let me: Value = app
        .ok_as(
            &fresh,
            "/api/auth/switch_organization",
            json!({"organization_id": vic_org.org_id}),
        )
        .await;
    assert_eq!(me["organization_name"], "Victim Dental");
    assert_eq!(me["role"], "owner");
    assert_eq!(app.count("session").await, before, "one ended, one began");
    let me: Value = app.ok_as(&fresh, "/api/auth/me", Value::Null).await;
    assert_eq!(me["organization_name"], "Victim Dental");

    // A one-organisation account signs straight in, as before.
    let solo = app.add_member(&eve, "Sol").await;
    let (status, reply) = sign_in(
        &app,
        &new_client(),
        json!({"email": solo.email, "password": solo.password}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(reply["SignedIn"]["organization_name"], "Eves Spa");

    // Sol belongs to Eve's Spa alone: the reset works, is audited in the organisation, and Sol
    // is told there.
    let sol_id = app
        .ok_as::<Value>(&solo.client, "/api/auth/me", Value::Null)
        .await["user_id"]
        .clone();
    let link: Value = app
        .ok_as(
            &eve.client,
            "/api/members/reset_link",
            json!({"user_id": sol_id}),
        )
        .await;
    let token = link["url"].as_str().unwrap().rsplit('/').next().unwrap();
    let _: Value = app
        .ok_as(
            &new_client(),
            "/api/auth/reset",
            json!({"token": token, "password": "a new password for sol"}),
        )
        .await;
    let actions: Vec<String> = audit_actions(&app, &eve)
        .await
        .iter()
        .map(|e| e["action"].as_str().unwrap().to_owned())
        .collect();
    assert!(actions.contains(&"password_reset_issued".into()));
    assert!(actions.contains(&"password_reset".into()), "{actions:?}");
    let sol = Org {
        client: new_client(),
        org_id: eve.org_id,
        email: solo.email.clone(),
        password: "a new password for sol",
    };
    let _: Value = app
        .ok_as(
            &sol.client,
            "/api/auth/sign_in",
            json!({"form": {"email": sol.email, "password": sol.password}}),
        )
        .await;
    let notes: Value = app
        .ok_as(&sol.client, "/api/notifications", json!({"after": null}))
        .await;
    assert!(
        notes
            .to_string()
            .contains("password was changed with a reset link"),
        "{notes}"
    );

    // The operator's link for Vic: audited in both organisations when issued and when used,
    // and Vic is told in both.
    let url = herald::auth::account::reset_link_for_email(
        &app.state.db,
        "http://herald.test",
        &vic_org.email,
    )
    .await
    .unwrap()
    .url;
    let token = url.rsplit('/').next().unwrap();
    let _: Value = app
        .ok_as(
            &new_client(),
            "/api/auth/reset",
            json!({"token": token, "password": "vic's new password"}),
        )
        .await;
    use herald::audit::entity::audit_log;
    use herald::notifications::entity as notification;
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    let vic_id: uuid::Uuid = vic_id.as_str().unwrap().parse().unwrap();
    for org in [&vic_org, &eve] {
        let n = audit_log::Entity::find()
            .filter(audit_log::Column::OrganizationId.eq(org.org_id))
            .filter(audit_log::Column::Action.is_in(["password_reset_issued", "password_reset"]))
            .filter(audit_log::Column::Target.starts_with("Owner <"))
            .count(&app.state.db)
            .await
            .unwrap();
        assert_eq!(n, 2, "issued and used, in {}", org.org_id);
        let told = notification::Entity::find()
            .filter(notification::Column::OrganizationId.eq(org.org_id))
            .filter(notification::Column::UserId.eq(vic_id))
            .filter(notification::Column::Kind.eq("security"))
            .count(&app.state.db)
            .await
            .unwrap();
        assert_eq!(told, 1, "Vic is told in {}", org.org_id);
    }
}

on_both_databases!(an_owner_cannot_take_over_an_account_in_another_organisation);
