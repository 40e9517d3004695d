//! The opt-out detector: classifies an inbound SMS body before any AI agent sees it.
//!
//! Under the FCC's 2024 TCPA order a consumer may revoke consent "by any reasonable means", so
//! besides the carrier keywords this module recognises revocations in the person's own words, in
//! English, Spanish and French. The decision, first rule that fires wins:
//!
//! 1. a carrier keyword as the whole text, even spelt through punctuation ("S.T.O.P"), or an
//!    organisation's extra phrase anywhere -> [`Verdict::OptOut`];
//! 2. a sentence that is only an opt-out keyword, give or take "please", "now", "por favor"...
//!    -> `OptOut`;
//! 3. a clear revocation phrase anywhere in a sentence ("remove me", "no me escriban")
//!    -> `OptOut`, or `Ambiguous` when a negation stands right before it ("don't stop texting me");
//! 4. a carrier keyword (STOP, END, QUIT, CANCEL) used as a word of its own: with a messaging object
//!    ("stop the calls") or at the start or end of a sentence ("ok stop", "Cancel.") -> `OptOut`;
//!    in the middle of a sentence -> `Ambiguous`; guards ("bus stop", "stop by", "the end of",
//!    "cancel my appointment", "couldn't stop smiling") make it an ordinary word;
//! 5. the whole text START/YES/UNSTOP -> `OptIn`, HELP/INFO -> `Help`;
//! 6. a phrase that might be a revocation ("wrong number", "not interested") -> `Ambiguous`.
//!
//! Matching works on words: the body is split into sentences at `.`, `!`, `?`, `;` and line
//! breaks, normalised with [`normalize`], and cut into words. For matching, apostrophes are folded:
//! English contractions are glued ("don't" and "dont" are both `dont`) and French elisions are
//! split ("m'écrivez" and "m ecrivez" are both `m ecrivez`). Phrase lists are written in plain
//! language; `*` in a phrase stands for any one word.
//!
//! Cost: one pass to normalise, then for each word a hash look-up of the phrases that start with
//! it, so O(length × phrases) at worst; nothing here can panic on any input.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// What an inbound text means for consent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A clear revocation; `matched` is the word or phrase that decided it (normalised form).
    OptOut { matched: String },
    /// The whole text is an opt-in keyword: START, YES, UNSTOP.
    OptIn,
    /// The whole text is HELP or INFO.
    Help,
    /// Might be a revocation: a person must decide. `matched` as above.
    Ambiguous { matched: String },
    /// An ordinary text.
    None,
}

/// The carrier keywords (Twilio's defaults), kept public.
pub const OPT_OUT_WORDS: &[&str] = &[
    "STOP",
    "STOPALL",
    "UNSUBSCRIBE",
    "END",
    "QUIT",
    "REVOKE",
    "OPTOUT",
    "CANCEL",
];

/// The opt-in keywords; they count only as the whole text.
pub const OPT_IN_WORDS: &[&str] = &["START", "YES", "UNSTOP"];

/// The help keywords; they count only as the whole text.
pub const HELP_WORDS: &[&str] = &["HELP", "INFO"];

mod phrases;
use phrases::*;

// Normalisation and words
// ---------------------------------------------------------------------------------------------

/// Lower-case, Unicode NFKD with combining marks removed (so "más" -> "mas", "désabonnez" -> "desabonnez"),
/// curly quotes/apostrophes folded to ', emoji, symbols and punctuation dropped (apostrophes inside words kept or folded consistently),
/// whitespace collapsed to single spaces, trimmed.
///
/// Punctuation and symbols separate words ("désabonnez-moi" -> "desabonnez moi"); an apostrophe
/// is kept only between two letters or digits ("don’t" -> "don't", "'stop'" -> "stop").
pub fn normalize(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut space = false;
    let mut apostrophe = false;
    let chars = body
        .chars()
        .map(fold_quote)
        .flat_map(char::to_lowercase)
        .nfkd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase);
    for c in chars {
        if c.is_alphanumeric() {
            if !out.is_empty() {
                if space {
                    out.push(' ');
                } else if apostrophe {
                    out.push('\'');
                }
            }
            space = false;
            apostrophe = false;
            out.push(c);
        } else if c == '\'' && !space && !apostrophe && !out.is_empty() {
            apostrophe = true;
        } else {
            space = true;
            apostrophe = false;
        }
    }
    out
}

/// Folds the many apostrophes and quotes to `'`.
fn fold_quote(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{02BC}'
        | '\u{02BB}' | '\u{0060}' | '\u{00B4}' | '\u{FF07}' | '\u{201C}' | '\u{201D}'
        | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}' | '\u{00BB}' | '"' => '\'',
        _ => c,
    }
}

