//! The detector's tests: the labelled corpus (precision and recall), normalisation, the
//! organisation's own phrases, and odd inputs.
use super::*;

const CORPUS: &str = include_str!("../opt_out_corpus.tsv");

/// One labelled corpus row.
struct Row {
    line: usize,
    label: &'static str,
    lang: &'static str,
    text: &'static str,
}

fn corpus() -> Vec<Row> {
    let mut lines = CORPUS.lines().enumerate();
    assert_eq!(
        lines.next().map(|(_, l)| l),
        Some("label\tlang\ttext"),
        "corpus header"
    );
    lines
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let parts: Vec<&str> = l.split('\t').collect();
            assert_eq!(
                parts.len(),
                3,
                "line {}: want 3 tab-separated fields",
                i + 1
            );
            Row {
                line: i + 1,
                label: parts[0],
                lang: parts[1],
                text: parts[2],
            }
        })
        .collect()
}

fn short(v: &Verdict) -> String {
    match v {
        Verdict::OptOut { matched } => format!("OptOut({matched})"),
        Verdict::Ambiguous { matched } => format!("Ambiguous({matched})"),
        other => format!("{other:?}"),
    }
}

#[test]
fn corpus_is_well_formed() {
    let rows = corpus();
    assert!(rows.len() >= 100, "only {} rows", rows.len());
    let mut seen = HashSet::new();
    for r in &rows {
        assert!(
            ["opt_out", "not", "ambiguous"].contains(&r.label),
            "line {}: label {:?}",
            r.line,
            r.label
        );
        assert!(
            ["en", "es", "fr"].contains(&r.lang),
            "line {}: lang {:?}",
            r.line,
            r.lang
        );
        assert!(!r.text.trim().is_empty(), "line {}: empty text", r.line);
        assert!(
            seen.insert(r.text),
            "line {}: duplicate {:?}",
            r.line,
            r.text
        );
    }
    for lang in ["es", "fr"] {
        let n = rows.iter().filter(|r| r.lang == lang).count();
        assert!(n >= 20, "only {n} {lang} rows");
    }
}

