//! The main text of an HTML page: its `main` (or `article`, or `body`) with navigation, headers,
//! footers, sidebars, forms, scripts and hidden parts dropped, written as plain Markdown (headings
//! as `#`, list items as `-`) so the splitter keeps a section together. Also the page's title and
//! the links it has (navigation included: that is how a site's pages are found).
use scraper::{ElementRef, Html, Node, Selector};
use std::sync::LazyLock;

/// Elements whose words are never an answer: chrome, scripts, forms.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "svg",
    "iframe", "button", "select", "textarea", "head", "dialog", "canvas", "object",
];

/// ARIA roles of the same chrome.
const DROPPED_ROLES: &[&str] = &[
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "search",
    "dialog",
    "alert",
];

/// Elements that start a new line.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "li",
    "ul",
    "ol",
    "table",
    "tr",
    "dl",
    "dt",
    "dd",
    "blockquote",
    "pre",
    "address",
    "figure",
    "figcaption",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "summary",
    "details",
];

static MAIN: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("main, [role=main], article").expect("a valid selector"));
static BODY: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("body").expect("a valid selector"));
static TITLE: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("title, h1").expect("a valid selector"));
static LINKS: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("a[href]").expect("a valid selector"));
static BASE: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("base[href]").expect("a valid selector"));

/// What a page gives: its title, its main text, and the addresses it links to (as written).
#[derive(Debug, Default, PartialEq)]
pub struct PageText {
    pub title: String,
    pub text: String,
    pub links: Vec<String>,
    /// The page's `<base href>`, against which its links are read.
    pub base: Option<String>,
}

/// Reads an HTML page.
pub fn read(html: &str) -> PageText {
    let doc = Html::parse_document(html);
    let root = doc
        .select(&MAIN)
        .next()
        .or_else(|| doc.select(&BODY).next())
        .unwrap_or_else(|| doc.root_element());
    let mut out = String::new();
    walk(root, &mut out);
    let title = doc
        .select(&TITLE)
        .map(|e| squash(&e.text().collect::<String>()))
        .find(|t| !t.is_empty())
        .unwrap_or_default();
    PageText {
        title,
        text: tidy(&out),
        links: doc
            .select(&LINKS)
            .filter_map(|a| a.attr("href"))
            .map(str::to_owned)
            .collect(),
        base: doc
            .select(&BASE)
            .next()
            .and_then(|b| b.attr("href"))
            .map(str::to_owned),
    }
}

fn dropped(e: &ElementRef) -> bool {
    let el = e.value();
    DROPPED.contains(&el.name())
        || el.attr("hidden").is_some()
        || el.attr("aria-hidden") == Some("true")
        || el.attr("role").is_some_and(|r| DROPPED_ROLES.contains(&r))
}

fn walk(node: ElementRef, out: &mut String) {
    for child in node.children() {
        match child.value() {
            Node::Text(t) => {
                let words = squash(t);
                if !words.is_empty() {
                    if !out.is_empty()
                        && !out.ends_with(['\n', ' '])
                        && t.starts_with(char::is_whitespace)
                    {
                        out.push(' ');
                    }
                    out.push_str(&words);
                    if t.ends_with(char::is_whitespace) {
                        out.push(' ');
                    }
                }
            }
            Node::Element(_) => {
                let Some(e) = ElementRef::wrap(child) else {
                    continue;
                };
                if dropped(&e) {
                    continue;
                }
                let name = e.value().name();
                let block = BLOCKS.contains(&name);
                if block {
                    out.push('\n');
                }
                match name {
                    "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                        out.push('\n');
                        let level = name[1..].parse::<usize>().unwrap_or(2);
                        out.push_str(&"#".repeat(level));
                        out.push(' ');
                    }
                    "li" => out.push_str("- "),
                    "td" | "th" => out.push_str(" | "),
                    _ => {}
                }
                walk(e, out);
                // A list item ends where the next begins: no blank line between items.
                if block && name != "li" {
                    out.push('\n');
                }
            }
            _ => {}
        }
    }
}

/// Runs of white space as one space, trimmed.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Each line trimmed, at most one blank line between paragraphs.
fn tidy(s: &str) -> String {
    let mut out = String::new();
    let mut blank = false;
    for line in s.lines().map(str::trim) {
        if line.is_empty() || line == "-" || line == "|" {
            blank = !out.is_empty();
            continue;
        }
        if blank {
            out.push_str("\n\n");
        } else if !out.is_empty() {
            out.push('\n');
        }
        blank = false;
        out.push_str(line.trim_start_matches("| ").trim_end_matches(" |"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<!doctype html><html><head><title>Pricing · Bright Smile</title>
        <style>.x{color:red}</style><script>var price = "$1";</script></head>
        <body><header><a href="/">Home</a> <a href="/hours">Hours</a></header>
        <nav><a href="/team">Our team</a></nav>
        <main><h1>Pricing</h1><p>Teeth   whitening is <b>$350</b>.</p>
        <ul><li>Cleaning: $95</li><li>Check-up: $60</li></ul>
        <div hidden>Secret $1 deal</div><form><input value="Search"></form></main>
        <footer>© 2026 Bright Smile · <a href="https://other.example/">Partner</a></footer>
        </body></html>"#;

    #[test]
    fn keeps_the_main_text_and_drops_the_chrome() {
        let p = read(PAGE);
        assert_eq!(p.title, "Pricing · Bright Smile");
        assert_eq!(
            p.text,
            "# Pricing\n\nTeeth whitening is $350.\n\n- Cleaning: $95\n- Check-up: $60"
        );
        assert!(!p.text.contains("Secret"), "hidden text dropped");
        assert!(!p.text.contains("Our team"), "navigation dropped");
        assert_eq!(p.links, ["/", "/hours", "/team", "https://other.example/"]);
    }

    #[test]
    fn without_a_main_the_body_is_read() {
        let p = read("<html><body><nav>Menu</nav><p>Open Saturday 9am to 1pm.</p></body></html>");
        assert_eq!(p.text, "Open Saturday 9am to 1pm.");
        assert_eq!(p.title, "");
    }
}
