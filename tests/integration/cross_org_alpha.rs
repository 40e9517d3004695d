//! Organisation A's records for the cross-organisation table: a number, a conversation, the
//! member's agent and assistant thread, a plan, a campaign and its item, a notification, a lesson
//! and a suggester, and the words and ids that must never reach anyone outside A.
use crate::campaign_support::*;
use crate::helpers::*;
use serde_json::{json, Value};

/// A's records the table names, and the words and ids that must never reach anyone else.
pub struct Alpha {
    pub number: Value,
    pub alan: Value,
    pub message: Value,
    pub agent: Value,
    pub thread: Value,
    pub plan: Value,
    pub op: Value,
    pub item: Value,
    pub notification: Value,
    pub lesson: Value,
    pub suggester: Value,
    pub scheduled: Value,
    /// A saved segment.
    pub segment: Value,
    /// A saved reply.
    pub saved_reply: Value,
    /// An FAQ entry of A's knowledge.
    pub knowledge: Value,
    /// A document and a website of A's knowledge.
    pub document: Value,
    pub website: Value,
    /// An API key.
    pub api_key: Value,
    /// A contact import that stopped part way.
    pub import: Value,
    /// A possible opt-out waiting for a person.
    pub review: Value,
    /// The member's user id, an owner's invitation and the owner's session.
    pub member_user: Value,
    pub invitation: Value,
    pub session: Value,
    pub secrets: Vec<String>,
}

async fn me_id(app: &TestApp, who: &Org) -> uuid::Uuid {
    let me: Value = app.ok_as(&who.client, "/api/auth/me", Value::Null).await;
    me["user_id"].as_str().unwrap().parse().unwrap()
}

fn id(what: &str, v: &Value) -> Value {
    assert!(v.is_string(), "{what}: {v}");
    v.clone()
}

