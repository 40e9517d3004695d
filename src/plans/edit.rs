//! A person's edit to a plan awaiting approval, applied as a pure function of the plan's current
//! title, summary and action: it switches contacts the plan already holds in or out (or, for an
//! audience the server resolves, leaves members out and puts them back) and rewrites words, but
//! never changes the action's kind or leaves an empty title. The service checks the result
//! against the database (scoping, opt-outs) and resolves an edited audience's contacts again
//! before it is stored.
use crate::error::AppError;
use crate::plans::model::{Audience, PlanAction, PlanEdit, HAND_PICKED_MAX};
use std::collections::HashMap;
use uuid::Uuid;

/// Longest title a plan may have, in characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// Longest summary, in characters.
pub const MAX_SUMMARY_CHARS: usize = 4_000;
/// Longest campaign message concept, in characters (ten long SMS segments).
pub const MAX_CONCEPT_CHARS: usize = 1_600;

/// The parts of a plan an edit may change.
#[derive(Clone, Debug, PartialEq)]
pub struct Editable {
    pub title: String,
    pub summary: String,
    pub action: PlanAction,
}

impl PlanEdit {
    /// The plan after this edit, or why the edit is refused; `current` is never changed.
    pub fn apply(&self, current: &Editable) -> Result<Editable, AppError> {
        let mut action = current.action.clone();
        if action.audience().is_some() {
            if let Some(a) = action.audience_mut() {
                self.apply_to_audience(a)?;
            }
            return self.finish(current, action);
        }
        let index: HashMap<Uuid, usize> = action
            .changes()
            .iter()
            .enumerate()
            .map(|(i, c)| (c.contact_id, i))
            .collect();
        for (contact_id, include) in &self.include {
            let i = *index
                .get(contact_id)
                .ok_or_else(|| AppError::NotFound(format!("Contact {contact_id} in this plan")))?;
            let Some(c) = action.changes_mut().and_then(|cs| cs.get_mut(i)) else {
                continue;
            };
            // A person's switch is the contact's reason now: the agent's no longer explains it.
            if c.include != *include {
                c.reason = if *include {
                    "added by the operator"
                } else {
                    "left out by the operator"
                }
                .into();
                c.kind = "operator".into();
            }
            c.include = *include;
        }
        self.finish(current, action)
    }

    /// An audience the server resolves: a person leaves members out (each with the reason
    /// "left out by the operator") or puts them back; the server resolves those contacts again.
    fn apply_to_audience(&self, a: &mut Audience) -> Result<(), AppError> {
        use crate::plans::audience::model::AudienceEntry;
        for (contact_id, include) in &self.include {
            let excluded = a.exclude.iter().position(|e| e.contact_id == *contact_id);
            match (include, excluded) {
                (false, None) => {
                    a.include.retain(|e| e.contact_id != *contact_id);
                    a.exclude.push(AudienceEntry {
                        contact_id: *contact_id,
                        reason: "left out by the operator".into(),
                    });
                }
                (true, Some(i)) => {
                    a.exclude.remove(i);
                }
                (true, None) if !a.include.iter().any(|e| e.contact_id == *contact_id) => {
                    a.include.push(AudienceEntry {
                        contact_id: *contact_id,
                        reason: "added by the operator".into(),
                    });
                }
                _ => {}
            }
        }
        if a.exclude.len() > HAND_PICKED_MAX || a.include.len() > HAND_PICKED_MAX {
            return Err(AppError::validation(format!(
                "An audience leaves out or adds at most {HAND_PICKED_MAX} contacts by hand; change its filter instead."
            )));
        }
        Ok(())
    }

    /// Concept, from-number, title and summary, common to every kind of plan.
    fn finish(&self, current: &Editable, mut action: PlanAction) -> Result<Editable, AppError> {
        if let Some(concept) = &self.message_concept {
            let PlanAction::BulkSmsCampaign {
                message_concept, ..
            } = &mut action
            else {
                return Err(AppError::validation(
                    "Only a campaign has a message concept to edit.",
                ));
            };
            *message_concept = bounded(concept, "message concept", MAX_CONCEPT_CHARS)?;
            if message_concept.is_empty() {
                return Err(AppError::validation("A campaign needs a message concept."));
            }
            crate::messaging::merge::check(message_concept)
                .map_err(|e| AppError::Validation(e.to_string()))?;
        }
        if let Some(number) = self.from_number_id {
            let PlanAction::BulkSmsCampaign { from_number_id, .. } = &mut action else {
                return Err(AppError::validation("Only a campaign sends from a number."));
            };
            *from_number_id = Some(number);
        }
        let title = match &self.title {
            Some(t) => bounded(t, "title", MAX_TITLE_CHARS)?,
            None => current.title.clone(),
        };
        if title.trim().is_empty() {
            return Err(AppError::validation("A plan needs a title."));
        }
        let summary = match &self.summary {
            Some(s) => bounded(s, "summary", MAX_SUMMARY_CHARS)?,
            None => current.summary.clone(),
        };
        Ok(Editable {
            title,
            summary,
            action,
        })
    }
}