/// Sentence ends: the body is judged sentence by sentence.
fn is_sentence_end(c: char) -> bool {
    matches!(
        c,
        '.' | '!'
            | '?'
            | ';'
            | '\n'
            | '\r'
            | '\u{2026}'
            | '\u{00A1}'
            | '\u{00BF}'
            | '\u{3002}'
            | '\u{FF01}'
            | '\u{FF1F}'
            | '\u{061F}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// The matching keys of one normalised word: contractions glued, French elisions split.
fn word_keys(word: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut current = String::new();
    for piece in word.split('\'').filter(|p| !p.is_empty()) {
        if !current.is_empty()
            && !EN_CLITICS.contains(&piece)
            && FR_ELISIONS.contains(&current.as_str())
        {
            keys.push(std::mem::take(&mut current));
        }
        current.push_str(piece);
    }
    if !current.is_empty() {
        keys.push(current);
    }
    keys
}

/// The matching keys of a whole phrase, in order.
fn phrase_keys(phrase: &str) -> Vec<String> {
    Text::parse(phrase)
        .tokens
        .into_iter()
        .map(|t| t.key)
        .collect()
}

/// One matching unit of a text.
struct Token {
    /// Normalised, apostrophes folded.
    key: String,
    /// Index of its sentence.
    sentence: usize,
    /// The normalised words it covers (for the reported span).
    first_word: usize,
    last_word: usize,
}

/// A sentence: a range of tokens, with where its fillers stop.
struct Sentence {
    start: usize,
    /// The first token that is not a leading filler (`end` if none).
    core_start: usize,
    /// One past the last token that is not a trailing filler (`start` if none).
    core_end: usize,
}

/// A body cut into sentences, words and tokens.
struct Text {
    words: Vec<String>,
    tokens: Vec<Token>,
    sentences: Vec<Sentence>,
}

impl Text {
    fn parse(body: &str) -> Self {
        let mut text = Text {
            words: Vec::new(),
            tokens: Vec::new(),
            sentences: Vec::new(),
        };
        for part in body.split(is_sentence_end) {
            let normal = normalize(part);
            if normal.is_empty() {
                continue;
            }
            let index = text.sentences.len();
            let start = text.tokens.len();
            for word in normal.split(' ') {
                text.push_word(word, index);
            }
            let end = text.tokens.len();
            let core_start = (start..end)
                .find(|&i| !LEAD_FILLERS.contains(&text.tokens[i].key.as_str()))
                .unwrap_or(end);
            let core_end = (start..end)
                .rev()
                .find(|&i| !TRAIL_FILLERS.contains(&text.tokens[i].key.as_str()))
                .map_or(start, |i| i + 1);
            text.sentences.push(Sentence {
                start,
                core_start,
                core_end,
            });
        }
        text
    }

    fn push_word(&mut self, word: &str, sentence: usize) {
        let index = self.words.len();
        self.words.push(word.to_string());
        // "don t" typed with a space: glue the lone "t" back.
        if word == "t" {
            if let Some(last) = self.tokens.last_mut() {
                if last.sentence == sentence && last.key.ends_with('n') {
                    last.key.push('t');
                    last.last_word = index;
                    return;
                }
            }
        }
        for key in word_keys(word) {
            self.tokens.push(Token {
                key,
                sentence,
                first_word: index,
                last_word: index,
            });
        }
    }

    /// The key of token `i`, if it is in sentence `sentence`.
    fn key_in(&self, sentence: usize, i: usize) -> Option<&str> {
        self.tokens
            .get(i)
            .filter(|t| t.sentence == sentence)
            .map(|t| t.key.as_str())
    }

    /// The key `back` tokens before token `i`, in the same sentence.
    fn key_before(&self, i: usize, back: usize) -> Option<&str> {
        let sentence = self.tokens.get(i)?.sentence;
        self.key_in(sentence, i.checked_sub(back)?)
    }

    /// The normalised words covered by tokens `from..to`.
    fn span(&self, from: usize, to: usize) -> String {
        let (Some(first), Some(last)) =
            (self.tokens.get(from), self.tokens.get(to.wrapping_sub(1)))
        else {
            return String::new();
        };
        self.words
            .get(first.first_word..=last.last_word)
            .map(|w| w.join(" "))
            .unwrap_or_default()
    }

    /// Where `pattern` ends if it matches at token `i` inside one sentence.
    fn match_at(&self, pattern: &[Pat], i: usize) -> Option<usize> {
        let sentence = self.tokens.get(i)?.sentence;
        for (k, pat) in pattern.iter().enumerate() {
            let key = self.key_in(sentence, i + k)?;
            if let Pat::Word(word) = pat {
                if word != key {
                    return None;
                }
            }
        }
        Some(i + pattern.len())
    }

    /// Whether a negation ("don't", "could not") ends right before token `i`.
    fn negated(&self, i: usize, negators: &[Vec<String>]) -> bool {
        negators.iter().any(|neg| {
            neg.iter()
                .rev()
                .enumerate()
                .all(|(back, word)| self.key_before(i, back + 1) == Some(word.as_str()))
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Compiled phrase tables
// ---------------------------------------------------------------------------------------------

/// One word of a compiled phrase.
enum Pat {
    /// Any one word (`*`).
    Any,
    /// This key.
    Word(String),
}

/// Phrases indexed by their first word.
struct PhraseSet {
    phrases: Vec<Vec<Pat>>,
    by_first: HashMap<String, Vec<usize>>,
}

impl PhraseSet {
    fn new(lists: &[&[&str]]) -> Self {
        let mut set = PhraseSet {
            phrases: Vec::new(),
            by_first: HashMap::new(),
        };
        for phrase in lists.iter().flat_map(|l| l.iter()) {
            let mut pattern = Vec::new();
            for word in phrase.split_whitespace() {
                if word == "*" {
                    pattern.push(Pat::Any);
                } else {
                    pattern.extend(phrase_keys(word).into_iter().map(Pat::Word));
                }
            }
            if let Some(Pat::Word(first)) = pattern.first() {
                set.by_first
                    .entry(first.clone())
                    .or_default()
                    .push(set.phrases.len());
                set.phrases.push(pattern);
            }
        }
        set
    }

    /// The longest phrase matching at token `i`: where it ends.
    fn longest_at(&self, text: &Text, i: usize) -> Option<usize> {
        let key = &text.tokens.get(i)?.key;
        self.by_first
            .get(key)?
            .iter()
            .filter_map(|&p| text.match_at(self.phrases.get(p)?, i))
            .max()
    }
}

/// Everything built once from the data above.
struct Tables {
    clear: PhraseSet,
    ambiguous: PhraseSet,
    whole: HashSet<String>,
    negators: Vec<Vec<String>>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let whole = OPT_OUT_WORDS
            .iter()
            .chain(WHOLE_SENTENCE_OPT_OUT)
            .map(|w| phrase_keys(w).join(" "))
            .filter(|w| !w.is_empty())
            .collect();
        Tables {
            clear: PhraseSet::new(&[CLEAR_EN, CLEAR_ES, CLEAR_FR]),
            ambiguous: PhraseSet::new(&[AMBIGUOUS_EN, AMBIGUOUS_ES, AMBIGUOUS_FR]),
            whole,
            negators: NEGATORS.iter().map(|n| phrase_keys(n)).collect(),
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

/// How a carrier keyword is used at one place.
enum Use {
    /// An everyday word: "bus stop", "end of", "cancel my appointment".
    Ordinary,
    /// A revocation: with a messaging object, or alone at a sentence edge.
    Revocation(String),
    /// Maybe: in the middle of a sentence, or "I need to cancel".
    Maybe(String),
}

/// What follows a keyword.
enum Object {
    /// A messaging object, ending at this token: "stop the calls".
    Messaging(usize),
    /// Another object behind a determiner: "cancel my appointment".
    Other,
    /// Nothing telling.
    Nothing,
}

fn object_after(text: &Text, i: usize, sentence: usize) -> Object {
    let mut j = i + 1;
    let mut determiner = false;
    // A handful of words is enough: "stop sending all of these daily texts".
    while let Some(key) = text.key_in(sentence, j).filter(|_| j <= i + 6) {
        if MESSAGING.contains(&key) {
            return Object::Messaging(j);
        }
        if DETERMINERS.contains(&key) {
            determiner = true;
        } else if !LINKS.contains(&key) {
            if !determiner {
                return Object::Nothing;
            }
            // Up to two adjectives: "these stupid texts", "the daily promo texts".
            for k in j + 1..=j + 2 {
                match text.key_in(sentence, k) {
                    Some(next) if MESSAGING.contains(&next) => return Object::Messaging(k),
                    Some(next) if BREAKS.contains(&next) => break,
                    Some(_) => {}
                    None => break,
                }
            }
            return Object::Other;
        }
        j += 1;
    }
    Object::Nothing
}

fn is_other_gerund(key: &str) -> bool {
    key.len() >= 5
        && key.ends_with("ing")
        && !MESSAGING.contains(&key)
        && !LINKS.contains(&key)
        && !NOT_GERUNDS.contains(&key)
}

/// How the weak keyword `kw` at token `i` is used.
fn weak_use(text: &Text, i: usize, kw: &WeakKeyword, negators: &[Vec<String>]) -> Use {
    let Some(token) = text.tokens.get(i) else {
        return Use::Ordinary;
    };
    let Some(sentence) = text.sentences.get(token.sentence) else {
        return Use::Ordinary;
    };
    if text.negated(i, negators) {
        return Use::Ordinary;
    }
    let prev = text.key_before(i, 1);
    if prev.is_some_and(|p| NOUN_MARKERS.contains(&p) || kw.before.contains(&p)) {
        return Use::Ordinary;
    }
    match object_after(text, i, token.sentence) {
        Object::Messaging(end) => return Use::Revocation(text.span(i, end + 1)),
        Object::Other => return Use::Ordinary,
        Object::Nothing => {}
    }
    if let Some(next) = text.key_in(token.sentence, i + 1) {
        if kw.after.contains(&next) || is_other_gerund(next) {
            return Use::Ordinary;
        }
    }
    let word = text.span(i, i + 1);
    let question = i > sentence.start
        && text
            .key_in(token.sentence, sentence.start)
            .is_some_and(|first| QUESTION_STARTERS.contains(&first));
    if question {
        return if prev.is_some_and(|p| PERSONS.contains(&p)) {
            Use::Maybe(word)
        } else {
            Use::Ordinary
        };
    }
    let at_edge = sentence.core_start >= i || sentence.core_end <= i + 1;
    let soft = prev.is_some_and(|p| kw.soft_before.contains(&p));
    if at_edge && !soft {
        Use::Revocation(word)
    } else {
        Use::Maybe(word)
    }
}

/// Classifies a body. `extra` holds an organisation's own extra opt-out words/phrases (any case, any accents): each,
/// normalised, is matched as a whole word or whole-word phrase anywhere and counts as a clear opt-out.
pub fn detect(body: &str, extra: &[String]) -> Verdict {
    // A single run of characters spelling a carrier keyword through punctuation or emoji:
    // "S.T.O.P", "st🛑op", "un-subscribe".
    if !body.chars().any(char::is_whitespace) {
        let letters: String = body.chars().filter(|c| c.is_alphanumeric()).collect();
        let compact = normalize(&letters);
        if OPT_OUT_WORDS
            .iter()
            .any(|w| w.eq_ignore_ascii_case(&compact))
        {
            return Verdict::OptOut { matched: compact };
        }
    }
    let text = Text::parse(body);
    if text.tokens.is_empty() {
        return Verdict::None;
    }
    let tables = tables();
    let opt_out = |matched: String| Verdict::OptOut { matched };

    // 1. The organisation's own phrases.
    for phrase in extra {
        let pattern: Vec<Pat> = phrase_keys(phrase).into_iter().map(Pat::Word).collect();
        if pattern.is_empty() {
            continue;
        }
        for i in 0..text.tokens.len() {
            if let Some(end) = text.match_at(&pattern, i) {
                return opt_out(text.span(i, end));
            }
        }
    }

    // 2. A sentence that is only an opt-out keyword, fillers aside.
    for s in &text.sentences {
        if s.core_start < s.core_end {
            let core: Vec<&str> = text.tokens[s.core_start..s.core_end]
                .iter()
                .map(|t| t.key.as_str())
                .collect();
            if tables.whole.contains(&core.join(" ")) {
                return opt_out(text.span(s.core_start, s.core_end));
            }
        }
    }

    // 3. Clear phrases; a negated one is only a maybe.
    let mut maybe: Option<String> = None;
    for i in 0..text.tokens.len() {
        if let Some(end) = tables.clear.longest_at(&text, i) {
            if !text.negated(i, &tables.negators) {
                return opt_out(text.span(i, end));
            }
            maybe.get_or_insert_with(|| text.span(i, end));
        }
    }

    // 4. Carrier keywords that are also everyday words.
    for (i, token) in text.tokens.iter().enumerate() {
        let Some(kw) = WEAK_KEYWORDS.iter().find(|k| k.word == token.key) else {
            continue;
        };
        match weak_use(&text, i, kw, &tables.negators) {
            Use::Revocation(matched) => return opt_out(matched),
            Use::Maybe(matched) => {
                maybe.get_or_insert(matched);
            }
            Use::Ordinary => {}
        }
    }

    // 5. Opt-in and help count only as the whole text.
    let whole = normalize(body);
    if OPT_IN_WORDS.iter().any(|w| w.eq_ignore_ascii_case(&whole)) {
        return Verdict::OptIn;
    }
    if HELP_WORDS.iter().any(|w| w.eq_ignore_ascii_case(&whole)) {
        return Verdict::Help;
    }

    // 6. Maybes: a person decides.
    if let Some(matched) = maybe {
        return Verdict::Ambiguous { matched };
    }
    for i in 0..text.tokens.len() {
        if let Some(end) = tables.ambiguous.longest_at(&text, i) {
            return Verdict::Ambiguous {
                matched: text.span(i, end),
            };
        }
    }
    Verdict::None
}

#[cfg(test)]
mod tests;
