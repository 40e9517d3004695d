//! The figures in a text: prices, times, dates and other numbers, phone numbers and web
//! addresses, each in one normal form, so a reply's figures can be checked against the words
//! they must come from (issue 52 §3). "$1,100.00" and "1100" are one figure, "9:00" and "9am"
//! are one, "(415) 555-0100" and "+14155550100" are one, and "https://www.x.example/book/" and
//! "x.example/book" are one.
use regex::Regex;
use std::collections::BTreeSet;
use std::sync::LazyLock;

/// A web address: with a scheme, with "www.", or a bare domain with a path or a common ending.
static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:https?://|www\.)[^\s<>\x22']+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|co|us|uk|ca|au|info|biz|example|health|dental|clinic|app)\b(?:/[^\s<>\x22']*)?",
    )
    .expect("the address pattern compiles")
});

/// A phone number: 7 to 15 digits with the usual separators, perhaps after a +.
static PHONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\+?\(?\d[\d\s().-]{5,22}\d").expect("the phone pattern compiles")
});

/// Any other number: digits with thousands commas, decimals or a time's colon.
static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d+(?:[,.:]\d+)*").expect("the number pattern compiles"));

/// The normal form of a web address: no scheme, no "www.", no trailing slash or stop, lower case.
fn url_form(raw: &str) -> String {
    let lower = raw.to_lowercase();
    let s = lower
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_start_matches("www.");
    s.trim_end_matches(|c: char| ".,;:!?)/".contains(c))
        .to_owned()
}

/// The normal form of a number: no thousands commas, no zero decimals, no ":00".
fn number_form(raw: &str) -> String {
    let mut s = raw.replace(',', "");
    if let Some((whole, fraction)) = s.split_once('.') {
        if fraction.chars().all(|c| c == '0') {
            s = whole.to_owned();
        }
    }
    if let Some(hour) = s.strip_suffix(":00") {
        s = hour.to_owned();
    }
    let trimmed = s.trim_start_matches('0');
    if trimmed.is_empty() || trimmed.starts_with(['.', ':']) {
        format!("0{trimmed}")
    } else {
        trimmed.to_owned()
    }
}

/// Every figure in `text`, in normal form: `url:…`, `phone:…` (its last ten digits) or a number.
pub fn figures(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text.to_owned();
    for m in URL.find_iter(text) {
        out.insert(format!("url:{}", url_form(m.as_str())));
        rest = rest.replacen(m.as_str(), " ", 1);
    }
    let without_urls = rest.clone();
    for m in PHONE.find_iter(&without_urls) {
        let digits: String = m.as_str().chars().filter(char::is_ascii_digit).collect();
        // A phone has 7 to 15 digits and at least one separator or a +; "1100" or "2026" is not.
        let separated = m.as_str().chars().any(|c| " ().-+".contains(c));
        if (7..=15).contains(&digits.len()) && separated {
            let tail = &digits[digits.len().saturating_sub(10)..];
            out.insert(format!("phone:{tail}"));
            rest = rest.replacen(m.as_str(), " ", 1);
        }
    }
    for m in NUMBER.find_iter(&rest) {
        let s = m.as_str().trim_end_matches(['.', ',', ':']);
        out.insert(number_form(s));
    }
    out
}

/// The figures of `reply` found in none of `sources`, in the reply's order of normal forms.
pub fn ungrounded<'a>(reply: &str, sources: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let wanted = figures(reply);
    if wanted.is_empty() {
        return vec![];
    }
    let mut known = BTreeSet::new();
    for s in sources {
        known.extend(figures(s));
    }
    wanted
        .into_iter()
        .filter(|f| !known.contains(f))
        .map(|f| {
            f.strip_prefix("url:")
                .or_else(|| f.strip_prefix("phone:"))
                .unwrap_or(&f)
                .to_owned()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn one_figure_in_many_spellings() {
        assert_eq!(figures("Whitening is $350.00"), set(&["350"]));
        assert_eq!(figures("A crown is $1,100."), set(&["1100"]));
        assert_eq!(figures("Open 9:00 to 1pm"), set(&["9", "1"]));
        assert_eq!(figures("from 9:30"), set(&["9:30"]));
        assert_eq!(
            figures("Call (415) 555-0100 today"),
            figures("call +1 415 555 0100")
        );
        assert_eq!(figures("Call (415) 555-0100"), set(&["phone:4155550100"]));
        assert_eq!(
            figures("Book at https://www.brightsmile.example/book/."),
            set(&["url:brightsmile.example/book"])
        );
        assert_eq!(
            figures("brightsmile.example/book"),
            set(&["url:brightsmile.example/book"])
        );
        assert!(figures("Hi Ada! Thanks, see you soon.").is_empty());
    }

    #[test]
    fn a_reply_is_held_to_its_sources() {
        let faq = "In-office whitening is $350 and take-home trays are $180.";
        assert!(ungrounded("Hi! Whitening is $350.", [faq]).is_empty());
        assert_eq!(ungrounded("Hi! Whitening is $299.", [faq]), vec!["299"]);
        assert_eq!(
            ungrounded("Call 415-555-0199 or visit cheap.example", [faq]),
            vec!["4155550199", "cheap.example"]
        );
        // The contact's own words count as a source: "at 3pm?" "Yes, 3pm works."
        assert!(ungrounded("Yes, 3pm works.", [faq, "Can I come at 3pm?"]).is_empty());
        assert!(ungrounded("Let me check with the team and get back to you.", [faq]).is_empty());
    }
}
