//! Mapping an export's columns to a contact's fields (issue 51 §4): what a column may fill, the
//! guess from its header, typed custom fields, and what the import page and the server exchange.
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Rows a mapped import may hold.
pub const MAPPED_ROWS_MAX: usize = 100_000;
/// Rows the page sends in one call (well within a server function's 2 MB).
pub const CHUNK_ROWS: usize = 2_000;
/// Problems a preview or a progress report lists; the rest are counted, and all are in the file
/// of refused rows.
pub const LISTED_MAX: usize = 50;

/// A custom field's type: a date is stored as `YYYY-MM-DD`, a number as a number, yes/no as
/// true or false, so that a later automation can read it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    #[default]
    Text,
    Number,
    Date,
    YesNo,
}

impl FieldKind {
    pub const ALL: [FieldKind; 4] = [Self::Text, Self::Number, Self::Date, Self::YesNo];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Number => "number",
            Self::Date => "date",
            Self::YesNo => "yes_no",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Number => "number",
            Self::Date => "date",
            Self::YesNo => "yes/no",
        }
    }
}

/// What one column of the file fills.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum ImportField {
    /// Left out.
    #[default]
    Skip,
    Name,
    /// First and last name are joined into the name.
    FirstName,
    LastName,
    Phone,
    /// Preferred to `Phone` when a row has both.
    Mobile,
    Email,
    Tags,
    /// web_form, imported, verbal, texted_first or none; yes means imported.
    Consent,
    ConsentAt,
    ConsentNote,
    TimeZone,
    Notes,
    /// A custom field, created on the spot if the organisation has none of that name.
    Custom {
        name: String,
        kind: FieldKind,
    },
}

impl ImportField {
    /// The choices a column offers, in the order the page lists them (custom fields aside).
    pub const STANDARD: [ImportField; 13] = [
        Self::Skip,
        Self::Name,
        Self::FirstName,
        Self::LastName,
        Self::Phone,
        Self::Mobile,
        Self::Email,
        Self::Tags,
        Self::Consent,
        Self::ConsentAt,
        Self::ConsentNote,
        Self::TimeZone,
        Self::Notes,
    ];

    pub fn label(&self) -> String {
        match self {
            Self::Skip => "Leave out".into(),
            Self::Name => "Name".into(),
            Self::FirstName => "First name".into(),
            Self::LastName => "Last name".into(),
            Self::Phone => "Phone".into(),
            Self::Mobile => "Mobile".into(),
            Self::Email => "Email".into(),
            Self::Tags => "Tags".into(),
            Self::Consent => "Consent".into(),
            Self::ConsentAt => "Consent date".into(),
            Self::ConsentNote => "Consent evidence".into(),
            Self::TimeZone => "Time zone".into(),
            Self::Notes => "Notes".into(),
            Self::Custom { name, kind } => format!("Field \"{name}\" ({})", kind.label()),
        }
    }

    /// Whether it names the contact or its number (a file needs at least one such column).
    pub fn identifies(&self) -> bool {
        matches!(
            self,
            Self::Name | Self::FirstName | Self::LastName | Self::Phone | Self::Mobile
        )
    }
}

/// A header as a field name: lower case, words joined by `_` ("Next Appointment" →
/// "next_appointment").
pub fn field_name(header: &str) -> String {
    header
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join("_")
}

/// The field a header most likely means; a header Herald does not know becomes a text field of
/// its name, so that nothing in the file is lost unless a person leaves it out.
pub fn guess(header: &str) -> ImportField {
    let key = field_name(header);
    let words: Vec<&str> = key.split('_').collect();
    let has = |w: &str| words.contains(&w);
    let joined = key.replace('_', "");
    match joined.as_str() {
        "" => return ImportField::Skip,
        "name" | "fullname" | "contactname" | "patientname" | "clientname" | "customername"
        | "displayname" => return ImportField::Name,
        "firstname" | "first" | "givenname" | "fname" | "forename" | "patientfirstname" => {
            return ImportField::FirstName
        }
        "lastname" | "last" | "surname" | "familyname" | "lname" | "patientlastname" => {
            return ImportField::LastName
        }
        "tags" | "tag" | "labels" | "groups" => return ImportField::Tags,
        "consent" | "smsconsent" | "textconsent" | "optin" | "smsoptin" => {
            return ImportField::Consent
        }
        "consentat" | "consentdate" | "optindate" => return ImportField::ConsentAt,
        "consentnote" | "consentevidence" => return ImportField::ConsentNote,
        "timezone" | "tz" => return ImportField::TimeZone,
        "notes" | "note" | "comments" | "comment" => return ImportField::Notes,
        "birthday" | "birthdate" | "dob" | "dateofbirth" => {
            return ImportField::Custom {
                name: "birthday".into(),
                kind: FieldKind::Date,
            }
        }
        _ => {}
    }
    if has("mobile") || has("cell") || has("cellphone") || joined.contains("mobile") {
        return ImportField::Mobile;
    }
    if has("phone") || has("telephone") || has("tel") || joined.ends_with("phone") {
        return ImportField::Phone;
    }
    if joined.contains("email") {
        return ImportField::Email;
    }
    let dated = has("date") || has("appointment") || has("appt") || has("birthday");
    ImportField::Custom {
        name: key.chars().take(64).collect(),
        kind: if dated {
            FieldKind::Date
        } else {
            FieldKind::Text
        },
    }
}

