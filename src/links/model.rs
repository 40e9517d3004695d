//! Finding the links in a text, and the text as it will be sent once they are shortened (for
//! counting its segments and cost before any code exists). Shared by the review sheet and the
//! server.
use std::borrow::Cow;
use std::ops::Range;

/// The length of a short link's code: 10 base-62 characters, about 59 bits of chance.
pub const CODE_LEN: usize = 10;
/// Where short links live under `PUBLIC_URL`.
pub const PATH: &str = "/l/";

/// The byte ranges of the links in `text`: words starting `http://`, `https://` or `www.`
/// (in any case), without the punctuation that ends a sentence after them. A closing bracket
/// stays when the link opened one ("…/Foo_(bar)").
pub fn find(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for word in text.split_inclusive(char::is_whitespace) {
        let at = start;
        start += word.len();
        let word = word.trim_end_matches(char::is_whitespace);
        // A link may follow an opening bracket or quote: "(see https://…)".
        let lead = word.len() - word.trim_start_matches(['(', '[', '"', '\'', '<']).len();
        let w = &word[lead..];
        let lower = w.get(..8).unwrap_or(w).to_ascii_lowercase();
        let scheme = ["https://", "http://", "www."]
            .into_iter()
            .find(|s| lower.starts_with(s));
        let Some(scheme) = scheme else { continue };
        let mut end = w.len();
        // Sentence punctuation after the link is not part of it.
        while let Some(c) = w[..end].chars().last() {
            let closes_own =
                c == ')' && w[..end].matches('(').count() >= w[..end].matches(')').count();
            let trailing = matches!(
                c,
                '.' | ',' | ';' | ':' | '!' | '?' | '\'' | '"' | '>' | ']' | ')'
            );
            if !trailing || closes_own {
                break;
            }
            end -= c.len_utf8();
        }
        if end > scheme.len() {
            out.push(at + lead..at + lead + end);
        }
    }
    out
}

/// `text` with each link that is not already short replaced by `replace(link)`.
pub fn replace(text: &str, own_prefix: &str, mut replace: impl FnMut(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for r in find(text) {
        let link = &text[r.clone()];
        out.push_str(&text[last..r.start]);
        if !own_prefix.is_empty() && link.starts_with(own_prefix) {
            out.push_str(link);
        } else {
            out.push_str(&replace(link));
        }
        last = r.end;
    }
    out.push_str(&text[last..]);
    out
}

/// The text as it goes out when links are shortened under `prefix` (`PUBLIC_URL/l/`), with a
/// stand-in code of the real length: what its segments and cost are counted on. Without a
/// prefix (shortening off), the text itself.
pub fn as_sent<'a>(text: &'a str, prefix: Option<&str>) -> Cow<'a, str> {
    match prefix {
        Some(p) if !find(text).is_empty() => {
            Cow::Owned(replace(text, p, |_| format!("{p}{}", "x".repeat(CODE_LEN))))
        }
        _ => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(t: &str) -> Vec<&str> {
        find(t).into_iter().map(|r| &t[r]).collect()
    }

    #[test]
    fn links_are_found_without_the_sentence_around_them() {
        assert_eq!(
            links("Sale on! https://shop.example/sale. Or www.Example.com/a?b=1, ok"),
            ["https://shop.example/sale", "www.Example.com/a?b=1"]
        );
        assert_eq!(links("(see HTTP://x.example/p)"), ["HTTP://x.example/p"]);
        assert_eq!(
            links("https://en.wikipedia.org/wiki/Foo_(bar)!"),
            ["https://en.wikipedia.org/wiki/Foo_(bar)"]
        );
        assert!(links("no links, https:// alone, or e.g. www.").is_empty());
        assert!(links("").is_empty());
        assert_eq!(links("Café https://é.example/ü"), ["https://é.example/ü"]);
    }

    #[test]
    fn replacing_keeps_the_words_and_the_links_already_short() {
        let t = "Hi Ann, book at https://a.example/x. Ours: https://h.example/l/abc";
        let out = replace(t, "https://h.example/l/", |l| format!("<{l}>"));
        assert_eq!(
            out,
            "Hi Ann, book at <https://a.example/x>. Ours: https://h.example/l/abc"
        );
    }

    #[test]
    fn the_text_as_sent_has_a_short_link_of_the_real_length() {
        let long = format!("Book: https://shop.example/{}", "p".repeat(200));
        let sent = as_sent(&long, Some("https://h.example/l/"));
        assert_eq!(
            sent,
            format!("Book: https://h.example/l/{}", "x".repeat(CODE_LEN))
        );
        assert_eq!(as_sent(&long, None), long);
        assert_eq!(as_sent("no link", Some("p")), "no link");
    }
}
