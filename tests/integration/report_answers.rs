//! The Reports page's answers and AI sections (issue 30 §5) against a hand count: how fast texts
//! were answered in business hours (the median and the share within 5 minutes), and the AI's
//! share agent by agent (suggestions offered, used as written, edited, not used; autonomous
//! replies; escalations; handoffs). The texts are written with their times (a week of a Los
//! Angeles business), the suggestions are used through the real send API, and the pages and the
//! CSV are read over HTTP. Owners change the business hours; members cannot; bad hours keep
//! what was typed; another organisation sees none of it and cannot use its suggestions.
use crate::helpers::*;
use crate::on_both_databases;
use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc};
use herald::messaging::entity as message;
use herald::reports::hours::Hours;
use reqwest::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, NotSet, QueryFilter, QueryOrder, Set};
use serde_json::json;
use uuid::Uuid;

on_both_databases!(answers_and_the_ais_share_equal_a_hand_count);
on_both_databases!(owners_set_the_business_hours);

const ZONE: chrono_tz::Tz = chrono_tz::America::Los_Angeles;

/// The text inside `<… id="{id}">…</…>` of the page.
fn figure(html: &str, id: &str) -> String {
    let at = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("{id} in {html}"));
    let open = at + html[at..].find('>').unwrap() + 1;
    let close = open + html[open..].find('<').unwrap();
    html[open..close].to_owned()
}

/// A text as the test writes it.
struct Text<'a> {
    contact: Uuid,
    number: Uuid,
    inbound: bool,
    at: DateTime<Utc>,
    purpose: Option<&'a str>,
    ai_origin: Option<&'a str>,
    agent: Option<Uuid>,
    keyword: Option<&'a str>,
}

async fn write(app: &TestApp, org: Uuid, t: Text<'_>) -> Uuid {
    let id = Uuid::new_v4();
    message::Entity::insert(message::ActiveModel {
        id: Set(id),
        organization_id: Set(org),
        contact_id: Set(t.contact),
        phone_number_id: Set(t.number),
        direction: Set(if t.inbound { "inbound" } else { "outbound" }.into()),
        body: Set("Hello".into()),
        media_count: Set(0),
        media_urls: Set(json!([])),
        media_types: Set(None),
        provider_sid: Set(Some(format!("SManswer{}", id.simple()))),
        status: Set(if t.inbound { "received" } else { "delivered" }.into()),
        ai_origin: Set(t.ai_origin.map(str::to_owned)),
        keyword: Set(t.keyword.map(str::to_owned)),
        error: Set(None),
        idempotency_key: Set(None),
        read_at: Set(Some(t.at)),
        created_at: Set(t.at),
        routed_at: Set(t.inbound.then_some(t.at)),
        send_state: Set((!t.inbound).then_some(herald::messaging::model::SendState::Sent)),
        attempt_key: Set(None),
        attempt_started_at: Set(None),
        send_attempts: Set(0),
        reconcile_failures: Set(0),
        purpose: Set(t.purpose.map(str::to_owned)),
        seq: NotSet,
        rolled_up: NotSet,
        outcome_rolled: NotSet,
        agent_id: Set(t.agent),
        cites: Set(None),
    })
    .exec(&app.state.db)
    .await
    .unwrap();
    id
}

/// The response times by hand: for each reply, in each contact's order, the business seconds
/// from the first non-keyword text in since the reply before it; on one number, or all.
async fn hand_count(app: &TestApp, org: Uuid, number: Option<Uuid>) -> Vec<i64> {
    let rows = message::Entity::find()
        .filter(message::Column::OrganizationId.eq(org))
        .order_by_asc(message::Column::Seq)
        .all(&app.state.db)
        .await
        .unwrap();
    let hours = Hours::default();
    let mut waiting: std::collections::HashMap<Uuid, &message::Model> = Default::default();
    let mut out = Vec::new();
    for m in &rows {
        if m.direction == "inbound" && m.keyword.is_none() {
            waiting.entry(m.contact_id).or_insert(m);
        } else if m.direction == "outbound" && m.purpose.as_deref() == Some("reply") {
            if let Some(first) = waiting.remove(&m.contact_id) {
                if number.is_none_or(|n| n == first.phone_number_id) {
                    out.push(hours.seconds(first.created_at, m.created_at, ZONE));
                }
            }
        }
    }
    out.sort();
    out
}

