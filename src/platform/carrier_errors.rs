//! Why a text failed, in plain words (issue 30 §1): the Twilio error codes a status callback or a
//! refused send carries, each with what it means for the person, what they can do, and what
//! Herald does about it. Source: Twilio's error dictionary, one page a code at
//! `https://www.twilio.com/docs/api/errors/<code>` (read 2026-11); the words are Herald's own.

/// What Herald does when a text fails with a code, beyond recording it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarrierAction {
    /// The recipient opted out at the carrier: the number goes on the suppression list.
    Suppress,
    /// The number cannot receive texts (off, gone, a landline): the contact is unreachable.
    Unreachable,
    /// The carrier filtered the text: counted per campaign and per number.
    Filtered,
    /// The sending number lacks its registration (10DLC or toll-free verification).
    Unregistered,
    /// Nothing beyond the record.
    Record,
}

/// One code of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CarrierError {
    pub code: &'static str,
    /// What happened, for the person who sent the text.
    pub words: &'static str,
    /// What they can do about it.
    pub remedy: &'static str,
    pub action: CarrierAction,
}

const fn row(
    code: &'static str,
    words: &'static str,
    remedy: &'static str,
    action: CarrierAction,
) -> CarrierError {
    CarrierError {
        code,
        words,
        remedy,
        action,
    }
}

use CarrierAction::*;

/// The common codes for texts, as Twilio's error dictionary describes them.
pub const TABLE: [CarrierError; 14] = [
    row(
        "21211",
        "The number is not a valid phone number",
        "Check the contact's number for a missing or extra digit.",
        Record,
    ),
    row(
        "21408",
        "Texting that country is not switched on for this account",
        "Turn on the country in the Twilio console's geographic permissions, if you mean to text it.",
        Record,
    ),
    row(
        "21610",
        "The recipient has opted out of texts from this number",
        "Nothing more goes to them unless they text START.",
        Suppress,
    ),
    row(
        "21612",
        "The carrier cannot carry a text between these two numbers",
        "Try another of your numbers, or reach them another way.",
        Record,
    ),
    row(
        "21614",
        "The number is not a mobile number (a landline, most likely)",
        "Call them, or ask for a mobile number.",
        Unreachable,
    ),
    row(
        "30003",
        "The phone is off or out of coverage",
        "It may arrive if sent again later; if it keeps failing, the number may be gone.",
        Unreachable,
    ),
    row(
        "30004",
        "The text was blocked: the recipient blocks this number, or their carrier does",
        "Reach them another way; sending again will not help.",
        Record,
    ),
    row(
        "30005",
        "The number does not exist or is no longer in service",
        "Ask the contact for their current number.",
        Unreachable,
    ),
    row(
        "30006",
        "The number is a landline or its carrier cannot receive texts",
        "Call them, or ask for a mobile number.",
        Unreachable,
    ),
    row(
        "30007",
        "The carrier filtered the text as unwanted",
        "Reword it: name your business, drop link shorteners and capitals, and text only people who agreed to it.",
        Filtered,
    ),
    row(
        "30008",
        "The carrier gave no reason",
        "Send it again later; if it keeps failing, reach them another way.",
        Record,
    ),
    row(
        "30010",
        "The text cost more than the account's maximum price",
        "Raise the maximum price in Twilio, or shorten the text.",
        Record,
    ),
    row(
        "30032",
        "The toll-free number is not verified",
        "Finish the toll-free verification in the Twilio console before texting from it.",
        Unregistered,
    ),
    row(
        "30034",
        "The number is not registered for business texting (US A2P 10DLC)",
        "Register the number's brand and campaign in the Twilio console; until then US carriers block its texts.",
        Unregistered,
    ),
];

/// The table's row for `code`, if it has one.
pub fn lookup(code: &str) -> Option<&'static CarrierError> {
    TABLE.iter().find(|e| e.code == code.trim())
}

/// What a failed text says about why: the plain words and the remedy, with the code, or the
/// bare code when the table does not know it.
pub fn explain(code: &str) -> String {
    match lookup(code) {
        Some(e) => format!("{} (error {}). {}", e.words, e.code, e.remedy),
        None => format!("The carrier refused it with error {}.", code.trim()),
    }
}

/// The action a code calls for.
pub fn action(code: &str) -> CarrierAction {
    lookup(code).map_or(Record, |e| e.action)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code the issue names is in the table, once.
    #[test]
    fn every_named_code_has_words_and_an_action() {
        let named = [
            "21610", "21211", "21408", "21612", "21614", "30003", "30004", "30005", "30006",
            "30007", "30008", "30010", "30032", "30034",
        ];
        for code in named {
            let e = lookup(code).unwrap_or_else(|| panic!("{code} is missing"));
            assert!(e.words.len() > 15 && e.remedy.ends_with('.'), "{code}");
            assert_eq!(TABLE.iter().filter(|r| r.code == code).count(), 1, "{code}");
        }
        assert_eq!(TABLE.len(), named.len());
    }

    #[test]
    fn each_code_calls_for_its_action() {
        let expected = [
            ("21610", Suppress),
            ("30003", Unreachable),
            ("30005", Unreachable),
            ("30006", Unreachable),
            ("21614", Unreachable),
            ("30007", Filtered),
            ("30034", Unregistered),
            ("30032", Unregistered),
            ("30008", Record),
            ("99999", Record),
        ];
        for (code, a) in expected {
            assert_eq!(action(code), a, "{code}");
        }
    }

    #[test]
    fn a_failure_reads_as_words_with_its_code_and_remedy() {
        assert_eq!(
            explain("30007"),
            "The carrier filtered the text as unwanted (error 30007). Reword it: name your \
             business, drop link shorteners and capitals, and text only people who agreed to it."
        );
        assert_eq!(
            explain(" 12345 "),
            "The carrier refused it with error 12345."
        );
    }
}
