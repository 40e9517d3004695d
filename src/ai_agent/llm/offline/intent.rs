//! What the offline model understands of an operator's request: a few plans and a few questions
//! about contacts, in many phrasings. Anything else is `Unknown`, and the model says that it
//! needs a hosted model rather than guessing.
#[derive(Clone, Debug, PartialEq)]
pub enum Intent {
    /// Tag everyone with no reply in `days` as `tag` (a plan).
    TagQuiet {
        days: i64,
        tag: String,
    },
    /// A campaign following up with quiet quote leads (a plan).
    FollowUpQuoteLeads,
    /// "text everyone tagged vip about our Saturday opening": a campaign to a tag (a plan).
    TextTagged {
        tag: String,
        about: String,
    },
    /// "find the X who …, tag them Y and text each a check-in / note each one": a step plan.
    Steps(StepRequest),
    CountContacts,
    OptedOut,
    /// Who has not replied in `days`.
    Quiet {
        days: i64,
    },
    Tagged {
        tag: String,
    },
    /// A contact's details, by name.
    AboutContact {
        name: String,
    },
    Help,
    Unknown,
}

impl Intent {
    /// Whether it needs a plan (changes contacts or texts people).
    pub fn is_plan(&self) -> bool {
        matches!(
            self,
            Intent::TagQuiet { .. }
                | Intent::FollowUpQuoteLeads
                | Intent::TextTagged { .. }
                | Intent::Steps(_)
        )
    }
}

/// A step plan the offline model understands: find contacts by tag (and quietness), tag them,
/// then text each a check-in or add a note to each.
#[derive(Clone, Debug, PartialEq)]
pub struct StepRequest {
    pub find_tag: String,
    pub quiet_days: Option<i64>,
    pub new_tag: String,
    pub text_each: bool,
}

/// "find the vip patients who haven't replied in 14 days, tag them follow-up and text each a
/// check-in" and its kin.
fn step_request(t: &str, w: &[String]) -> Option<StepRequest> {
    if !(t.starts_with("find ") && t.contains("tag them")) {
        return None;
    }
    let after_find = w
        .iter()
        .skip(1)
        .find(|x| !["the", "all", "our", "my"].contains(&x.as_str()))?;
    let find_tag = match after_find.as_str() {
        "patients" => "patient".to_owned(),
        "leads" => "lead".to_owned(),
        other => other.to_owned(),
    };
    let new_tag = tag_after(w, &["them"])?;
    let text_each = t.contains("text each") || t.contains("text them") || t.contains("check-in");
    let note_each = t.contains("note");
    if !text_each && !note_each {
        return None;
    }
    let quiet = QUIET_CUES.iter().any(|c| t.contains(c));
    Some(StepRequest {
        find_tag,
        quiet_days: quiet.then(|| days_in(w).unwrap_or(30)),
        new_tag,
        text_each,
    })
}

/// Words that name a group of contacts ("all vip patients").
const GROUPS: [&str; 8] = [
    "contacts",
    "patients",
    "customers",
    "clients",
    "people",
    "members",
    "leads",
    "guests",
];

/// "text everyone tagged vip about our Saturday opening", "message all vip patients about the
/// new hours": the tag, and what the text is about (in the request's own case).
fn text_tagged(text: &str, t: &str, w: &[String]) -> Option<(String, String)> {
    let verb = w.iter().take(3).any(|x| {
        ["text", "message", "sms", "send", "remind", "tell", "email"].contains(&x.as_str())
    });
    let (at, _) = t.match_indices(" about ").next()?;
    if !verb {
        return None;
    }
    // The original words where the lowercase ones are the same length (else the lowercase).
    let source = if text.trim().len() == t.len() {
        text.trim()
    } else {
        t
    };
    let about = source[at + " about ".len()..]
        .trim()
        .trim_end_matches(['.', '!', '?'])
        .trim()
        .to_owned();
    if about.is_empty() {
        return None;
    }
    let before: Vec<String> = words(&t[..at]);
    let tag = tag_after(&before, &["tagged"]).or_else(|| {
        before.windows(3).find_map(|p| {
            (["all", "our", "the", "every"].contains(&p[0].as_str())
                && GROUPS.contains(&p[2].as_str()))
            .then(|| p[1].clone())
        })
    })?;
    Some((tag.trim_matches('\'').to_owned(), about))
}

