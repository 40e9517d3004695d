//! Accounts and their records (issue 26): a removed member invited again joins with their own
//! account and password, refused sign-ups stay out of other organisations' logs, clearing an
//! opt-out is audited, and the session list names each device and its last use.
use crate::access::{audit, me_id};
use crate::helpers::*;
use crate::on_both_databases;
use chrono::{DateTime, Duration, Utc};
use herald::platform::access_config::SignUpMode;
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn invitation(app: &TestApp, owner: &Org) -> String {
    let inv: Value = app
        .ok_as(
            &owner.client,
            "/api/invitations/create",
            json!({"role": "member"}),
        )
        .await;
    inv["token"].as_str().unwrap().to_owned()
}

fn accept(token: &str, email: &str, password: &str) -> Value {
    json!({"token": token, "name": "Someone", "email": email, "password": password})
}

async fn agents_of(app: &TestApp, user: uuid::Uuid) -> Vec<(Option<uuid::Uuid>, String)> {
    use herald::ai_agent::entity::ai_agent;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    ai_agent::Entity::find()
        .filter(ai_agent::Column::UserId.eq(user))
        .all(&app.state.db)
        .await
        .unwrap()
        .into_iter()
        .map(|a| (a.system_source_id, a.send_mode))
        .collect()
}

