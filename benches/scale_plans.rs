//! The scale benchmark's plans over a segment: a tag plan and a campaign plan whose audience is
//! a filter matching about a fifth of the organisation (29,312 of 100,000 in the seed), each presented (resolved),
//! approved (resolved again and compared) and executed (every member tagged; the campaign's
//! items written), with the card's payload size. Each figure prints beside its goal.
use herald::auth::session::Member;
use herald::contacts::model::ContactFilter;
use herald::plans::model::{Audience, PlanAction, PlanStatus};
use herald::plans::service::{present_plan, Presented};
use herald::platform::AppState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// A figure: what, how long (or how big), the goal, and whether it was met.
pub struct Figure {
    pub what: String,
    pub value: String,
    pub goal: &'static str,
    pub met: bool,
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// No reply in 72 of the seed's 90 days: a fifth of the contacts.
fn a_fifth() -> Audience {
    Audience {
        filter: Some(ContactFilter {
            no_reply_within_days: Some(72),
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn wait_until<F, Fut>(what: &str, mut done: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..12_000 {
        if done().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{what} never happened");
}

async fn plan_row(state: &AppState, org: Uuid, id: Uuid) -> herald::plans::entity::plan::Model {
    herald::plans::service::find_in_org(&state.db, org, id)
        .await
        .unwrap()
}

pub async fn plans_over_a_segment(state: &AppState, org: Uuid, member: &Member) -> Vec<Figure> {
    use herald::ai_agent::entity::ai_agent;
    let agent = ai_agent::Entity::find()
        .filter(ai_agent::Column::OrganizationId.eq(org))
        .filter(ai_agent::Column::Name.eq("Assistant"))
        .one(&state.db)
        .await
        .unwrap()
        .expect("the organisation's Assistant");
    let present = |action: PlanAction| {
        let agent = agent.clone();
        async move {
            present_plan(
                state,
                &agent,
                Presented {
                    thread_id: None,
                    title: "Bench plan",
                    summary: "A fifth of the contacts.",
                    action,
                    policy_override: None,
                    source_key: None,
                    revises: None,
                },
            )
            .await
            .unwrap()
        }
    };
    let mut out = Vec::new();

    // Tagging.
    let start = Instant::now();
    let tag = present(PlanAction::TagContacts {
        changes: vec![],
        segment: Some(a_fifth()),
        add_tags: vec!["faded".into()],
        remove_tags: vec![],
    })
    .await;
    let presented = start.elapsed();
    let view = herald::plans::service::view(state, tag.clone())
        .await
        .unwrap();
    let members = view.audience.as_ref().map_or(0, |a| a.members);
    let payload = serde_json::to_string(&view).unwrap().len();
    out.push(Figure {
        what: format!("tag plan over {members} members: presented"),
        value: secs(presented),
        goal: "≤ 2 s",
        met: presented <= Duration::from_secs(2),
    });
    out.push(Figure {
        what: "  its card's payload".into(),
        value: format!("{:.1} KB", payload as f64 / 1000.0),
        goal: "≤ 100 KB",
        met: payload <= 100_000,
    });
    let start = Instant::now();
    approve_after_looking(state, member, tag.id).await;
    let approved = start.elapsed();
    wait_until("the tagging", || async {
        plan_row(state, org, tag.id).await.status == PlanStatus::Done
    })
    .await;
    let tagged = start.elapsed();
    out.push(Figure {
        what: "  approved (resolved again and compared)".into(),
        value: secs(approved),
        goal: "-",
        met: true,
    });
    // The goal is 20,000 tagged in 5 s: the filter matches about a fifth, not exactly 20,000,
    // so the time is also given per 20,000 and held to the goal at that rate.
    let per_20k = tagged.as_secs_f64() * 20_000.0 / members.max(1) as f64;
    out.push(Figure {
        what: format!("  every member tagged ({members})"),
        value: secs(tagged),
        goal: "-",
        met: true,
    });
    // Below 20,000 members the fixed costs (the executor's first claim) would swamp the rate.
    if members >= 20_000 {
        out.push(Figure {
            what: "  the same, per 20,000 members".into(),
            value: format!("{per_20k:.2} s"),
            goal: "≤ 5 s",
            met: per_20k <= 5.0,
        });
    }

    // A campaign: its items written from the resolved members.
    let start = Instant::now();
    let campaign = present(PlanAction::BulkSmsCampaign {
        audience: vec![],
        segment: Some(a_fifth()),
        message_concept: "We miss you: 10% off this week.".into(),
        from_number_id: None,
    })
    .await;
    let presented = start.elapsed();
    out.push(Figure {
        what: format!("campaign plan over {members} members: presented"),
        value: secs(presented),
        goal: "≤ 2 s",
        met: presented <= Duration::from_secs(2),
    });
    let start = Instant::now();
    approve_after_looking(state, member, campaign.id).await;
    wait_until("the campaign's items", || async {
        plan_row(state, org, campaign.id)
            .await
            .executed_ref
            .is_some()
    })
    .await;
    let written = start.elapsed();
    let op = plan_row(state, org, campaign.id).await.executed_ref;
    out.push(Figure {
        what: "  approved, its items written (drafting starts)".into(),
        value: secs(written),
        goal: "-",
        met: true,
    });
    // Drafting runs at the model's limit; the bench stops it so the next size starts quiet.
    if let Some(op) = op {
        let _ = herald::campaign::review::cancel(state, member, op).await;
    }
    out
}

/// Approves as a person would: when members joined or left since the plan was written (the
/// "replied within 30 days" window moves with the clock, and at 100,000 contacts one crosses it
/// every minute or so), the card shows the change and they approve again.
async fn approve_after_looking(state: &AppState, member: &Member, plan: uuid::Uuid) {
    for _ in 0..5 {
        match herald::plans::decisions::approve(state, member, plan).await {
            Ok(_) => return,
            Err(herald::error::AppError::Conflict(change)) => println!("  ({change})"),
            Err(e) => panic!("approving {plan}: {e}"),
        }
    }
    panic!("the audience of {plan} kept changing");
}
