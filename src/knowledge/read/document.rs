//! A document's kind and its text: a PDF (text taken by `pdf-extract`, page by page, off the async
//! threads and with a panic in the parser caught), plain text, Markdown, or HTML (its main text).
//! A PDF with no text in it (a scan) is refused with that reason.
use crate::knowledge::read::html;

/// The kinds of document Herald reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocKind {
    Pdf,
    Text,
    Markdown,
    Html,
}

impl DocKind {
    /// The type kept with the file.
    pub fn content_type(self) -> &'static str {
        match self {
            DocKind::Pdf => "application/pdf",
            DocKind::Text => "text/plain",
            DocKind::Markdown => "text/markdown",
            DocKind::Html => "text/html",
        }
    }

    /// The kind a stored type names.
    pub fn from_content_type(t: &str) -> Option<DocKind> {
        [
            DocKind::Pdf,
            DocKind::Text,
            DocKind::Markdown,
            DocKind::Html,
        ]
        .into_iter()
        .find(|k| k.content_type() == t)
    }
}

/// Letters and digits a PDF's text must have to count as read (a scan has none, or a few stray
/// marks).
const MIN_PDF_CHARS: usize = 20;

fn extension(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// What a file is, from its content first, then its declared type and its name's extension; a
/// kind Herald does not read is refused, naming what it reads.
pub fn kind_of(name: &str, declared: &str, bytes: &[u8]) -> Result<DocKind, String> {
    let declared = declared
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let ext = extension(name);
    if bytes.starts_with(b"%PDF-") {
        return Ok(DocKind::Pdf);
    }
    if declared == "application/pdf" || ext == "pdf" {
        return Err(format!(
            "{name} is not a PDF, though its name or type says so."
        ));
    }
    let kind = match (declared.as_str(), ext.as_str()) {
        ("text/html" | "application/xhtml+xml", _) | (_, "html" | "htm" | "xhtml") => DocKind::Html,
        ("text/markdown" | "text/x-markdown", _) | (_, "md" | "markdown") => DocKind::Markdown,
        ("text/plain", _) | (_, "txt" | "text") => DocKind::Text,
        _ => {
            return Err(format!(
                "Herald reads PDF, plain text, Markdown and HTML documents; {name} is {}.",
                if declared.is_empty() {
                    "none of these".to_owned()
                } else {
                    declared
                }
            ))
        }
    };
    if std::str::from_utf8(bytes).is_err() {
        return Err(format!(
            "{name} is not UTF-8 text. Save it as UTF-8 (or as a PDF) and upload it again."
        ));
    }
    Ok(kind)
}

/// A document's text, in parts with where each stands (a PDF's "page 3"; None for one part).
pub async fn text_of(
    kind: DocKind,
    bytes: Vec<u8>,
) -> Result<Vec<(Option<String>, String)>, String> {
    match kind {
        DocKind::Pdf => pdf_pages(bytes).await,
        _ => {
            let text =
                String::from_utf8(bytes).map_err(|_| "The file is not UTF-8 text.".to_owned())?;
            let text = text.trim_start_matches('\u{feff}');
            let text = match kind {
                DocKind::Html => html::read(text).text,
                _ => text.to_owned(),
            };
            if text.trim().is_empty() {
                return Err("There is no text in this document.".into());
            }
            Ok(vec![(None, text)])
        }
    }
}

/// A PDF's pages' text, on a blocking thread; a parser panic is a refusal, not a crash.
async fn pdf_pages(bytes: Vec<u8>) -> Result<Vec<(Option<String>, String)>, String> {
    let pages = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem_by_pages(&bytes))
    })
    .await
    .map_err(|e| format!("Herald could not read this PDF: {e}"))?
    .map_err(|_| "Herald could not read this PDF: it seems damaged.".to_owned())?
    .map_err(|e| format!("Herald could not read this PDF: {e}"))?;
    let chars = pages
        .iter()
        .flat_map(|p| p.chars())
        .filter(|c| c.is_alphanumeric())
        .count();
    if chars < MIN_PDF_CHARS {
        return Err(
            "This PDF has no text in it: it looks like a scan. Upload a PDF with its \
                    text (run it through text recognition first), or paste the words as a text \
                    file."
                .into(),
        );
    }
    Ok(pages
        .into_iter()
        .enumerate()
        .filter(|(_, p)| !p.trim().is_empty())
        .map(|(i, p)| (Some(format!("page {}", i + 1)), p))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_content_then_type_then_name() {
        assert_eq!(kind_of("a.bin", "", b"%PDF-1.7 ...").unwrap(), DocKind::Pdf);
        assert_eq!(kind_of("faq.md", "", b"# FAQ").unwrap(), DocKind::Markdown);
        assert_eq!(
            kind_of("page", "text/html; charset=utf-8", b"<p>hi</p>").unwrap(),
            DocKind::Html
        );
        assert_eq!(kind_of("notes.txt", "", b"hello").unwrap(), DocKind::Text);
        let e = kind_of("scan.pdf", "application/pdf", b"GIF89a").unwrap_err();
        assert!(e.contains("not a PDF"), "{e}");
        let e = kind_of("photo.jpg", "image/jpeg", b"\xff\xd8").unwrap_err();
        assert!(
            e.contains("Herald reads PDF, plain text, Markdown and HTML"),
            "{e}"
        );
        let e = kind_of("latin.txt", "text/plain", b"caf\xe9").unwrap_err();
        assert!(e.contains("UTF-8"), "{e}");
    }

    #[tokio::test]
    async fn a_damaged_pdf_is_refused_with_its_reason() {
        let e = text_of(DocKind::Pdf, b"%PDF-1.4 not really".to_vec())
            .await
            .unwrap_err();
        assert!(e.starts_with("Herald could not read this PDF"), "{e}");
    }

    #[tokio::test]
    async fn html_documents_keep_their_main_text() {
        let parts = text_of(
            DocKind::Html,
            b"<body><nav>Menu</nav><main><p>Parking is free.</p></main></body>".to_vec(),
        )
        .await
        .unwrap();
        assert_eq!(parts, vec![(None, "Parking is free.".to_owned())]);
    }
}
