//! The table behind `cross_org.rs`: one row per server function with what another organisation,
//! a member without the role and nobody signed in must get, and organisation A's records that
//! the rows name.
use crate::campaign_support::*;
use crate::helpers::*;
use serde_json::{json, Value};

/// What another organisation's owner gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Other {
    /// The call names one of A's records: 404, and nothing of A's changes.
    NotFound,
    /// The call works within the caller's own organisation: success, and nothing of A's in it.
    Own,
}

/// Who in A's organisation may make the call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Role {
    Owner,
    Member,
    /// Signing up, in and out, and asking who one is: anyone, signed in or not.
    Anyone,
}

pub struct Row {
    pub path: &'static str,
    pub body: Value,
    pub other: Other,
    pub role: Role,
}

fn row(path: &'static str, body: Value, other: Other, role: Role) -> Row {
    Row {
        path,
        body,
        other,
        role,
    }
}

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
    pub secrets: Vec<String>,
}

fn id(what: &str, v: &Value) -> Value {
    assert!(v.is_string(), "{what}: {v}");
    v.clone()
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
    let conversations: Value = app
        .ok_as(&a.client, "/api/conversations", Value::Null)
        .await;
    let alan = id("alan", &conversations[0]["contact_id"]);
    let conversation: Value = app
        .ok_as(
            &a.client,
            "/api/conversations/get",
            json!({"contact_id": alan}),
        )
        .await;
    let agents: Value = app.ok_as(&member.client, "/api/agents", Value::Null).await;
    let mine = agents
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["is_mine"] == true)
        .expect("the member's own Text Reply")
        .clone();
    crate::plan_support::ask(app, member, "how many quote leads?", false).await;
    let assistant: Value = app
        .ok_as(&member.client, "/api/assistant", Value::Null)
        .await;
    let helper = assistant_agent(app, a.org_id).await;
    let plan = campaign_plan(app, &helper, &include_all(&[c.katherine]), "Spring").await;
    let op = operation_for(app, &helper, &include_all(&[c.linus]), "Autumn").await;
    let sheet = sheet(app, a, &json!(op)).await;
    let me: Value = app.ok_as(&member.client, "/api/auth/me", Value::Null).await;
    let notice = herald::notifications::service::notify(
        &app.state,
        herald::notifications::service::Notice {
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
            json!({"input": {"name": "Alpha suggester", "persona": "", "auto_reply": false, "confidence_threshold": 0.9}}),
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
    let alpha = Alpha {
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
        alan,
        secrets: vec![],
    };
    let mut secrets: Vec<String> = [
        "Campaign Co",
        "Katherine",
        "Linus",
        "Boris",
        "Alan Turing",
        "+14155550100",
        "+14155552674",
        "thanks for the quote",
        "how many quote leads",
        "Alpha notice",
        "orchard",
        "Alpha lesson",
        "Alpha suggester",
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
    ] {
        secrets.push(v.as_str().unwrap().to_owned());
    }
    for contact in [c.katherine, c.linus, c.boris] {
        secrets.push(contact.to_string());
    }
    Alpha { secrets, ..alpha }
}

fn autonomous(name: &str) -> Value {
    json!({"name": name, "persona": "", "goals": "", "rules": "", "send_mode": "autonomous",
           "planning_enabled": false, "plan_approval": "human_review", "reply_send_limit": 2,
           "reply_reads_org_wide": false})
}

/// One row per server function (and a second where a function has a second way in).
pub fn table(a: &Alpha, c: &Crm) -> Vec<Row> {
    use Other::*;
    use Role::*;
    let fresh = || format!("someone-{}@table.test", uuid::Uuid::new_v4().simple());
    let contact = |name: &str, phone: &str| json!({"name": name, "phone": phone, "email": "", "tags": ["lead", "quote"]});
    let draft =
        json!({"title": "Renamed", "summary": null, "include": [], "message_concept": null});
    vec![
        // Auth and members.
        row(
            "/api/auth/sign_up",
            json!({"form": {"organization_name": "Charlie", "name": "C", "email": fresh(), "password": "correct horse battery"}}),
            Own,
            Anyone,
        ),
        row(
            "/api/auth/sign_in",
            json!({"form": {"email": c.org.email, "password": "not the password"}}),
            Own,
            Anyone,
        ),
        row("/api/auth/sign_out", json!({}), Own, Anyone),
        row("/api/auth/me", Value::Null, Own, Anyone),
        row("/api/members", Value::Null, Own, Member),
        // The organisation's settings: read by anyone in it, changed by its owner.
        row("/api/organization", Value::Null, Own, Member),
        row(
            "/api/organization/update",
            json!({"settings": {"name": "Renamed", "time_zone": "UTC", "rules": "Be brief."}}),
            Own,
            Owner,
        ),
        row(
            "/api/members/add",
            json!({"form": {"name": "New", "email": fresh(), "password": "member password 2"}}),
            Own,
            Owner,
        ),
        // Numbers.
        row("/api/numbers", Value::Null, Own, Member),
        row("/api/numbers/provider", Value::Null, Own, Member),
        row(
            "/api/numbers/create",
            json!({"input": {"number": "+14155550777", "friendly_name": "x", "provider_sid": ""}}),
            Own,
            Owner,
        ),
        row(
            "/api/numbers/update",
            json!({"id": a.number, "input": {"number": "+14155550100", "friendly_name": "taken", "provider_sid": ""}}),
            NotFound,
            Owner,
        ),
        // Contacts.
        row("/api/contacts/search", json!({"query": ""}), Own, Member),
        row(
            "/api/contacts/get",
            json!({"id": c.katherine}),
            NotFound,
            Member,
        ),
        row(
            "/api/contacts/create",
            json!({"input": contact("New Lead", "+14155552690")}),
            Own,
            Member,
        ),
        row(
            "/api/contacts/update",
            json!({"id": c.katherine, "input": contact("Katherine Johnson", "+14155552674")}),
            NotFound,
            Member,
        ),
        // Clearing an opt-out the contact did not text is an owner's power.
        row(
            "/api/contacts/opt_out",
            json!({"id": c.boris, "opted_out": false}),
            NotFound,
            Owner,
        ),
        row(
            "/api/contacts/import",
            json!({"csv": "name,phone\nImported,+14155552691\n"}),
            Own,
            Member,
        ),
        // Conversations and texts.
        row("/api/conversations", Value::Null, Own, Member),
        row(
            "/api/conversations/get",
            json!({"contact_id": a.alan}),
            NotFound,
            Member,
        ),
        row(
            "/api/messages/send",
            json!({"request": {"contact_id": c.katherine, "phone_number_id": a.number, "body": "from the table"}}),
            NotFound,
            Member,
        ),
        row(
            "/api/messages/resolve",
            json!({"id": a.message, "resolution": "mark_sent"}),
            NotFound,
            Member,
        ),
        row(
            "/api/simulator/send",
            json!({"text": {"from": "+14155552679", "to_number_id": a.number, "body": "from the table"}}),
            NotFound,
            Member,
        ),
        row("/api/live/ws", Value::Null, Own, Member),
        row("/api/attention", Value::Null, Own, Member),
        row("/api/notifications", Value::Null, Own, Member),
        row(
            "/api/notifications/read",
            json!({"id": a.notification}),
            NotFound,
            Member,
        ),
        // Agents, threads and suggestions.
        row("/api/agents", Value::Null, Own, Member),
        row("/api/agents/get", json!({"id": a.agent}), NotFound, Member),
        row(
            "/api/agents/create",
            json!({"input": autonomous("Rogue")}),
            Own,
            Owner,
        ),
        row(
            "/api/agents/update",
            json!({"id": a.agent, "input": autonomous("Mine")}),
            NotFound,
            Owner,
        ),
        row(
            "/api/agents/assign_numbers",
            json!({"id": a.agent, "number_ids": [a.number]}),
            NotFound,
            Owner,
        ),
        row(
            "/api/agents/threads",
            json!({"agent_id": a.agent}),
            NotFound,
            Member,
        ),
        row(
            "/api/threads/events",
            json!({"thread_id": a.thread}),
            NotFound,
            Member,
        ),
        // Legacy suggesters: anyone reads them; only the owner changes them.
        row("/api/text_agents", Value::Null, Own, Member),
        row(
            "/api/text_agents/create",
            json!({"input": {"name": "New suggester", "persona": "", "auto_reply": true, "confidence_threshold": 0.9}}),
            Own,
            Owner,
        ),
        row(
            "/api/text_agents/update",
            json!({"id": a.suggester, "input": {"name": "Renamed", "persona": "", "auto_reply": true, "confidence_threshold": 0.5}}),
            NotFound,
            Owner,
        ),
        row(
            "/api/text_agents/bind",
            json!({"id": a.suggester, "number_ids": [], "contact_ids": []}),
            NotFound,
            Owner,
        ),
        // Lessons of the member's own agent: the member may review, edit and delete them.
        row(
            "/api/lessons",
            json!({"agent_id": a.agent}),
            NotFound,
            Member,
        ),
        row(
            "/api/lessons/review",
            json!({"agent_id": a.agent}),
            NotFound,
            Member,
        ),
        row(
            "/api/lessons/update",
            json!({"id": a.lesson, "text": "Alpha lesson, reworded.", "enabled": true}),
            NotFound,
            Member,
        ),
        row(
            "/api/lessons/delete",
            json!({"id": a.lesson}),
            NotFound,
            Member,
        ),
        row(
            "/api/threads/operator",
            json!({"thread_id": a.thread}),
            NotFound,
            Member,
        ),
        // The member's own assistant's thread: the member may instruct it.
        row(
            "/api/threads/post",
            json!({"thread_id": a.thread, "text": "how many quote leads?", "plan_mode": false}),
            NotFound,
            Member,
        ),
        row(
            "/api/suggestions",
            json!({"message_id": a.message}),
            NotFound,
            Member,
        ),
        row("/api/model", Value::Null, Own, Member),
        row("/api/assistant", Value::Null, Own, Member),
        row(
            "/api/assistant/ask",
            json!({"text": "hello", "plan_mode": false}),
            Own,
            Member,
        ),
        // Plans.
        row(
            "/api/plans/list",
            json!({"status": null, "agent_id": null}),
            Own,
            Member,
        ),
        row("/api/plans/get", json!({"id": a.plan}), NotFound, Member),
        row(
            "/api/plans/edit",
            json!({"id": a.plan, "edit": draft}),
            NotFound,
            Member,
        ),
        row(
            "/api/plans/reject",
            json!({"id": a.plan, "reason": "not now"}),
            NotFound,
            Member,
        ),
        row(
            "/api/plans/approve",
            json!({"id": a.plan}),
            NotFound,
            Member,
        ),
        // Campaigns (bulk operations): approving the review sheet is an owner's power.
        row("/api/operations", Value::Null, Own, Member),
        row("/api/operations/get", json!({"id": a.op}), NotFound, Member),
        row(
            "/api/operations/sheet",
            json!({"id": a.op}),
            NotFound,
            Member,
        ),
        row(
            "/api/operations/items/edit",
            json!({"item_id": a.item, "text": "Hi there"}),
            NotFound,
            Member,
        ),
        row(
            "/api/operations/items/regenerate",
            json!({"item_id": a.item}),
            NotFound,
            Member,
        ),
        row(
            "/api/operations/items/resolve",
            json!({"item_id": a.item, "resolution": "mark_sent"}),
            NotFound,
            Member,
        ),
        row(
            "/api/operations/items/skip",
            json!({"item_id": a.item}),
            NotFound,
            Member,
        ),
        row(
            "/api/operations/approve",
            json!({"id": a.op}),
            NotFound,
            Owner,
        ),
        row(
            "/api/operations/cancel",
            json!({"id": a.op}),
            NotFound,
            Member,
        ),
    ]
}
