//! Property targets for everything that reads input from outside: the webhook form and its
//! signature, opt-out keywords, the segment and cost counter, phone and sender parsing, and the
//! step-plan reference resolver and validator, and a person's plan edits. Random and adversarial inputs must never panic, and must give
//! a result or a typed error. The unit tests run each target briefly; `fuzz_bench` runs them
//! for as long as it is asked.
use crate::campaign::segments::{segments, Encoding};
use crate::compliance::detector::{detect, Verdict};
use crate::contacts::phone::{can_text, normalize_phone, sender, MAX_SENDER_CHARS};
use crate::error::AppError;
use crate::messaging::inbound::InboundSms;
use crate::messaging::signature::{compute_signature, verify_signature};
use crate::plans::edit::{Editable, MAX_TITLE_CHARS};
use crate::plans::model::{ContactChange, PlanAction, PlanEdit};
use crate::steps::graph::Graph;
use crate::steps::model::{PlanStep, StepStatus};
use crate::steps::reference::{parse_template, resolve};
use crate::steps::schedule::runnable;
use crate::steps::validate::{validate, ToolCatalog, ToolSpec};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use serde_json::{json, Value};
use std::collections::HashMap;
use uuid::Uuid;

/// One fuzz target: a name and a run of `cases` random cases.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&mut TestRunner) -> Result<(), TestError<String>>,
}

/// Every target.
pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "webhook form",
            run: webhook_form,
        },
        Target {
            name: "webhook signature",
            run: webhook_signature,
        },
        Target {
            name: "opt-out keywords",
            run: keywords,
        },
        Target {
            name: "segments and cost",
            run: segment_counter,
        },
        Target {
            name: "phone and sender",
            run: phones,
        },
        Target {
            name: "step references",
            run: references,
        },
        Target {
            name: "step plan validator",
            run: step_plans,
        },
        Target {
            name: "plan edits",
            run: plan_edits,
        },
    ]
}

/// A runner of `cases` cases; failures are kept nowhere (no files beside the sources).
pub fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn check(ok: bool, what: String) -> Result<(), TestCaseError> {
    if ok {
        Ok(())
    } else {
        Err(TestCaseError::fail(what))
    }
}

/// Text that looks like what arrives: printable, control characters, emoji, GSM extension
/// characters, and keyword-ish words.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ -~]{0,40}",
        "\\PC{0,200}",
        "[ \\t]*(stop|STOP|Start|unstop|help|YES|cancel|quit)[.! ]*",
        "[{}\\[\\]~|€^\\\\a-z]{0,400}",
    ]
}

fn webhook_form(r: &mut TestRunner) -> Result<(), TestError<String>> {
    let key = prop_oneof![
        Just("MessageSid".to_owned()),
        Just("SmsSid".to_owned()),
        Just("From".to_owned()),
        Just("To".to_owned()),
        Just("Body".to_owned()),
        Just("NumMedia".to_owned()),
        "MediaUrl[0-9]{1,2}",
        any::<String>(),
    ];
    let pairs = proptest::collection::vec((key, text()), 0..16);
    let raw = proptest::collection::vec(any::<u8>(), 0..300);
    r.run(&(pairs, raw), |(pairs, raw)| {
        // Bytes off the wire: parsing answers a form or an error.
        let _ = crate::messaging::webhook_form::WebhookForm::parse(&raw);
        let repeated = {
            let mut keys: Vec<&String> = pairs.iter().map(|(k, _)| k).collect();
            keys.sort();
            keys.windows(2).any(|w| w[0] == w[1])
        };
        let form = crate::messaging::webhook_form::WebhookForm::from_pairs(pairs.clone());
        check(
            form.is_err() == repeated,
            format!("repeated keys {repeated}, form {form:?}"),
        )?;
        let Ok(form) = form else { return Ok(()) };
        // The same form in any order reads the same, and signs the same.
        let mut reversed = pairs.clone();
        reversed.reverse();
        let reordered = crate::messaging::webhook_form::WebhookForm::from_pairs(reversed)
            .map_err(|e| TestCaseError::fail(format!("reordered form refused: {e}")))?;
        for (k, v) in &pairs {
            check(
                reordered.get(k) == Some(v.as_str()),
                format!("{k:?} read otherwise reordered"),
            )?;
        }
        check(
            compute_signature("t", "u", form.pairs())
                == compute_signature("t", "u", reordered.pairs()),
            "the signature depends on the order".into(),
        )?;
        check(
            form.number("To", "US") == reordered.number("To", "US"),
            "our number depends on the order".into(),
        )?;
        if let Ok(sms) = InboundSms::from_form(&form, "US") {
            check(
                !sms.message_sid.is_empty()
                    && sms.message_sid.len() <= 64
                    && sms.message_sid.chars().all(|c| c.is_ascii_alphanumeric()),
                format!("accepted sid {:?}", sms.message_sid),
            )?;
            check(sms.media_urls.len() <= 10, "too many media".into())?;
            check(!sms.from.trim().is_empty(), "empty From".into())?;
            // The number the token is chosen by is the one the text is routed by.
            if let Some(ours) = form.number("To", "US") {
                check(sms.to == ours, format!("routed to {} not {ours}", sms.to))?;
            }
        }
        Ok(())
    })
    .map_err(stringify)
}

