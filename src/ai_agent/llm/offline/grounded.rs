//! The offline model answering from the business's knowledge (issue 52 §3). It reads what the
//! runtime found for each of the contact's questions (the "business's knowledge" block of the
//! system prompt) and answers with the FAQ's answer, the fact's value or the passage's best
//! sentence. A question the knowledge does not answer gets the holding reply and goes to the
//! agent's owner, when the agent answers only from knowledge.
use crate::knowledge::ground::{questions, ANSWER_ONLY_LINE};

/// What the system prompt says the knowledge answers, question by question.
#[derive(Debug, Default, PartialEq)]
pub struct Known {
    pub answers: Vec<Option<String>>,
    pub answer_only: bool,
    pub holding: String,
}

impl Known {
    /// Reads the knowledge block; None when the prompt has none.
    pub fn parse(system: &str) -> Option<Known> {
        let (_, block) = system.split_once("## The business's knowledge")?;
        let mut answers = Vec::new();
        for line in block.lines() {
            let Some(rest) = line.strip_prefix("- Question ") else {
                continue;
            };
            let Some((_, what)) = rest.split_once(": ") else {
                continue;
            };
            answers.push(
                what.strip_prefix("answered by ")
                    .and_then(|a| a.split_once("): "))
                    .map(|(_, words)| words.trim().to_owned()),
            );
        }
        let holding = block
            .split_once("gets the holding reply, \"")
            .and_then(|(_, r)| r.split_once("\", and"))
            .map(|(h, _)| h.to_owned())
            .unwrap_or_default();
        Some(Known {
            answers,
            answer_only: block.contains(ANSWER_ONLY_LINE),
            holding,
        })
    }
}

/// A reply from knowledge: the options, best first, and the questions to send to the owner.
#[derive(Debug, PartialEq)]
pub struct Grounded {
    pub options: Vec<String>,
    pub unanswered: Vec<String>,
}

/// The reply the knowledge gives to `text`, greeting with `hi`; None when it neither answers nor
/// must hold (the offline model's other replies then apply).
pub fn reply(text: &str, hi: &str, known: &Known) -> Option<Grounded> {
    let asked = questions(text);
    let mut said: Vec<&str> = Vec::new();
    let mut unanswered = Vec::new();
    for (i, q) in asked.iter().enumerate() {
        match known.answers.get(i).and_then(Option::as_deref) {
            Some(a) if !said.contains(&a) => said.push(a),
            Some(_) => {}
            None => unanswered.push(q.clone()),
        }
    }
    let holds = known.answer_only && !unanswered.is_empty() && !known.holding.is_empty();
    if said.is_empty() && !holds {
        return None;
    }
    let answers = said
        .iter()
        .map(|a| sentence(a))
        .collect::<Vec<_>>()
        .join(" ");
    let options = if said.is_empty() {
        vec![
            format!("{hi} {}", known.holding),
            format!("{hi} Thanks for asking. {}", known.holding),
        ]
    } else if holds {
        vec![
            format!(
                "{hi} {answers} As for your other question: {}",
                lower_first(&known.holding)
            ),
            format!("{answers} {}", known.holding),
        ]
    } else {
        vec![
            format!("{hi} {answers}"),
            format!("{hi} {answers} Anything else I can help with?"),
            format!("{hi} Thanks for asking. {answers}"),
        ]
    };
    Some(Grounded {
        options,
        unanswered: if holds { unanswered } else { vec![] },
    })
}

/// Words as a sentence: a capital first letter and a full stop.
fn sentence(words: &str) -> String {
    let w = words.trim();
    let mut out: String = w
        .chars()
        .next()
        .map(|c| c.to_uppercase().chain(w.chars().skip(1)).collect())
        .unwrap_or_default();
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "## This turn\n...\n\n## The business's knowledge\nPassages...\n\n\
        The contact's questions, in order:\n\
        - Question 1: answered by \"How much does teeth whitening cost?\" (FAQ): In-office whitening is $350.\n\
        - Question 2: the knowledge does not answer it.\n\n\
        Answer only from knowledge: on. A question the knowledge does not answer gets the holding \
        reply, \"Let me check with the team and get back to you.\", and escalate_to_user with the question.";

    #[test]
    fn answers_what_it_knows_and_holds_the_rest() {
        let k = Known::parse(BLOCK).unwrap();
        assert_eq!(k.answers.len(), 2);
        assert!(k.answer_only);
        assert_eq!(k.holding, "Let me check with the team and get back to you.");
        let g = reply(
            "How much is whitening, and do you do veneers?",
            "Hi Ada!",
            &k,
        )
        .unwrap();
        assert_eq!(
            g.options[0],
            "Hi Ada! In-office whitening is $350. As for your other question: let me check with the team and get back to you."
        );
        assert_eq!(g.unanswered, vec!["do you do veneers"]);
    }

    #[test]
    fn holds_when_nothing_answers_and_steps_aside_otherwise() {
        let k = Known::parse(&BLOCK.replace(
            "answered by \"How much does teeth whitening cost?\" (FAQ): In-office whitening is $350.",
            "the knowledge does not answer it.",
        ))
        .unwrap();
        let g = reply("Do you do veneers? And implants?", "Hi!", &k).unwrap();
        assert_eq!(
            g.options[0],
            "Hi! Let me check with the team and get back to you."
        );
        assert_eq!(g.unanswered, vec!["Do you do veneers", "And implants"]);
        let off = Known {
            answer_only: false,
            ..k
        };
        assert_eq!(reply("Do you do veneers?", "Hi!", &off), None);
        assert!(Known::parse("## This turn\nno knowledge").is_none());
    }
}