#[test]
fn corpus_classification() {
    let rows = corpus();
    let (mut tp, mut fp, mut fn_) = (0usize, 0usize, 0usize);
    let (mut amb_total, mut amb_ok) = (0usize, 0usize);
    // counts[label][verdict class]
    let labels = ["opt_out", "ambiguous", "not"];
    let mut counts = [[0usize; 3]; 3];
    let mut wrong = Vec::new();
    for r in &rows {
        let v = detect(r.text, &[]);
        let class = match v {
            Verdict::OptOut { .. } => 0,
            Verdict::Ambiguous { .. } => 1,
            _ => 2,
        };
        let label = labels.iter().position(|l| *l == r.label).unwrap_or(2);
        counts[label][class] += 1;
        match (label, class) {
            (0, 0) => tp += 1,
            (0, _) => fn_ += 1,
            (_, 0) => fp += 1,
            _ => {}
        }
        if label == 1 {
            amb_total += 1;
            if class == 1 {
                amb_ok += 1;
            }
        }
        if label != class {
            wrong.push(format!(
                "  line {:>3} [{} {}] {:?} -> {}",
                r.line,
                r.label,
                r.lang,
                r.text,
                short(&v)
            ));
        }
    }
    let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
    let precision = ratio(tp, tp + fp);
    let recall = ratio(tp, tp + fn_);
    println!("\nopt-out corpus: {} rows", rows.len());
    println!(
        "{:<10} {:>7} {:>10} {:>6}",
        "label", "OptOut", "Ambiguous", "other"
    );
    for (l, row) in labels.iter().zip(counts.iter()) {
        println!("{:<10} {:>7} {:>10} {:>6}", l, row[0], row[1], row[2]);
    }
    for lang in ["en", "es", "fr"] {
        let per: Vec<String> = labels
            .iter()
            .map(|l| {
                let n = rows
                    .iter()
                    .filter(|r| r.lang == lang && r.label == *l)
                    .count();
                format!("{l}={n}")
            })
            .collect();
        println!("{lang}: {}", per.join(" "));
    }
    println!(
        "opt_out precision {precision:.3} recall {recall:.3} (tp {tp}, fp {fp}, fn {fn_}); \
         ambiguous handled {amb_ok}/{amb_total}"
    );
    if !wrong.is_empty() {
        println!("misclassified:\n{}", wrong.join("\n"));
    }
    assert!(
        wrong.is_empty(),
        "{} misclassified rows:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn normalize_folds_case_accents_punctuation() {
    assert_eq!(normalize("  STOP!!! 🛑 "), "stop");
    assert_eq!(normalize("No más"), "no mas");
    assert_eq!(normalize("Désabonnez-moi"), "desabonnez moi");
    assert_eq!(normalize("Don’t   TEXT\tme…"), "don't text me");
    assert_eq!(normalize("ne m’écrivez plus"), "ne m'ecrivez plus");
    assert_eq!(normalize("“stop”"), "stop");
    assert_eq!(normalize("'quoted' words' end'"), "quoted words end");
    assert_eq!(normalize("ＳＴＯＰ"), "stop");
    assert_eq!(normalize("opt_out/opt-out"), "opt out opt out");
    assert_eq!(normalize("İstanbul ñandú Ærø"), "istanbul nandu ærø");
    assert_eq!(normalize(""), "");
    assert_eq!(normalize("🙂🙃 !!"), "");
}

#[test]
fn word_keys_glue_contractions_and_split_elisions() {
    assert_eq!(phrase_keys("don't"), ["dont"]);
    assert_eq!(phrase_keys("don t"), ["dont"]);
    assert_eq!(phrase_keys("I'm"), ["im"]);
    assert_eq!(phrase_keys("m'écrivez"), ["m", "ecrivez"]);
    assert_eq!(phrase_keys("s'il vous plaît"), ["s", "il", "vous", "plait"]);
    assert_eq!(phrase_keys("aujourd'hui"), ["aujourdhui"]);
}

#[test]
fn word_lists_are_written_normalised() {
    let lists: &[&[&str]] = &[
        SOFT,
        NOUN_MARKERS,
        MESSAGING,
        DETERMINERS,
        LINKS,
        BREAKS,
        LEAD_FILLERS,
        TRAIL_FILLERS,
        QUESTION_STARTERS,
        PERSONS,
        NOT_GERUNDS,
    ];
    let weak = WEAK_KEYWORDS.iter().flat_map(|k| {
        [
            k.before,
            k.after,
            k.soft_before,
            std::slice::from_ref(&k.word),
        ]
    });
    for list in lists.iter().copied().chain(weak) {
        for w in list {
            assert_eq!(phrase_keys(w), [*w], "list entry {w:?} is not normalised");
        }
    }
    for phrase in [
        CLEAR_EN,
        CLEAR_ES,
        CLEAR_FR,
        AMBIGUOUS_EN,
        AMBIGUOUS_ES,
        AMBIGUOUS_FR,
    ]
    .iter()
    .flat_map(|l| l.iter())
    {
        assert!(
            !phrase.starts_with('*'),
            "{phrase:?} starts with a wildcard"
        );
        assert!(!phrase_keys(phrase).is_empty(), "{phrase:?} is empty");
    }
}

#[test]
fn keywords_whole_text() {
    for w in OPT_OUT_WORDS {
        let lower = w.to_lowercase();
        let dotted: String = w.chars().flat_map(|c| [c, '.']).collect();
        for body in [
            w.to_string(),
            format!("  {lower}!! "),
            dotted,
            format!("«{lower}»🛑"),
        ] {
            assert!(
                matches!(detect(&body, &[]), Verdict::OptOut { .. }),
                "{body:?}"
            );
        }
    }
    assert_eq!(
        detect("st🛑o-p", &[]),
        Verdict::OptOut {
            matched: "stop".into()
        }
    );
    for w in OPT_IN_WORDS {
        assert_eq!(detect(w, &[]), Verdict::OptIn, "{w}");
    }
    for w in HELP_WORDS {
        assert_eq!(detect(w, &[]), Verdict::Help, "{w}");
    }
    assert_eq!(
        detect("STOP!!!", &[]),
        Verdict::OptOut {
            matched: "stop".into()
        }
    );
    assert_eq!(detect("Yes!", &[]), Verdict::OptIn);
    assert_eq!(detect("yes I'll be there", &[]), Verdict::None);
    assert_eq!(detect("help me book", &[]), Verdict::None);
    assert_eq!(detect("start the car", &[]), Verdict::None);
    assert_eq!(detect("more info on parking?", &[]), Verdict::None);
    // Opt-out wins over everything else.
    assert!(matches!(detect("yes stop", &[]), Verdict::OptOut { .. }));
    assert!(matches!(detect("help stop", &[]), Verdict::OptOut { .. }));
}

#[test]
fn matched_is_the_normalised_phrase() {
    assert_eq!(
        detect("Please REMOVE ME from your list!", &[]),
        Verdict::OptOut {
            matched: "remove me".into()
        }
    );
    assert_eq!(
        detect("Don’t text me again", &[]),
        Verdict::OptOut {
            matched: "don't text".into()
        }
    );
    assert_eq!(
        detect("ok but please stop the calls", &[]),
        Verdict::OptOut {
            matched: "stop the calls".into()
        }
    );
    assert_eq!(
        detect("Not interested", &[]),
        Verdict::Ambiguous {
            matched: "not interested".into()
        }
    );
}

#[test]
fn extra_phrases_from_the_organisation() {
    assert_eq!(detect("No gracias", &[]), Verdict::None);
    let extra = vec!["No Gracias".to_string()];
    assert_eq!(
        detect("no, gracias!", &extra),
        Verdict::OptOut {
            matched: "no gracias".into()
        }
    );
    assert_eq!(
        detect("Bueno, no gracias 🙂", &extra),
        Verdict::OptOut {
            matched: "no gracias".into()
        }
    );
    // Whole words only, and accents do not matter.
    let extra = vec!["Désinscris".to_string(), "  ".to_string(), "🙂".to_string()];
    assert!(matches!(
        detect("desinscris moi", &extra),
        Verdict::OptOut { .. }
    ));
    assert_eq!(detect("desinscrisx", &extra), Verdict::None);
    assert_eq!(detect("hello", &extra), Verdict::None);
}

#[test]
fn odd_inputs_do_not_panic() {
    let long_stop = "stop ".repeat(2_000);
    let long_mixed = "a\u{301}'\u{200d}😀. ".repeat(1_500);
    let long_word = "x".repeat(10_000);
    let mut inputs: Vec<String> = vec![
        String::new(),
        " ".into(),
        "🛑".into(),
        "😀😀😀".into(),
        "👨\u{200d}👩\u{200d}👧".into(),
        "\u{301}\u{308}\u{20e3}".into(),
        "'".into(),
        "''''".into(),
        "' t".into(),
        "t".into(),
        "n't".into(),
        "*".into(),
        "...!!!???".into(),
        "\u{0}\u{1}\u{7f}".into(),
        "\u{feff}stop".into(),
        "توقف عن مراسلتي".into(),
        "עצור בבקשה stop".into(),
        "停止 stop 停止".into(),
        "ﷺ ﬁ ǅ ẞ".into(),
        "\u{202e}pots\u{202c}".into(),
        long_stop,
        long_mixed,
        long_word,
    ];
    // Every prefix of a tricky string, cut at char boundaries.
    let tricky = "Ne m’écrivez plus 🙏 don't t STOP—ok? ¿Número equivocado?";
    for (i, _) in tricky.char_indices() {
        inputs.push(tricky[..i].to_string());
        inputs.push(tricky[i..].to_string());
    }
    let extra = vec![String::new(), "'".into(), "*".into(), "stop".into()];
    for input in &inputs {
        let _ = normalize(input);
        let _ = detect(input, &[]);
        let _ = detect(input, &extra);
    }
    // Random strings: never a panic. Half of them are "stop" in random case with random junk
    // between the letters; one without whitespace whose letters spell STOP is an opt-out.
    let junk: Vec<char> = " .!-_'’\"🛑é\u{301}\u{200d}ſ\n".chars().collect();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % n.max(1)
    };
    let mut spelled = 0;
    for round in 0..4_000 {
        let mut body = String::new();
        for letter in ["s", "t", "o", "p"] {
            for _ in 0..next(3) {
                body.extend(junk.get(next(junk.len())));
            }
            if round % 2 == 0 {
                body.push_str(&if next(2) == 0 {
                    letter.to_uppercase()
                } else {
                    letter.into()
                });
            }
        }
        let verdict = detect(&body, &[]);
        let letters: String = body
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_uppercase();
        if letters == "STOP" && !body.chars().any(char::is_whitespace) {
            spelled += 1;
            assert!(matches!(verdict, Verdict::OptOut { .. }), "{body:?}");
        }
    }
    assert!(spelled > 100, "only {spelled} spelled-out STOPs tried");
    assert_eq!(detect("", &[]), Verdict::None);
    assert_eq!(detect("🛑", &[]), Verdict::None);
    assert!(matches!(
        detect("\u{feff}stop", &[]),
        Verdict::OptOut { .. }
    ));
}
