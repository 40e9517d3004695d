//! `resolve_approval` and `assess_risk`: whether a plan waits for a person, and why.
use crate::plans::model::{
    dollars, texts_people, ApprovalPolicy, Decision, PlanAction, WRITE_TOOLS,
};
use crate::steps::model::{PlanStep, StepMode};

/// Plans changing more rows than this gate under RiskGated (`PLAN_RISK_MAX_ROWS`, default 25).
pub const DEFAULT_MAX_ROWS: usize = 25;
/// Plans estimated to spend more than this many US dollars gate (`PLAN_RISK_MAX_COST`).
pub const DEFAULT_MAX_COST: f64 = 1.0;
// The settings' defaults (the base reads them with the configuration) are these.
#[cfg(feature = "server")]
const _: () = assert!(
    DEFAULT_MAX_ROWS == crate::platform::config::DEFAULT_MAX_ROWS
        && DEFAULT_MAX_COST == crate::platform::config::DEFAULT_MAX_COST
);

/// The limits RiskGated applies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RiskLimits {
    pub max_rows: usize,
    /// US dollars.
    pub max_cost: f64,
}

impl Default for RiskLimits {
    fn default() -> Self {
        Self {
            max_rows: DEFAULT_MAX_ROWS,
            max_cost: DEFAULT_MAX_COST,
        }
    }
}

#[cfg(feature = "server")]
impl crate::platform::AppState {
    /// What RiskGated lets through here (`PLAN_RISK_MAX_ROWS`, `PLAN_RISK_MAX_COST`).
    pub fn plan_risk(&self) -> RiskLimits {
        *self.part::<RiskLimits>()
    }
}

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

/// Gates a plan that sends messages, spends more than `max_cost`, or changes more than
/// `max_rows` rows; the reason names every risk found, with its figures.
pub fn assess_risk(action: &PlanAction, limits: RiskLimits) -> (Decision, String) {
    let mut risks = Vec::new();
    let cost = action.estimated_cost();
    // Steps that write once per item of a list: how many times is known only when they run.
    let each: Vec<String> = action
        .steps()
        .iter()
        .filter(|s| s.for_each.is_some() && !s.status.is_final())
        .filter(|s| texts_people(&s.tool) || WRITE_TOOLS.contains(&s.tool.as_str()))
        .map(|s| format!("`{}`", s.id))
        .collect();
    let texts_each = action
        .steps()
        .iter()
        .any(|s| s.for_each.is_some() && texts_people(&s.tool) && !s.status.is_final());
    if action.sends_messages() && texts_each {
        risks.push("It sends messages, one per item of a list.".into());
    } else if action.sends_messages() {
        risks.push(format!("It sends messages ({}).", cost.label()));
    }
    if !each.is_empty() {
        risks.push(format!(
            "Step{} {} write{} once per item of a list, as many times as there are items.",
            if each.len() == 1 { "" } else { "s" },
            each.join(", "),
            if each.len() == 1 { "s" } else { "" }
        ));
    }
    if cost.dollars > limits.max_cost {
        risks.push(format!(
            "It spends about ${}, more than the ${} allowed without review.",
            dollars(cost.dollars),
            dollars(limits.max_cost)
        ));
    }
    let rows = action.rows_mutated();
    if rows > limits.max_rows {
        risks.push(format!(
            "It changes {rows} contacts, more than the {} allowed without review.",
            limits.max_rows
        ));
    }
    if risks.is_empty() {
        return (
            Decision::Proceed,
            format!(
                "Low risk: it changes {rows} contacts (at most {}) and sends nothing.",
                limits.max_rows
            ),
        );
    }
    (Decision::Gate, risks.join(" "))
}

/// Whether a step that writes may run without a person confirming it, under the policy the
/// plan's steps follow (seed 000):
/// - HumanReview, or none known: every write is confirmed.
/// - Auto: every write runs, except a text, a scheduled text or a campaign, which always wait.
/// - RiskGated: a write that `assess_risk` judges low-risk on its own, with its arguments as
///   resolved for running; never a text, nor a write once per item of a list (it touches as
///   many rows as there are items).
pub fn step_waived(
    policy: Option<ApprovalPolicy>,
    step: &PlanStep,
    resolved: &serde_json::Value,
    limits: RiskLimits,
) -> bool {
    if texts_people(&step.tool) {
        return false;
    }
    match policy {
        Some(ApprovalPolicy::Auto) => true,
        Some(ApprovalPolicy::RiskGated) if step.for_each.is_none() => {
            let mut one = step.as_planned();
            one.arguments = resolved.clone();
            let action = PlanAction::Steps {
                mode: StepMode::Eager,
                steps: vec![one],
            };
            !action.sends_messages() && assess_risk(&action, limits).0 == Decision::Proceed
        }
        Some(ApprovalPolicy::RiskGated | ApprovalPolicy::HumanReview) | None => false,
    }
}

