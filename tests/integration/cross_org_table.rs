//! The table behind `cross_org.rs`: one row per server function with what another organisation,
//! a member without the role and nobody signed in must get, and organisation A's records that
//! the rows name (built in `cross_org_alpha.rs`).
use crate::campaign_support::*;
pub use crate::cross_org_alpha::{alpha, Alpha};
use serde_json::{json, Value};

/// What another organisation's owner gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Other {
    /// The call names one of A's records: 404, and nothing of A's changes.
    NotFound,
    /// The call works within the caller's own organisation: success, and nothing of A's in it.
    Own,
    /// The call is the caller's own, and this server refuses it with a reason (400): connecting
    /// a Twilio account to a server that texts through its outbox.
    Refused,
}

/// Who in A's organisation may make the call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Role {
    Owner,
    Member,
    /// Signing up, in and out, and asking who one is: anyone, signed in or not.
    Anyone,
    /// The caller's own record only (a session): everyone else, a member of A included, gets 404.
    Itself,
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
    // Two days ahead at 10:00 on the contact's clock ("Send later").
    let later = (crate::helpers::test_daytime() + chrono::Duration::days(2))
        .format("%Y-%m-%dT10:00:00")
        .to_string();
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
        // The caller's own keys: nobody else's ever.
        row("/api/auth/api_keys", Value::Null, Own, Member),
        // Another organisation's id is refused: only the account's own organisations open.
        row(
            "/api/auth/switch_organization",
            json!({"organization_id": c.org.org_id}),
            Refused,
            Member,
        ),
        row("/api/auth/me", Value::Null, Own, Anyone),
        row("/api/members", Value::Null, Own, Member),
        // The organisation's settings: read by anyone in it, changed by its owner.
        row("/api/organization", Value::Null, Own, Member),
        row("/api/time_zones", Value::Null, Own, Member),
        row("/api/auth/email", Value::Null, Own, Member),
        row(
            "/api/auth/email/notifications",
            json!({"on": false}),
            Own,
            Member,
        ),
        row(
            "/api/organization/update",
            json!({"settings": {"name": "Renamed", "time_zone": "UTC", "rules": "Be brief."}}),
            Own,
            Owner,
        ),
        row("/api/auth/sign_up_state", Value::Null, Own, Anyone),
        row(
            "/api/invitations/create",
            json!({"role": "member"}),
            Own,
            Owner,
        ),
        row("/api/invitations", Value::Null, Own, Owner),
        row(
            "/api/invitations/revoke",
            json!({"id": a.invitation}),
            NotFound,
            Owner,
        ),
        row(
            "/api/invitations/info",
            json!({"token": "not-a-token"}),
            Own,
            Anyone,
        ),
        row(
            "/api/invitations/accept",
            json!({"token": "not-a-token", "name": "N", "email": fresh(), "password": "member password 2"}),
            Own,
            Anyone,
        ),
        row(
            "/api/members/remove",
            json!({"user_id": a.member_user}),
            NotFound,
            Owner,
        ),
        row(
            "/api/members/role",
            json!({"user_id": a.member_user, "role": "owner"}),
            NotFound,
            Owner,
        ),
        row(
            "/api/members/reset_link",
            json!({"user_id": a.member_user}),
            NotFound,
            Owner,
        ),
        // The caller's own password (the call puts it in): every other session of theirs ends.
        row(
            "/api/auth/password",
            json!({"current": "x", "new": "y"}),
            Own,
            Member,
        ),
        row(
            "/api/auth/reset",
            json!({"token": "not-a-token", "password": "member password 2"}),
            Own,
            Anyone,
        ),
        row("/api/auth/sessions", Value::Null, Own, Member),
        row(
            "/api/auth/sessions/end",
            json!({"id": a.session}),
            NotFound,
            Itself,
        ),
        // Signs the caller out everywhere (the call signs them in again afterwards).
        row("/api/auth/sessions/end_all", json!({}), Own, Member),
        row("/api/audit", json!({"before": null}), Own, Owner),
        // Numbers.
        row("/api/numbers", Value::Null, Own, Member),
        row("/api/numbers/provider", Value::Null, Own, Member),
        row("/api/provider", Value::Null, Own, Member),
        row(
            "/api/provider/twilio",
            json!({"input": {"account_sid": "AC0123456789abcdef0123456789abcdef", "auth_token": "0123456789abcdef0123", "api_key_sid": "", "api_key_secret": ""}}),
            Refused,
            Owner,
        ),
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
            "/api/contacts/list",
            json!({"filter": {"tags_any": ["vip"]}, "after": null}),
            Own,
            Member,
        ),
        // Saved replies.
        row(
            "/api/saved_replies",
            json!({"query": "", "after": null}),
            Own,
            Member,
        ),
        row(
            "/api/saved_replies/save",
            json!({"id": null, "input": {"name": "Beta reply", "body": "Hello"}}),
            Own,
            Member,
        ),
        row(
            "/api/saved_replies/save",
            json!({"id": a.saved_reply, "input": {"name": "Renamed", "body": "Hello"}}),
            NotFound,
            Member,
        ),
        row(
            "/api/saved_replies/fill",
            json!({"id": a.saved_reply, "contact_id": a.alan}),
            NotFound,
            Member,
        ),
        row(
            "/api/saved_replies/delete",
            json!({"id": a.saved_reply}),
            NotFound,
            Owner,
        ),
        // Knowledge.
        row(
            "/api/knowledge",
            json!({"kind": null, "after": null}),
            Own,
            Member,
        ),
        row(
            "/api/knowledge/faq",
            json!({"id": null, "input": {"question": "Beta question?", "answer": "Beta answer"}}),
            Own,
            Member,
        ),
        row(
            "/api/knowledge/faq",
            json!({"id": a.knowledge, "input": {"question": "Renamed?", "answer": "Changed"}}),
            NotFound,
            Member,
        ),
        row(
            "/api/knowledge/fact",
            json!({"id": null, "input": {"label": "Beta hours", "value": "9 to 5"}}),
            Own,
            Member,
        ),
        row(
            "/api/knowledge/delete",
            json!({"id": a.knowledge}),
            NotFound,
            Owner,
        ),
        row(
            "/api/knowledge/website",
            json!({"id": a.website, "input": {"url": "http://127.0.0.1:9/", "depth": 0, "pages": 1, "refresh_hours": null}}),
            NotFound,
            Owner,
        ),
        row(
            "/api/knowledge/read_again",
            json!({"id": a.document}),
            NotFound,
            Member,
        ),
        row(
            "/api/knowledge/rename",
            json!({"id": a.document, "title": "Beta's name for it"}),
            NotFound,
            Owner,
        ),
        row(
            "/api/knowledge/try",
            json!({"question": "how much is whitening?"}),
            Own,
            Member,
        ),
        row(
            "/api/knowledge/try_agents",
            json!({"question": "how much is whitening?"}),
            Own,
            Member,
        ),
        row("/api/knowledge/holding", json!({}), Own, Member),
        row(
            "/api/knowledge/holding/set",
            json!({"text": "Beta will check and text you back."}),
            Own,
            Owner,
        ),
        // API keys: an owner's, of their own organisation only.
        row("/api/api_keys", json!({"before": null}), Own, Owner),
        row(
            "/api/api_keys/create",
            json!({"name": "Beta key", "scopes": ["contacts:read"], "rate_per_second": null, "burst": null}),
            Own,
            Owner,
        ),
        row(
            "/api/api_keys/revoke",
            json!({"id": a.api_key}),
            NotFound,
            Owner,
        ),
        // A person's own campaign, to a segment of A's.
        row(
            "/api/campaigns/audience",
            json!({"audience": {"kind": "segment", "id": a.segment}, "send_at": null}),
            NotFound,
            Member,
        ),
        row(
            "/api/campaigns/preview",
            json!({"audience": {"kind": "segment", "id": a.segment}, "body": "Hi {{contact.first_name|there}}"}),
            NotFound,
            Member,
        ),
        row(
            "/api/campaigns/create",
            json!({"campaign": {"audience": {"kind": "segment", "id": a.segment}, "body": "Hi {{contact.first_name|there}}, from the table"}}),
            NotFound,
            Member,
        ),
        // Segments.
        row("/api/segments", json!({}), Own, Member),
        row(
            "/api/segments/save",
            json!({"name": "Beta segment", "filter": {"tags_any": ["vip"]}}),
            Own,
            Member,
        ),
        row(
            "/api/segments/delete",
            json!({"id": a.segment}),
            NotFound,
            Owner,
        ),
        row(
            "/api/messages/search",
            json!({"query": "quote", "before": null}),
            Own,
            Member,
        ),
        row(
            "/api/contacts/get",
            json!({"id": c.katherine}),
            NotFound,
            Member,
        ),
        row(
            "/api/contacts/profile",
            json!({"id": c.katherine}),
            NotFound,
            Member,
        ),
        // A preview: the table's calls must leave A's contacts as they are.
        row(
            "/api/contacts/merge",
            json!({"keep": c.katherine, "duplicate": c.linus, "apply": false}),
            NotFound,
            Owner,
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
            json!({"id": c.boris, "opted_out": false, "reason": "a new consent form"}),
            NotFound,
            Owner,
        ),
        row(
            "/api/contacts/import",
            json!({"csv": "name,phone\nImported,+14155552691\n"}),
            Own,
            Member,
        ),
        row(
            "/api/contacts/import/preview",
            json!({"text": "name,phone\nPreviewed,+14155552692\n", "first_row": 2, "mapping": null}),
            Own,
            Member,
        ),
        row(
            "/api/contacts/import/start",
            json!({"file_name": "own.csv", "header": "name,phone", "mapping": [{"to": "name"}, {"to": "phone"}], "total_rows": 1, "fingerprint": "own"}),
            Own,
            Member,
        ),
        row(
            "/api/contacts/import/rows",
            json!({"id": a.import, "first_row": 2, "rows": "Imported Two,+14155552693"}),
            NotFound,
            Member,
        ),
        row("/api/contacts/import/unfinished", json!({}), Own, Member),
        // Conversations and texts.
        row(
            "/api/conversations",
            json!({"filter": "all", "after": null}),
            Own,
            Member,
        ),
        // Narrowed to A's number.
        row(
            "/api/conversations",
            json!({"filter": "all", "after": null, "number_id": a.number}),
            NotFound,
            Member,
        ),
        row(
            "/api/conversations/get",
            json!({"contact_id": a.alan}),
            NotFound,
            Member,
        ),
        row(
            "/api/conversations/open",
            json!({"contact_id": a.alan}),
            NotFound,
            Member,
        ),
        row(
            "/api/conversations/older",
            json!({"contact_id": a.alan, "before": i64::MAX}),
            NotFound,
            Member,
        ),
        // The team inbox: views, state, assignee and the handoff.
        row("/api/inbox/counts", json!({}), Own, Member),
        row(
            "/api/inbox/counts",
            json!({"number_id": a.number}),
            NotFound,
            Member,
        ),
        row(
            "/api/conversations/notes",
            json!({"contact_id": a.alan, "before": null}),
            NotFound,
            Member,
        ),
        row(
            "/api/conversations/notes/add",
            json!({"contact_id": a.alan, "body": "Bravo's note"}),
            NotFound,
            Member,
        ),
        row(
            "/api/conversations/triage",
            json!({"contact_id": a.alan}),
            NotFound,
            Member,
        ),
        row(
            "/api/conversations/state",
            json!({"contact_id": a.alan, "change": {"to": "snooze_for", "minutes": 60}}),
            NotFound,
            Member,
        ),
        row(
            "/api/conversations/assign",
            json!({"contact_id": a.alan, "assignee": null}),
            NotFound,
            Member,
        ),
        row(
            "/api/conversations/resume_ai",
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
        // Texting law: possible opt-outs (any member decides), and the wording (owners change).
        row(
            "/api/compliance/possible_opt_outs",
            json!({"page": 0}),
            Own,
            Member,
        ),
        row(
            "/api/compliance/possible_opt_outs/decide",
            json!({"id": a.review, "opt_out": false}),
            NotFound,
            Member,
        ),
        row("/api/compliance/settings", Value::Null, Own, Member),
        row(
            "/api/compliance/settings/update",
            json!({"settings": {"help_text": "", "opt_out_reply": "", "ai_disclosure": true, "ai_disclosure_text": "", "opt_out_phrases": "basta"}}),
            Own,
            Owner,
        ),
        row("/api/notifications", json!({}), Own, Member),
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
            "/api/agents/sources",
            json!({"id": a.agent, "sources": [a.knowledge]}),
            NotFound,
            Member,
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
            json!({"input": {"consent": {"source": "web_form", "note": "test"}, "name": "New suggester", "persona": "", "auto_reply": true, "confidence_threshold": 0.9}}),
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
            "/api/plans/audience",
            json!({"plan_id": a.plan, "search": null, "after": null}),
            NotFound,
            Member,
        ),
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
        row(
            "/api/plans/steps",
            json!({"id": a.plan, "action": {"kind": "continue"}}),
            NotFound,
            Member,
        ),
        row(
            "/api/plans/simulate",
            json!({"id": a.plan}),
            NotFound,
            Member,
        ),
        row(
            "/api/plans/replan",
            json!({"id": a.plan, "note": "again"}),
            NotFound,
            Member,
        ),
        row(
            "/api/plans/revisions",
            json!({"id": a.plan}),
            NotFound,
            Member,
        ),
        // "Send later": a member's text for a time on the contact's clock, changed until it goes.
        row(
            "/api/scheduled/add",
            json!({"request": {"contact_id": a.alan, "phone_number_id": a.number, "body": "See you soon", "at": later}}),
            NotFound,
            Member,
        ),
        row(
            "/api/scheduled/when",
            json!({"contact_id": a.alan, "at": later}),
            NotFound,
            Member,
        ),
        row(
            "/api/scheduled/edit",
            json!({"id": a.scheduled, "body": "See you later", "at": later}),
            NotFound,
            Member,
        ),
        // Texts an agent scheduled: listed per contact, cancelled by any member.
        row(
            "/api/scheduled/list",
            json!({"contact_id": a.alan}),
            NotFound,
            Member,
        ),
        row(
            "/api/scheduled/cancel",
            json!({"id": a.scheduled}),
            NotFound,
            Member,
        ),
        // Campaigns (bulk operations): approving the review sheet is an owner's power.
        row("/api/operations", json!({"before": null}), Own, Member),
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
            json!({"id": a.op, "digest": ""}),
            NotFound,
            Owner,
        ),
        row(
            "/api/operations/cancel",
            json!({"id": a.op}),
            NotFound,
            Member,
        ),
        row(
            "/api/operations/pictures",
            json!({"id": a.op, "upload_ids": []}),
            NotFound,
            Member,
        ),
        row(
            "/api/operations/track_links",
            json!({"id": a.op, "on": false}),
            NotFound,
            Member,
        ),
        row(
            "/api/operations/resume",
            json!({"id": a.op}),
            NotFound,
            Owner,
        ),
        row(
            "/api/plans/stop",
            json!({"id": a.plan, "reason": "wrong list"}),
            NotFound,
            // The member directs this plan's agent: theirs to stop.
            Member,
        ),
    ]
}
