//! The offline distillation: deterministic rules from signals to lessons. Three drafts cut by
//! more than 30 % give "keep texts short"; contacts tagged X left out of two campaigns (while
//! nobody tagged X stayed in) give "leave out contacts tagged X from campaigns"; a campaign
//! concept rewritten alike in two plans gives a strategy lesson in the rewrite's words; a
//! rejection reason given alike for two plans becomes a rule in the reason's words.
use crate::ai_agent::learning::signals::{
    AUDIENCE_DROP, CONCEPT_REWRITE, DRAFT_EDIT, PLAN_REJECTED,
};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use uuid::Uuid;

/// Drafts a person must cut by more than 30 % before "keep texts short".
pub const SHORTENED_DRAFTS: usize = 3;
/// Campaigns a tag must be left out of before "leave out contacts tagged X".
pub const CAMPAIGNS_LEFT_OUT: usize = 2;

/// Plans a concept must be rewritten alike in, or rejected alike, before it is a lesson.
pub const ALIKE_PLANS: usize = 2;
/// Two texts say the same thing when they share this share of their words (of either's).
const ALIKE_WORDS: f64 = 0.6;

pub const SHORT_TEXTS: &str = "short_texts";
pub const EXCLUDE_TAG: &str = "exclude_tag:";
/// A strategy lesson from concept rewrites: `concept:` and a hash of the rewrite's words.
pub const CONCEPT: &str = "concept:";
/// A rule from rejection reasons: `rule:` and a hash of the reason's words.
pub const RULE: &str = "rule:";

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

/// A text's words, lower-case, without punctuation.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether two texts say the same thing: they share 60 % of the words of the longer one.
fn alike(a: &BTreeSet<String>, b: &BTreeSet<String>) -> bool {
    let shared = a.intersection(b).count() as f64;
    let most = a.len().max(b.len()) as f64;
    most > 0.0 && shared / most >= ALIKE_WORDS
}

/// Texts that say the same thing, gathered across the signals: each group's words (its oldest
/// text: newer signals come first), the plans it came from and its signals.
struct Alike {
    text: String,
    words: BTreeSet<String>,
    plans: BTreeSet<Uuid>,
    sources: Vec<Uuid>,
}

fn gather<'a>(texts: impl Iterator<Item = (&'a Input, &'a str)>) -> Vec<Alike> {
    let mut groups: Vec<Alike> = Vec::new();
    for (s, text) in texts {
        let w = words(text);
        if w.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|g| alike(&g.words, &w)) {
            Some(g) => {
                g.plans.insert(s.subject_id);
                g.sources.push(s.id);
                // The oldest wording names the group, so that its key stays as signals come.
                g.text = text.trim().to_owned();
                g.words = w;
            }
            None => groups.push(Alike {
                text: text.trim().to_owned(),
                words: w,
                plans: BTreeSet::from([s.subject_id]),
                sources: vec![s.id],
            }),
        }
    }
    groups
}

/// A short, stable key for words: the first 12 hex digits of their hash.
fn key_of(prefix: &str, words: &BTreeSet<String>) -> String {
    let joined: Vec<&str> = words.iter().map(String::as_str).collect();
    let digest = Sha256::digest(joined.join(" ").as_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("{prefix}{hex}")
}

/// A sentence: capital first letter and a full stop.
fn sentence(text: &str) -> String {
    let t = text.trim().trim_end_matches(['.', '!']);
    let mut c = t.chars();
    let first: String = c
        .next()
        .map(|f| f.to_uppercase().collect())
        .unwrap_or_default();
    format!("{first}{}.", c.as_str())
}

fn detail_text<'a>(s: &'a Input, key: &str) -> &'a str {
    s.detail
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Concept rewrites alike in two plans, and rejection reasons alike for two plans: for each,
/// the signal's kind, the words it carries, its rule's prefix and the lesson's words.
fn repeated_words(signals: &[Input]) -> Vec<Proposal> {
    type Words = fn(&Alike) -> String;
    let rules: [(&str, &str, &str, Words); 2] = [
        (CONCEPT_REWRITE, "after", CONCEPT, |g| {
            format!(
                "Write campaign concepts the way people rewrote them in {} plans: \"{}\"",
                g.plans.len(),
                g.text
            )
        }),
        (PLAN_REJECTED, "reason", RULE, |g| sentence(&g.text)),
    ];
    let mut out = Vec::new();
    for (kind, field, prefix, words) in rules {
        let said = signals
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| (s, detail_text(s, field)));
        for g in gather(said)
            .into_iter()
            .filter(|g| g.plans.len() >= ALIKE_PLANS)
        {
            out.push(Proposal {
                rule_key: key_of(prefix, &g.words),
                text: words(&g),
                sources: g.sources,
            });
        }
    }
    out
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
    out.extend(repeated_words(signals));
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

    fn said(kind: &str, plan: Uuid, key: &str, text: &str) -> Input {
        Input {
            id: Uuid::new_v4(),
            kind: kind.into(),
            subject_id: plan,
            detail: json!({ key: text }),
        }
    }

    #[test]
    fn a_rejection_reason_given_for_two_plans_becomes_a_rule() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let once = [said(PLAN_REJECTED, a, "reason", "never text on Sundays")];
        assert!(distill(&once).is_empty(), "once is not a rule");
        let twice = [
            said(PLAN_REJECTED, b, "reason", "Never text on a Sunday!"),
            said(PLAN_REJECTED, a, "reason", "never text on Sundays"),
        ];
        let p = distill(&twice);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].text, "Never text on Sundays.");
        assert!(p[0].rule_key.starts_with(RULE) && p[0].rule_key.len() <= 40);
        assert_eq!(p[0].sources.len(), 2);
        // The key comes from the oldest wording: a third rejection keeps the lesson's key.
        let mut thrice = vec![said(
            PLAN_REJECTED,
            Uuid::new_v4(),
            "reason",
            "No texts on sundays",
        )];
        thrice.extend(twice.iter().cloned());
        assert_eq!(distill(&thrice)[0].rule_key, p[0].rule_key);
        // Two different reasons are two different things; an empty reason is none.
        let different = [
            said(PLAN_REJECTED, a, "reason", "never text on Sundays"),
            said(PLAN_REJECTED, b, "reason", "the discount is too big"),
            said(PLAN_REJECTED, b, "reason", ""),
        ];
        assert!(distill(&different).is_empty());
    }

    #[test]
    fn a_concept_rewritten_alike_in_two_plans_becomes_a_strategy_lesson() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let rewrites = [
            said(
                CONCEPT_REWRITE,
                b,
                "after",
                "Lead with the appointment reminder, then the discount",
            ),
            said(
                CONCEPT_REWRITE,
                a,
                "after",
                "Lead with the appointment reminder, not the discount",
            ),
        ];
        let p = distill(&rewrites);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].rule_key.starts_with(CONCEPT));
        assert_eq!(
            p[0].text,
            "Write campaign concepts the way people rewrote them in 2 plans: \"Lead with the appointment reminder, not the discount\""
        );
        // The same plan rewritten twice is one plan.
        let one_plan = [
            said(CONCEPT_REWRITE, a, "after", "Lead with the reminder"),
            said(CONCEPT_REWRITE, a, "after", "Lead with the reminder"),
        ];
        assert!(distill(&one_plan).is_empty());
    }
}
