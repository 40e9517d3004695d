//! The architecture test (issue 50 §6): reads the layers and the listed debts from
//! `docs/architecture.md` and every `crate::` path in `src/`, and fails when a module imports one
//! in a layer above it or two modules import each other, unless the page lists it; a listed debt
//! that no longer occurs fails too, so the lists only shrink. Prints the figures it measures.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The lines of the fenced block tagged `tag` in the page, comments and blanks dropped.
fn block(page: &str, tag: &str) -> Vec<String> {
    let open = format!("```{tag}\n");
    let start = page
        .find(&open)
        .unwrap_or_else(|| panic!("no ```{tag} block"))
        + open.len();
    let end = start + page[start..].find("```").expect("an unclosed block");
    page[start..end]
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Every `.rs` file under `dir`, relative to `src`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file's code as the build sees it outside tests: its unit tests and comments dropped.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module paths a file names: `crate::a::b::c`, and each item of groups such as
/// `crate::a::{b, c::{d, e}}`.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        path_at(rest, Vec::new(), &mut out);
    }
    out.retain(|p| !p.is_empty());
    out
}

/// Reads one path at the start of `s` below `prefix`, expanding a group into each of its items.
fn path_at(s: &str, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut rest = s;
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            for item in top_level_items(group) {
                path_at(item.trim(), prefix.clone(), out);
            }
            return;
        }
        let n = rest
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(rest.len());
        if n == 0 {
            break;
        }
        prefix.push(rest[..n].to_owned());
        match rest[n..].strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    out.push(prefix);
}

/// The comma-separated items of a group up to its closing brace, nested groups kept whole.
fn top_level_items(group: &str) -> Vec<&str> {
    let (mut depth, mut start, mut items) = (0, 0, Vec::new());
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
}

struct House {
    /// file (relative to src, without `.rs`, `mod` dropped) → its top-level module.
    module_of: BTreeMap<String, String>,
    /// Lines of code per top-level module.
    lines: BTreeMap<String, usize>,
    /// file → the files it names.
    file_edges: BTreeMap<String, BTreeSet<String>>,
    /// (from, to) top-level modules → how many paths.
    module_edges: BTreeMap<(String, String), usize>,
}

fn read_house() -> House {
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let name = |p: &Path| {
        let rel = p.strip_prefix(&src).expect("under src").with_extension("");
        let mut segs: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into()).collect();
        if segs.len() > 1 && segs.last().is_some_and(|s| s == "mod") {
            segs.pop();
        }
        segs.join("::")
    };
    let mut house = House {
        module_of: BTreeMap::new(),
        lines: BTreeMap::new(),
        file_edges: BTreeMap::new(),
        module_edges: BTreeMap::new(),
    };
    let mut texts = Vec::new();
    for p in &files {
        let n = name(p);
        let top = n.split("::").next().unwrap_or_default().to_owned();
        let text = std::fs::read_to_string(p).expect("read a source file");
        *house.lines.entry(top.clone()).or_default() += text.lines().count();
        house.module_of.insert(n.clone(), top);
        texts.push((n, text));
    }
    for (n, text) in &texts {
        let from = house.module_of[n].clone();
        for path in crate_paths(&code_of(text)) {
            let to = path[0].clone();
            if !house.lines.contains_key(&to) {
                continue;
            }
            if to != from {
                *house.module_edges.entry((from.clone(), to)).or_default() += 1;
            }
            // The longest prefix that is a file: the file this path reaches.
            let target = (1..=path.len())
                .rev()
                .map(|k| path[..k].join("::"))
                .find(|f| house.module_of.contains_key(f));
            if let Some(t) = target.filter(|t| t != n) {
                house.file_edges.entry(n.clone()).or_default().insert(t);
            }
        }
    }
    house
}