/// The test server `alpha` needs: sign-ins again and again from 127.0.0.1, and websites on
/// loopback (Alpha's website is read there, fails, and never leaves the machine).
pub fn alpha_options() -> Options {
    Options {
        sign_in_attempts_per_minute: 200,
        webhooks: Some(herald::webhooks::WebhookSettings {
            allow_private: true,
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub async fn alpha(app: &TestApp, c: &Crm, member: &Org) -> Alpha {
    let a = &c.org;
    let _: Value = app
        .ok_as(
            &a.client,
            "/api/organization/update",
            json!({"settings": {"name": "Campaign Co", "time_zone": "UTC", "rules": "Alpha house rule: mention the orchard."}}),
        )
        .await;
    let numbers: Value = app.ok_as(&a.client, "/api/numbers", Value::Null).await;
    let conversations: Value = app.inbox(&a.client).await;
    let alan = id("alan", &conversations[0]["contact_id"]);
    let conversation: Value = app
        .ok_as(
            &a.client,
            "/api/conversations/get",
            json!({"contact_id": alan}),
        )
        .await;
    let mine = app.own_agent(member).await;
    crate::plan_support::ask(app, member, "how many quote leads?", false).await;
    let assistant: Value = app
        .ok_as(&member.client, "/api/assistant", Value::Null)
        .await;
    // Mo's own Assistant: its plans are Mo's and the owners' to see.
    let helper = {
        use herald::ai_agent::entity::ai_agent;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        let mo: uuid::Uuid = me_id(app, member).await;
        ai_agent::Entity::find()
            .filter(ai_agent::Column::UserId.eq(mo))
            .filter(ai_agent::Column::Name.eq("Assistant"))
            .one(&app.state.db)
            .await
            .unwrap()
            .expect("Mo's Assistant")
    };
    let plan = campaign_plan(app, &helper, &include_all(&[c.katherine]), "Spring").await;
    let op = operation_for(app, &helper, &include_all(&[c.linus]), "Autumn").await;
    let sheet = sheet(app, a, &json!(op)).await;
    let me: Value = app.ok_as(&member.client, "/api/auth/me", Value::Null).await;
    let notice = herald::notifications::service::notify(
        &app.state,
        herald::notifications::service::Notice {
            agent_id: None,
            organization_id: a.org_id,
            user_id: me["user_id"].as_str().unwrap().parse().unwrap(),
            kind: "escalation",
            title: "Alpha notice".into(),
            body: "For Mo only".into(),
            link: None,
            source_key: None,
        },
    )
    .await
    .unwrap();
    let suggester: Value = app
        .ok_as(
            &a.client,
            "/api/text_agents/create",
            json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": "Alpha suggester", "persona": "", "auto_reply": false, "confidence_threshold": 0.9}}),
        )
        .await;
    let lesson = uuid::Uuid::new_v4();
    {
        use herald::ai_agent::learning::entity::lesson;
        use sea_orm::{ActiveModelTrait, Set};
        let now = chrono::Utc::now();
        lesson::ActiveModel {
            id: Set(lesson),
            organization_id: Set(a.org_id),
            agent_id: Set(mine["id"].as_str().unwrap().parse().unwrap()),
            rule_key: Set("exclude_tag:alpha".into()),
            text: Set("Alpha lesson: leave out the orchard crowd.".into()),
            enabled: Set(true),
            version: Set(1),
            sources: Set(json!([])),
            history: Set(json!([])),
            deleted_at: Set(None),
            created_at: Set(now),
            updated_at: Set(now),
        }
        .insert(&app.state.db)
        .await
        .unwrap();
    }
    let scheduled = herald::messaging::scheduled::schedule(
        &app.state,
        uuid::Uuid::new_v4(),
        a.org_id,
        c.katherine,
        numbers[0]["id"].as_str().unwrap().parse().unwrap(),
        "Alpha later text",
        chrono::Utc::now() + chrono::Duration::hours(48),
        None,
        None,
    )
    .await
    .unwrap()
    .id;
    app.post_webhook(
        &crate::helpers::sms_params(
            "SMalphareview0000000000000000001",
            "+14155552677",
            "+14155550100",
            "Alpha: wrong number",
        ),
        None,
    )
    .await;
    app.settle().await;
    let reviews: Value = app
        .ok_as(
            &a.client,
            "/api/compliance/possible_opt_outs",
            json!({"page": 0}),
        )
        .await;
    let invitation: Value = app
        .ok_as(
            &a.client,
            "/api/invitations/create",
            json!({"role": "member"}),
        )
        .await;
    let sessions: Value = app
        .ok_as(&a.client, "/api/auth/sessions", Value::Null)
        .await;
    let segment: Value = app
        .ok_as(
            &a.client,
            "/api/segments/save",
            json!({"name": "Alpha segment", "filter": {"tags_any": ["quote"]}}),
        )
        .await;
    let saved_reply: Value = app
        .ok_as(
            &a.client,
            "/api/saved_replies/save",
            json!({"id": null, "input": {"name": "Alpha reply", "body": "Alpha saved words, {{contact.first_name|there}}"}}),
        )
        .await;
    let knowledge: Value = app
        .ok_as(
            &a.client,
            "/api/knowledge/faq",
            json!({"id": null, "input": {"question": "What does whitening cost?", "answer": "Alpha whitening is $350", "alternatives": []}}),
        )
        .await;
    let document: Value = a
        .client
        .post(app.url("/api/knowledge/document?name=alpha-guide.txt"))
        .header("Content-Type", "text/plain")
        .body("Alpha's guide: parking is behind the building.")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // Port 9 on loopback answers nothing: its reading fails there, never leaving the machine.
    let website: Value = app
        .ok_as(
            &a.client,
            "/api/knowledge/website",
            json!({"id": null, "input": {"url": "http://127.0.0.1:9/", "depth": 0, "pages": 1, "refresh_hours": null}}),
        )
        .await;
    let api_key: Value = app
        .ok_as(
            &a.client,
            "/api/api_keys/create",
            json!({"name": "Alpha key", "scopes": ["contacts:read"], "rate_per_second": null, "burst": null}),
        )
        .await;
    let import: Value = app
        .ok_as(
            &a.client,
            "/api/contacts/import/start",
            json!({"file_name": "alpha-export.csv", "header": "name,phone", "mapping": [{"to": "name"}, {"to": "phone"}], "total_rows": 2, "fingerprint": "alpha"}),
        )
        .await;
    let alpha = Alpha {
        member_user: id("member", &me["user_id"]),
        invitation: id("invitation", &invitation["id"]),
        session: id("session", &sessions[0]["id"]),
        review: id("review", &reviews["items"][0]["id"]),
        number: id("number", &numbers[0]["id"]),
        message: id("message", &conversation["messages"][0]["id"]),
        agent: id("agent", &mine["id"]),
        thread: id("thread", &assistant["thread_id"]),
        plan: json!(plan.id),
        op: json!(op),
        item: id("item", &sheet["items"][0]["id"]),
        notification: json!(notice),
        lesson: json!(lesson),
        suggester: id("suggester", &suggester["id"]),
        scheduled: json!(scheduled),
        segment: id("segment", &segment["id"]),
        saved_reply: id("saved reply", &saved_reply["id"]),
        knowledge: id("knowledge", &knowledge["id"]),
        document: id("document", &document["id"]),
        website: id("website", &website["id"]),
        api_key: id("api key", &api_key["key"]["id"]),
        import: id("import", &import["id"]),
        alan,
        secrets: vec![],
    };
    let mut secrets: Vec<String> = [
        "Campaign Co",
        "Alpha later text",
        "Katherine",
        "Linus",
        "Boris",
        "Alan Turing",
        "Alpha key",
        "alpha-export.csv",
        "+14155550100",
        "+14155552674",
        "thanks for the quote",
        "how many quote leads",
        "Alpha notice",
        "orchard",
        "Alpha lesson",
        "Alpha suggester",
        "Alpha segment",
        "Alpha saved words",
        "Alpha whitening",
        "Alpha: wrong number",
    ]
    .map(String::from)
    .to_vec();
    for v in [
        &alpha.number,
        &alpha.alan,
        &alpha.message,
        &alpha.agent,
        &alpha.thread,
        &alpha.plan,
        &alpha.op,
        &alpha.item,
        &alpha.notification,
        &alpha.lesson,
        &alpha.suggester,
        &alpha.review,
        &alpha.knowledge,
        &alpha.document,
        &alpha.website,
        &alpha.member_user,
        &alpha.invitation,
        &alpha.session,
    ] {
        secrets.push(v.as_str().unwrap().to_owned());
    }
    for contact in [c.katherine, c.linus, c.boris] {
        secrets.push(contact.to_string());
    }
    Alpha { secrets, ..alpha }
}
