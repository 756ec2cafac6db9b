//! `pbrain-tengen perft` driven as a user would: output format, counts
//! that agree with the library, and clear errors for bad arguments.

use std::process::Command;

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pbrain-tengen"))
        .args(args)
        .output()
        .expect("run pbrain-tengen");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn perft_prints_one_line_per_depth() {
    let (ok, out, _) = run(&["perft", "--depth", "3", "--moves", "h8i9h9"]);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    let last = lines[2];
    assert!(last.starts_with("perft 3: "), "{last}");
    // perft 3: L leaves, M moves, R moves/s
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words[3], "leaves,");
    assert_eq!(words[5], "moves,");
    assert_eq!(words[7], "moves/s");
    let leaves: u64 = words[2].parse().unwrap();
    let moves: u64 = words[4].parse().unwrap();
    let mut board =
        tengen::perft::position_from_moves(15, tengen::Rule::Freestyle, "h8i9h9").unwrap();
    let want = tengen::perft::perft(&mut board, 3);
    assert_eq!((leaves, moves), (want.leaves, want.moves));
    // moves counts every make+unmake pair: the leaves plus the inner nodes.
    let inner =
        tengen::perft::perft(&mut board, 2).leaves + tengen::perft::perft(&mut board, 1).leaves;
    assert_eq!(moves, leaves + inner);
}

#[test]
fn perft_under_each_rule_and_size() {
    for rule in ["freestyle", "standard", "renju", "caro", "caro-exact"] {
        for size in ["5", "15", "20", "22"] {
            let (ok, out, err) = run(&["perft", "--depth", "2", "--rule", rule, "--size", size]);
            assert!(ok, "{rule} {size}: {err}");
            assert!(out.lines().last().unwrap().starts_with("perft 2: "));
        }
    }
}

#[test]
fn bad_arguments_fail_cleanly() {
    let cases: &[&[&str]] = &[
        &["perft", "--depth", "2", "--rule", "chess"],
        &["perft", "--depth", "2", "--size", "4"],
        &["perft", "--depth", "2", "--size", "23"],
        &["perft", "--depth", "2", "--moves", "h8h8"],
        &["perft", "--depth", "2", "--moves", "z9"],
        &["perft", "--depth", "2", "--moves", "h8xx"],
        &["perft", "--depth", "2", "--size", "9", "--moves", "j10"],
        &["perft", "--depth", "2", "--moves", "a1b1a2b2a3b3a4b4a5"],
        &["perft", "--depth", "2", "--moves", "a1b1a2b2a3b3a4b4a5b5"],
        &[
            "perft",
            "--depth",
            "2",
            "--rule",
            "renju",
            "--moves",
            "f8a1g8a3h6a5h7a7h8",
        ],
        &["perft", "--depth", "x"],
        &["perft"],
    ];
    for args in cases {
        let (ok, out, err) = run(args);
        assert!(!ok, "{args:?} should fail");
        assert!(out.is_empty(), "{args:?} printed on stdout: {out}");
        assert!(err.to_lowercase().contains("error"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
