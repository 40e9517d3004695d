//! An agent's own settings, kept in its `config_payload`: rules, planning, and what a reply turn
//! may reach. The one place that reads and writes them.
use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::model::ApprovalPolicy;
use serde_json::{json, Value};

/// Texts a reply turn may send unless the agent says otherwise.
pub const DEFAULT_REPLY_SEND_LIMIT: u32 = 2;
/// The most an owner may allow.
pub const MAX_REPLY_SEND_LIMIT: u32 = 5;

#[derive(Clone, Debug, PartialEq)]
pub struct AgentSettings {
    pub rules: String,
    pub planning_enabled: bool,
    pub plan_approval: ApprovalPolicy,
    /// At most this many texts per turn that answers a contact's text.
    pub reply_send_limit: u32,
    /// Whether read tools in a reply turn see the whole organisation (owner's explicit choice).
    pub reply_reads_org_wide: bool,
    /// Whether a hosted model with vision is shown the pictures of the texts it answers.
    pub sees_pictures: bool,
    /// Whether a question the knowledge does not answer gets the holding reply and goes to the
    /// agent's owner, and a reply's figures are held to the knowledge (issue 52 §3). On for new
    /// agents; off for those made before it existed until someone turns it on.
    pub answer_only: bool,
    /// The knowledge sources it answers from; None: all of the organisation's.
    pub knowledge_sources: Option<Vec<uuid::Uuid>>,
}

/// The key `answer_only` is kept under.
pub const ANSWER_ONLY_KEY: &str = "answer_only_from_knowledge";

impl AgentSettings {
    pub fn of(agent: &ai_agent::Model) -> Self {
        let p = &agent.config_payload;
        Self {
            rules: p
                .get("rules")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            planning_enabled: p
                .get("planning_enabled")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            plan_approval: p
                .get("plan_approval")
                .and_then(Value::as_str)
                .and_then(ApprovalPolicy::parse)
                .unwrap_or(ApprovalPolicy::HumanReview),
            reply_send_limit: p
                .get("reply_send_limit")
                .and_then(Value::as_u64)
                .map(|n| (n as u32).min(MAX_REPLY_SEND_LIMIT))
                .unwrap_or(DEFAULT_REPLY_SEND_LIMIT),
            reply_reads_org_wide: p
                .get("reply_reads_org_wide")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            sees_pictures: p
                .get("sees_pictures")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            answer_only: p
                .get(ANSWER_ONLY_KEY)
                .and_then(Value::as_bool)
                .unwrap_or(false),
            knowledge_sources: p
                .get("knowledge_sources")
                .and_then(Value::as_array)
                .map(|ids| {
                    ids.iter()
                        .filter_map(|i| i.as_str().and_then(|s| s.parse().ok()))
                        .collect()
                }),
        }
    }

    /// Writes these settings into a config payload, keeping any other keys.
    pub fn write_into(&self, payload: &mut Value) {
        if !payload.is_object() {
            *payload = json!({});
        }
        payload["rules"] = json!(self.rules);
        payload["planning_enabled"] = json!(self.planning_enabled);
        payload["plan_approval"] = json!(self.plan_approval.as_str());
        payload["reply_send_limit"] = json!(self.reply_send_limit.min(MAX_REPLY_SEND_LIMIT));
        payload["reply_reads_org_wide"] = json!(self.reply_reads_org_wide);
        payload["sees_pictures"] = json!(self.sees_pictures);
        payload[ANSWER_ONLY_KEY] = json!(self.answer_only);
        payload["knowledge_sources"] = json!(self.knowledge_sources);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_and_default_safely() {
        let mut agent = crate::ai_agent::prompt::tests::fixed_agent(json!({}), "suggest");
        let d = AgentSettings::of(&agent);
        assert_eq!(d.reply_send_limit, DEFAULT_REPLY_SEND_LIMIT);
        assert!(!d.reply_reads_org_wide && !d.planning_enabled);
        assert!(
            !d.sees_pictures,
            "pictures stay in Herald unless an owner says otherwise"
        );
        assert_eq!(d.plan_approval, ApprovalPolicy::HumanReview);
        let s = AgentSettings {
            rules: "Be brief.".into(),
            planning_enabled: true,
            plan_approval: ApprovalPolicy::RiskGated,
            reply_send_limit: 99,
            reply_reads_org_wide: true,
            sees_pictures: true,
            answer_only: true,
            knowledge_sources: Some(vec![uuid::Uuid::nil()]),
        };
        agent.config_payload = json!({"other": 1});
        s.write_into(&mut agent.config_payload);
        let back = AgentSettings::of(&agent);
        assert_eq!(back.reply_send_limit, MAX_REPLY_SEND_LIMIT, "capped");
        assert!(back.reply_reads_org_wide && back.planning_enabled && back.sees_pictures);
        assert!(
            back.answer_only && !d.answer_only,
            "off for agents made before it existed"
        );
        assert_eq!(back.knowledge_sources, Some(vec![uuid::Uuid::nil()]));
        assert_eq!(
            d.knowledge_sources, None,
            "all of the knowledge unless narrowed"
        );
        assert_eq!(agent.config_payload["other"], 1);
    }
}
