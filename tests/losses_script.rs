//! `scripts/losses.sh`, the report of the games tengen lost, on four
//! real games against Wine as c-gomoku-cli recorded them
//! (`tests/data/losses/`): one won (not reported), two lost after a
//! claimed win, one lost suddenly to a VCT the solver finds at once.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-tengen");

fn run(args: &[&str], nodes: &str) -> (Option<i32>, String) {
    run_deep(args, nodes, "0")
}

/// [`run`] with the turning-point search of `deep` nodes (`DEEP_NODES`).
fn run_deep(args: &[&str], nodes: &str, deep: &str) -> (Option<i32>, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let r = Command::new("bash")
        .arg(root.join("scripts/losses.sh"))
        .args(args)
        .env("NODES", nodes)
        .env("DEEP_NODES", deep)
        .output()
        .expect("run the script");
    let text =
        String::from_utf8_lossy(&r.stdout).into_owned() + &String::from_utf8_lossy(&r.stderr);
    (r.status.code(), text)
}

/// Every line of `expected` is in `text`.
fn says(text: &str, expected: &[&str]) {
    for e in expected {
        assert!(text.contains(e), "no {e:?} in:\n{text}");
    }
}

#[test]
fn the_losses_script_tells_each_loss_and_the_solver_s_verdict() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/losses");
    let sgf = data.join("wine.sgf");
    let (code, text) = run(&[BIN, sgf.to_str().unwrap()], "2000");
    assert_eq!(code, Some(0), "{text}");
    // The won game is left out.
    assert!(!text.contains("game 65"), "{text}");
    says(
        &text,
        &[
            // Each loss with its kind.
            "game 54: tengen black, 24 plies, White win by five connection; claimed",
            "game 66: tengen black, 22 plies, White win by five connection; sudden",
            "game 109: tengen white, 45 plies, Black win by five connection; claimed",
            // The scores come from the message log, one per move of tengen's.
            "h10:358 f6:-29994",
            // After the claimed win i8 and after h10, the opponent's VCTs.
            "after i8 (ply 11): the opponent wins by threats (win in 13 plies)",
            "after h10 (ply 15): the opponent wins by threats (win in 9 plies), found in ",
            // In game 109 white claimed a win three moves running; the last
            // claim, e8, is the move checked. Its refutation costs the
            // solver some 27000 nodes: beyond this limit.
            "after e8 (ply 14): no win found within 2000 nodes",
            "3 games lost: claimed 2, sudden 1",
        ],
    );
    let (code, text) = run(&[BIN, sgf.to_str().unwrap()], "300000");
    assert_eq!(code, Some(0), "{text}");
    says(
        &text,
        &["after e8 (ply 14): the opponent wins by threats (win in "],
    );
}

#[test]
fn the_losses_script_finds_each_loss_s_turning_point() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/losses");
    let sgf = data.join("wine.sgf");
    let (code, text) = run_deep(&[BIN, sgf.to_str().unwrap()], "2000", "100000");
    assert_eq!(code, Some(0), "{text}");
    // Without the option, no turning point.
    let (_, plain) = run(&[BIN, sgf.to_str().unwrap()], "2000");
    assert!(!plain.contains("turning point"), "{plain}");
    // One for each loss, each starting from the move the solver checked. In
    // games 66 and 109 a search of 100000 nodes does not find the position
    // before that move lost, so the walk stops there (and plays another
    // move: f6 against game 66's VCT of 9 plies after h10). In game 54 it
    // either stops at the claimed win i8 (ply 11), playing another move
    // there (the first network and the 26-shard one), or finds the
    // position before it lost as well and walks back to ply 9, where it
    // plays another move than i7 (the 9,374-game network): which of the
    // two it reports is the engine's judgement, not the script's.
    assert_eq!(text.matches("turning point:").count(), 3, "{text}");
    assert!(
        text.contains("turning point: ply 9, played i7; 100000 nodes (depth ")
            || text.contains("turning point: ply 11, played i8; 100000 nodes (depth "),
        "{text}"
    );
    says(
        &text,
        &[
            "turning point: ply 15, played h10; 100000 nodes (depth ",
            "turning point: ply 14, played e8; 100000 nodes (depth ",
        ],
    );
    // Game 3 of a later milestone: a slide where the long search sees the
    // loss at the last move of ours the solver checked (ply 30) and walks
    // back from it: to ply 28 (the 46-shard network), or past it to ply 26
    // (the networks before it), where it plays as tengen did (or, since
    // distracting fours are reduced, g4 instead). How far, and which move
    // it plays there, is the engine's judgement; that it walks back and
    // reports the move and its score is the script's.
    let walk = data.join("wine-walk.sgf");
    let (code, text) = run_deep(&[BIN, walk.to_str().unwrap()], "2000", "600000");
    assert_eq!(code, Some(0), "{text}");
    says(
        &text,
        &[
            "game 3: tengen white, 47 plies, Black win by five connection; slide",
            "after h7 (ply 30)",
        ],
    );
    assert!(
        text.contains("plays the same move at -") || text.contains(" instead at -"),
        "{text}"
    );
    assert!(
        text.contains("turning point: ply 26, played d7; 600000 nodes (depth ")
            || text.contains("turning point: ply 28, played d3; 600000 nodes (depth "),
        "{text}"
    );
    let (code, text) = run_deep(&[BIN, sgf.to_str().unwrap()], "2000", "many");
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("DEEP_NODES must be a whole number"), "{text}");
}

#[test]
fn the_losses_script_refuses_bad_arguments() {
    let (code, text) = run(&[], "100");
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("scripts/losses.sh ENGINE SGF"), "{text}");
    let (code, text) = run(&["/nonexistent/engine", "x.sgf"], "100");
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("is not an executable"), "{text}");
    let (code, text) = run(&[BIN, "/nonexistent/games.sgf"], "100");
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("no games"), "{text}");
}
