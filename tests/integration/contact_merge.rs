//! Merging duplicate contacts and the contact page (issue 28 §5). A merge moves the duplicate's
//! texts, conversation, notes, scheduled texts and agent threads to the contact kept; it keeps
//! the stricter opt-out and consent; it is owner-only and audited; a preview changes nothing; a
//! text in flight refuses it; and the merged contact's old id still leads to the person.
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::thread::{contact_key, find_or_create_thread};
use reqwest::StatusCode;
use sea_orm::{ActiveModelTrait, Set};
use serde_json::{json, Value};
use uuid::Uuid;

on_both_databases!(merging_moves_everything_and_keeps_the_stricter_rules);

const NUMBER: &str = "+14155550100";
const ADA: &str = "+14155552671";
const ADA_WORK: &str = "+14155552672";

async fn create(app: &TestApp, org: &Org, input: Value) -> Uuid {
    let v: Value = app
        .ok_as(&org.client, "/api/contacts/create", json!({"input": input}))
        .await;
    v["id"].as_str().unwrap().parse().unwrap()
}

pub(crate) async fn text_in(app: &TestApp, sid: &str, from: &str, body: &str) {
    app.text_in(sid, from, NUMBER, body).await;
}

/// Rows of `table` whose `column` is `id` (bound, so both databases compare it as they store it).
pub(crate) async fn rows(app: &TestApp, table: &str, column: &str, id: Uuid) -> i64 {
    use sea_orm::{ConnectionTrait, DbBackend, Statement};
    let backend = app.state.db.get_database_backend();
    let mark = if backend == DbBackend::Postgres {
        "$1"
    } else {
        "?"
    };
    app.state
        .db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            format!("SELECT COUNT(*) AS n FROM \"{table}\" WHERE {column} = {mark}"),
            [id.into()],
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "n")
        .unwrap()
}

/// A scheduled text for `contact`, in `status`, due `after` from now.
pub(crate) async fn schedule(
    app: &TestApp,
    org: &Org,
    contact: Uuid,
    number: Uuid,
    status: &str,
    after: chrono::Duration,
) {
    let now = app.state.clock.now();
    herald::messaging::scheduled::entity::ActiveModel {
        id: Set(Uuid::new_v4()),
        organization_id: Set(org.org_id),
        contact_id: Set(contact),
        phone_number_id: Set(number),
        body: Set("See you Thursday".into()),
        send_at: Set(now + after),
        status: Set(status.into()),
        plan_id: Set(None),
        message_id: Set(None),
        error: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        scheduled_by: Set(None),
    }
    .insert(&app.state.db)
    .await
    .unwrap();
}

fn merge(keep: Uuid, dup: Uuid, apply: bool) -> Value {
    json!({"keep": keep, "duplicate": dup, "apply": apply})
}

