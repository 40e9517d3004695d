//! A step's arguments as a business owner reads them: contacts by name with the count, numbers
//! by their label and number, a text's words with the places a reference fills marked, tags as
//! chips. The card keeps the raw form (tool, JSON, references) behind "Details".
//!
//! Rendering runs twice per page of plans: once to learn which ids it names (`ids_named`), then,
//! with those read in one query each (`named`), for real. One function serves both, so the two
//! agree.
use super::model::{ArgLine, ArgPart, PlanStep};
use super::reference::{lookup, parse_template, Part, Reference, Segment, Template, ITEM};
use crate::format::grouped;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use uuid::Uuid;

mod named;
pub use named::Named;

/// Names shown by a list of contacts before "and N others".
const NAMED: usize = 3;

/// What the card may name: contacts and numbers of the plan's own organisation, and the
/// plan's steps by their intent (to say where a value will come from).
pub struct Names<'a> {
    pub contact: &'a dyn Fn(Uuid) -> Option<String>,
    /// A number's label and number.
    pub number: &'a dyn Fn(Uuid) -> Option<(String, String)>,
    pub intent: &'a dyn Fn(&str) -> Option<String>,
}

/// The ids `lines` would name, so that they can be read in one query.
pub fn ids_named(steps: &[PlanStep], known: &HashMap<String, Value>) -> Vec<Uuid> {
    let seen = RefCell::new(Vec::new());
    let contact = |id| {
        seen.borrow_mut().push(id);
        None
    };
    let number = |id| {
        seen.borrow_mut().push(id);
        None
    };
    let names = Names {
        contact: &contact,
        number: &number,
        intent: &|_| None,
    };
    for s in steps {
        lines(s, known, &names);
    }
    seen.into_inner()
}

/// A step's arguments as a person reads them, in a fixed order: whom, from which number, the
/// words, the tags, then anything else. `known` holds the results of the steps that have run.
pub fn lines(step: &PlanStep, known: &HashMap<String, Value>, names: &Names) -> Vec<ArgLine> {
    let Some(args) = step.arguments.as_object() else {
        return Vec::new();
    };
    let of = |id: &str| known.get(id);
    let r = Reader { of: &of, names };
    let to = match step.tool.as_str() {
        "send_sms" | "schedule_text" | "start_campaign" => "To",
        _ => "Contact",
    };
    let mut out = Vec::new();
    let mut push = |arg: &str, label: &str, parts: Vec<ArgPart>, chips: Vec<String>| {
        out.push(ArgLine {
            arg: arg.into(),
            label: label.into(),
            parts,
            chips,
        })
    };
    if let Some(v) = args.get("contact_id") {
        push("contact_id", to, r.contact(v), vec![]);
    }
    if let Some(v) = args.get("contacts") {
        let label = if step.tool == "tag_contacts" {
            "Contacts"
        } else {
            to
        };
        push("contacts", label, r.contacts(v), vec![]);
    }
    if let Some(a) = args.get("audience") {
        push("audience", to, vec![plain(&audience_words(a))], vec![]);
    }
    if let Some(v) = args.get("phone_number_id") {
        push("phone_number_id", "From", r.number(v), vec![]);
    }
    for (arg, label) in [
        ("body", "Text"),
        ("note", "Note"),
        ("message_concept", "Concept"),
    ] {
        if let Some(v) = args.get(arg) {
            push(arg, label, r.words(v), vec![]);
        }
    }
    if let (Some(field), Some(value)) = (args.get("field"), args.get("value")) {
        let mut parts = r.words(field);
        parts.push(plain(" to "));
        parts.extend(r.words(value));
        push("field", "Set", parts, vec![]);
    }
    for (arg, label) in [
        ("add", "Add tags"),
        ("remove", "Remove tags"),
        ("tag", "Tagged"),
    ] {
        if let Some(v) = args.get(arg) {
            push(arg, label, vec![], r.chips(v));
        }
    }
    if let Some(v) = args.get("limit") {
        let words = v
            .as_u64()
            .map_or_else(|| r.words(v), |n| vec![plain(&grouped(n))]);
        push("limit", "At most", words, vec![]);
    }
    if let Some(v) = args.get("in_hours") {
        let words = match v.as_u64() {
            Some(1) => vec![plain("in 1 hour")],
            Some(h) => vec![plain(&format!("in {h} hours"))],
            None => r.words(v),
        };
        push("in_hours", "When", words, vec![]);
    }
    const SHOWN: [&str; 12] = [
        "limit",
        "contact_id",
        "contacts",
        "audience",
        "phone_number_id",
        "body",
        "note",
        "message_concept",
        "add",
        "remove",
        "tag",
        "in_hours",
    ];
    let set_field = args.contains_key("field") && args.contains_key("value");
    for (k, v) in args {
        if SHOWN.contains(&k.as_str()) || (set_field && (k == "field" || k == "value")) {
            continue;
        }
        push(k, &label_of(k), r.words(v), vec![]);
    }
    out
}