/// `s` trimmed, or a validation error when it is longer than `max` characters.
fn bounded(s: &str, what: &str, max: usize) -> Result<String, AppError> {
    let s = s.trim();
    if s.chars().count() > max {
        return Err(AppError::validation(format!(
            "The {what} is too long: at most {max} characters."
        )));
    }
    Ok(s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plans::model::ContactChange;

    fn change(id: Uuid, include: bool) -> ContactChange {
        ContactChange {
            contact_id: id,
            include,
            reason: String::new(),
            add_tags: vec!["vip".into()],
            remove_tags: vec![],
            kind: String::new(),
        }
    }

    fn tagging(ids: &[Uuid]) -> Editable {
        Editable {
            title: "Tag leads".into(),
            summary: "Why".into(),
            action: PlanAction::tagging(ids.iter().map(|id| change(*id, false)).collect()),
        }
    }

    fn edit() -> PlanEdit {
        PlanEdit {
            title: None,
            summary: None,
            include: vec![],
            message_concept: None,
            from_number_id: None,
        }
    }

    #[test]
    fn switches_contacts_the_plan_holds_and_gives_a_reason() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let before = tagging(&[a, b]);
        let after = PlanEdit {
            include: vec![(b, true)],
            ..edit()
        }
        .apply(&before)
        .unwrap();
        let c = &after.action.changes()[1];
        assert!(c.include && c.reason == "added by the operator" && c.kind == "operator");
        assert!(!after.action.changes()[0].include);
        let out = PlanEdit {
            include: vec![(b, false)],
            ..edit()
        }
        .apply(&after)
        .unwrap();
        assert_eq!(out.action.changes()[1].reason, "left out by the operator");
        assert_eq!(before, tagging(&[a, b]), "the current plan is untouched");
    }

    #[test]
    fn refuses_a_contact_not_in_the_plan_and_a_concept_on_tagging() {
        let before = tagging(&[Uuid::new_v4()]);
        let stranger = PlanEdit {
            include: vec![(Uuid::new_v4(), true)],
            ..edit()
        };
        assert!(matches!(
            stranger.apply(&before),
            Err(AppError::NotFound(_))
        ));
        let concept = PlanEdit {
            message_concept: Some("Hello".into()),
            ..edit()
        };
        assert!(matches!(
            concept.apply(&before),
            Err(AppError::Validation(_))
        ));
        let number = PlanEdit {
            from_number_id: Some(Uuid::new_v4()),
            ..edit()
        };
        assert!(matches!(
            number.apply(&before),
            Err(AppError::Validation(_))
        ));
    }

    #[test]
    fn a_campaign_changes_its_from_number() {
        let before = Editable {
            title: "Follow up".into(),
            summary: "Why".into(),
            action: PlanAction::campaign(
                vec![change(Uuid::new_v4(), true)],
                "Hi".into(),
                Some(Uuid::new_v4()),
            ),
        };
        let other = Uuid::new_v4();
        let after = PlanEdit {
            from_number_id: Some(other),
            ..edit()
        }
        .apply(&before)
        .unwrap();
        assert_eq!(after.action.from_number_id(), Some(other));
        let untouched = edit().apply(&before).unwrap();
        assert_eq!(
            untouched.action.from_number_id(),
            before.action.from_number_id()
        );
    }

    #[test]
    fn titles_are_trimmed_required_and_bounded() {
        let before = tagging(&[]);
        let t = |s: &str| {
            PlanEdit {
                title: Some(s.into()),
                ..edit()
            }
            .apply(&before)
        };
        assert_eq!(t("  New  ").unwrap().title, "New");
        assert!(t(" \n ").is_err());
        assert!(t(&"x".repeat(MAX_TITLE_CHARS)).is_ok());
        assert!(t(&"x".repeat(MAX_TITLE_CHARS + 1)).is_err());
    }
}
