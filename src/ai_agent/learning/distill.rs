//! The offline distillation: deterministic rules from signals to lessons. Three drafts cut by
//! more than 30 % give "keep texts short"; contacts tagged X left out of two campaigns (while
//! nobody tagged X stayed in) give "leave out contacts tagged X from campaigns".
use crate::ai_agent::learning::signals::{AUDIENCE_DROP, DRAFT_EDIT};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use uuid::Uuid;

/// Drafts a person must cut by more than 30 % before "keep texts short".
pub const SHORTENED_DRAFTS: usize = 3;
/// Campaigns a tag must be left out of before "leave out contacts tagged X".
pub const CAMPAIGNS_LEFT_OUT: usize = 2;

pub const SHORT_TEXTS: &str = "short_texts";
pub const EXCLUDE_TAG: &str = "exclude_tag:";

/// A signal as the rules read it.
#[derive(Clone, Debug)]
pub struct Input {
    pub id: Uuid,
    pub kind: String,
    pub subject_id: Uuid,
    pub detail: Value,
}

/// A lesson the signals support: its rule, its words and the signals behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    pub rule_key: String,
    pub text: String,
    pub sources: Vec<Uuid>,
}

fn chars(v: &Value, k: &str) -> usize {
    v.get(k)
        .and_then(Value::as_str)
        .map_or(0, |s| s.trim().chars().count())
}

fn tags(v: &Value, k: &str) -> BTreeSet<String> {
    v.get(k)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|t| t.trim().to_lowercase())
                .filter(|t| !t.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The tag a rule key excludes from campaigns, if it is such a rule.
pub fn excluded_tag(rule_key: &str) -> Option<&str> {
    rule_key.strip_prefix(EXCLUDE_TAG)
}

pub fn distill(signals: &[Input]) -> Vec<Proposal> {
    let mut out = Vec::new();
    // Drafts cut by more than 30 %: after < 0.7 × before.
    let cut: Vec<Uuid> = signals
        .iter()
        .filter(|s| s.kind == DRAFT_EDIT)
        .filter(|s| {
            let (before, after) = (chars(&s.detail, "before"), chars(&s.detail, "after"));
            before > 0 && after * 10 < before * 7
        })
        .map(|s| s.id)
        .collect();
    if cut.len() >= SHORTENED_DRAFTS {
        out.push(Proposal {
            rule_key: SHORT_TEXTS.into(),
            text: "Keep texts short: people cut your drafts by more than 30 %.".into(),
            sources: cut,
        });
    }
    // Per tag: the campaign plans a contact with it was left out of, while no contact with it
    // stayed in, and the signals that show it.
    let mut by_tag: BTreeMap<String, (BTreeSet<Uuid>, Vec<Uuid>)> = BTreeMap::new();
    for s in signals.iter().filter(|s| s.kind == AUDIENCE_DROP) {
        if s.detail.get("campaign").and_then(Value::as_bool) != Some(true) {
            continue;
        }
        let kept = tags(&s.detail, "kept_tags");
        for t in tags(&s.detail, "tags").difference(&kept) {
            let e = by_tag.entry(t.clone()).or_default();
            e.0.insert(s.subject_id);
            e.1.push(s.id);
        }
    }
    for (tag, (plans, ids)) in by_tag {
        if plans.len() >= CAMPAIGNS_LEFT_OUT {
            out.push(Proposal {
                rule_key: format!("{EXCLUDE_TAG}{tag}"),
                text: format!("Leave out contacts tagged {tag} from campaigns."),
                sources: ids,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn draft(before: &str, after: &str) -> Input {
        Input {
            id: Uuid::new_v4(),
            kind: DRAFT_EDIT.into(),
            subject_id: Uuid::new_v4(),
            detail: json!({"before": before, "after": after}),
        }
    }

    fn drop(plan: Uuid, tags: &[&str], kept: &[&str]) -> Input {
        Input {
            id: Uuid::new_v4(),
            kind: AUDIENCE_DROP.into(),
            subject_id: plan,
            detail: json!({"campaign": true, "tags": tags, "kept_tags": kept, "name": "X"}),
        }
    }

    #[test]
    fn three_drafts_cut_by_a_third_keep_texts_short() {
        let long = "x".repeat(100);
        let two = vec![draft(&long, &"x".repeat(60)), draft(&long, &"x".repeat(50))];
        assert!(distill(&two).is_empty(), "two are not enough");
        let mut three = two.clone();
        three.push(draft(&long, &"x".repeat(69)));
        let p = distill(&three);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].rule_key, SHORT_TEXTS);
        assert_eq!(p[0].sources.len(), 3);
        // Exactly 30 % shorter is not more than 30 %; a longer draft never counts.
        let edge = vec![
            draft(&long, &"x".repeat(70)),
            draft(&long, &"x".repeat(120)),
            draft(&long, &"x".repeat(10)),
            draft(&long, &"x".repeat(10)),
        ];
        assert!(distill(&edge).is_empty());
    }

    #[test]
    fn a_tag_left_out_of_two_campaigns_is_a_lesson_once() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        // The same correction three times, over two campaigns: one lesson, three sources.
        let signals = vec![
            drop(a, &["family", "lead"], &["lead"]),
            drop(b, &["family", "lead"], &["lead"]),
            drop(b, &["Family"], &["lead"]),
        ];
        let p = distill(&signals);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].rule_key, "exclude_tag:family");
        assert_eq!(
            p[0].text,
            "Leave out contacts tagged family from campaigns."
        );
        assert_eq!(p[0].sources.len(), 3);
        assert_eq!(excluded_tag(&p[0].rule_key), Some("family"));
        // One campaign is not a pattern; a tag others kept is not the reason.
        assert!(distill(&signals[..1]).is_empty());
        assert!(
            distill(&[drop(a, &["lead"], &["lead"]), drop(b, &["lead"], &["lead"])]).is_empty()
        );
        // Tagging plans are not campaigns.
        let mut tagging = drop(a, &["family"], &[]);
        tagging.detail["campaign"] = json!(false);
        assert!(distill(&[tagging, drop(b, &["family"], &[])]).is_empty());
    }

    #[test]
    fn the_same_signals_give_the_same_lessons() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let long = "y".repeat(90);
        let s = vec![
            drop(a, &["vip"], &[]),
            draft(&long, "short"),
            drop(b, &["vip"], &[]),
            draft(&long, "short"),
            draft(&long, "short"),
        ];
        assert_eq!(distill(&s), distill(&s));
        assert_eq!(distill(&s).len(), 2);
    }
}
