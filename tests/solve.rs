//! `pbrain-tengen solve` through the binary: a win with its line, a proved
//! no-win, an unknown under a tiny budget, each with its exit status, and
//! bad arguments failing cleanly with status 2. `analyze` agrees with a
//! win `solve` proves.

use std::process::{Command, Output};
use tengen::perft::position_from_moves;
use tengen::types::parse_pos_list;
use tengen::Rule;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbrain-tengen"))
        .args(args)
        .output()
        .expect("run pbrain-tengen")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// White wins by threats after black's i8 (a game against Rapfi).
const LOST: &str = "f13d9e7g9f10e8f9f7g6f11g12d8c8g8i10h11g11e12h12i13i8";

#[test]
fn win_no_win_and_unknown_have_their_exit_status() {
    let o = run(&["solve", "--moves", LOST, "--max-threats", "4"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = text(&o);
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("win in "), "{out}");
    // The line is legal from the position and ends in white's five.
    let line = parse_pos_list(&first.split(": ").nth(1).unwrap().replace(' ', "")).unwrap();
    let (last, rest) = line.split_last().unwrap();
    let rest: String = rest.iter().map(|p| p.to_pos_string()).collect();
    let b = position_from_moves(15, Rule::Freestyle, &format!("{LOST}{rest}")).unwrap();
    assert!(b.makes_five(tengen::Color::White, *last), "{out}");
    assert_eq!(line.len() % 2, 1, "{out}");
    assert!(out.lines().nth(1).unwrap().starts_with("nodes "), "{out}");

    // An open two has no four: no VCF.
    let o = run(&["solve", "--moves", "h8a1i8a15", "--vcf"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).starts_with("no win"));
    // An open three to move wins (the open four); white, as if black
    // passed, has nothing.
    let o = run(&["solve", "--moves", "g8a1h8a15i8o1", "--vct"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).starts_with("win in 3 plies"), "{}", text(&o));
    let o = run(&["solve", "--moves", "g8a1h8a15i8", "--side", "white"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));

    let o = run(&["solve", "--moves", LOST, "--nodes", "5"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    assert!(text(&o).starts_with("unknown"));
}

#[test]
fn bad_arguments_fail_with_status_2() {
    for args in [
        &["solve", "--moves", "h8h8"][..],
        &["solve", "--moves", "z99"],
        &["solve", "--rule", "chess"],
        &["solve", "--side", "green"],
        &["solve", "--size", "40"],
        &["solve", "--vcf", "--vct"],
        &["solve", "--moves", "h8a1i8a2j8a3k8a4l8"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("error"), "{args:?}: {err}");
    }
}

#[test]
fn analyze_scores_a_solved_win_as_a_win() {
    // The side to move (white) wins by threats: analyze's answer (within
    // a node budget, so the test does not depend on the machine's speed)
    // is a winning score, and its move starts a win `solve` proves.
    let o = run(&["analyze", "--moves", LOST, "--nodes", "200000"]);
    assert!(o.status.success());
    let out = text(&o);
    let last = out.lines().last().unwrap();
    let f: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(f[0], "bestmove", "{out}");
    let score: i32 = f[4].parse().unwrap();
    assert!(score >= tengen::search::WIN_MIN, "{out}");
    let mv = parse_pos_list(f[1]).unwrap()[0].to_pos_string();
    // After that move, black (as the side to move) is still lost: white
    // wins again as attacker.
    let o = run(&[
        "solve",
        "--moves",
        &format!("{LOST}{mv}"),
        "--side",
        "white",
        "--max-threats",
        "4",
    ]);
    assert_eq!(o.status.code(), Some(0), "{mv}: {}", text(&o));
}

/// A reader that has gone (`pbrain-tengen solve ... | head -0`) ends the
/// subcommands quietly, with status 0 and no panic, where `println!`
/// would panic on the broken pipe. The pipe's reading end is closed
/// before the program starts, so its first write fails.
#[test]
fn a_closed_stdout_ends_the_subcommands_quietly() {
    for args in [
        &["solve", "--moves", LOST, "--max-threats", "4"][..],
        &["analyze", "--moves", "h8i9", "--depth", "3"][..],
        &["bench", "--depth", "2"][..],
    ] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let o = Command::new(env!("CARGO_BIN_EXE_pbrain-tengen"))
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("run pbrain-tengen");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// A table too big to have is an `error:` line and status 2, never an
/// abort in the allocator (issue 65, item 6: `--hash 100000000` was
/// SIGABRT).
#[test]
fn analyze_refuses_a_table_it_cannot_have() {
    for mib in ["100000000", "18446744073709551615"] {
        let o = run(&["analyze", "--moves", "h8i9", "--depth", "2", "--hash", mib]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{mib}: {err}");
        assert!(
            err.contains("error: --hash") && err.contains("cannot allocate"),
            "{err}"
        );
    }
    let o = run(&["analyze", "--moves", "h8i9", "--depth", "2", "--hash", "4"]);
    assert!(
        o.status.success() && text(&o).contains("bestmove"),
        "{}",
        text(&o)
    );
}