fn webhook_signature(r: &mut TestRunner) -> Result<(), TestError<String>> {
    let params = proptest::collection::vec((any::<String>(), any::<String>()), 0..8);
    r.run(
        &(any::<String>(), any::<String>(), params, any::<String>()),
        |(token, url, params, given)| {
            let good = compute_signature(&token, &url, &params);
            check(
                verify_signature(&token, &url, &params, &good),
                "own signature".into(),
            )?;
            check(
                given == good || !verify_signature(&token, &url, &params, &given),
                format!("forged signature {given:?} accepted"),
            )?;
            let mut other = params.clone();
            other.push(("Body".into(), "STOP".into()));
            check(
                !verify_signature(&token, &url, &other, &good),
                "a changed form kept its signature".into(),
            )
        },
    )
    .map_err(stringify)
}

fn keywords(r: &mut TestRunner) -> Result<(), TestError<String>> {
    r.run(&text(), |body| {
        // Any text reads without panicking, and a carrier keyword alone, in any case and with
        // any punctuation around it, is always an opt-out.
        let _ = detect(&body, &[]);
        let word: String = body
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_uppercase();
        if word == "STOP" && !body.chars().any(char::is_whitespace) {
            check(
                matches!(detect(&body, &[]), Verdict::OptOut { .. }),
                format!("{body:?} missed"),
            )?;
        }
        for w in crate::compliance::detector::OPT_OUT_WORDS {
            let dressed = format!("  {}!! ", w.to_lowercase());
            check(
                matches!(detect(&dressed, &[]), Verdict::OptOut { .. }),
                format!("{dressed:?} missed"),
            )?;
        }
        Ok(())
    })
    .map_err(stringify)
}

fn segment_counter(r: &mut TestRunner) -> Result<(), TestError<String>> {
    r.run(&text(), |body| {
        let s = segments(&body);
        let cost = s.cost();
        check(cost.is_finite() && cost >= 0.0, format!("cost {cost}"))?;
        let units = match s.encoding {
            Encoding::Gsm7 => body.chars().count(),
            Encoding::Ucs2 => body.encode_utf16().count(),
        };
        // Never fewer segments than the text needs, never absurdly more.
        check(
            s.count <= units.max(1) && (body.is_empty() || s.count >= 1),
            format!("{} segments for {units} units", s.count),
        )?;
        check(!s.label().is_empty(), "no label".into())
    })
    .map_err(stringify)
}

fn phones(r: &mut TestRunner) -> Result<(), TestError<String>> {
    // Short local numbers are here on purpose: fuzzing found "1640" in DE ("+491640") once
    // being a phone number to one check and not to the other.
    let raw = prop_oneof![
        text(),
        "\\+?[0-9 ()-]{0,20}",
        "[0-9]{3,6}",
        "[A-Za-z0-9]{1,12}"
    ];
    let region = prop_oneof![Just("US"), Just("GB"), Just("DE"), Just("XX"), Just("")];
    r.run(&(raw, region), |(raw, region)| {
        if let Ok(e164) = normalize_phone(&raw, region) {
            check(
                can_text(e164.as_str()),
                format!("{raw:?} -> {e164:?} not E.164"),
            )?;
        }
        if let Ok(kept) = sender(&raw, region) {
            check(
                can_text(&kept) || kept.chars().count() <= MAX_SENDER_CHARS,
                format!("sender {kept:?}"),
            )?;
            check(
                !kept.chars().any(char::is_control),
                format!("control characters kept in {kept:?}"),
            )?;
        }
        Ok(())
    })
    .map_err(stringify)
}

