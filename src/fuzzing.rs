//! Property targets for everything that reads input from outside: the webhook form and its
//! signature, opt-out keywords, the segment and cost counter, phone and sender parsing, and the
//! step-plan reference resolver. Random and adversarial inputs must never panic, and must give
//! a result or a typed error. The unit tests run each target briefly; `fuzz_bench` runs them
//! for as long as it is asked.
use crate::bulk_operation::segments::{segments, Encoding};
use crate::contacts::phone::{can_text, normalize_phone, sender, MAX_SENDER_CHARS};
use crate::messaging::inbound::InboundSms;
use crate::messaging::keywords::{classify, Keyword};
use crate::messaging::signature::{compute_signature, verify_signature};
use crate::plans::steps::reference::{parse_template, resolve};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use serde_json::{json, Value};

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
        let _ = serde_urlencoded::from_bytes::<Vec<(String, String)>>(&raw);
        if let Ok(sms) = InboundSms::from_params(&pairs) {
            check(
                !sms.message_sid.is_empty()
                    && sms.message_sid.len() <= 64
                    && sms.message_sid.chars().all(|c| c.is_ascii_alphanumeric()),
                format!("accepted sid {:?}", sms.message_sid),
            )?;
            check(sms.media_urls.len() <= 10, "too many media".into())?;
            check(!sms.from.trim().is_empty(), "empty From".into())?;
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
        let k = classify(&body);
        let word = body
            .trim()
            .trim_end_matches(['.', '!'])
            .trim()
            .to_uppercase();
        if k == Some(Keyword::OptOut) {
            check(
                crate::messaging::keywords::OPT_OUT_WORDS.contains(&word.as_str()),
                format!("{body:?} read as STOP"),
            )?;
        }
        if word == "STOP" {
            check(k == Some(Keyword::OptOut), format!("{body:?} missed"))?;
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
            check(can_text(&e164), format!("{raw:?} -> {e164:?} not E.164"))?;
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
