//! Knowledge types shared by the Knowledge page and the server: a source (an FAQ entry, a fact,
//! a document or a website), its state, and what a question finds.
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Sources one page of the Knowledge page lists.
pub const SOURCE_PAGE: u64 = 50;
/// How long an FAQ question, a fact's label or a title may be.
pub const TITLE_MAX: usize = 200;
/// How long an FAQ answer or a fact's value may be.
pub const ANSWER_MAX: usize = 2_000;
/// Alternative phrasings one FAQ entry may have.
pub const ALTERNATIVES_MAX: usize = 10;
/// Passages a question brings back.
pub const HITS_MAX: usize = 5;
/// The score (0 to 1: how much of the question a passage covers) at or above which a passage is
/// taken to answer it.
pub const ANSWER_THRESHOLD: f32 = 0.6;
/// Where a member's document is uploaded (the file's bytes, its type in `Content-Type`, its name
/// in `?name=`).
pub const DOCUMENT_UPLOAD_PATH: &str = "/api/knowledge/document";
/// A document's largest size.
pub const DOCUMENT_MAX_BYTES: u64 = 10 * 1024 * 1024;
/// The most pages one website source reads.
pub const WEB_PAGES_MAX: u32 = 200;
/// How many links deep a website is followed at most.
pub const WEB_DEPTH_MAX: u32 = 5;
/// How often a website may be read again, in hours: daily, weekly, every 30 days.
pub const REFRESH_CHOICES: [u32; 3] = [24, 168, 720];

crate::text_enum! {
    /// What a source is.
    pub enum SourceKind {
        Faq = "faq",
        Fact = "fact",
        Document = "document",
        Web = "web",
    }
}

crate::text_enum! {
    /// Where a source is in being read: queued, reading, ready (its passages are found), or
    /// failed (with its reason).
    pub enum SourceStatus {
        Queued = "queued",
        Reading = "reading",
        Ready = "ready",
        Failed = "failed",
    }
}

impl SourceKind {
    /// The kind in words, for the page.
    pub fn label(self) -> &'static str {
        match self {
            SourceKind::Faq => "FAQ",
            SourceKind::Fact => "Fact",
            SourceKind::Document => "Document",
            SourceKind::Web => "Web page",
        }
    }
}

/// One source as the Knowledge page lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceView {
    pub id: Uuid,
    pub kind: SourceKind,
    /// The FAQ's question, the fact's label.
    pub title: String,
    /// The FAQ's answer, the fact's value.
    pub body: String,
    /// An FAQ's other ways of asking.
    pub alternatives: Vec<String>,
    pub status: SourceStatus,
    pub error: Option<String>,
    pub passages: u32,
    /// When it was last read into passages (RFC 3339).
    pub last_read_at: Option<String>,
    /// Who added it, by name.
    pub added_by: Option<String>,
    /// A document's file name, a website's address.
    #[serde(default)]
    pub origin: Option<String>,
    /// A document's size in bytes.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// A website: how deep its links are followed, how many pages are read, how often again.
    #[serde(default)]
    pub web: Option<WebInput>,
    /// When it is next read (RFC 3339): a website's next refresh, or a reading waiting.
    #[serde(default)]
    pub next_read_at: Option<String>,
}

impl SourceView {
    /// Whether it is being read or waits to be (the page looks again soon).
    pub fn pending(&self) -> bool {
        matches!(self.status, SourceStatus::Queued | SourceStatus::Reading)
    }
}

/// A website as a member adds it: its address, how many links deep to follow its same-site links
/// (0: that page only), the most pages to read, and how often to read it again (None: by hand).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WebInput {
    pub url: String,
    #[serde(default)]
    pub depth: u32,
    #[serde(default = "one_page")]
    pub pages: u32,
    #[serde(default)]
    pub refresh_hours: Option<u32>,
}

fn one_page() -> u32 {
    1
}

impl Default for WebInput {
    fn default() -> Self {
        WebInput {
            url: String::new(),
            depth: 1,
            pages: 20,
            refresh_hours: Some(168),
        }
    }
}

/// How often, in words ("every day", "by hand only").
pub fn refresh_words(hours: Option<u32>) -> String {
    match hours {
        None => "by hand only".into(),
        Some(24) => "every day".into(),
        Some(168) => "every week".into(),
        Some(720) => "every 30 days".into(),
        Some(h) => format!("every {h} hours"),
    }
}

/// One page of sources, newest first, how many there are, and where the next page starts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SourcePage {
    pub items: Vec<SourceView>,
    pub total: u64,
    pub next: Option<String>,
}

/// An FAQ entry as a person writes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FaqInput {
    pub question: String,
    pub answer: String,
    #[serde(default)]
    pub alternatives: Vec<String>,
}

/// A fact: a labelled value ("Saturday hours" → "9am to 1pm").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FactInput {
    pub label: String,
    pub value: String,
}

/// A passage a question found: its words, its source, and how well it answers (0 to 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub passage_id: Uuid,
    pub source_id: Uuid,
    pub source_kind: SourceKind,
    pub source_title: String,
    /// Where in the source: a web page's address, a PDF's page.
    #[serde(default)]
    pub locator: Option<String>,
    pub text: String,
    /// The answer itself when the source gives one directly: an FAQ's answer, a fact's value.
    pub answer: Option<String>,
    pub score: f32,
    /// How near its meaning is to the question's (cosine, -1 to 1), when an embedding model
    /// found it too.
    #[serde(default)]
    pub similarity: Option<f32>,
}

impl Hit {
    /// Whether it answers the question (its score at or above the threshold).
    pub fn answers(&self) -> bool {
        self.score >= ANSWER_THRESHOLD
    }
}

/// What "Try a question" shows: the passages found, best first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TryResult {
    pub hits: Vec<Hit>,
}