/// A `for_each` step's item as a person reads it: to whom, and the words it gets, the places
/// the item fills marked.
pub fn item_line(template: &Value, item: &Value, names: &Names) -> Option<ArgLine> {
    let (arg, words) = ["body", "note", "value"]
        .iter()
        .find_map(|k| template.get(*k).map(|w| (*k, w)))?;
    let of = |id: &str| (id == ITEM).then_some(item);
    let r = Reader { of: &of, names };
    let who = item["id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .and_then(|id| (names.contact)(id))
        .or_else(|| item["name"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "this item".into());
    Some(ArgLine {
        arg: arg.into(),
        label: format!("To {who}:"),
        parts: r.words(words),
        chips: vec![],
    })
}

fn plain(text: &str) -> ArgPart {
    ArgPart {
        text: text.into(),
        filled: false,
    }
}

fn filled(text: String) -> ArgPart {
    ArgPart { text, filled: true }
}

/// "no_reply_in_days" → "No reply in days".
fn label_of(key: &str) -> String {
    let words = key.replace('_', " ");
    let mut c = words.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn audience_words(a: &Value) -> String {
    let filter = a
        .get("filter")
        .and_then(|f| {
            serde_json::from_value::<crate::contacts::model::ContactFilter>(f.clone()).ok()
        })
        .map(|f| f.describe());
    match (a["segment"].as_str(), filter) {
        (Some(s), _) => format!("segment \u{201c}{s}\u{201d}"),
        (None, Some(words)) => format!("contacts {words}"),
        (None, None) => "the contacts the filter finds".into(),
    }
}

/// A value in a line: text as it is, anything else as compact JSON, long values cut.
fn shown(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if s.chars().count() > 160 {
        format!("{}…", s.chars().take(160).collect::<String>())
    } else {
        s
    }
}

struct Reader<'a, 'v> {
    of: &'a dyn Fn(&str) -> Option<&'v Value>,
    names: &'a Names<'a>,
}

impl<'v> Reader<'_, 'v> {
    /// A reference's value once its step has run.
    fn value(&self, r: &Reference) -> Option<&'v Value> {
        lookup(r, self.of).ok()
    }

    /// Where a reference's value will come from, in words: "‹name›", "‹name from ‘Find the
    /// quote leads’›".
    fn pending(&self, r: &Reference) -> String {
        let what = r
            .path
            .iter()
            .rev()
            .find_map(|s| match s {
                Segment::Key(k) if k != "id" => Some(k.replace('_', " ")),
                _ => None,
            })
            .unwrap_or_else(|| {
                if r.error {
                    "error".into()
                } else {
                    "result".into()
                }
            });
        if r.is_item() {
            return format!("‹each one's {what}›");
        }
        let from = (self.names.intent)(&r.step).unwrap_or_else(|| r.step.clone());
        format!("‹{what} from \u{2018}{from}\u{2019}›")
    }

    /// Words with references: the filled places marked.
    fn words(&self, v: &Value) -> Vec<ArgPart> {
        let Some(s) = v.as_str() else {
            return vec![plain(&shown(v))];
        };
        let parts = match parse_template(s) {
            Ok(Template::Plain) | Err(_) => return vec![plain(s)],
            Ok(Template::Whole(r)) => vec![Part::Ref(r)],
            Ok(Template::Parts(p)) => p,
        };
        parts
            .into_iter()
            .map(|p| match p {
                Part::Text(t) => plain(&t),
                Part::Ref(r) => filled(self.value(&r).map_or_else(|| self.pending(&r), shown)),
            })
            .collect()
    }

    fn name(&self, id: &Value) -> Option<String> {
        let id = id.as_str().or_else(|| id["id"].as_str())?.parse().ok()?;
        (self.names.contact)(id)
    }

    /// One contact: by name, or where it will come from.
    fn contact(&self, v: &Value) -> Vec<ArgPart> {
        match v.as_str().map(parse_template) {
            Some(Ok(Template::Whole(r))) => match self.value(&r) {
                Some(id) => vec![filled(self.name(id).unwrap_or_else(|| "a contact".into()))],
                None if r.is_item() => vec![filled("each contact".into())],
                None => vec![filled(format!(
                    "a contact from \u{2018}{}\u{2019}",
                    (self.names.intent)(&r.step).unwrap_or(r.step)
                ))],
            },
            _ => vec![plain(
                &self.name(v).unwrap_or_else(|| "a contact not found".into()),
            )],
        }
    }

    /// A list of contacts: the first few by name, and how many.
    fn contacts(&self, v: &Value) -> Vec<ArgPart> {
        let (list, from_ref) = match v.as_str().map(parse_template) {
            Some(Ok(Template::Whole(r))) => match self.value(&r).and_then(Value::as_array) {
                Some(l) => (l.clone(), true),
                None => {
                    let from = (self.names.intent)(&r.step).unwrap_or(r.step);
                    return vec![filled(format!("the contacts from \u{2018}{from}\u{2019}"))];
                }
            },
            _ => (v.as_array().cloned().unwrap_or_default(), false),
        };
        // A `for_each` step's `["{{item.id}}"]`: the contact it runs on.
        if let [one] = list.as_slice() {
            if let Some(Ok(Template::Whole(r))) = one.as_str().map(parse_template) {
                if r.is_item() {
                    return vec![filled("each contact".into())];
                }
            }
        }
        let n = list.len();
        let mut named: Vec<String> = list
            .iter()
            .take(NAMED)
            .map(|c| match c.as_str().map(parse_template) {
                Some(Ok(Template::Whole(r))) => self
                    .value(&r)
                    .and_then(|id| self.name(id))
                    .unwrap_or_else(|| self.pending(&r)),
                _ => self.name(c).unwrap_or_else(|| "a contact not found".into()),
            })
            .collect();
        if n > NAMED {
            named.push(format!("{} others", grouped((n - NAMED) as u64)));
        }
        let text = match named.len() {
            0 => "nobody".to_owned(),
            1 => named.remove(0),
            _ => {
                let last = named.pop().unwrap_or_default();
                format!("{} and {last}", named.join(", "))
            }
        };
        let s = if n == 1 { "" } else { "s" };
        let count = format!(" ({} contact{s})", grouped(n as u64));
        let names = if from_ref { filled(text) } else { plain(&text) };
        vec![names, plain(&count)]
    }

    fn number(&self, v: &Value) -> Vec<ArgPart> {
        let id = v.as_str().and_then(|s| s.parse().ok());
        match id.and_then(|id| (self.names.number)(id)) {
            Some((label, number)) if label.trim().is_empty() || label == number => {
                vec![plain(&number)]
            }
            Some((label, number)) => vec![plain(&format!("{label} · {number}"))],
            None => self.words(v),
        }
    }

    fn chips(&self, v: &Value) -> Vec<String> {
        match v {
            Value::Array(l) => l
                .iter()
                .map(|t| self.words(t).into_iter().map(|p| p.text).collect())
                .collect(),
            other => vec![self.words(other).into_iter().map(|p| p.text).collect()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub(super) fn text(line: &ArgLine) -> String {
        line.parts.iter().map(|p| p.text.as_str()).collect()
    }

    fn marked(line: &ArgLine) -> Vec<&str> {
        line.parts
            .iter()
            .filter(|p| p.filled)
            .map(|p| p.text.as_str())
            .collect()
    }

    pub(super) const DANA: &str = "7d0c6c1e-9d6e-4a59-8f1b-8a2f3c4d5e60";
    const LEE: &str = "2b1f0a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
    pub(super) const DESK: &str = "0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f";

    fn with_names<T>(f: impl FnOnce(&Names) -> T) -> T {
        let contact = |id: Uuid| match id.to_string().as_str() {
            DANA => Some("Dana Reyes".to_owned()),
            LEE => Some("Lee Park".to_owned()),
            _ => None,
        };
        let number = |id: Uuid| {
            (id.to_string() == DESK).then(|| ("Front desk".to_owned(), "+15550100001".to_owned()))
        };
        let intent = |s: &str| (s == "find").then(|| "Find the quote leads".to_owned());
        f(&Names {
            contact: &contact,
            number: &number,
            intent: &intent,
        })
    }

    fn text_step() -> PlanStep {
        PlanStep::new(
            "text",
            "Text Dana",
            "send_sms",
            json!({"contact_id": "{{find.result.contacts[0].id}}", "phone_number_id": DESK,
                   "body": "Hi {{find.result.contacts[0].name}}, checking in."}),
        )
    }

    #[test]
    fn before_its_input_runs_a_step_says_where_each_value_will_come_from() {
        let lines = with_names(|n| lines(&text_step(), &HashMap::new(), n));
        let by = |a: &str| lines.iter().find(|l| l.arg == a).unwrap();
        assert_eq!(
            text(by("contact_id")),
            "a contact from ‘Find the quote leads’"
        );
        assert_eq!(by("contact_id").label, "To");
        assert_eq!(text(by("phone_number_id")), "Front desk · +15550100001");
        assert_eq!(
            text(by("body")),
            "Hi ‹name from ‘Find the quote leads’›, checking in."
        );
        assert_eq!(marked(by("body")), ["‹name from ‘Find the quote leads’›"]);
        // Whom, from where, then the words.
        let order: Vec<&str> = lines.iter().map(|l| l.arg.as_str()).collect();
        assert_eq!(order, ["contact_id", "phone_number_id", "body"]);
    }

    #[test]
    fn once_it_has_run_names_and_words_are_filled_in_and_marked() {
        let known = HashMap::from([(
            "find".to_owned(),
            json!({"contacts": [{"id": DANA, "name": "Dana Reyes"}], "count": 1}),
        )]);
        let lines = with_names(|n| lines(&text_step(), &known, n));
        assert_eq!(text(&lines[0]), "Dana Reyes");
        assert_eq!(marked(&lines[0]), ["Dana Reyes"]);
        assert_eq!(text(&lines[2]), "Hi Dana Reyes, checking in.");
        assert_eq!(marked(&lines[2]), ["Dana Reyes"]);
    }

    #[test]
    fn a_list_of_contacts_shows_a_few_names_and_the_count_and_tags_are_chips() {
        let ids: Vec<Value> = [DANA, LEE]
            .iter()
            .map(|s| json!(s))
            .chain((0..1_203).map(|_| json!(Uuid::new_v4().to_string())))
            .collect();
        let step = PlanStep::new(
            "tag",
            "Tag them",
            "tag_contacts",
            json!({"contacts": ids, "add": ["follow-up", "q4"], "remove": ["cold"]}),
        );
        let lines = with_names(|n| lines(&step, &HashMap::new(), n));
        assert_eq!(lines[0].label, "Contacts");
        assert_eq!(
            text(&lines[0]),
            "Dana Reyes, Lee Park, a contact not found and 1,202 others (1,205 contacts)"
        );
        assert_eq!(lines[1].chips, ["follow-up", "q4"]);
        assert_eq!(lines[2].label, "Remove tags");
        assert_eq!(lines[2].chips, ["cold"]);
    }

    #[test]
    fn a_for_each_item_is_addressed_by_name_with_what_the_item_fills_marked() {
        let template = json!({"contact_id": "{{item.id}}", "body": "Hi {{item.first_name}}!"});
        let item = json!({"id": LEE, "name": "Lee Park", "first_name": "Lee"});
        let line = with_names(|n| item_line(&template, &item, n)).unwrap();
        assert_eq!(line.label, "To Lee Park:");
        assert_eq!(text(&line), "Hi Lee!");
        assert_eq!(marked(&line), ["Lee"]);
        // The step's own line, before any item: what each one gets.
        let step = PlanStep::new("each", "Text each", "send_sms", template);
        let read = with_names(|n| lines(&step, &HashMap::new(), n));
        assert_eq!(text(&read[0]), "each contact");
        assert_eq!(text(&read[1]), "Hi ‹each one's first name›!");
        let step = PlanStep::new(
            "tag",
            "Tag each",
            "tag_contacts",
            json!({"contacts": ["{{item.id}}"], "add": ["quiet"]}),
        );
        let read = with_names(|n| lines(&step, &HashMap::new(), n));
        assert_eq!(text(&read[0]), "each contact");
    }

    #[test]
    fn the_ids_to_read_are_the_ones_the_lines_would_name() {
        let known = HashMap::from([("find".to_owned(), json!({"contacts": [{"id": DANA}]}))]);
        let ids = ids_named(&[text_step()], &known);
        let want: Vec<Uuid> = [DANA, DESK].iter().map(|s| s.parse().unwrap()).collect();
        assert_eq!(ids, want);
    }

    #[test]
    fn anything_else_reads_as_its_name_and_value() {
        let step = PlanStep::new(
            "find",
            "Find",
            "find_contacts",
            json!({"no_reply_in_days": 30, "tag": "vip"}),
        );
        let lines = with_names(|n| lines(&step, &HashMap::new(), n));
        assert_eq!(lines[0].chips, ["vip"]);
        assert_eq!(lines[1].label, "No reply in days");
        assert_eq!(text(&lines[1]), "30");
    }
}
