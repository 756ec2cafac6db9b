//! The opening books (`openings/tengen_opengen_*`, tengen's, and
//! `openings/rapfi_opengen_*`, an outside judge's): every line loads as a
//! playable opening for its rule and board, and the tuning and held-out
//! parts of a book share no opening.

use std::collections::HashSet;
use std::path::Path;
use tengen::tournament::setup::load_book;
use tengen::Rule;

#[test]
fn the_generated_books_load_whole_and_their_parts_are_disjoint() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("openings");
    let books = [
        ("f15", Rule::Freestyle, 15),
        ("f15v1", Rule::Freestyle, 15),
        ("f20", Rule::Freestyle, 20),
        ("f20v1", Rule::Freestyle, 20),
        ("r15", Rule::Renju, 15),
        ("s15", Rule::Standard, 15),
        ("s15v1", Rule::Standard, 15),
        ("c15", Rule::Caro, 15),
    ];
    // Rapfi's books: a tuning part of 2000 and at least 500 held out.
    let rapfi = [
        ("f15", Rule::Freestyle, 15),
        ("f20", Rule::Freestyle, 20),
        ("s15", Rule::Standard, 15),
        ("r15", Rule::Renju, 15),
    ];
    let all = books
        .iter()
        .map(|&(n, r, s)| ("tengen", n, r, s))
        .chain(rapfi.iter().map(|&(n, r, s)| ("rapfi", n, r, s)));
    for (judge, name, rule, size) in all {
        let mut parts = Vec::new();
        for (part, want) in [("tune", 2000), ("holdout", 500)] {
            let path = root.join(format!("{judge}_opengen_{name}_{part}.pos.txt"));
            let book = load_book(&path, size, rule).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(book.skipped, None, "{}", path.display());
            let n = book.openings.len();
            let ok = if judge == "rapfi" && part == "holdout" {
                n >= want
            } else {
                n == want
            };
            assert!(ok, "{}: {n} openings", path.display());
            let set: HashSet<String> = book.openings.into_iter().collect();
            assert_eq!(set.len(), n, "{}: a repeated line", path.display());
            parts.push(set);
        }
        assert!(
            parts[0].is_disjoint(&parts[1]),
            "{name}: tuning and held-out overlap"
        );
    }
}