fn references(r: &mut TestRunner) -> Result<(), TestError<String>> {
    let piece = prop_oneof![
        text(),
        "\\{\\{[a-z_]{0,6}(\\.result)?(\\.[a-z]{0,5}|\\[[0-9]{0,3}\\]){0,4}\\}\\}",
        "[a-z ]{0,5}\\{\\{s1\\.result\\.data\\[[0-9]\\]\\.phone\\}\\}[a-z ]{0,5}",
        "\\{+\\}+",
    ];
    let args = proptest::collection::vec(piece, 0..5);
    r.run(&args, |pieces| {
        let results = json!({"data": [{"phone": "+14155552671"}, {"phone": null}], "n": 2});
        let lookup = |id: &str| (id == "s1").then_some(&results);
        for p in &pieces {
            let _ = parse_template(p);
        }
        let args = Value::Array(pieces.into_iter().map(Value::String).collect());
        let _ = resolve(&args, &lookup);
        let _ = resolve(&json!({"nested": {"list": args}}), &lookup);
        Ok(())
    })
    .map_err(stringify)
}

/// Two tools, one reading and one sending, with the schemas the validator checks against.
fn catalog() -> ToolCatalog {
    let find = ToolSpec {
        name: "find_contacts".into(),
        mutates: false,
        arguments: json!({"type": "object", "properties": {"tag": {"type": "string"}}}),
        output: json!({"type": "object", "properties": {
            "count": {"type": "integer"},
            "contacts": {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "string"}, "phone": {"type": ["string", "null"]}}}}}}),
    };
    let send = ToolSpec {
        name: "send_sms".into(),
        mutates: true,
        arguments: json!({"type": "object", "required": ["contact_id", "body"], "properties": {
            "contact_id": {"type": "string"}, "body": {"type": "string", "minLength": 1}}}),
        output: json!({"type": "object", "properties": {"sid": {"type": "string"}}}),
    };
    [find, send]
        .into_iter()
        .map(|t| (t.name.clone(), t))
        .collect()
}

/// Random step graphs: short ids that collide, known and unknown tools, and arguments whose
/// references point anywhere (themselves, missing steps, paths the output lacks). A plan the
/// validator passes must be a graph the scheduler can run to the end, step by step.
fn step_plans(r: &mut TestRunner) -> Result<(), TestError<String>> {
    let id = "[abc]{0,2}";
    let arg = prop_oneof![
        text().prop_map(Value::String),
        (
            id,
            "(\\.result)?(\\.count|\\.contacts\\[[0-9]\\]\\.(id|phone)|\\.sid|\\.nope)?"
        )
            .prop_map(|(s, p)| Value::String(format!("{{{{{s}{p}}}}}"))),
        Just(json!(null)),
        any::<i64>().prop_map(Value::from),
    ];
    let step = (
        id,
        prop_oneof!["find_contacts", "send_sms", "[a-z_]{0,8}"],
        proptest::collection::btree_map("[a-z_]{1,10}", arg, 0..3),
    )
        .prop_map(|(id, tool, args)| {
            PlanStep::new(&id, "why", &tool, Value::Object(args.into_iter().collect()))
        });
    let tools = catalog();
    r.run(&proptest::collection::vec(step, 0..6), |steps| {
        let issues = validate(&steps, &tools);
        if !issues.is_empty() {
            return check(
                issues.iter().all(|i| !i.message.is_empty()),
                format!("an issue without words: {issues:?}"),
            );
        }
        let graph = match Graph::of(&steps) {
            Ok(g) => g,
            Err(e) => return check(false, format!("valid, but no graph: {e:?}")),
        };
        let mut steps = steps;
        for _ in 0..steps.len() {
            let Some(&i) = runnable(&steps, &graph).first() else {
                break;
            };
            steps[i].status = StepStatus::Completed;
        }
        check(
            steps.iter().all(|s| s.status == StepStatus::Completed),
            format!("a valid plan that cannot run to the end: {steps:?}"),
        )
    })
    .map_err(stringify)
}

