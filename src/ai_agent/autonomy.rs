//! An owner's approval of an autonomous agent covers what it was approved with. While an agent
//! sends by itself, only an owner may widen it: its persona, goals or rules, org-wide reads, seeing
//! pictures, a higher send limit, planning, a looser plan approval, answering beyond its knowledge,
//! or its lessons. A member may still switch it back to suggest mode, and edit it there.
use crate::ai_agent::entity::ai_agent;
use crate::ai_agent::model::ApprovalPolicy;
use crate::ai_agent::model::{AgentInput, SendMode};
use crate::ai_agent::settings::AgentSettings;

/// What this edit would widen on the agent as it is (empty: nothing).
pub fn widening(old: &ai_agent::Model, new: &AgentInput) -> Vec<&'static str> {
    let was = AgentSettings::of(old);
    let mut out = Vec::new();
    if old.persona.trim() != new.persona.trim() {
        out.push("its persona");
    }
    if old.goals.trim() != new.goals.trim() {
        out.push("its goals");
    }
    if was.rules.trim() != new.rules.trim() {
        out.push("its rules");
    }
    if new.reply_reads_org_wide && !was.reply_reads_org_wide {
        out.push("org-wide reads");
    }
    if new.sees_pictures && !was.sees_pictures {
        out.push("seeing pictures");
    }
    if new.reply_send_limit > was.reply_send_limit {
        out.push("a higher send limit");
    }
    if new.planning_enabled && !was.planning_enabled {
        out.push("planning");
    }
    if looseness(new.plan_approval) > looseness(was.plan_approval) {
        out.push("a looser plan approval");
    }
    if was.answer_only && new.answer_only == Some(false) {
        out.push("answering beyond its knowledge");
    }
    out
}

/// How much a plan approval policy lets through without a person: a policy that lets more
/// through widens the agent.
fn looseness(p: ApprovalPolicy) -> u8 {
    match p {
        ApprovalPolicy::HumanReview => 0,
        ApprovalPolicy::RiskGated => 1,
        ApprovalPolicy::Auto => 2,
    }
}

/// Whether a change to an agent's lessons widens it: a lesson goes into every reply turn, so
/// while the agent sends by itself, new words or switching one on are an owner's decision
/// (switching one off or deleting it narrows, and anyone who directs the agent may).
pub fn lesson_widens(agent: &ai_agent::Model, words_changed: bool, switched_on: bool) -> bool {
    SendMode::parse(&agent.send_mode) == SendMode::Autonomous && (words_changed || switched_on)
}

/// Whether the edit leaves (or makes) the agent autonomous with more than an owner approved.
pub fn needs_owner(old: &ai_agent::Model, new: &AgentInput) -> Option<String> {
    let was_autonomous = SendMode::parse(&old.send_mode) == SendMode::Autonomous;
    if new.send_mode != SendMode::Autonomous {
        return None;
    }
    if !was_autonomous {
        return Some("made autonomous".into());
    }
    let w = widening(old, new);
    (!w.is_empty()).then(|| format!("widened: {}", w.join(", ")))
}
