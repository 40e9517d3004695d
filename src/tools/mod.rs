//! The tool catalog: every tool an agent's turn or a plan's step may call, built in one place. It
//! stands above agents, plans and campaigns because its tools start campaigns and present plans;
//! `ai_agent` (turns) and `plans` (steps) reach it through `ai_agent::tools::ToolSource`, which
//! `Catalog` answers and the composition root registers.
mod campaign;
mod catalog;
mod find;
mod list_step_tools;
mod read;
mod record;
mod schedule;
mod send;
mod tags;

pub use campaign::StartCampaign;
pub use catalog::step_tools;
pub use find::FindContacts;
pub use list_step_tools::{step_catalog_view, ListStepTools, LIST_STEP_TOOLS};
pub use read::{CheckOptOut, FindQuietContacts, GetContact, RecentMessages, SearchContacts};
pub use record::{AddNote, SetCustomField};
pub use schedule::ScheduleText;
pub use send::SendSms;
pub use tags::{contact_ids, ListTags, TagContacts};

use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::model::SendMode;
use crate::ai_agent::tools::{
    EscalateToUser, ProposeSmsReplies, ReplyContext, SearchKnowledge, ToolSource, Toolset,
    TurnScope,
};
use crate::auth::session::Member;
use crate::plans::planning_tools::{EnterPlanMode, PresentPlan};

/// The catalog as turns and steps ask for it.
pub struct Catalog;

impl ToolSource for Catalog {
    fn for_turn(
        &self,
        agent: &ai_agent::Model,
        owner: Option<&Member>,
        reply: Option<&ReplyContext>,
        scope: &TurnScope,
        planning: Option<bool>,
    ) -> Toolset {
        let mut tools = domain_tools(agent, owner, reply, scope);
        if let Some(planning) = planning {
            add_planning_tools(&mut tools, planning, scope);
        }
        tools
    }

    fn for_steps(&self) -> Toolset {
        step_tools()
    }
}

/// The one place an agent's tools are built. Domain tools come with the owner's membership
/// (none if the owner has left); escalation always stays. `suggest` drops `send_sms` and adds
/// `propose_sms_replies` bound to the reply context; `autonomous` keeps `send_sms`, curried to
/// the texted number.
fn domain_tools(
    agent: &ai_agent::Model,
    owner: Option<&Member>,
    reply: Option<&ReplyContext>,
    scope: &TurnScope,
) -> Toolset {
    let mut tools: Toolset = Vec::new();
    if agent.attach_domain_tools && owner.is_some() {
        tools.push(Box::new(GetContact));
        tools.push(Box::new(SearchContacts));
        tools.push(Box::new(RecentMessages));
        tools.push(Box::new(CheckOptOut));
        tools.push(Box::new(FindQuietContacts));
        tools.push(Box::new(FindContacts));
        tools.push(Box::new(ListTags));
        tools.push(Box::new(SearchKnowledge));
        tools.push(Box::new(SendSms));
    }
    match SendMode::parse(&agent.send_mode) {
        SendMode::Suggest => {
            tools.retain(|t| t.def().name != "send_sms");
            if reply.is_some() && owner.is_some() {
                tools.push(Box::new(ProposeSmsReplies));
            }
        }
        SendMode::Autonomous => {}
    }
    // First layer of containment: a reply turn is not even offered org-wide reads.
    if !scope.reads_org_wide() {
        tools.retain(|t| !t.reads_org_wide());
    }
    let allow: Vec<String> =
        serde_json::from_value(agent.tools_allowlist.clone()).unwrap_or_default();
    if allow.iter().any(|t| t == "escalate_to_user") || !tools.is_empty() || owner.is_none() {
        tools.push(Box::new(EscalateToUser));
    }
    tools
}

/// With planning enabled, the agent can plan: `present_plan`, and `enter_plan_mode` outside a
/// planning turn. High-impact actions exist only as plan actions, never as direct tools. A turn
/// that reads the organisation also gets the step catalog (`list_step_tools`) to write step plans.
fn add_planning_tools(tools: &mut Toolset, planning: bool, scope: &TurnScope) {
    tools.push(Box::new(PresentPlan));
    if scope.reads_org_wide() {
        tools.push(Box::new(ListStepTools));
    }
    if !planning {
        tools.push(Box::new(EnterPlanMode));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use uuid::Uuid;

    fn agent(mode: &str) -> ai_agent::Model {
        ai_agent::Model {
            id: Uuid::new_v4(),
            organization_id: Some(Uuid::new_v4()),
            user_id: Some(Uuid::new_v4()),
            system_source_id: None,
            name: "T".into(),
            persona: String::new(),
            goals: String::new(),
            send_mode: mode.into(),
            attach_domain_tools: true,
            tools_allowlist: serde_json::json!(["escalate_to_user"]),
            config_payload: serde_json::json!({}),
            created_at: Utc::now(),
        }
    }

    fn names(t: &Toolset) -> Vec<String> {
        t.iter().map(|t| t.def().name).collect()
    }

    fn owner() -> Member {
        Member {
            user_id: Uuid::new_v4(),
            organization_id: Uuid::new_v4(),
            role: crate::auth::model::Role::Owner,
        }
    }

    #[test]
    fn the_send_mode_gate() {
        let reply = ReplyContext {
            contact_id: Uuid::new_v4(),
            message_id: Uuid::new_v4(),
            phone_number_id: Uuid::new_v4(),
        };
        let operator = TurnScope::Operator;
        let suggest = names(&domain_tools(
            &agent("suggest"),
            Some(&owner()),
            Some(&reply),
            &operator,
        ));
        assert!(!suggest.contains(&"send_sms".into()));
        assert!(suggest.contains(&"propose_sms_replies".into()));
        assert!(suggest.contains(&"escalate_to_user".into()));
        let auto = names(&domain_tools(
            &agent("autonomous"),
            Some(&owner()),
            Some(&reply),
            &operator,
        ));
        assert!(auto.contains(&"send_sms".into()));
        assert!(!auto.contains(&"propose_sms_replies".into()));
        assert!(auto.contains(&"escalate_to_user".into()));
    }

    #[test]
    fn an_owner_who_left_keeps_only_escalation() {
        let t = names(&domain_tools(
            &agent("autonomous"),
            None,
            None,
            &TurnScope::Operator,
        ));
        assert_eq!(t, vec!["escalate_to_user".to_string()]);
    }

    #[test]
    fn a_reply_turn_is_not_offered_org_wide_reads() {
        let reply = ReplyContext {
            contact_id: Uuid::new_v4(),
            message_id: Uuid::new_v4(),
            phone_number_id: Uuid::new_v4(),
        };
        let contained = TurnScope::reply(reply.clone(), false, 2);
        let t = names(&domain_tools(
            &agent("autonomous"),
            Some(&owner()),
            Some(&reply),
            &contained,
        ));
        assert!(t.contains(&"send_sms".to_string()) && t.contains(&"get_contact".to_string()));
        assert!(!t.contains(&"search_contacts".to_string()));
        assert!(!t.contains(&"find_quiet_contacts".to_string()));
        assert!(contained.may_read(reply.contact_id).is_ok());
        assert!(contained.may_read(Uuid::new_v4()).is_err());
        let granted = TurnScope::reply(reply.clone(), true, 2);
        assert!(granted.may_read(Uuid::new_v4()).is_ok());
    }
}
