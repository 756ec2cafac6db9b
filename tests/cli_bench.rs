//! `pbrain-tengen bench` through the binary: the node total equals an
//! in-process run of the same bench, and bad options fail cleanly.

use std::process::Command;
use tengen::bench::{run, BenchLimit, POSITIONS};

fn bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pbrain-tengen"))
        .arg("bench")
        .args(args)
        .output()
        .expect("run pbrain-tengen bench")
}

#[test]
fn binary_and_library_agree_on_the_node_count() {
    let out = bench(&["--depth", "6"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), POSITIONS.len() + 2, "{text}");
    assert!(lines[POSITIONS.len()].starts_with("make+unmake: "));
    let last: Vec<&str> = lines.last().unwrap().split(' ').collect();
    assert_eq!(last.len(), 4);
    assert_eq!((last[1], last[3]), ("nodes", "nps"));
    let nodes: u64 = last[0].parse().unwrap();
    let mut sink = Vec::new();
    let totals = run(POSITIONS, BenchLimit::Depth(6), &mut sink).unwrap();
    assert_eq!(nodes, totals.nodes);
    for (i, line) in lines[..POSITIONS.len()].iter().enumerate() {
        assert!(
            line.starts_with(&format!("position {:2} ", i + 1)),
            "{line}"
        );
        assert!(
            line.contains(" depth  6 ") || line.contains(" score "),
            "{line}"
        );
    }
}

#[test]
fn movetime_reports_depth_reached() {
    let out = bench(&["--movetime", "50"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("average depth "), "{text}");
    assert!(text.lines().last().unwrap().ends_with(" nps"));
}

#[test]
fn bad_options_fail() {
    for args in [
        &["--depth", "0"][..],
        &["--depth", "x"],
        &["--movetime", "0"],
        &["--depth", "3", "--movetime", "5"],
    ] {
        let out = bench(args);
        assert!(!out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}