const QUIET_CUES: [&str; 14] = [
    "not replied",
    "haven't replied",
    "havent replied",
    "hasn't replied",
    "have not replied",
    "has not replied",
    "no reply",
    "not heard",
    "haven't heard",
    "not texted",
    "haven't texted",
    "quiet",
    "silent",
    "inactive",
];

fn words(t: &str) -> Vec<String> {
    t.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

fn number(w: &str) -> Option<i64> {
    w.parse().ok().or(match w {
        "a" | "an" | "one" => Some(1),
        "two" => Some(2),
        "three" => Some(3),
        "four" => Some(4),
        "five" => Some(5),
        "six" => Some(6),
        "seven" => Some(7),
        "ten" => Some(10),
        "fourteen" => Some(14),
        "thirty" => Some(30),
        _ => None,
    })
}

/// "30 days", "two weeks", "a month" → days.
fn days_in(w: &[String]) -> Option<i64> {
    w.windows(2).find_map(|p| {
        let n = number(&p[0])?;
        let unit = p[1].trim_end_matches('s');
        let per = match unit {
            "day" => 1,
            "week" => 7,
            "month" => 30,
            "year" => 365,
            _ => return None,
        };
        Some(n * per).filter(|d| (1..=3650).contains(d))
    })
}

/// The word after "as", "with" or "tag" that names a tag (not a filler word).
fn tag_after(w: &[String], markers: &[&str]) -> Option<String> {
    const FILLER: [&str; 8] = ["the", "a", "tag", "label", "them", "it", "everyone", "all"];
    w.iter().enumerate().find_map(|(i, x)| {
        if !markers.contains(&x.as_str()) {
            return None;
        }
        w[i + 1..]
            .iter()
            .find(|n| !FILLER.contains(&n.as_str()))
            .cloned()
    })
}

fn asks(t: &str) -> bool {
    [
        "who ", "which ", "list", "show", "find", "any ", "give me", "what ",
    ]
    .iter()
    .any(|q| t.contains(q))
        || t.ends_with('?')
}

pub fn parse(text: &str) -> Intent {
    let t = text.trim().to_lowercase();
    let w = words(&t);
    let has = |s: &str| t.contains(s);
    let any = |l: &[&str]| l.iter().any(|s| t.contains(s));
    let quiet = QUIET_CUES.iter().any(|c| t.contains(c));
    if let Some(request) = step_request(&t, &w) {
        return Intent::Steps(request);
    }
    if let Some((tag, about)) = text_tagged(text, &t, &w) {
        return Intent::TextTagged { tag, about };
    }
    let tag_verb = w
        .iter()
        .any(|x| ["tag", "label", "mark"].contains(&x.as_str()));
    if tag_verb && quiet && !t.starts_with("who") {
        let days = days_in(&w).unwrap_or(30);
        let tag = tag_after(&w, &["as"])
            .or_else(|| tag_after(&w, &["with"]))
            .unwrap_or_else(|| "quiet".into());
        return Intent::TagQuiet { days, tag };
    }
    if has("quote")
        && any(&[
            "follow up",
            "follow-up",
            "followup",
            "reach out",
            "text ",
            "message",
            "nudge",
            "campaign",
            "check in",
        ])
    {
        return Intent::FollowUpQuoteLeads;
    }
    if has("how many") && any(&["contact", "people", "customer", "patient"]) {
        return Intent::CountContacts;
    }
    if any(&[
        "opted out",
        "opted-out",
        "opt out",
        "unsubscribed",
        "said stop",
    ]) && asks(&t)
    {
        return Intent::OptedOut;
    }
    if quiet && asks(&t) {
        return Intent::Quiet {
            days: days_in(&w).unwrap_or(30),
        };
    }
    if let Some(tag) = tag_after(&w, &["tagged"]).or_else(|| {
        (asks(&t) && has("tag"))
            .then(|| tag_after(&w, &["tag"]))
            .flatten()
    }) {
        return Intent::Tagged {
            tag: tag.trim_matches('\'').to_owned(),
        };
    }
    if any(&["what can you do", "help"]) && w.len() <= 6 {
        return Intent::Help;
    }
    for lead in [
        "tell me about ",
        "who is ",
        "look up ",
        "details for ",
        "number for ",
        "phone number of ",
    ] {
        if let Some(rest) = t.split_once(lead).map(|(_, r)| r) {
            let name = rest.trim_end_matches(['?', '.', '!']).trim();
            if !name.is_empty() && name.split_whitespace().count() <= 3 {
                return Intent::AboutContact {
                    name: name.to_owned(),
                };
            }
        }
    }
    if let Some(name) = t
        .strip_prefix("what's ")
        .or_else(|| t.strip_prefix("what is "))
        .and_then(|r| r.split_once("'s number"))
        .map(|(n, _)| n.trim())
        .filter(|n| !n.is_empty())
    {
        return Intent::AboutContact {
            name: name.to_owned(),
        };
    }
    Intent::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_and_more_phrasings() {
        use Intent::*;
        let cases: Vec<(&str, Intent)> = vec![
            (
                "tag everyone who has not replied in 30 days as quiet",
                TagQuiet {
                    days: 30,
                    tag: "quiet".into(),
                },
            ),
            (
                "Please tag contacts that haven't replied in 7 days as cold-lead.",
                TagQuiet {
                    days: 7,
                    tag: "cold-lead".into(),
                },
            ),
            (
                "Label people we haven't heard from in two weeks as dormant",
                TagQuiet {
                    days: 14,
                    tag: "dormant".into(),
                },
            ),
            (
                "mark contacts with no reply for a month as inactive",
                TagQuiet {
                    days: 30,
                    tag: "inactive".into(),
                },
            ),
            ("follow up with quiet quote leads", FollowUpQuoteLeads),
            (
                "Send a follow-up campaign to quote leads",
                FollowUpQuoteLeads,
            ),
            ("text the people we sent a quote to", FollowUpQuoteLeads),
            ("How many contacts do we have?", CountContacts),
            ("who has opted out?", OptedOut),
            ("list unsubscribed contacts", OptedOut),
            ("Who hasn't replied in 14 days?", Quiet { days: 14 }),
            ("show me quiet contacts", Quiet { days: 30 }),
            (
                "which contacts are tagged vip?",
                Tagged { tag: "vip".into() },
            ),
            (
                "tell me about Ada Lovelace",
                AboutContact {
                    name: "ada lovelace".into(),
                },
            ),
            (
                "what's Grace's number?",
                AboutContact {
                    name: "grace".into(),
                },
            ),
            (
                "Find the VIP patients who haven't replied in 14 days, tag them follow-up and text each a check-in",
                Steps(StepRequest {
                    find_tag: "vip".into(),
                    quiet_days: Some(14),
                    new_tag: "follow-up".into(),
                    text_each: true,
                }),
            ),
            (
                "find the quote leads who have not replied in 14 days, tag them follow-up and note each one",
                Steps(StepRequest {
                    find_tag: "quote".into(),
                    quiet_days: Some(14),
                    new_tag: "follow-up".into(),
                    text_each: false,
                }),
            ),
            (
                "find the patients, tag them check-in and text each a check-in",
                Steps(StepRequest {
                    find_tag: "patient".into(),
                    quiet_days: None,
                    new_tag: "check-in".into(),
                    text_each: true,
                }),
            ),
            (
                "Text everyone tagged vip about our Saturday opening",
                TextTagged {
                    tag: "vip".into(),
                    about: "our Saturday opening".into(),
                },
            ),
            (
                "message all vip patients about the new opening hours.",
                TextTagged {
                    tag: "vip".into(),
                    about: "the new opening hours".into(),
                },
            ),
            (
                "please send a text to contacts tagged flu-jab about booking this year's jab",
                TextTagged {
                    tag: "flu-jab".into(),
                    about: "booking this year's jab".into(),
                },
            ),
            ("what can you do?", Help),
            ("write me a poem about teeth", Unknown),
            ("delete every contact", Unknown),
            ("book Ada for Tuesday at 3", Unknown),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text), want, "{text}");
        }
    }
}