pub fn resolve_approval(
    policy: ApprovalPolicy,
    action: &PlanAction,
    limits: RiskLimits,
) -> (Decision, String) {
    match policy {
        ApprovalPolicy::HumanReview => {
            let (risk, why) = assess_risk(action, limits);
            let mut reason = String::from("The policy is to review every plan.");
            if risk == Decision::Gate {
                reason = format!("{reason} {why}");
            }
            (Decision::Gate, reason)
        }
        ApprovalPolicy::Auto => (
            Decision::Proceed,
            "The policy approves plans automatically.".into(),
        ),
        ApprovalPolicy::RiskGated => assess_risk(action, limits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plans::model::ContactChange;
    use uuid::Uuid;

    fn rows(max_rows: usize) -> RiskLimits {
        RiskLimits {
            max_rows,
            ..RiskLimits::default()
        }
    }

    fn tagging(n: usize) -> PlanAction {
        PlanAction::tagging(
            (0..n)
                .map(|_| ContactChange {
                    contact_id: Uuid::new_v4(),
                    include: true,
                    reason: "quiet".into(),
                    add_tags: vec!["quiet".into()],
                    remove_tags: vec![],
                    kind: String::new(),
                })
                .collect(),
        )
    }

    #[test]
    fn every_policy_and_risk() {
        let small = tagging(3);
        let big = tagging(26);
        assert_eq!(
            resolve_approval(ApprovalPolicy::HumanReview, &small, rows(25)).0,
            Decision::Gate
        );
        assert_eq!(
            resolve_approval(ApprovalPolicy::HumanReview, &big, rows(25)).0,
            Decision::Gate
        );
        assert_eq!(
            resolve_approval(ApprovalPolicy::Auto, &small, rows(25)).0,
            Decision::Proceed
        );
        assert_eq!(
            resolve_approval(ApprovalPolicy::Auto, &big, rows(25)).0,
            Decision::Proceed
        );
        assert_eq!(
            resolve_approval(ApprovalPolicy::RiskGated, &small, rows(25)).0,
            Decision::Proceed
        );
        let (d, why) = resolve_approval(ApprovalPolicy::RiskGated, &big, rows(25));
        assert_eq!(d, Decision::Gate);
        assert!(why.contains("26"));
        assert_eq!(
            resolve_approval(ApprovalPolicy::RiskGated, &tagging(25), rows(25)).0,
            Decision::Proceed,
            "at the limit proceeds"
        );
        assert_eq!(
            resolve_approval(ApprovalPolicy::RiskGated, &small, rows(2)).0,
            Decision::Gate,
            "N is configurable"
        );
    }

    #[test]
    fn excluded_contacts_are_not_mutations() {
        let mut a = tagging(30);
        for c in a.changes_mut().unwrap().iter_mut().skip(10) {
            c.include = false;
        }
        assert_eq!(a.rows_mutated(), 10);
        assert_eq!(assess_risk(&a, rows(25)).0, Decision::Proceed);
    }

    #[test]
    fn campaigns_always_gate() {
        let campaign = PlanAction::campaign(vec![], "Hi".into(), None);
        for agent_default in [
            ApprovalPolicy::Auto,
            ApprovalPolicy::RiskGated,
            ApprovalPolicy::HumanReview,
        ] {
            let p = effective_policy(agent_default, campaign.policy_override(), &campaign);
            assert_eq!(p, ApprovalPolicy::HumanReview);
            assert_eq!(resolve_approval(p, &campaign, rows(1000)).0, Decision::Gate);
        }
        assert_eq!(
            assess_risk(&campaign, rows(1000)).0,
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

    fn campaign(included: usize, excluded: usize, concept: &str) -> PlanAction {
        let mut audience = match tagging(included + excluded) {
            PlanAction::TagContacts { changes, .. } => changes,
            _ => unreachable!(),
        };
        for c in audience.iter_mut().skip(included) {
            c.include = false;
        }
        PlanAction::campaign(audience, concept.into(), None)
    }

    #[test]
    fn spending_is_segments_times_price_against_a_threshold() {
        // 200 GSM-7 characters: two segments a text; excluded contacts cost nothing.
        let small = campaign(10, 5, &"a".repeat(200));
        let cost = small.estimated_cost();
        assert_eq!((cost.texts, cost.segments), (10, 20));
        assert!((cost.dollars - 20.0 * 0.0079).abs() < 1e-9);
        let (d, why) = assess_risk(&small, RiskLimits::default());
        assert_eq!(d, Decision::Gate, "it still sends messages");
        assert!(
            why.contains("10 texts · 20 segments · about $0.158"),
            "{why}"
        );
        assert!(!why.contains("spends"), "under the threshold: {why}");

        let big = campaign(100, 0, &"a".repeat(200));
        let (_, why) = assess_risk(&big, RiskLimits::default());
        assert!(
            why.contains("spends about $1.58, more than the $1.00 allowed"),
            "{why}"
        );
        // The threshold is configurable.
        let strict = RiskLimits {
            max_cost: 0.10,
            ..RiskLimits::default()
        };
        assert!(assess_risk(&small, strict)
            .1
            .contains("more than the $0.10"));
        // An emoji makes the concept UCS-2: 80 code units are two segments, not one.
        let emoji = campaign(1, 0, &format!("{}🎉", "a".repeat(78)));
        assert_eq!(emoji.estimated_cost().segments, 2);
        assert_eq!(dollars(0.02), "0.02");
        assert_eq!(dollars(0.0237), "0.0237");
        assert_eq!(dollars(0.5), "0.50");
        assert_eq!(dollars(12.0), "12.00");
        // Tagging spends nothing, however many contacts.
        assert_eq!(tagging(500).estimated_cost().dollars, 0.0);
        // Human review still says what the plan risks.
        let (_, why) = resolve_approval(ApprovalPolicy::HumanReview, &big, RiskLimits::default());
        assert!(
            why.starts_with("The policy is to review every plan. It sends messages"),
            "{why}"
        );
    }

    /// Every policy against every kind of step that writes: which run without a confirmation.
    #[test]
    fn each_policy_against_each_step_kind() {
        use crate::plans::model::{CAMPAIGN_TOOL, SCHEDULE_TOOL, SEND_TOOL};
        use serde_json::json;
        let many: Vec<String> = (0..30).map(|i| i.to_string()).collect();
        let mut each_tag = PlanStep::new("e", "tag each", "tag_contacts", json!({}));
        each_tag.for_each = Some(json!("{{find.result.contacts}}"));
        let kinds: Vec<(&str, PlanStep, serde_json::Value)> = vec![
            (
                "text",
                PlanStep::new("s", "text", SEND_TOOL, json!({})),
                json!({"contact_id": "c", "body": "hi"}),
            ),
            (
                "scheduled text",
                PlanStep::new("l", "later", SCHEDULE_TOOL, json!({})),
                json!({"contact_id": "c", "body": "hi", "at": "2026-12-01T15:00:00Z"}),
            ),
            (
                "campaign",
                PlanStep::new("c", "campaign", CAMPAIGN_TOOL, json!({})),
                json!({"concept": "hi"}),
            ),
            (
                "note",
                PlanStep::new("n", "note", "add_note", json!({})),
                json!({"contact_id": "c", "note": "hi"}),
            ),
            (
                "field",
                PlanStep::new("f", "field", "set_custom_field", json!({})),
                json!({"contact_id": "c", "key": "k", "value": "v"}),
            ),
            (
                "small tag",
                PlanStep::new("t", "tag", "tag_contacts", json!({})),
                json!({"contacts": ["a", "b"], "add": ["x"]}),
            ),
            (
                "large tag",
                PlanStep::new("t", "tag", "tag_contacts", json!({})),
                json!({"contacts": many, "add": ["x"]}),
            ),
            (
                "tag per item",
                each_tag,
                json!({"contacts": ["a"], "add": ["x"]}),
            ),
        ];
        //                         text   later  camp   note   field  small  large  each
        let human = [false, false, false, false, false, false, false, false];
        let auto = [false, false, false, true, true, true, true, true];
        let gated = [false, false, false, true, true, true, false, false];
        for (policy, expected) in [
            (None, human),
            (Some(ApprovalPolicy::HumanReview), human),
            (Some(ApprovalPolicy::Auto), auto),
            (Some(ApprovalPolicy::RiskGated), gated),
        ] {
            for ((kind, step, args), waived) in kinds.iter().zip(expected) {
                assert_eq!(
                    step_waived(policy, step, args, rows(25)),
                    waived,
                    "{policy:?} on a {kind}"
                );
            }
        }
    }
}
