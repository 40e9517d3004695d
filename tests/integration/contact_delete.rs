//! Deleting a contact through the API (issue 31 §2): the contact and their history go (texts,
//! conversation, notes, scheduled texts, agent threads, tags), their number's opt-out stays (a
//! contact made again with it is still opted out), a text in flight refuses it and changes
//! nothing, another organisation's key finds nothing, and the deletion is audited.
use crate::api_client::*;
use crate::contact_merge::{rows, schedule, text_in};
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::thread::{contact_key, find_or_create_thread};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use uuid::Uuid;

on_both_databases!(deleting_a_contact_takes_their_history_and_keeps_their_opt_out);

const ADA: &str = "+14155552671";

async fn delete(api: &Api<'_>, id: Uuid) -> Answer {
    let path = format!("/contacts/{id}");
    api.call(Method::DELETE, &path, None, &[]).await
}

async fn exec(app: &TestApp, sql: &str) {
    use sea_orm::ConnectionTrait;
    app.state.db.execute_unprepared(sql).await.unwrap();
}

async fn deleting_a_contact_takes_their_history_and_keeps_their_opt_out(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    let number = app.add_number(&owner, "+14155550100").await;
    let (token, _) = new_key(&app, &owner, "CRM sync", &ALL_SCOPES, None).await;
    let api = Api::new(&app, &token).await;
    let made = api
        .post(
            "/contacts",
            json!({"name": "Ada Lovelace", "phone": ADA, "tags": ["vip"],
                   "consent": {"source": "web_form", "note": "signed up"}}),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let ada: Uuid = made.body["id"].as_str().unwrap().parse().unwrap();
    text_in(&app, "SMd1", ADA, "Hi, is Thursday free?").await;
    text_in(&app, "SMd2", ADA, "STOP").await;
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/conversations/notes/add",
            json!({"contact_id": ada, "body": "Asked about Thursday"}),
        )
        .await;
    schedule(
        &app,
        &owner,
        ada,
        number,
        "scheduled",
        chrono::Duration::hours(48),
    )
    .await;
    let agent: Uuid = app.own_agent(&owner).await["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    find_or_create_thread(&app.state, agent, owner.org_id, &contact_key(ada))
        .await
        .unwrap();
    let texts = rows(&app, "message", "contact_id", ada).await;
    assert!(
        texts >= 2,
        "two texts in and the STOP's confirmation: {texts}"
    );

    // Another organisation's key finds nothing, and a key without contacts:write may not.
    let other = app.new_org("Other Co").await;
    let (theirs, _) = new_key(&app, &other, "Theirs", &ALL_SCOPES, None).await;
    assert_eq!(
        delete(&api.with_token(&theirs), ada).await.status,
        StatusCode::NOT_FOUND
    );
    let (reader, _) = new_key(&app, &owner, "Reader", &["contacts:read"], None).await;
    assert_eq!(
        delete(&api.with_token(&reader), ada).await.status,
        StatusCode::FORBIDDEN
    );

    // A scheduled text leaving right now refuses it, and nothing changes.
    schedule(
        &app,
        &owner,
        ada,
        number,
        "sending",
        chrono::Duration::zero(),
    )
    .await;
    let before = app.snapshot().await;
    let refused = delete(&api, ada).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.body);
    assert!(
        refused.body["detail"]
            .as_str()
            .unwrap()
            .contains("being sent"),
        "{}",
        refused.body
    );
    let after = app.snapshot().await;
    let changed: Vec<&String> = after
        .keys()
        // The call's audit, its key's and its organisation's rate cells.
        .filter(|t| {
            !["audit_log", "api_key", "organization"].contains(&t.as_str())
                && before.get(*t) != after.get(*t)
        })
        .collect();
    assert!(
        changed.is_empty(),
        "a refusal writes nothing but the call's audit and rate: {changed:?}"
    );
    exec(
        &app,
        "UPDATE scheduled_text SET status = 'canceled' WHERE status = 'sending'",
    )
    .await;

    let gone = delete(&api, ada).await;
    assert_eq!(gone.status, StatusCode::OK, "{}", gone.body);
    assert_eq!(gone.body["messages"], texts);
    assert_eq!(
        api.get(&format!("/contacts/{ada}")).await.status,
        StatusCode::NOT_FOUND
    );
    for table in [
        "message",
        "conversation",
        "conversation_note",
        "scheduled_text",
        "contact_tag",
        "plan_audience",
    ] {
        assert_eq!(rows(&app, table, "contact_id", ada).await, 0, "{table}");
    }
    assert_eq!(
        app.count_where(
            "ai_thread",
            &format!("correlation_key = '{}'", contact_key(ada))
        )
        .await,
        0,
        "their agent threads"
    );
    assert_eq!(
        app.count_where(
            "audit_log",
            "action = 'contact_deleted' AND target = 'Ada Lovelace'"
        )
        .await,
        1
    );
    assert_eq!(
        delete(&api, ada).await.status,
        StatusCode::NOT_FOUND,
        "deleted once"
    );

    // The number's opt-out outlives the contact: made again, they are still opted out.
    assert_eq!(
        app.count_where("suppression", &format!("phone = '{ADA}'"))
            .await,
        1
    );
    let again = api
        .post("/contacts", json!({"name": "Ada again", "phone": ADA}))
        .await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    assert_eq!(again.body["opted_out"], true, "{}", again.body);
}

on_both_databases!(an_owner_deletes_a_contact_from_its_page);

/// The page the contact page links to: it says what goes and what stays, only an owner may
/// confirm, another organisation finds nothing, and confirming deletes and goes to Contacts.
async fn an_owner_deletes_a_contact_from_its_page(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    app.add_number(&owner, "+14155550100").await;
    let dana = app.add_member(&owner, "Dana").await;
    let bob = app.add_contact(&owner, "Bob <Builder>", ADA).await;
    text_in(&app, "SMp1", ADA, "Hello?").await;
    let path = format!("/contacts/{bob}/delete");
    let get = |client: &reqwest::Client| client.get(app.url(&path)).send();

    let page = get(&owner.client).await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(
        html.contains("Delete Bob &#60;Builder&#62;?") && !html.contains("<Builder>"),
        "escaped: {html}"
    );
    assert!(
        html.contains("1 text,") && html.contains("contact-delete-confirm"),
        "{html}"
    );

    // A member sees why not, and their post deletes nothing; another organisation finds nothing.
    assert_eq!(
        get(&dana.client).await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    let res = dana.client.post(app.url(&path)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let other = app.new_org("Other Co").await;
    assert_eq!(
        get(&other.client).await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    let res = other.client.post(app.url(&path)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_eq!(rows(&app, "contact", "id", bob).await, 1, "still there");

    let done = owner.client.post(app.url(&path)).send().await.unwrap();
    assert_eq!(done.status(), StatusCode::OK, "followed to Contacts");
    assert!(done.url().path().ends_with("/contacts"), "{}", done.url());
    assert_eq!(rows(&app, "contact", "id", bob).await, 0);
    assert_eq!(rows(&app, "message", "contact_id", bob).await, 0);
    assert_eq!(
        get(&owner.client).await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
}