/// Strongly connected sets of files (Tarjan's), larger than one file.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        if let Some(next) = t.edges.get(v) {
            for w in next {
                let w = w.as_str();
                if !t.index.contains_key(w) {
                    visit(t, w);
                    let l = t.low[w].min(t.low[v]);
                    t.low.insert(v, l);
                } else if t.on.contains(w) {
                    let l = t.index[w].min(t.low[v]);
                    t.low.insert(v, l);
                }
            }
        }
        if t.low[v] == t.index[v] {
            let mut set = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                set.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                t.out.push(set);
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn imports_follow_the_declared_layers() {
    let page = std::fs::read_to_string(Path::new(ROOT).join("docs/architecture.md"))
        .expect("docs/architecture.md");
    let house = read_house();
    // Layers top first: a higher number is higher in the house.
    let layers = block(&page, "layers");
    let mut rank = BTreeMap::new();
    for (i, line) in layers.iter().enumerate() {
        let (_, modules) = line.split_once(':').expect("layer: modules");
        for m in modules.split_whitespace() {
            assert!(
                rank.insert(m.to_owned(), layers.len() - i).is_none(),
                "{m} is in two layers"
            );
        }
    }
    let unplaced: Vec<_> = house
        .lines
        .keys()
        .filter(|m| !rank.contains_key(*m))
        .collect();
    assert!(unplaced.is_empty(), "modules in no layer: {unplaced:?}");
    let gone: Vec<_> = rank
        .keys()
        .filter(|m| !house.lines.contains_key(*m))
        .collect();
    assert!(gone.is_empty(), "layers name modules src/ lacks: {gone:?}");

    let listed = |tag, sep| -> BTreeSet<(String, String)> {
        block(&page, tag)
            .iter()
            .map(|l| {
                let (a, b) = l.split_once(sep).expect("a pair");
                (a.trim().to_owned(), b.trim().to_owned())
            })
            .collect()
    };
    let upward: BTreeSet<_> = house
        .module_edges
        .keys()
        .filter(|(a, b)| rank[b] > rank[a])
        .cloned()
        .collect();
    let upward_imports: usize = upward.iter().map(|k| house.module_edges[k]).sum();
    let mutual: BTreeSet<_> = house
        .module_edges
        .keys()
        .filter(|(a, b)| a < b && house.module_edges.contains_key(&(b.clone(), a.clone())))
        .cloned()
        .collect();
    let file_cycles = cycles(&house.file_edges);
    let crossing: Vec<_> = file_cycles
        .iter()
        .filter(|c| {
            c.iter()
                .map(|f| &house.module_of[f])
                .collect::<BTreeSet<_>>()
                .len()
                > 1
        })
        .collect();
    let total: usize = house.lines.values().sum();
    let (biggest, big_lines) = house
        .lines
        .iter()
        .max_by_key(|(_, n)| **n)
        .expect("modules");
    let share = 100.0 * *big_lines as f64 / total as f64;
    println!(
        "architecture: {} modules, {total} lines; upward imports {upward_imports} in {} pairs \
         (goal 0 outside an allow-list of at most 10; 61 before issue 50); modules importing each \
         other {} pairs (goal 0; 52 before); file cycles {}, crossing modules {} (goal 0; 7 \
         before), largest {} files; largest module {biggest} {share:.1} % (goal ≤ 15 %)",
        house.lines.len(),
        upward.len(),
        mutual.len(),
        file_cycles.len(),
        crossing.len(),
        crossing.iter().map(|c| c.len()).max().unwrap_or(0),
    );

    let allowed_up = listed("upward", "->");
    let new_up: Vec<_> = upward.difference(&allowed_up).collect();
    assert!(
        new_up.is_empty(),
        "imports into a higher layer (docs/architecture.md): {new_up:?}"
    );
    let paid_up: Vec<_> = allowed_up.difference(&upward).collect();
    assert!(
        paid_up.is_empty(),
        "listed upward imports that no longer occur; strike them from docs/architecture.md: \
         {paid_up:?}"
    );
    let allowed_mutual = listed("mutual", " ");
    let new_mutual: Vec<_> = mutual.difference(&allowed_mutual).collect();
    assert!(
        new_mutual.is_empty(),
        "modules that now import each other: {new_mutual:?}"
    );
    let paid_mutual: Vec<_> = allowed_mutual.difference(&mutual).collect();
    assert!(
        paid_mutual.is_empty(),
        "listed pairs that no longer import each other; strike them: {paid_mutual:?}"
    );
    let ceiling: usize = block(&page, "limits")
        .iter()
        .find_map(|l| l.strip_prefix("cross-module file cycles:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("a cross-module file cycles limit");
    assert!(
        crossing.len() <= ceiling,
        "{} file cycles cross modules, over the page's {ceiling}: {crossing:?}",
        crossing.len()
    );
}

#[test]
fn paths_are_read_as_the_compiler_reads_them() {
    let code = code_of(
        "use crate::a::b::{c, d::{e, f}};\nuse crate::{g::h, i};\n// crate::j\nx::crate::k;\n\
         #[cfg(test)]\nmod tests { use crate::l; }",
    );
    let got = crate_paths(&code);
    assert_eq!(
        got,
        [
            &["a", "b", "c"][..],
            &["a", "b", "d", "e"],
            &["a", "b", "d", "f"],
            &["g", "h"],
            &["i"],
        ]
        .map(|p| p.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    );
    let mut edges = BTreeMap::new();
    for (a, b) in [("x", "y"), ("y", "z"), ("z", "x"), ("z", "w")] {
        edges
            .entry(a.to_owned())
            .or_insert_with(BTreeSet::new)
            .insert(b.to_owned());
    }
    let c = cycles(&edges);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].len(), 3);
}