async fn merging_moves_everything_and_keeps_the_stricter_rules(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Merge Co").await;
    let number = app.add_number(&owner, NUMBER).await;
    let dana = app.add_member(&owner, "Dana").await;
    let ada = create(
        &app,
        &owner,
        json!({"name": "Ada Lovelace", "phone": ADA, "email": "", "tags": ["vip"],
               "custom_fields": {"plan": "gold"},
               "consent": {"source": "web_form", "note": "signed up"}}),
    )
    .await;
    let dup = create(
        &app,
        &owner,
        json!({"name": "Ada L.", "phone": ADA_WORK, "email": "ada@work.test", "tags": ["lead", "vip"],
               "custom_fields": {"plan": "silver", "city": "London"}, "notes": "Works at the lab",
               "consent": {"source": "verbal", "note": "said yes on the phone"}}),
    )
    .await;

    // Texts on both, a STOP from the duplicate's number (and its confirmation), a note and a
    // scheduled text on the duplicate.
    text_in(&app, "SMm1", ADA, "Hi, is Thursday free?").await;
    text_in(&app, "SMm2", ADA_WORK, "Hello from work").await;
    text_in(&app, "SMm3", ADA_WORK, "STOP").await;
    let sent: Value = app
        .ok_as(
            &owner.client,
            "/api/messages/send",
            json!({"request": {"contact_id": ada, "phone_number_id": number, "body": "Thursday works."}}),
        )
        .await;
    assert_eq!(sent["status"], "sent", "{sent}");
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/conversations/notes/add",
            json!({"contact_id": dup, "body": "Same person as Ada Lovelace"}),
        )
        .await;
    schedule(
        &app,
        &owner,
        dup,
        number,
        "scheduled",
        chrono::Duration::hours(48),
    )
    .await;
    // Agent threads: the owner's agent has one with each (the duplicate's is archived into the
    // kept contact's), Dana's only with the duplicate (it is re-keyed).
    let mine: Uuid = app.own_agent(&owner).await["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let danas: Uuid = app.own_agent(&dana).await["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let thread = |agent: Uuid, who: Uuid| {
        let state = app.state.clone();
        async move {
            find_or_create_thread(&state, agent, owner.org_id, &contact_key(who))
                .await
                .unwrap()
        }
    };
    let kept_thread = thread(mine, ada).await;
    let twin = thread(mine, dup).await;
    let rekeyed = thread(danas, dup).await;

    let dup_texts = rows(&app, "message", "contact_id", dup).await;
    let ada_texts = rows(&app, "message", "contact_id", ada).await;
    assert!(dup_texts >= 3, "two texts and a STOP: {dup_texts}");

    // Who may merge: an owner; a member is refused, and so is merging a contact into itself.
    let (status, _) = app
        .call_as(&dana.client, "/api/contacts/merge", merge(ada, dup, true))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = app
        .call_as(&owner.client, "/api/contacts/merge", merge(ada, ada, true))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let other = app.new_org("Other Co").await;
    let (status, _) = app
        .call_as(&other.client, "/api/contacts/merge", merge(ada, dup, true))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A preview says what would move and changes nothing.
    let before = app.snapshot().await;
    let preview: Value = app
        .ok_as(&owner.client, "/api/contacts/merge", merge(ada, dup, false))
        .await;
    assert_eq!(app.snapshot().await, before, "a preview writes nothing");
    assert_eq!(preview["done"], false);
    assert_eq!(preview["messages"], dup_texts);
    assert_eq!(preview["notes"], 1);
    assert_eq!(preview["scheduled_texts"], 1);
    assert_eq!(preview["threads_moved"], 1);
    assert_eq!(preview["threads_archived"], 1);
    assert_eq!(preview["tags_added"], json!(["lead"]));
    assert_eq!(preview["opted_out"], true, "the duplicate texted STOP");
    assert_eq!(
        preview["consent_label"],
        "Verbal (informational texts only)"
    );
    assert_eq!(preview["phone_dropped"], ADA_WORK);

    let done: Value = app
        .ok_as(&owner.client, "/api/contacts/merge", merge(ada, dup, true))
        .await;
    assert_eq!(done["done"], true, "{done}");

    // Every text is Ada's now, in one conversation with the counts of both.
    assert_eq!(rows(&app, "message", "contact_id", dup).await, 0);
    assert_eq!(
        rows(&app, "message", "contact_id", ada).await,
        dup_texts + ada_texts
    );
    assert_eq!(rows(&app, "conversation", "contact_id", dup).await, 0);
    let inbox = app.inbox(&owner.client).await;
    let listed: Vec<&Value> = inbox.as_array().unwrap().iter().collect();
    assert_eq!(listed.len(), 1, "one conversation: {inbox}");
    assert_eq!(listed[0]["contact_id"], ada.to_string());
    for (table, n) in [("conversation_note", 1), ("scheduled_text", 1)] {
        assert_eq!(rows(&app, table, "contact_id", ada).await, n, "{table}");
    }
    // Threads: the twin archived under Ada's key, Dana's re-keyed, Ada's own untouched.
    for (id, state) in [(twin, "archived"), (rekeyed, "live"), (kept_thread, "live")] {
        use sea_orm::EntityTrait;
        let t = herald::ai_agent::entity::ai_thread::Entity::find_by_id(id)
            .one(&app.state.db)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(t.correlation_key, Some(contact_key(ada)), "{id}");
        assert_eq!(
            t.state == "archived",
            state == "archived",
            "{id}: {}",
            t.state
        );
    }

    // The contact kept: its own values win, the duplicate fills what it lacked, tags join, and
    // the stricter consent and opt-out hold (Ada's own number is now suppressed too).
    let profile: Value = app
        .ok_as(&owner.client, "/api/contacts/profile", json!({"id": ada}))
        .await;
    let c = &profile["contact"];
    assert_eq!(c["name"], "Ada Lovelace");
    assert_eq!(c["phone"], ADA);
    assert_eq!(c["email"], "ada@work.test");
    assert_eq!(c["tags"], json!(["vip", "lead"]));
    assert_eq!(
        c["custom_fields"],
        json!({"plan": "gold", "city": "London"})
    );
    assert_eq!(c["notes"], "Works at the lab");
    assert_eq!(c["consent_source"], "verbal");
    assert_eq!(c["opted_out"], true, "{c}");
    assert_eq!(
        app.count_where("suppression", &format!("phone = '{ADA}'"))
            .await,
        1
    );
    assert_eq!(profile["merged"], 1);
    assert_eq!(
        profile["conversation"]["message_count"],
        dup_texts + ada_texts
    );
    let numbers = profile["numbers"].as_array().unwrap();
    assert_eq!(numbers.len(), 1, "{profile}");
    assert_eq!(numbers[0]["number"], NUMBER);
    assert_eq!(numbers[0]["texts"], dup_texts + ada_texts);

    // The merged contact is gone, but its old link leads to Ada; the merge is audited.
    let (status, _) = app
        .call_as(&owner.client, "/api/contacts/get", json!({"id": dup}))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let old: Value = app
        .ok_as(&owner.client, "/api/contacts/profile", json!({"id": dup}))
        .await;
    assert_eq!(old["contact"]["id"], ada.to_string());
    // So does its old conversation link (a notification's, say).
    let conv: Value = app
        .ok_as(
            &owner.client,
            "/api/conversations/get",
            json!({"contact_id": dup}),
        )
        .await;
    assert_eq!(conv["contact"]["id"], ada.to_string());
    assert_eq!(conv["message_count"], dup_texts + ada_texts);
    assert_eq!(
        app.count_where("audit_log", "action = 'contacts_merged'")
            .await,
        1
    );
    let (status, _) = app
        .call_as(&other.client, "/api/contacts/profile", json!({"id": dup}))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "not another organisation's");

    // Ada merged in turn into a third record: the first old id follows the chain.
    let third = create(
        &app,
        &owner,
        json!({"name": "A. Lovelace", "phone": "+14155552673", "email": "", "tags": []}),
    )
    .await;
    let _: Value = app
        .ok_as(
            &owner.client,
            "/api/contacts/merge",
            merge(third, ada, true),
        )
        .await;
    let old: Value = app
        .ok_as(&owner.client, "/api/contacts/profile", json!({"id": dup}))
        .await;
    assert_eq!(old["contact"]["id"], third.to_string());
    assert_eq!(old["merged"], 2);

    // A text leaving right now refuses the merge, and nothing changes.
    let busy = create(
        &app,
        &owner,
        json!({"name": "Busy", "phone": "+14155552674", "email": "", "tags": []}),
    )
    .await;
    schedule(
        &app,
        &owner,
        busy,
        number,
        "sending",
        chrono::Duration::zero(),
    )
    .await;
    let before = app.snapshot().await;
    let (status, body) = app
        .call_as(
            &owner.client,
            "/api/contacts/merge",
            merge(third, busy, true),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(body.to_string().contains("being sent right now"), "{body}");
    assert_eq!(app.snapshot().await, before);
}