/// The file's records after the header, each as its text (a quoted field may hold a line break,
/// so records are split outside quotes only). Empty records are dropped.
pub fn split_records(text: &str) -> (&str, Vec<&str>) {
    let mut records = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'\n' if !quoted => {
                records.push(text[start..i].trim_end_matches('\r'));
                start = i + 1;
            }
            _ => {}
        }
    }
    records.push(text[start..].trim_end_matches('\r'));
    let mut records = records.into_iter();
    let header = records.next().unwrap_or("");
    (
        header.trim_start_matches('\u{feff}'),
        records.filter(|r| !r.trim().is_empty()).collect(),
    )
}

/// A file's fingerprint (FNV-1a, 64 bits): the same file and mapping resume the same import.
pub fn fingerprint(text: &str, mapping: &[ImportField]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let map = serde_json::to_string(mapping).unwrap_or_default();
    for b in text.bytes().chain([0]).chain(map.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A problem with one row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowProblem {
    /// The row's number in the file, counting the header as row 1.
    pub row: usize,
    pub message: String,
}

/// One row as it will be stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PreviewRow {
    pub row: usize,
    pub name: String,
    pub phone: String,
    pub email: String,
    pub tags: Vec<String>,
    /// Custom fields as they will be stored, as text.
    pub fields: Vec<(String, String)>,
}

/// What the import would do, before anything is written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportPreview {
    pub headers: Vec<String>,
    /// The first row's cells, as examples of each column.
    pub examples: Vec<String>,
    /// The guess for each column (or the mapping sent), and the organisation's custom fields
    /// by the name and type they already have.
    pub mapping: Vec<ImportField>,
    pub known_fields: Vec<(String, FieldKind)>,
    /// The first rows as they will be stored.
    pub sample: Vec<PreviewRow>,
    /// The rows checked, how many would go in and how many would be refused (with the first
    /// problems listed); a problem with the mapping itself refuses the whole file.
    pub rows: usize,
    pub refused: usize,
    pub problems: Vec<RowProblem>,
    pub mapping_error: Option<String>,
}

/// An import under way or done: it goes a chunk at a time, each chunk with its progress in one
/// transaction, so a stopped import resumes where it stopped and a chunk sent twice counts once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportProgress {
    pub id: Uuid,
    pub file_name: String,
    pub total_rows: usize,
    pub rows_done: usize,
    pub imported: usize,
    pub refused: usize,
    /// The first problems; all are in the file of refused rows.
    pub problems: Vec<RowProblem>,
    pub done: bool,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn custom(name: &str, kind: FieldKind) -> ImportField {
        ImportField::Custom {
            name: name.into(),
            kind,
        }
    }

    #[test]
    fn common_headers_are_guessed() {
        for (h, want) in [
            ("Mobile Phone", ImportField::Mobile),
            ("Cell", ImportField::Mobile),
            ("Home Phone", ImportField::Phone),
            ("phone", ImportField::Phone),
            ("First Name", ImportField::FirstName),
            ("Patient Last Name", ImportField::LastName),
            ("Surname", ImportField::LastName),
            ("E-mail Address", ImportField::Email),
            ("Name", ImportField::Name),
            ("consent_at", ImportField::ConsentAt),
            ("Birthdate", custom("birthday", FieldKind::Date)),
            ("DOB", custom("birthday", FieldKind::Date)),
            (
                "Next Appointment",
                custom("next_appointment", FieldKind::Date),
            ),
            ("Insurance Plan", custom("insurance_plan", FieldKind::Text)),
            ("", ImportField::Skip),
        ] {
            assert_eq!(guess(h), want, "{h}");
        }
    }

    #[test]
    fn records_split_outside_quotes() {
        let (h, rows) = split_records("\u{feff}a,b\r\n1,\"x\ny\"\r\n\r\n2,z\n");
        assert_eq!(h, "a,b");
        assert_eq!(rows, vec!["1,\"x\ny\"", "2,z"]);
    }

    #[test]
    fn the_fingerprint_follows_file_and_mapping() {
        let m = vec![ImportField::Name];
        assert_eq!(fingerprint("a", &m), fingerprint("a", &m));
        assert_ne!(fingerprint("a", &m), fingerprint("b", &m));
        assert_ne!(
            fingerprint("a", &m),
            fingerprint("a", &[ImportField::Phone])
        );
    }
}
