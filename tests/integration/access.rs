//! Who may come in and what they keep (issue 26): invite-only sign-up, invitations, removing a
//! member, roles, passwords, sessions and reset links, and the audit log (`access_powers` has
//! the rest).
use crate::helpers::*;
use crate::live_socket::{closes_within, open_live};
use crate::on_both_databases;
use herald::platform::access_config::SignUpMode;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

async fn sign_up(app: &TestApp, client: &reqwest::Client, org: &str) -> (StatusCode, Value) {
    let email = format!("{}@{org}.test", uuid::Uuid::new_v4().simple());
    app.call_as(
        client,
        "/api/auth/sign_up",
        json!({"form": {"organization_name": org, "name": "Owner", "email": email, "password": "correct horse battery"}}),
    )
    .await
}

pub(crate) async fn audit(app: &TestApp, owner: &Org) -> Vec<Value> {
    let page: Value = app
        .ok_as(&owner.client, "/api/audit", json!({"before": null}))
        .await;
    page["entries"].as_array().unwrap().clone()
}

pub(crate) fn has(entries: &[Value], action: &str) -> bool {
    entries.iter().any(|e| e["action"] == action)
}

async fn invite_only_sign_up(backend: Backend) {
    let opts = Options {
        sign_up: SignUpMode::Invite,
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let state: Value = app
        .ok_as(&new_client(), "/api/auth/sign_up_state", Value::Null)
        .await;
    assert_eq!(
        state,
        json!({"mode": "invite", "first_run": true, "needs_setup_token": false})
    );
    // The first visitor sets Herald up.
    let first = new_client();
    let (status, me) = sign_up(&app, &first, "First").await;
    assert!(status.is_success(), "{me}");
    let owner = Org {
        client: first,
        org_id: me["organization_id"].as_str().unwrap().parse().unwrap(),
        email: me["email"].as_str().unwrap().to_owned(),
        password: "correct horse battery",
    };
    // Then sign-up is closed, with a clear message, and nothing is created.
    let (status, reply) = sign_up(&app, &new_client(), "Second").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{reply}");
    assert!(reply.to_string().contains("by invitation"), "{reply}");
    assert_eq!(app.count("organization").await, 1);
    let state: Value = app
        .ok_as(&new_client(), "/api/auth/sign_up_state", Value::Null)
        .await;
    assert_eq!(state["first_run"], false);
    assert!(has(&audit(&app, &owner).await, "sign_up_refused"));
    // People come in by invitation.
    let mo = app
        .invite(&owner, "Mo", "mo@first.test", "member password", "member")
        .await;
    let me: Value = app.ok_as(&mo, "/api/auth/me", Value::Null).await;
    assert_eq!(me["organization_id"], owner.org_id.to_string());
}

async fn invitations_are_single_use_and_expire(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Invite Co").await;
    let inv: Value = app
        .ok_as(
            &owner.client,
            "/api/invitations/create",
            json!({"role": "owner"}),
        )
        .await;
    let token = inv["token"].as_str().unwrap().to_owned();
    let info: Value = app
        .ok_as(
            &new_client(),
            "/api/invitations/info",
            json!({"token": token}),
        )
        .await;
    assert_eq!(info["organization_name"], "Invite Co");
    assert_eq!(info["role"], "owner");
    let accept = |email: &str| json!({"token": token, "name": "Ann", "email": email, "password": "ann's own password"});
    let ann = new_client();
    let me: Value = app
        .ok_as(&ann, "/api/invitations/accept", accept("ann@invite.test"))
        .await;
    assert_eq!(me["role"], "owner", "signed in, with the invitation's role");
    let (status, reply) = app
        .call_as(
            &new_client(),
            "/api/invitations/accept",
            accept("bob@invite.test"),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "single use: {reply}");
    assert!(reply.to_string().contains("already used"), "{reply}");

    // Revoked, and expired, links open nothing.
    let revoked: Value = app
        .ok_as(
            &owner.client,
            "/api/invitations/create",
            json!({"role": "member"}),
        )
        .await;
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/invitations/revoke",
            json!({"id": revoked["id"]}),
        )
        .await;
    let (status, reply) = app
        .call_as(
            &new_client(),
            "/api/invitations/accept",
            json!({"token": revoked["token"], "name": "C", "email": "c@invite.test", "password": "c's password"}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(reply.to_string().contains("revoked"), "{reply}");
    let old: Value = app
        .ok_as(
            &owner.client,
            "/api/invitations/create",
            json!({"role": "member"}),
        )
        .await;
    {
        use herald::auth::entity::invitation;
        use sea_orm::sea_query::Expr;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        let id: uuid::Uuid = old["id"].as_str().unwrap().parse().unwrap();
        invitation::Entity::update_many()
            .col_expr(
                invitation::Column::ExpiresAt,
                Expr::value(test_daytime() - chrono::Duration::days(1)),
            )
            .filter(invitation::Column::Id.eq(id))
            .exec(&app.state.db)
            .await
            .unwrap();
    }
    let (status, reply) = app
        .call_as(
            &new_client(),
            "/api/invitations/info",
            json!({"token": old["token"]}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(reply.to_string().contains("expired"), "{reply}");
    let (list, total): (Vec<Value>, u64) = app
        .ok_as(&owner.client, "/api/invitations", Value::Null)
        .await;
    assert_eq!(total, 3);
    let statuses: Vec<&str> = list.iter().map(|i| i["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["expired", "revoked", "accepted"], "newest first");
    assert_eq!(list[2]["accepted_by"], "Ann");
    let entries = audit(&app, &owner).await;
    for action in ["member_invited", "invitation_revoked", "member_joined"] {
        assert!(has(&entries, action), "{action} in the audit log");
    }
    // The stored token is only a hash.
    assert_eq!(
        app.count_where("invitation", &format!("token_hash = '{token}'"))
            .await,
        0
    );
}

async fn removing_a_member_ends_their_access(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Remove Co").await;
    let mo = app.add_member(&owner, "Mo").await;
    let mo_id = me_id(&app, &mo).await;
    crate::plan_support::ask(&app, &mo, "how many contacts do we have?", false).await;
    // Mo's agent texts by itself (an owner approved it): removal must pause it.
    let agent = app.own_agent(&mo).await;
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/agents/update",
            json!({"id": agent["id"], "input": {"name": "Text Reply", "persona": agent["persona"], "goals": agent["goals"], "rules": "",
                   "send_mode": "autonomous", "planning_enabled": false, "plan_approval": "human_review", "reply_send_limit": 2, "reply_reads_org_wide": false}}),
        )
        .await;
    assert_eq!(app.own_agent(&mo).await["send_mode"], "autonomous");
    let mut page = open_live(&app, Some(&mo), "inbox")
        .await
        .expect("Mo's page");
    // The last owner stays.
    let owner_id = me_id(&app, &owner).await;
    for (path, body) in [
        ("/api/members/remove", json!({"user_id": owner_id})),
        (
            "/api/members/role",
            json!({"user_id": owner_id, "role": "member"}),
        ),
    ] {
        let (status, reply) = app.call_as(&owner.client, path, body).await;
        assert_eq!(status, StatusCode::CONFLICT, "{path}: {reply}");
        assert!(reply.to_string().contains("last owner"), "{reply}");
    }
    let removed: Value = app
        .ok_as(
            &owner.client,
            "/api/members/remove",
            json!({"user_id": mo_id}),
        )
        .await;
    assert_eq!(removed["name"], "Mo");
    assert_eq!(removed["sessions_ended"], 2, "the browser's and the page's");
    assert_eq!(removed["agents_reassigned"], json!(["Text Reply"]));
    assert_eq!(removed["assistant_threads_archived"], 1);
    let (status, _) = app.call_as(&mo.client, "/api/auth/me", Value::Null).await;
    assert!(status.is_success());
    let me: Value = app.ok_as(&mo.client, "/api/auth/me", Value::Null).await;
    assert_eq!(me, Value::Null, "signed out at once");
    assert!(
        closes_within(&mut page, Duration::from_secs(5)).await,
        "their open page closes at once"
    );
    let (status, reply) = app
        .call_as(
            &new_client(),
            "/api/auth/sign_in",
            json!({"form": {"email": mo.email, "password": mo.password}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert!(reply.to_string().contains("no longer a member"), "{reply}");
    // Their agent is paused and the owner's now.
    let agents: Value = app.ok_as(&owner.client, "/api/agents", Value::Null).await;
    let mine: Vec<&Value> = agents
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["is_mine"] == true && a["name"] == "Text Reply")
        .collect();
    assert_eq!(mine.len(), 2, "the owner's own and Mo's: {agents}");
    assert!(mine.iter().all(|a| a["send_mode"] == "suggest"));
    let was_mos = mine
        .iter()
        .find(|a| a["id"] == agent["id"])
        .expect("Mo's agent, handed to the owner");
    assert_eq!(was_mos["send_mode"], "suggest", "no longer autonomous");
    let row = {
        use sea_orm::EntityTrait;
        let id: uuid::Uuid = agent["id"].as_str().unwrap().parse().unwrap();
        herald::ai_agent::entity::ai_agent::Entity::find_by_id(id)
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap()
    };
    assert_eq!(
        (row.user_id, row.send_mode.as_str()),
        (Some(owner_id), "suggest")
    );
    let members: Value = app.ok_as(&owner.client, "/api/members", Value::Null).await;
    assert_eq!(members.as_array().unwrap().len(), 1);
    // Roles change, and the audit log says who did it; nobody can edit it.
    let ann = app.add_member(&owner, "Ann").await;
    let ann_id = me_id(&app, &ann).await;
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/members/role",
            json!({"user_id": ann_id, "role": "owner"}),
        )
        .await;
    let me: Value = app.ok_as(&ann.client, "/api/auth/me", Value::Null).await;
    assert_eq!(me["role"], "owner");
    let entries = audit(&app, &owner).await;
    let removal = entries
        .iter()
        .find(|e| e["action"] == "member_removed")
        .expect("the removal is audited");
    assert_eq!(removal["actor"], "Owner");
    assert!(removal["target"].as_str().unwrap().contains(&mo.email));
    assert!(has(&entries, "role_changed"));
    use sea_orm::ConnectionTrait;
    for sql in [
        "UPDATE audit_log SET action = 'edited'",
        "DELETE FROM audit_log",
    ] {
        let res = app.state.db.execute_unprepared(sql).await;
        assert!(res.is_err(), "{sql} is refused");
    }
    assert!(app.count("audit_log").await >= 4);
}

pub(crate) async fn me_id(app: &TestApp, who: &Org) -> uuid::Uuid {
    let me: Value = app.ok_as(&who.client, "/api/auth/me", Value::Null).await;
    me["user_id"].as_str().unwrap().parse().unwrap()
}

async fn passwords_sessions_and_reset_links(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Pass Co").await;
    let mo = app.add_member(&owner, "Mo").await;
    let laptop = new_client();
    let _: Value = app
        .ok_as(
            &laptop,
            "/api/auth/sign_in",
            json!({"form": {"email": mo.email, "password": mo.password}}),
        )
        .await;
    let sessions: Vec<Value> = app
        .ok_as(&mo.client, "/api/auth/sessions", Value::Null)
        .await;
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions.iter().filter(|s| s["current"] == true).count(), 1);
    // A wrong current password changes nothing.
    let (status, reply) = app
        .call_as(
            &mo.client,
            "/api/auth/password",
            json!({"current": "not it at all", "new": "a new password"}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    let (status, _) = app
        .call_as(&laptop, "/api/auth/sessions", Value::Null)
        .await;
    assert!(status.is_success());
    let ended: u64 = app
        .ok_as(
            &mo.client,
            "/api/auth/password",
            json!({"current": mo.password, "new": "a new password"}),
        )
        .await;
    assert_eq!(ended, 1);
    let (status, _) = app
        .call_as(&laptop, "/api/auth/sessions", Value::Null)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "the other session ended");
    // One session signed out from the list, then everywhere.
    let phone = new_client();
    let _: Value = app
        .ok_as(
            &phone,
            "/api/auth/sign_in",
            json!({"form": {"email": mo.email, "password": "a new password"}}),
        )
        .await;
    let sessions: Vec<Value> = app
        .ok_as(&mo.client, "/api/auth/sessions", Value::Null)
        .await;
    let other = sessions.iter().find(|s| s["current"] == false).unwrap();
    let _: Value = app
        .ok_as(
            &mo.client,
            "/api/auth/sessions/end",
            json!({"id": other["id"]}),
        )
        .await;
    let (status, _) = app.call_as(&phone, "/api/auth/me", Value::Null).await;
    assert!(status.is_success());
    assert_eq!(
        app.ok_as::<Value>(&phone, "/api/auth/me", Value::Null)
            .await,
        Value::Null
    );
    let _: u64 = app
        .ok_as(&mo.client, "/api/auth/sessions/end_all", json!({}))
        .await;
    assert_eq!(
        app.ok_as::<Value>(&mo.client, "/api/auth/me", Value::Null)
            .await,
        Value::Null
    );
    // A forgotten password: the owner's one-time reset link.
    let mo_again = new_client();
    let _: Value = app
        .ok_as(
            &mo_again,
            "/api/auth/sign_in",
            json!({"form": {"email": mo.email, "password": "a new password"}}),
        )
        .await;
    let mo_id = me_id(
        &app,
        &Org {
            client: mo_again.clone(),
            org_id: owner.org_id,
            email: mo.email.clone(),
            password: "",
        },
    )
    .await;
    let (status, _) = app
        .call_as(
            &mo_again,
            "/api/members/reset_link",
            json!({"user_id": mo_id}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "members issue no reset links"
    );
    let link: Value = app
        .ok_as(
            &owner.client,
            "/api/members/reset_link",
            json!({"user_id": mo_id}),
        )
        .await;
    let url = link["url"].as_str().unwrap();
    let token = url.rsplit('/').next().unwrap();
    assert!(url.contains("/reset/"), "{url}");
    let _: Value = app
        .ok_as(
            &new_client(),
            "/api/auth/reset",
            json!({"token": token, "password": "chosen after reset"}),
        )
        .await;
    let (status, _) = app
        .call_as(
            &new_client(),
            "/api/auth/reset",
            json!({"token": token, "password": "again and again"}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "a reset link works once");
    assert_eq!(
        app.ok_as::<Value>(&mo_again, "/api/auth/me", Value::Null)
            .await,
        Value::Null,
        "a reset ends every session"
    );
    let _: Value = app
        .ok_as(
            &new_client(),
            "/api/auth/sign_in",
            json!({"form": {"email": mo.email, "password": "chosen after reset"}}),
        )
        .await;
    assert!(has(&audit(&app, &owner).await, "password_reset_issued"));
}

on_both_databases!(
    invite_only_sign_up,
    invitations_are_single_use_and_expire,
    removing_a_member_ends_their_access,
    passwords_sessions_and_reset_links,
);
