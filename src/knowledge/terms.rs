//! A text's terms for search: words in lower case, common words dropped, each stemmed (Snowball
//! English) and folded to its concept, so that "How much is whitening?" and "Teeth whitening
//! costs $350" meet on `price` and `whiten`. The same terms are indexed for each passage and
//! asked for by each question, so SQLite's FTS5 and PostgreSQL's tsvector (both with a plain
//! tokenizer over these terms) find exactly the same passages.
use rust_stemmers::{Algorithm, Stemmer};
use std::collections::BTreeSet;
use std::sync::LazyLock;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Words that carry no subject: a question's frame ("how", "do you", "is there").
const STOP: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "being",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "for",
    "from",
    "get",
    "got",
    "had",
    "has",
    "have",
    "he",
    "hello",
    "her",
    "here",
    "hey",
    "hi",
    "him",
    "his",
    "how",
    "i",
    "if",
    "im",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "know",
    "let",
    "like",
    "me",
    "my",
    "need",
    "no",
    "not",
    "of",
    "off",
    "ok",
    "okay",
    "on",
    "or",
    "our",
    "out",
    "please",
    "she",
    "should",
    "so",
    "some",
    "than",
    "thank",
    "thanks",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "too",
    "up",
    "us",
    "very",
    "want",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "will",
    "with",
    "would",
    "yes",
    "you",
    "your",
    "youre",
    "whats",
    "wondering",
    "tell",
];

/// Words asked in many ways, by stem: the first is the concept the others fold into.
const CONCEPTS: &[&[&str]] = &[
    &[
        "price", "cost", "much", "fee", "charg", "expens", "pay", "rate", "quot", "afford",
        "cheap", "dollar",
    ],
    &["hour", "open", "close"],
    &["tooth", "teeth"],
    &["address", "locat", "direct", "situat"],
    &["book", "appoint", "schedul", "reserv", "slot", "avail"],
    &["insur", "insurer", "medicaid", "medicar"],
    &["phone", "call", "ring"],
    &["park", "car"],
    &["whiten", "bleach", "brighten"],
    &["clean", "hygien", "checkup"],
    &["kid", "child", "children", "pediatr", "paediatr", "toddler"],
    &["emerg", "urgent", "pain", "toothach"],
    &["cancel", "reschedul", "move"],
    &["week", "weekday"],
    &["new", "first"],
    &["spanish", "español", "espanol"],
];

/// One word's term: its stem folded to its concept, or None for a common word.
fn term(word: &str) -> Option<String> {
    if word.is_empty() || STOP.contains(&word) {
        return None;
    }
    let stem = STEMMER.stem(word);
    let stem = stem.as_ref();
    Some(
        CONCEPTS
            .iter()
            .find(|group| group.contains(&stem))
            .map_or(stem, |group| group[0])
            .to_owned(),
    )
}

/// The words of a text: runs of letters and digits in lower case, apostrophes dropped
/// ("we're" → "were").
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
}

/// A text's terms, once each, in order.
pub fn terms(text: &str) -> BTreeSet<String> {
    words(text).filter_map(|w| term(&w)).collect()
}

/// A text's terms as the index keeps them: separated by spaces.
pub fn indexed(text: &str) -> String {
    terms(text).into_iter().collect::<Vec<_>>().join(" ")
}

/// How much of the question a passage covers: the share of the question's terms found among the
/// passage's (0 when the question has none).
pub fn coverage(question: &BTreeSet<String>, passage: &BTreeSet<String>) -> f32 {
    if question.is_empty() {
        return 0.0;
    }
    question.intersection(passage).count() as f32 / question.len() as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_and_its_answer_meet_on_concepts() {
        let q = terms("How much is teeth whitening, and are you open Saturday?");
        assert_eq!(
            q.iter().map(String::as_str).collect::<Vec<_>>(),
            ["hour", "price", "saturday", "tooth", "whiten"]
        );
        let faq = terms("What does tooth whitening cost? Whitening costs $350.");
        assert!(faq.contains("price") && faq.contains("whiten"));
        assert_eq!(coverage(&terms("how much is whitening?"), &faq), 1.0);
        assert_eq!(coverage(&terms("hello?"), &faq), 0.0, "no terms, no cover");
    }

    #[test]
    fn the_index_keeps_plain_tokens() {
        assert_eq!(indexed("We're OPEN 9am–5pm!"), "5pm 9am hour");
        assert!(indexed("").is_empty());
    }
}
