//! The layers of `src/` import one way only: a module uses only those below
//! it (see `docs/architecture.md`). This test reads every `crate::` path
//! (and `super::` path that leaves its module) in the source files, and
//! fails on an import from a module of the same or a higher layer,
//! printing the offending lines.

use std::collections::BTreeMap;
use std::path::Path;

/// Top-level modules, lowest layer first. A module may use only modules
/// of a lower layer (its own files excepted). The binary's `main.rs` and
/// `cli/` sit above them all.
const LAYERS: &[&[&str]] = &[
    &["types", "simd"],
    &["bitboard"],
    &["pattern"],
    &["board"],
    &["perft"],
    &["eval", "movegen"],
    &["solver"],
    &["search"],
    &["engine", "bench"],
    &["protocol"],
    &["tournament", "learn"],
    &["serve"],
    &["main", "cli"],
];

/// Names the crate root re-exports, and the module each comes from.
const ROOT_REEXPORTS: &[(&str, &str)] = &[
    ("Board", "board"),
    ("MoveError", "board"),
    ("Color", "types"),
    ("Pos", "types"),
    ("Rule", "types"),
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The module path of a source file below `src/` (`board/mod.rs` ->
/// `[board]`, `search/node.rs` -> `[search, node]`).
fn module_path(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// Every top-level module a line's paths reach, other than the file's own.
fn targets(path: &[String], line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let code = line.split("//").next().unwrap_or("");
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if boundary && rest.starts_with("crate::") {
            out.extend(after_root(&rest["crate::".len()..]));
            i += "crate::".len();
        } else if boundary && rest.starts_with("super::") {
            // Count the `super::` steps; leaving the top module reaches the
            // crate root.
            let mut steps = 0;
            let mut r = rest;
            while let Some(t) = r.strip_prefix("super::") {
                steps += 1;
                r = t;
            }
            if steps >= path.len() {
                out.extend(after_root(r));
            }
            i += rest.len() - r.len();
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// The top-level modules named right after `crate::`: one, or each of a
/// `{a, b::c}` group.
fn after_root(rest: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let names: Vec<String> = match rest.strip_prefix('{') {
        Some(group) => {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            group.split(',').map(|s| ident(s.trim())).collect()
        }
        None => vec![ident(rest)],
    };
    names
        .into_iter()
        .filter(|n| !n.is_empty())
        .map(|n| {
            ROOT_REEXPORTS
                .iter()
                .find(|(name, _)| *name == n)
                .map_or(n, |(_, m)| m.to_string())
        })
        .collect()
}

/// Every import against the layers: `file:line: text (a -> b)`.
fn violations(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (file, text) in files {
        let path = module_path(file);
        let Some(own) = path.first() else { continue };
        // The binary's files: `main` and `cli` are one layer.
        let own = if file == "main.rs" {
            "main"
        } else {
            own.as_str()
        };
        let Some(from) = layer(own) else {
            out.push(format!("{file}: module '{own}' is in no layer"));
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for t in targets(&path, line) {
                if t == own || (own == "main" && t == "cli") {
                    continue;
                }
                let ok = layer(&t).is_some_and(|to| to < from) || own == "main" || own == "cli";
                if !ok {
                    out.push(format!(
                        "src/{file}:{}: {} ({own} -> {t})",
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    out
}

/// Every source file of `src/` but `lib.rs`, with its text, by path
/// below `src/`, sorted.
fn crate_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&root, &root, &mut files);
    files.retain(|(f, _)| f != "lib.rs");
    files.sort();
    files
}

fn source_files(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("src readable") {
        let p = entry.expect("entry").path();
        if p.is_dir() {
            source_files(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(root).expect("under src");
            let rel = rel.to_string_lossy().replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&p).expect("utf-8 source")));
        }
    }
}

#[test]
fn every_module_uses_only_lower_layers() {
    let files = crate_files();
    assert!(files.len() > 40, "{} files", files.len());
    let mut edges: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (file, text) in &files {
        let path = module_path(file);
        for line in text.lines() {
            for t in targets(&path, line) {
                if path.first().is_some_and(|own| *own != t) {
                    *edges.entry((path[0].clone(), t)).or_default() += 1;
                }
            }
        }
    }
    println!("{} files, {} module edges", files.len(), edges.len());
    let bad = violations(&files);
    assert!(
        bad.is_empty(),
        "imports against the layers:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_catches_an_import_from_above_and_a_cycle() {
    let file = |name: &str, text: &str| (name.to_string(), text.to_string());
    // The board reaching into the search, as it once reached into eval.
    let bad = violations(&[
        file("board/mod.rs", "use crate::search::params::Params;"),
        file("eval/mod.rs", "use crate::board::Board;"),
    ]);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("board -> search"), "{bad:?}");
    // Two modules of one layer using each other (yesterday's eval/movegen
    // loop), through a group import and a re-exported name.
    let bad = violations(&[
        file(
            "eval/weights.rs",
            "use crate::{movegen::POLICY_LEN, Board};",
        ),
        file("movegen.rs", "    let x = crate::eval::pcode::pcode(0);"),
    ]);
    assert_eq!(bad.len(), 2, "{bad:?}");
    // `super::` out of a nested module to the crate root counts too; one
    // inside its own module does not.
    let bad = violations(&[
        file("pattern/pcode.rs", "use super::super::board::Board;"),
        file("search/node.rs", "use super::Searcher; // crate::engine"),
    ]);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("pattern -> board"), "{bad:?}");
    // A new module must be given a layer.
    let bad = violations(&[file("network/mod.rs", "")]);
    assert!(bad[0].contains("in no layer"), "{bad:?}");
}

/// The files of one module a line's paths reach: `super::x` from a file
/// of the module, or `crate::m::x` (each of a `{x, y}` group), as module
/// paths (`[tournament, runner]`). Only sibling files count: a file's
/// own module (its `mod.rs`) is where Rust keeps what its files share.
fn file_targets(path: &[String], line: &str) -> Vec<Vec<String>> {
    let code = line.split("//").next().unwrap_or("");
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    if path.len() < 2 {
        return out;
    }
    let parent = &path[..path.len() - 1];
    let mut prefixes = vec![("super::".to_string(), parent.to_vec())];
    prefixes.push((format!("crate::{}::", parent.join("::")), parent.to_vec()));
    for (prefix, base) in prefixes {
        let mut rest = code;
        while let Some(at) = rest.find(&prefix) {
            let before = rest[..at].chars().last();
            let after = &rest[at + prefix.len()..];
            rest = after;
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let names: Vec<String> = match after.strip_prefix('{') {
                Some(group) => {
                    let group = &group[..group.find('}').unwrap_or(group.len())];
                    group.split(',').map(|s| ident(s.trim())).collect()
                }
                None => vec![ident(after)],
            };
            for n in names.into_iter().filter(|n| !n.is_empty() && n != "super") {
                let mut t = base.clone();
                t.push(n);
                if t != path {
                    out.push(t);
                }
            }
        }
    }
    out
}

/// The circles of imports between the files of one module, each as
/// `a -> b -> a` with the files' module paths.
fn file_circles(files: &[(String, String)]) -> Vec<String> {
    let known: BTreeMap<Vec<String>, &str> = files
        .iter()
        .map(|(f, _)| (module_path(f), f.as_str()))
        .collect();
    let mut edges: BTreeMap<Vec<String>, Vec<Vec<String>>> = BTreeMap::new();
    for (file, text) in files {
        let path = module_path(file);
        for line in text.lines() {
            for t in file_targets(&path, line) {
                if known.contains_key(&t) {
                    let e = edges.entry(path.clone()).or_default();
                    if !e.contains(&t) {
                        e.push(t);
                    }
                }
            }
        }
    }
    // A depth-first search from each file; a circle is reported once,
    // from its smallest file.
    let mut out = Vec::new();
    for start in edges.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        while let Some((at, trail)) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten() {
                if next == start {
                    let names: Vec<String> = trail
                        .iter()
                        .chain(std::iter::once(start))
                        .map(|p| p.join("/"))
                        .collect();
                    out.push(names.join(" -> "));
                } else if next > start && !trail.contains(next) {
                    let mut t = trail.clone();
                    t.push(next.clone());
                    stack.push((next.clone(), t));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn no_circle_of_imports_between_the_files_of_a_module() {
    let files = crate_files();
    let circles = file_circles(&files);
    assert!(
        circles.is_empty(),
        "files of a module that import each other (move what both use into a file \
         of its own):\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_file_check_catches_a_circle() {
    let file = |name: &str, text: &str| (name.to_string(), text.to_string());
    // The runner and its report, as they stood before the summary had a
    // file of its own.
    let circles = file_circles(&[
        file(
            "tournament/report.rs",
            "use super::runner::{points, PairStats, Summary};",
        ),
        file(
            "tournament/runner.rs",
            "use super::report::progress;\npub use super::report::{json, report};",
        ),
        file("tournament/stats.rs", ""),
    ]);
    assert_eq!(
        circles,
        ["tournament/report -> tournament/runner -> tournament/report"]
    );
    // Through three files, by a crate path; a file using its own module's
    // items (`super::Searcher` in mod.rs) is no circle.
    let circles = file_circles(&[
        file("search/a.rs", "use crate::search::b::X;"),
        file("search/b.rs", "fn f() { super::c::g() }"),
        file("search/c.rs", "use super::{a::Y, Searcher};"),
        file("search/mod.rs", "use node::Z;"),
        file("search/node.rs", "use super::Searcher;"),
    ]);
    assert_eq!(circles, ["search/a -> search/b -> search/c -> search/a"]);
    let fixed = file_circles(&[
        file("tournament/report.rs", "use super::summary::Summary;"),
        file(
            "tournament/runner.rs",
            "use super::{report::progress, summary::Summary};",
        ),
        file("tournament/summary.rs", "use super::stats::Sprt;"),
        file("tournament/stats.rs", ""),
    ]);
    assert!(fixed.is_empty(), "{fixed:?}");
}