async fn answers_and_the_ais_share_equal_a_hand_count(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = app.new_org("Answer Co").await;
    {
        use sea_orm::ConnectionTrait;
        app.state
            .db
            .execute_unprepared(
                "UPDATE organization SET time_zone = 'America/Los_Angeles' WHERE name = 'Answer Co'",
            )
            .await
            .unwrap();
    }
    let main = app.add_number(&org, "+14155550150").await;
    let second = app.add_number(&org, "+14155550151").await;
    let mut c = Vec::new();
    for (i, name) in ["Ana", "Ben", "Cy", "Dee", "Eve"].iter().enumerate() {
        c.push(
            app.add_contact(&org, name, &format!("+1415555026{i}"))
                .await,
        );
    }
    let agent: Uuid = app.own_agent(&org).await["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let front_desk = Uuid::new_v4();
    herald::ai_agent::entity::text_agent::Entity::insert(
        herald::ai_agent::entity::text_agent::ActiveModel {
            id: Set(front_desk),
            organization_id: Set(org.org_id),
            name: Set("Front desk".into()),
            instructions: Set("Be kind".into()),
            auto_reply: Set(true),
            confidence_threshold: Set(0.5),
            created_at: Set(app.state.clock.now()),
        },
    )
    .exec(&app.state.db)
    .await
    .unwrap();

    // A Monday two to three weeks back, in Los Angeles.
    let today = app.state.clock.now().with_timezone(&ZONE).date_naive();
    let monday =
        today - Duration::days(today.weekday().num_days_from_monday() as i64) - Duration::days(14);
    let la = |d: i64, h: u32, m: u32, s: u32| {
        let day: NaiveDate = monday + Duration::days(d);
        ZONE.from_local_datetime(&day.and_hms_opt(h, m, s).unwrap())
            .unwrap()
            .with_timezone(&Utc)
    };
    let inbound = |contact, at| Text {
        contact,
        number: main,
        inbound: true,
        at,
        purpose: None,
        ai_origin: None,
        agent: None,
        keyword: None,
    };
    let person = |contact, at| Text {
        inbound: false,
        purpose: Some("reply"),
        ..inbound(contact, at)
    };
    let by_agent = |contact, at, origin, id| Text {
        ai_origin: Some(origin),
        agent: Some(id),
        ..person(contact, at)
    };
    let org_id = org.org_id;
    // Ana: two texts, answered by a person 3 minutes after the first; then one answered by the
    // agent in 30 s, after which a person takes over (a handoff, no wait).
    write(&app, org_id, inbound(c[0], la(0, 9, 0, 0))).await;
    write(&app, org_id, inbound(c[0], la(0, 9, 1, 0))).await;
    write(&app, org_id, person(c[0], la(0, 9, 3, 0))).await;
    write(&app, org_id, inbound(c[0], la(0, 10, 0, 0))).await;
    write(
        &app,
        org_id,
        by_agent(c[0], la(0, 10, 0, 30), "agent", agent),
    )
    .await;
    write(&app, org_id, person(c[0], la(0, 10, 5, 0))).await;
    // Ben: Friday evening, answered Monday at 09:05: five business minutes. Then STOP, which
    // Herald answers itself: no wait.
    write(&app, org_id, inbound(c[1], la(4, 18, 0, 0))).await;
    write(&app, org_id, person(c[1], la(7, 9, 5, 0))).await;
    let stop = Text {
        keyword: Some("STOP"),
        ..inbound(c[1], la(7, 9, 10, 0))
    };
    write(&app, org_id, stop).await;
    let confirm = Text {
        purpose: Some("compliance"),
        ..person(c[1], la(7, 9, 10, 1))
    };
    write(&app, org_id, confirm).await;
    // Cy: Tuesday 16:50, answered Wednesday 09:10: twenty business minutes.
    write(&app, org_id, inbound(c[2], la(1, 16, 50, 0))).await;
    write(&app, org_id, person(c[2], la(2, 9, 10, 0))).await;
    // Dee: answered in 5 s by the legacy suggester's auto-reply.
    write(&app, org_id, inbound(c[3], la(2, 12, 0, 0))).await;
    let auto = by_agent(c[3], la(2, 12, 0, 5), "auto_reply", front_desk);
    write(&app, org_id, auto).await;

    // Eve texts the second number; the agent offers three suggestion sets there.
    let asked = write(
        &app,
        org_id,
        Text {
            number: second,
            ..inbound(c[4], la(3, 11, 0, 0))
        },
    )
    .await;
    let mut sets = Vec::new();
    for i in 0..3 {
        let id = Uuid::new_v4();
        use herald::ai_agent::entity::text_agent_suggestion as set;
        set::Entity::insert(set::ActiveModel {
            id: Set(id),
            organization_id: Set(org_id),
            text_agent_id: Set(None),
            ai_agent_id: Set(Some(agent)),
            message_id: Set(asked),
            suggestions: Set(json!([{"body": format!("We open at {i}"), "confidence": 0.9}])),
            created_at: Set(la(3, 11, 0, 10 + i)),
            source_key: Set(None),
            used_by: Set(None),
            used_as: Set(None),
            rolled_up: Set(false),
            use_rolled: Set(false),
        })
        .exec(&app.state.db)
        .await
        .unwrap();
        sets.push(id);
    }
    let send = |client: &reqwest::Client, contact: Uuid, set: Uuid, body: &str| {
        client
            .post(app.url("/api/messages/send"))
            .json(
                &json!({"request": {"contact_id": contact, "phone_number_id": second,
                "body": body, "suggestion_id": set}}),
            )
            .send()
    };
    // Another organisation cannot use the set; nor can another conversation.
    let other = app.new_org("Other Co").await;
    let outs = || app.count_where("message", "direction = 'outbound'");
    let before = outs().await;
    let res = send(&other.client, c[4], sets[0], "We open at 0")
        .await
        .unwrap();
    assert!(res.status().is_client_error(), "{}", res.status());
    let res = send(&org.client, c[0], sets[0], "We open at 0")
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert_eq!(outs().await, before, "nothing was sent");
    // Used as written (spacing aside), edited, and the third never used; a second text from
    // the first set counts nothing more.
    for (set, body) in [
        (sets[0], "We  open at 0 "),
        (sets[1], "We open at 1, see you!"),
        (sets[0], "We open at 0"),
    ] {
        let res = send(&org.client, c[4], set, body).await.unwrap();
        assert_eq!(
            res.status(),
            StatusCode::OK,
            "{}",
            res.text().await.unwrap()
        );
    }
    app.settle().await;
    let agent_model = herald::ai_agent::entity::ai_agent::Entity::find_by_id(agent)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    herald::ai_agent::tools::escalate_to_owner(
        &app.state,
        &agent_model,
        org_id,
        herald::ai_agent::tools::Escalation {
            title: "Eve needs you".into(),
            body: "A refund question".into(),
            link: None,
            source_key: Some(format!("report-escalation-{org_id}")),
        },
    )
    .await
    .unwrap();

    // The answers on the main number: 5 s, 30 s, 3 min, 5 min and 20 min.
    let q = "/reports?number=".to_owned() + &main.to_string();
    let html = app.page_text(&org.client, &q).await;
    let main_secs = hand_count(&app, org_id, Some(main)).await;
    assert_eq!(main_secs, vec![5, 30, 180, 300, 1200]);
    let median = main_secs[(main_secs.len() - 1) / 2];
    assert_eq!(
        figure(&html, "response-median"),
        herald::reports::replies::span(median)
    );
    assert_eq!(figure(&html, "response-median"), "3 min 00 s");
    assert_eq!(figure(&html, "response-fast"), "80.0 %");
    assert_eq!(figure(&html, "response-count"), "5");

    // All numbers: the same hand count, Eve's wait included.
    let html = app.page_text(&org.client, "/reports").await;
    let all = hand_count(&app, org_id, None).await;
    assert_eq!(all.len(), 6, "{all:?}");
    let fast = all.iter().filter(|s| **s <= 300).count() as f64 * 100.0 / all.len() as f64;
    assert_eq!(
        figure(&html, "response-median"),
        herald::reports::replies::span(all[(all.len() - 1) / 2])
    );
    assert_eq!(figure(&html, "response-fast"), format!("{fast:.1} %"));
    assert!(
        figure(&html, "business-hours").contains("Mon, Tue, Wed, Thu, Fri 09:00–17:00"),
        "{html}"
    );

    // The AI's share: replies by anyone are 6 on the main number and 3 on the second; agents
    // wrote 2 on their own and 2 were suggestions a person sent.
    assert_eq!(
        figure(&html, "ai-share"),
        "Agents wrote 44.4 % of the 9 replies: 2 sent on their own, 2 suggested and sent by a person."
    );
    let csv = app
        .page_text(&org.client, "/reports/agents.csv?from=&to=&number=")
        .await;
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "agent,offered,used_as_written,edited,not_used,autonomous_replies,escalations,handoffs"
    );
    let name = agent_model.name.clone();
    assert!(
        lines.contains(&format!("{name},3,1,1,1,1,1,1").as_str()),
        "{csv}"
    );
    assert!(lines.contains(&"Front desk,0,0,0,0,1,0,0"), "{csv}");
    assert_eq!(lines.last().unwrap(), &"All agents,3,1,1,1,2,1,1", "{csv}");
    assert!(
        html.contains(&name) && html.contains("Front desk"),
        "{html}"
    );
    // The main number alone: no suggestions there, and escalations belong to no number.
    let csv = app
        .page_text(
            &org.client,
            &format!("/reports/agents.csv?from=&to=&number={main}"),
        )
        .await;
    assert!(csv.contains(&format!("{name},0,0,0,0,1,0,1")), "{csv}");

    // Counted once: more passes change nothing.
    herald::reports::rollup::catch_up(&app.state, 5)
        .await
        .unwrap();
    let again = app.page_text(&org.client, "/reports").await;
    assert_eq!(figure(&again, "ai-share"), figure(&html, "ai-share"));
    assert_eq!(figure(&again, "response-count"), "6");
    // Another organisation sees none of it.
    let theirs = app.page_text(&other.client, "/reports").await;
    assert_eq!(figure(&theirs, "response-count"), "0");
    assert!(!theirs.contains("Front desk"));
}

