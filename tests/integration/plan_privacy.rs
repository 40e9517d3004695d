//! Issue 49 §4: a member's Assistant is private. Every server function is called as another
//! member of the same organisation (the cross-organisation table's rows, which name the private
//! plan, its campaign and the contacts in them), and every `/v1` read as a key whose maker is now
//! a member; none answers the private plan's id, its campaign's id or the request behind it.
use crate::api_client::{new_key, Api, ALL_SCOPES};
use crate::campaign_support::*;
use crate::cross_org_table::{alpha, table, Role};
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::Method;
use serde_json::{json, Value};

fn leak<'s>(reply: &str, secrets: &'s [String]) -> Option<&'s String> {
    secrets.iter().find(|s| reply.contains(s.as_str()))
}

async fn another_member_never_sees_a_private_plan(backend: Backend) {
    let Some(app) = spawn_app_with(backend, crate::cross_org_alpha::alpha_options()).await else {
        return;
    };
    let c = crm(&app).await;
    let mo = app.add_member(&c.org, "Mo").await;
    let a = alpha(&app, &c, &mo).await;
    let zoe = app.add_member(&c.org, "Zoe").await;
    let secrets: Vec<String> = vec![
        a.plan.as_str().unwrap().to_owned(),
        a.op.as_str().unwrap().to_owned(),
        "how many quote leads".into(),
        "For Mo only".into(),
    ];

    // Mo's plan counts Katherine in its audience, as a plan over a filter does: her page lists it.
    {
        use sea_orm::sea_query::{Alias, Query};
        use sea_orm::ConnectionTrait;
        let plan: uuid::Uuid = a.plan.as_str().unwrap().parse().unwrap();
        let insert = Query::insert()
            .into_table(Alias::new("plan_audience"))
            .columns(["plan_id", "generation", "contact_id"].map(Alias::new))
            .values_panic([plan.into(), 1.into(), c.katherine.into()])
            .to_owned();
        let db = &app.state.db;
        db.execute(&insert).await.unwrap();
    }
    // The owner sees Mo's plan on Katherine's page; Zoe does not.
    let page: Value = app
        .ok_as(
            &c.org.client,
            "/api/contacts/profile",
            json!({"id": c.katherine}),
        )
        .await;
    assert!(page.to_string().contains(&secrets[0]), "{page}");

    for r in table(&a, &c).iter().filter(|r| r.role != Role::Anyone) {
        let (status, reply) = crate::cross_org::call(&app, Some(&zoe), r).await;
        assert!(
            !status.is_server_error(),
            "{} as Zoe: {status} {reply}",
            r.path
        );
        if let Some(s) = leak(&reply.to_string(), &secrets) {
            panic!("{} as Zoe shows {s}: {reply}", r.path);
        }
    }

    // A key made by an owner who is a member now reads as a member.
    let zed_client = app
        .invite(
            &c.org,
            "Zed",
            "zed@privacy.test",
            "zed's password 1",
            "owner",
        )
        .await;
    let zed = Org {
        client: zed_client,
        org_id: c.org.org_id,
        email: "zed@privacy.test".into(),
        password: "zed's password 1",
    };
    let (token, _) = new_key(&app, &zed, "Zed's key", &ALL_SCOPES, None).await;
    let zed_id: Value = app
        .ok_as::<Value>(&zed.client, "/api/auth/me", Value::Null)
        .await["user_id"]
        .clone();
    let _: Value = app
        .ok_as(
            &c.org.client,
            "/api/members/role",
            json!({"user_id": zed_id, "role": "member"}),
        )
        .await;
    let api = Api::new(&app, &token).await;
    let ids = |template: &str| {
        let by = if template.starts_with("/plans") {
            a.plan.as_str().unwrap().to_owned()
        } else if template.starts_with("/webhooks") || template.starts_with("/segments") {
            uuid::Uuid::new_v4().to_string()
        } else {
            c.katherine.to_string()
        };
        template
            .split('/')
            .map(|p| if p.starts_with('{') { by.as_str() } else { p })
            .collect::<Vec<_>>()
            .join("/")
    };
    let paths: Vec<(String, Vec<String>)> = api.doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(p, item)| {
            (
                p.clone(),
                item.as_object().unwrap().keys().cloned().collect(),
            )
        })
        .collect();
    let mut walked = 0;
    for (template, methods) in paths {
        for method in methods {
            let path = ids(&template);
            let answer = match method.as_str() {
                "get" => api.get(&path).await,
                // Only the plan decisions: the other writes would change the organisation.
                "post" if template.starts_with("/plans/") => {
                    api.call(Method::POST, &path, Some(json!({"reason": "x"})), &[])
                        .await
                }
                _ => continue,
            };
            walked += 1;
            assert!(!answer.status.is_server_error(), "{method} {path}");
            if let Some(s) = leak(&answer.body.to_string(), &secrets) {
                panic!("{method} {path} shows {s}: {}", answer.body);
            }
            if template.starts_with("/plans/") {
                assert_eq!(answer.status.as_u16(), 404, "{method} {path}");
            }
        }
    }
    assert!(walked >= 12, "walked {walked} operations");
    // The plans list answers the visible ones only; the owner's own key sees Mo's plan.
    let (owner_token, _) = new_key(&app, &c.org, "Owner's key", &ALL_SCOPES, None).await;
    let seen = api.with_token(&owner_token).get("/plans?limit=100").await;
    assert!(seen.body.to_string().contains(&secrets[0]), "{}", seen.body);
}

on_both_databases!(another_member_never_sees_a_private_plan);
