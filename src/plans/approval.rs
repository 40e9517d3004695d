//! `resolve_approval` and `assess_risk`: whether a plan waits for a person, and why.
use crate::plans::model::{ApprovalPolicy, Decision, PlanAction};

/// Plans changing more rows than this gate under RiskGated (`PLAN_RISK_MAX_ROWS`, default 25).
pub const DEFAULT_MAX_ROWS: usize = 25;

/// The policy in force: the agent's default, an action's override, and campaigns always reviewed.
pub fn effective_policy(
    agent_default: ApprovalPolicy,
    action_override: Option<ApprovalPolicy>,
    action: &PlanAction,
) -> ApprovalPolicy {
    if action.sends_messages() {
        return ApprovalPolicy::HumanReview;
    }
    action_override.unwrap_or(agent_default)
}

/// Gates a plan that sends messages, spends money, or changes more than `max_rows` rows.
pub fn assess_risk(action: &PlanAction, max_rows: usize) -> (Decision, String) {
    if action.sends_messages() {
        return (Decision::Gate, "It sends messages.".into());
    }
    if action.spends_money() {
        return (Decision::Gate, "It spends money.".into());
    }
    let rows = action.rows_mutated();
    if rows > max_rows {
        return (
            Decision::Gate,
            format!("It changes {rows} contacts, more than the {max_rows} allowed without review."),
        );
    }
    (
        Decision::Proceed,
        format!("Low risk: it changes {rows} contacts (at most {max_rows}) and sends nothing."),
    )
}

pub fn resolve_approval(
    policy: ApprovalPolicy,
    action: &PlanAction,
    max_rows: usize,
) -> (Decision, String) {
    match policy {
        ApprovalPolicy::HumanReview => {
            (Decision::Gate, "The policy is to review every plan.".into())
        }
        ApprovalPolicy::Auto => (
            Decision::Proceed,
            "The policy approves plans automatically.".into(),
        ),
        ApprovalPolicy::RiskGated => assess_risk(action, max_rows),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plans::model::ContactChange;
    use uuid::Uuid;

    fn tagging(n: usize) -> PlanAction {
        PlanAction::TagContacts {
            changes: (0..n)
                .map(|_| ContactChange {
                    contact_id: Uuid::new_v4(),
                    include: true,
                    reason: "quiet".into(),
                    add_tags: vec!["quiet".into()],
                    remove_tags: vec![],
                    kind: String::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn every_policy_and_risk() {
        let small = tagging(3);
        let big = tagging(26);
        assert_eq!(
            resolve_approval(ApprovalPolicy::HumanReview, &small, 25).0,
            Decision::Gate
        );
        assert_eq!(
            resolve_approval(ApprovalPolicy::HumanReview, &big, 25).0,
            Decision::Gate
        );
        assert_eq!(
            resolve_approval(ApprovalPolicy::Auto, &small, 25).0,
            Decision::Proceed
        );
        assert_eq!(
            resolve_approval(ApprovalPolicy::Auto, &big, 25).0,
            Decision::Proceed
        );
        assert_eq!(
            resolve_approval(ApprovalPolicy::RiskGated, &small, 25).0,
            Decision::Proceed
        );
        let (d, why) = resolve_approval(ApprovalPolicy::RiskGated, &big, 25);
        assert_eq!(d, Decision::Gate);
        assert!(why.contains("26"));
        assert_eq!(
            resolve_approval(ApprovalPolicy::RiskGated, &tagging(25), 25).0,
            Decision::Proceed,
            "at the limit proceeds"
        );
        assert_eq!(
            resolve_approval(ApprovalPolicy::RiskGated, &small, 2).0,
            Decision::Gate,
            "N is configurable"
        );
    }

    #[test]
    fn excluded_contacts_are_not_mutations() {
        let mut a = tagging(30);
        for c in a.changes_mut().iter_mut().skip(10) {
            c.include = false;
        }
        assert_eq!(a.rows_mutated(), 10);
        assert_eq!(assess_risk(&a, 25).0, Decision::Proceed);
    }

    #[test]
    fn campaigns_always_gate() {
        let campaign = PlanAction::BulkSmsCampaign {
            audience: vec![],
            message_concept: "Hi".into(),
        };
        for agent_default in [
            ApprovalPolicy::Auto,
            ApprovalPolicy::RiskGated,
            ApprovalPolicy::HumanReview,
        ] {
            let p = effective_policy(agent_default, campaign.policy_override(), &campaign);
            assert_eq!(p, ApprovalPolicy::HumanReview);
            assert_eq!(resolve_approval(p, &campaign, 1000).0, Decision::Gate);
        }
        assert_eq!(
            assess_risk(&campaign, 1000).0,
            Decision::Gate,
            "it sends messages"
        );
    }

    #[test]
    fn an_override_beats_the_agent_default() {
        let a = tagging(1);
        assert_eq!(
            effective_policy(ApprovalPolicy::HumanReview, Some(ApprovalPolicy::Auto), &a),
            ApprovalPolicy::Auto
        );
        assert_eq!(
            effective_policy(ApprovalPolicy::Auto, None, &a),
            ApprovalPolicy::Auto
        );
    }
}