/// Random edits of a random plan: contacts in and out of it (and not in it), titles, summaries
/// and concepts of any text. An accepted edit keeps the plan's contacts and kind, applies every
/// switch, and leaves a trimmed title within bounds; a refused one says why in a typed error.
fn plan_edits(r: &mut TestRunner) -> Result<(), TestError<String>> {
    let plan = (
        proptest::collection::vec(any::<u128>(), 0..6),
        any::<bool>(),
        text(),
        text(),
    );
    let switch = (any::<prop::sample::Index>(), any::<bool>(), any::<u8>());
    let edit = (
        proptest::option::of(prop_oneof![text(), "x{195,205}"]),
        proptest::option::of(text()),
        proptest::collection::vec(switch, 0..8),
        proptest::option::of(text()),
    );
    r.run(&(plan, edit), |((ids, campaign, title, concept), e)| {
        let ids: Vec<Uuid> = ids.into_iter().map(Uuid::from_u128).collect();
        let changes: Vec<ContactChange> = ids
            .iter()
            .map(|id| ContactChange {
                contact_id: *id,
                include: false,
                reason: String::new(),
                add_tags: vec![],
                remove_tags: vec![],
                kind: String::new(),
            })
            .collect();
        let action = if campaign {
            PlanAction::campaign(changes, concept, None)
        } else {
            PlanAction::tagging(changes)
        };
        let current = Editable {
            title,
            summary: String::new(),
            action,
        };
        let (new_title, summary, switches, message_concept) = e;
        // A switch names a contact of the plan, or (when its third part is even) a stranger.
        let include: Vec<(Uuid, bool)> = switches
            .into_iter()
            .map(|(i, on, who)| match (ids.is_empty(), who % 2) {
                (false, 1) => (ids[i.index(ids.len())], on),
                _ => (Uuid::from_u128(u128::from(who) << 64), on),
            })
            .collect();
        let edit = PlanEdit {
            title: new_title,
            summary,
            include,
            message_concept,
            from_number_id: None,
        };
        let after = match edit.apply(&current) {
            Err(AppError::Validation(m) | AppError::NotFound(m)) => {
                return check(!m.is_empty(), "an error without words".into())
            }
            Err(other) => return check(false, format!("an untyped refusal: {other:?}")),
            Ok(after) => after,
        };
        let kept: Vec<Uuid> = after
            .action
            .changes()
            .iter()
            .map(|c| c.contact_id)
            .collect();
        check(kept == ids, format!("contacts changed: {ids:?} → {kept:?}"))?;
        check(
            after.action.type_name() == current.action.type_name(),
            "the plan changed kind".into(),
        )?;
        let last: HashMap<Uuid, bool> = edit.include.iter().copied().collect();
        for c in after.action.changes() {
            let want = last.get(&c.contact_id).copied().unwrap_or(c.include);
            check(
                c.include == want,
                format!("switch not applied to {}", c.contact_id),
            )?;
            check(
                !c.include || !c.reason.trim().is_empty(),
                "in without a reason".into(),
            )?;
        }
        let t = &after.title;
        let good = match &edit.title {
            Some(_) => !t.is_empty() && t.trim() == t && t.chars().count() <= MAX_TITLE_CHARS,
            None => *t == current.title && !t.trim().is_empty(),
        };
        check(good, format!("a bad title was kept: {t:?}"))?;
        if let Some(c) = after.action.message_concept() {
            check(
                edit.message_concept.is_none() || !c.is_empty(),
                "an empty concept was accepted".into(),
            )?;
        }
        check(
            serde_json::to_value(&after.action).is_ok(),
            "the edited action does not serialise".into(),
        )
    })
    .map_err(stringify)
}

fn stringify<T: std::fmt::Debug>(e: TestError<T>) -> TestError<String> {
    match e {
        TestError::Abort(r) => TestError::Abort(r),
        TestError::Fail(r, v) => TestError::Fail(r, format!("{v:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each target, briefly: a few hundred cases run in well under a second.
    #[test]
    fn every_target_holds_on_random_input() {
        for t in targets() {
            let mut r = runner(300);
            if let Err(e) = (t.run)(&mut r) {
                panic!("{}: {e}", t.name);
            }
        }
    }
}