async fn a_removed_member_can_be_invited_again(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Rejoin Co").await;
    let mo = app.add_member(&owner, "Mo").await;
    let mo_id = me_id(&app, &mo).await;
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/members/remove",
            json!({"user_id": mo_id}),
        )
        .await;
    let token = invitation(&app, &owner).await;
    let users = app.count("user").await;
    let members = app.count("membership").await;

    // Not their password: refused, and nothing changes.
    let (status, reply) = app
        .call_as(
            &new_client(),
            "/api/invitations/accept",
            accept(&token, &mo.email, "not mo's password"),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert!(reply.to_string().contains("not its password"), "{reply}");
    assert_eq!(app.count("user").await, users);
    assert_eq!(app.count("membership").await, members);
    let (list, _): (Vec<Value>, u64) = app
        .ok_as(&owner.client, "/api/invitations", Value::Null)
        .await;
    assert_eq!(list[0]["status"], "pending", "the link stays unused");

    // Their own password: they are a member again, signed in, with the account they had.
    let back = new_client();
    let me: Value = app
        .ok_as(
            &back,
            "/api/invitations/accept",
            accept(&token, &mo.email.to_uppercase(), mo.password),
        )
        .await;
    assert_eq!(me["user_id"], mo_id.to_string());
    assert_eq!(
        (me["role"].clone(), me["name"].clone()),
        (json!("member"), json!("Mo"))
    );
    assert_eq!(me["organization_id"], owner.org_id.to_string());
    let me: Value = app.ok_as(&back, "/api/auth/me", Value::Null).await;
    assert_eq!(me["user_id"], mo_id.to_string());
    let _: Value = app
        .ok_as(
            &new_client(),
            "/api/auth/sign_in",
            json!({"form": {"email": mo.email, "password": mo.password}}),
        )
        .await;
    // One Assistant (the one they kept) and a new Text Reply of their own.
    let mut theirs = agents_of(&app, mo_id).await;
    theirs.sort();
    assert_eq!(theirs.len(), 2, "{theirs:?}");
    assert_ne!(theirs[0].0, theirs[1].0, "one of each: {theirs:?}");
    let joined: Vec<Value> = audit(&app, &owner)
        .await
        .into_iter()
        .filter(|e| e["action"] == "member_joined")
        .collect();
    assert_eq!(joined[0]["detail"], "with the account they already had");

    // A member already: another link is refused and stays unused.
    let again = invitation(&app, &owner).await;
    let (status, reply) = app
        .call_as(
            &new_client(),
            "/api/invitations/accept",
            accept(&again, &mo.email, mo.password),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{reply}");
    assert!(reply.to_string().contains("already a member"), "{reply}");
}

async fn refused_sign_ups_stay_out_of_other_organisations(backend: Backend) {
    let opts = Options {
        sign_up: SignUpMode::Invite,
        ..Default::default()
    };
    let Some(app) = spawn_app_with(backend, opts).await else {
        return;
    };
    let sign_up = async |email: &str| {
        app.call_as(
            &new_client(),
            "/api/auth/sign_up",
            json!({"form": {"organization_name": "Mine", "name": "N", "email": email, "password": "correct horse battery"}}),
        )
        .await
    };
    let (status, me) = sign_up("first@alpha.test").await;
    assert!(status.is_success(), "{me}");
    let alpha = Org {
        client: new_client(),
        org_id: me["organization_id"].as_str().unwrap().parse().unwrap(),
        email: "first@alpha.test".into(),
        password: "correct horse battery",
    };
    let _: Value = app
        .ok_as(
            &alpha.client,
            "/api/auth/sign_in",
            json!({"form": {"email": alpha.email, "password": alpha.password}}),
        )
        .await;
    // The only organisation: its owners run the instance, and see who was turned away.
    assert_eq!(sign_up("early@nowhere.test").await.0, StatusCode::FORBIDDEN);
    let seen = |entries: &[Value], email: &str| entries.iter().any(|e| e["target"] == email);
    assert!(seen(&audit(&app, &alpha).await, "early@nowhere.test"));

    // A second organisation (the operator's create-owner): a refusal now belongs to neither.
    {
        use sea_orm::TransactionTrait;
        let hash = herald::auth::password::hash_password("bravo's password");
        let txn = app.state.db.begin().await.unwrap();
        herald::team::sign_up::insert_organization_with_owner(
            &txn,
            "Bravo",
            "Bea",
            "bea@bravo.test",
            hash,
            test_daytime(),
        )
        .await
        .unwrap();
        txn.commit().await.unwrap();
    }
    let bravo_client = new_client();
    let me: Value = app
        .ok_as(
            &bravo_client,
            "/api/auth/sign_in",
            json!({"form": {"email": "bea@bravo.test", "password": "bravo's password"}}),
        )
        .await;
    let bravo = Org {
        client: bravo_client,
        org_id: me["SignedIn"]["organization_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap(),
        email: "bea@bravo.test".into(),
        password: "bravo's password",
    };
    assert_eq!(sign_up("late@nowhere.test").await.0, StatusCode::FORBIDDEN);
    let (a, b) = (audit(&app, &alpha).await, audit(&app, &bravo).await);
    assert!(!seen(&a, "late@nowhere.test"), "{a:?}");
    assert!(
        !b.iter().any(|e| e["action"] == "sign_up_refused"),
        "Bravo sees none of Alpha's refusals, nor the server's: {b:?}"
    );
    assert_eq!(
        app.count_where(
            "audit_log",
            "organization_id IS NULL AND action = 'sign_up_refused'"
        )
        .await,
        1,
        "kept as the server's own entry"
    );
}

async fn clearing_an_opt_out_is_audited(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Clear Co").await;
    let mo = app.add_member(&owner, "Mo").await;
    let kim = app.add_contact(&owner, "Kim Lee", "+14155552671").await;
    let set = async |who: &Org, opted_out: bool, reason: Option<&str>| {
        app.call_as(
            &who.client,
            "/api/contacts/opt_out",
            json!({"id": kim, "opted_out": opted_out, "reason": reason}),
        )
        .await
    };
    assert!(set(&mo, true, None).await.0.is_success());
    assert_eq!(
        set(&mo, false, Some("they asked")).await.0,
        StatusCode::FORBIDDEN
    );
    assert_eq!(set(&owner, false, None).await.0, StatusCode::BAD_REQUEST);
    let reason = "written consent on file, signed in the shop";
    let (status, contact) = set(&owner, false, Some(reason)).await;
    assert!(status.is_success(), "{contact}");
    assert_eq!(contact["opted_out"], false);
    let cleared: Vec<Value> = audit(&app, &owner)
        .await
        .into_iter()
        .filter(|e| e["action"] == "opt_out_cleared")
        .collect();
    assert_eq!(cleared.len(), 1, "{cleared:?}");
    let e = &cleared[0];
    assert_eq!(e["actor"], "Owner");
    assert_eq!(e["target"], "Kim Lee (+14155552671)");
    assert_eq!(e["detail"], reason);
    let at: DateTime<Utc> = serde_json::from_value(e["at"].clone()).unwrap();
    assert!(
        at >= test_daytime() && at < test_daytime() + Duration::hours(1),
        "{at}"
    );
}

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 \
                      (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const MAC: &str = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 \
                   (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

async fn sessions_name_each_device_and_its_last_use(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Device Co").await;
    let mo = app.add_member(&owner, "Mo").await;
    let on = |ua: &str| {
        reqwest::Client::builder()
            .cookie_store(true)
            .user_agent(ua)
            .build()
            .unwrap()
    };
    let (phone, laptop) = (on(IPHONE), on(MAC));
    for client in [&phone, &laptop] {
        let _: Value = app
            .ok_as(
                client,
                "/api/auth/sign_in",
                json!({"form": {"email": mo.email, "password": mo.password}}),
            )
            .await;
    }
    let list = || async {
        app.ok_as::<Vec<Value>>(&phone, "/api/auth/sessions", Value::Null)
            .await
    };
    let seen =
        |s: &Value| serde_json::from_value::<DateTime<Utc>>(s["last_seen_at"].clone()).unwrap();
    let sessions = list().await;
    assert_eq!(sessions.len(), 3);
    let device = |d: &str| sessions.iter().find(|s| s["device"] == d).cloned();
    let iphone = device("Safari on iPhone").expect("the phone's session");
    let mac = device("Chrome on macOS").expect("the laptop's session");
    assert_eq!(iphone["current"], true);
    assert_eq!(mac["current"], false);
    for s in &sessions {
        let at = seen(s);
        assert!(
            at >= test_daytime() && at < test_daytime() + Duration::hours(1),
            "{s}"
        );
    }

    // The laptop was last used two hours ago: listed last, with that time.
    let earlier = test_daytime() - Duration::hours(2);
    {
        use herald::auth::entity::session;
        use sea_orm::sea_query::Expr;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        let id: uuid::Uuid = mac["id"].as_str().unwrap().parse().unwrap();
        session::Entity::update_many()
            .col_expr(session::Column::LastSeenAt, Expr::value(earlier))
            .filter(session::Column::Id.eq(id))
            .exec(&app.state.db)
            .await
            .unwrap();
    }
    let sessions = list().await;
    assert_eq!(sessions[2]["id"], mac["id"], "most recently used first");
    assert!((seen(&sessions[2]) - earlier).num_seconds().abs() < 1);
    // Using it again moves its last use to now, and it comes first.
    let _: Value = app.ok_as(&laptop, "/api/auth/me", Value::Null).await;
    let sessions = list().await;
    assert_eq!(sessions[0]["id"], mac["id"]);
    assert!(seen(&sessions[0]) >= test_daytime());
}

on_both_databases!(
    a_removed_member_can_be_invited_again,
    refused_sign_ups_stay_out_of_other_organisations,
    clearing_an_opt_out_is_audited,
    sessions_name_each_device_and_its_last_use,
);