async fn owners_set_the_business_hours(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Hours Co").await;
    let dana = app.add_member(&owner, "Dana").await;
    let post = |c: &reqwest::Client, form: Vec<(&'static str, &'static str)>| {
        c.post(app.url("/reports/hours")).form(&form).send()
    };
    // Bad input: a clear error, what was typed kept.
    let res = post(
        &owner.client,
        vec![
            ("d1", "on"),
            ("d6", "on"),
            ("open", "18:00"),
            ("close", "08:00"),
        ],
    )
    .await
    .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let html = res.text().await.unwrap();
    assert!(
        figure(&html, "hours-error").contains("Closing time must come after opening time"),
        "{html}"
    );
    assert!(
        html.contains("value=\"18:00\"") && html.contains("name=\"d6\" checked"),
        "{html}"
    );
    // A member reads them but cannot change them, and sees no form.
    let res = post(
        &dana.client,
        vec![("d1", "on"), ("open", "08:00"), ("close", "18:00")],
    )
    .await
    .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let html = app.page_text(&dana.client, "/reports").await;
    assert!(!html.contains("id=\"hours-form\""), "{html}");
    assert!(figure(&html, "business-hours").contains("Fri 09:00–17:00"));
    // The owner sets Monday to Saturday, 08:00 to 18:30.
    let res = post(
        &owner.client,
        vec![
            ("d1", "on"),
            ("d2", "on"),
            ("d3", "on"),
            ("d4", "on"),
            ("d5", "on"),
            ("d6", "on"),
            ("open", "08:00"),
            ("close", "18:30"),
        ],
    )
    .await
    .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let html = app.page_text(&dana.client, "/reports").await;
    assert!(
        figure(&html, "business-hours").contains("Mon, Tue, Wed, Thu, Fri, Sat 08:00–18:30"),
        "{html}"
    );
    let row = herald::auth::entity::organization::Entity::find_by_id(owner.org_id)
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            row.business_days.as_str(),
            row.business_open,
            row.business_close
        ),
        ("123456", 480, 1110)
    );
}
