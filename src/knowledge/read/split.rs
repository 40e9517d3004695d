//! A source's text as passages: a few hundred tokens each (600 to 1,200 characters), overlapping
//! by 150 so a sentence cut at one edge is whole in the next, split where the text itself breaks
//! (Markdown's sections and paragraphs, else sentences) by `text-splitter`. Each passage gets its
//! search terms, with its page's title (a web page's) so "hours" finds the Hours page's lines.
use crate::knowledge::terms;
use text_splitter::{ChunkConfig, MarkdownSplitter, TextSplitter};

/// A passage's size in characters.
const CAPACITY: std::ops::Range<usize> = 600..1_200;
/// Characters one passage shares with the next.
const OVERLAP: usize = 150;
/// Passages one source keeps at most (the size an organisation's whole knowledge is built for);
/// the rest of a very long text is left out, and said so. It also bounds the one transaction
/// that replaces a source's passages.
pub const PASSAGES_MAX: usize = 2_000;

/// One passage: where it stands, its words, its search terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub locator: Option<String>,
    pub text: String,
    pub terms: String,
}

fn config() -> ChunkConfig<text_splitter::Characters> {
    ChunkConfig::new(CAPACITY)
        .with_overlap(OVERLAP)
        .expect("the overlap is smaller than the passage")
}

/// Splits `text` (Markdown when `markdown`), found also by `title`; at most `room` passages.
pub fn pieces(
    locator: Option<&str>,
    title: &str,
    text: &str,
    markdown: bool,
    room: usize,
) -> Vec<Piece> {
    // Lazily: a text longer than the room left is split only as far as the room goes.
    let markdown_splitter;
    let text_splitter;
    let chunks: Box<dyn Iterator<Item = &str>> = if markdown {
        markdown_splitter = MarkdownSplitter::new(config());
        Box::new(markdown_splitter.chunks(text))
    } else {
        text_splitter = TextSplitter::new(config());
        Box::new(text_splitter.chunks(text))
    };
    chunks
        .map(str::trim)
        .filter(|c| c.chars().any(char::is_alphanumeric))
        .take(room)
        .map(|c| Piece {
            locator: locator.map(str::to_owned),
            text: plain(c),
            terms: terms::indexed(&format!("{title}\n{c}")),
        })
        .collect()
}

/// A passage as a person reads it: Markdown's heading marks dropped ("# Hours" is "Hours").
fn plain(chunk: &str) -> String {
    chunk
        .lines()
        .map(|l| {
            let t = l.trim_start_matches('#');
            if t.len() < l.len() && t.starts_with(' ') {
                t.trim_start()
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_split_into_overlapping_passages_of_a_few_hundred_tokens() {
        let sentence = "Whitening takes one hour in the chair and costs three hundred dollars. ";
        let text = sentence.repeat(60);
        let p = pieces(Some("page 2"), "Price list", &text, false, PASSAGES_MAX);
        assert!(p.len() >= 4, "{} passages", p.len());
        for piece in &p {
            let n = piece.text.chars().count();
            assert!(n <= CAPACITY.end, "{n} characters");
            assert_eq!(piece.locator.as_deref(), Some("page 2"));
            assert!(piece.terms.contains("whiten"));
            assert!(piece.terms.contains("list"), "the title's words find it");
        }
        let first_end = &p[0].text[p[0].text.len() - 40..];
        assert!(
            p[1].text.contains(first_end.trim()),
            "the next passage overlaps the last"
        );
    }

    #[test]
    fn markdown_keeps_a_short_section_whole_and_room_is_kept() {
        let text =
            "# Hours\n\nMonday to Friday 8am to 6pm.\n\n# Parking\n\nFree behind the clinic.";
        let p = pieces(None, "", text, true, PASSAGES_MAX);
        assert_eq!(p.len(), 1);
        assert!(p[0].text.starts_with("Hours\n\nMonday"), "{}", p[0].text);
        assert!(p[0].text.contains("\nParking\n"));
        assert_eq!(pieces(None, "", &"Word. ".repeat(2_000), false, 2).len(), 2);
    }
}
