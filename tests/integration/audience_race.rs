//! Two approvals of one audience plan at once (issue 27 §1): exactly one wins; the other is told
//! the plan is being (or was) decided; the audience is resolved, recorded and run once.
use crate::campaign_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use crate::step_plan_support::until;
use herald::contacts::model::ContactFilter;
use herald::plans::model::{Audience, PlanAction};
use herald::plans::service::{present_plan, Presented};
use serde_json::json;

async fn two_approvals_at_once_run_an_audience_plan_once(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let c = crm(&app).await;
    let agent = assistant_agent(&app, c.org.org_id).await;
    for round in 0..3 {
        let plan = present_plan(
            &app.state,
            &agent,
            Presented {
                thread_id: None,
                title: "Tag the quote leads",
                summary: "All of them.",
                action: PlanAction::TagContacts {
                    changes: vec![],
                    segment: Some(Audience {
                        filter: Some(ContactFilter {
                            tags_any: vec!["quote".into()],
                            ..Default::default()
                        }),
                        ..Default::default()
                    }),
                    add_tags: vec![format!("race-{round}")],
                    remove_tags: vec![],
                },
                policy_override: None,
                source_key: None,
                revises: None,
            },
        )
        .await
        .expect("presented");
        let body = json!({"id": plan.id});
        let (a, b) = tokio::join!(
            app.call_as(&c.org.client, "/api/plans/approve", body.clone()),
            app.call_as(&c.org.client, "/api/plans/approve", body.clone()),
        );
        let mut codes = [a.0.as_u16(), b.0.as_u16()];
        codes.sort();
        assert_eq!(codes, [200, 409], "round {round}: {a:?} {b:?}");
        let loser = if a.0.as_u16() == 409 { &a.1 } else { &b.1 };
        let said = loser.to_string();
        assert!(
            said.contains("approving this plan already") || said.contains("already"),
            "{said}"
        );
        let done = until(&app, &c.org, plan.id, |p| p["status"] == "done").await;
        let members = done["audience"]["members"].as_u64().unwrap();
        let decisions = done["audit"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["kind"] == "decision" && a["actor"] == "user")
            .count();
        assert_eq!(decisions, 1, "one person's decision recorded: {done}");
        let tagged = app
            .count_where("contact_tag", &format!("tag = 'race-{round}'"))
            .await;
        assert_eq!(tagged as u64, members, "round {round}: {done}");
    }
}

on_both_databases!(two_approvals_at_once_run_an_audience_plan_once);
