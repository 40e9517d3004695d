//! Carrier keywords: a whole-message STOP opts out, START opts back in, HELP is noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keyword {
    OptOut,
    OptIn,
    Help,
}

impl Keyword {
    pub fn as_str(self) -> &'static str {
        match self {
            Keyword::OptOut => "opt_out",
            Keyword::OptIn => "opt_in",
            Keyword::Help => "help",
        }
    }
}

pub const OPT_OUT_WORDS: &[&str] = &[
    "STOP",
    "UNSUBSCRIBE",
    "END",
    "QUIT",
    "STOPALL",
    "REVOKE",
    "OPTOUT",
    "CANCEL",
];
pub const OPT_IN_WORDS: &[&str] = &["START", "YES", "UNSTOP"];
pub const HELP_WORDS: &[&str] = &["HELP", "INFO"];

/// The keyword the whole body is (case-insensitive, surrounding spaces and a final period ignored).
pub fn classify(body: &str) -> Option<Keyword> {
    let word = body
        .trim()
        .trim_end_matches(['.', '!'])
        .trim()
        .to_uppercase();
    if OPT_OUT_WORDS.contains(&word.as_str()) {
        Some(Keyword::OptOut)
    } else if OPT_IN_WORDS.contains(&word.as_str()) {
        Some(Keyword::OptIn)
    } else if HELP_WORDS.contains(&word.as_str()) {
        Some(Keyword::Help)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_body_words_only() {
        for w in OPT_OUT_WORDS {
            assert_eq!(classify(&w.to_lowercase()), Some(Keyword::OptOut));
        }
        assert_eq!(classify("  Stop "), Some(Keyword::OptOut));
        assert_eq!(classify("unstop"), Some(Keyword::OptIn));
        assert_eq!(classify("info"), Some(Keyword::Help));
        assert_eq!(classify("stop please"), None);
        assert_eq!(classify("please stop"), None);
        assert_eq!(classify(""), None);
    }
}
