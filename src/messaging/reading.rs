//! What the opt-out detector (or Twilio's Advanced Opt-Out, when it handled the keyword) read
//! in an inbound text, as the text stores it (`message.keyword`). The reading itself is the
//! compliance rules' (`compliance::inbound::read`), asked through `InboundRules`.
use crate::contacts::opt_out::OptOutSource;

/// The `message.keyword` values a reading stores.
pub mod keyword {
    pub const OPT_OUT: &str = "opt_out";
    pub const OPT_IN: &str = "opt_in";
    pub const HELP: &str = "help";
    pub const POSSIBLE_OPT_OUT: &str = "possible_opt_out";
}

/// What the detector (or Twilio's Advanced Opt-Out, when it handled the keyword) made of a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    Plain,
    OptOut {
        matched: String,
        source: OptOutSource,
        /// Twilio's Advanced Opt-Out already confirmed it: Herald sends none of its own.
        confirmed_by_twilio: bool,
    },
    OptIn,
    Help {
        answered_by_twilio: bool,
    },
    Possible {
        matched: String,
    },
}

impl Reading {
    /// What is stored in `message.keyword`.
    pub fn keyword(&self) -> Option<&'static str> {
        match self {
            Reading::Plain => None,
            Reading::OptOut { .. } => Some(keyword::OPT_OUT),
            Reading::OptIn => Some(keyword::OPT_IN),
            Reading::Help { .. } => Some(keyword::HELP),
            Reading::Possible { .. } => Some(keyword::POSSIBLE_OPT_OUT),
        }
    }
}

/// Whether routing must keep a text with this stored keyword from agents and suggesters: an
/// opt-out, a HELP (answered here) and a possible opt-out (a person decides first).
pub fn kept_from_agents(keyword: Option<&str>) -> bool {
    matches!(
        keyword,
        Some(keyword::OPT_OUT) | Some(keyword::HELP) | Some(keyword::POSSIBLE_OPT_OUT)
    )
}
