//! tengen against real outside engines (`../shared/sparring`): short
//! matches through `pbrain-tengen match` for every rule and size each
//! engine supports, and games refereed by an outside manager,
//! c-gomoku-cli. They check the protocol on both sides, not strength: no
//! protocol error that is the runner's or tengen's doing, the names the
//! engines give in ABOUT, and every game ended by five, a draw or a real
//! fault of the outside engine.
//!
//! The engines live outside the repository. Where they are absent these
//! tests say so and pass, unless `TENGEN_REQUIRE_SPARRING=1` (CI sets it),
//! which makes a missing engine a failure. `TENGEN_SPARRING=DIR` points at
//! another copy.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use tengen::{Color, Pos, Rule};

/// One match at a time: the engines need the cores to keep their clocks.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-tengen");

/// The sparring folder, or `None` (with a note) when it is absent and not
/// required.
fn sparring(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("TENGEN_SPARRING")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/sparring"));
    let ok = [
        "rapfi/run",
        "pentazen/run",
        "wine/run",
        "c-gomoku-cli/c-gomoku-cli",
    ]
    .iter()
    .all(|f| dir.join(f).exists());
    if ok {
        return Some(dir);
    }
    if std::env::var("TENGEN_REQUIRE_SPARRING").as_deref() == Ok("1") {
        panic!(
            "TENGEN_REQUIRE_SPARRING=1 but the sparring engines are not in {}",
            dir.display()
        );
    }
    // Straight to the terminal: the test harness keeps what `eprintln!`
    // prints from a passing test to itself.
    let _ = writeln!(
        std::io::stderr(),
        "skipped {test}: no sparring engines in {} (set TENGEN_SPARRING, or \
         TENGEN_REQUIRE_SPARRING=1 to fail instead)",
        dir.display()
    );
    None
}

/// This test's scratch folder (removed when it passes).
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("tengen-sparring", name)
}

/// Every value of `"key": "..."` in a JSON text (the runner's summary
/// writes one game a line, strings without escaped quotes here).
fn strings(json: &str, key: &str) -> Vec<String> {
    let pat = format!("\"{key}\": \"");
    let mut out = Vec::new();
    let mut rest = json;
    while let Some(i) = rest.find(&pat) {
        rest = &rest[i + pat.len()..];
        let j = rest.find('"').unwrap();
        out.push(rest[..j].to_string());
        rest = &rest[j..];
    }
    out
}

/// Game `i` of a summary: before its last move, was every empty cell
/// forbidden to the side to move?
fn no_legal_move(json: &str, i: usize, rule: &str, size: usize) -> bool {
    let line = json.lines().filter(|l| l.contains("\"moves\": [")).nth(i);
    let Some(line) = line else { return false };
    let list = line.split("\"moves\": [").nth(1).unwrap();
    let list = &list[..list.find(']').unwrap()];
    let moves: Vec<&str> = list.split(", ").map(|m| m.trim_matches('"')).collect();
    let rule: tengen::Rule = rule.parse().unwrap();
    let before = moves[..moves.len() - 1].concat();
    let mut board = tengen::perft::position_from_moves(size, rule, &before).unwrap();
    let empty: Vec<tengen::Pos> = board
        .cells()
        .iter()
        .filter(|&p| board.is_empty(p))
        .collect();
    empty.into_iter().all(|p| board.is_forbidden(p))
}

/// Plays `games` games of tengen against `engine` and checks them.
/// Returns the game reasons.
fn match_against(dir: &Path, engine: &str, name: &str, rule: &str, size: usize, games: usize) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = scratch(&format!("{engine}-{rule}-{size}"));
    let json = out.join("r.json");
    let cmd = dir.join(engine).join("run");
    let size_s = size.to_string();
    let games_s = games.to_string();
    let r = Command::new(BIN)
        .args(["match", "--engine", BIN, "--engine"])
        .arg(&cmd)
        .args(["--rule", rule, "--size", &size_s, "--games", &games_s])
        .args(["--tc", "100ms", "--tolerance", "1000", "--concurrency", "1"])
        .arg("--json")
        .arg(&json)
        .arg("--log")
        .arg(out.join("log"))
        .output()
        .expect("run match");
    let stdout = String::from_utf8_lossy(&r.stdout);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{engine} {rule}: {stdout}\n{stderr}");
    let text = std::fs::read_to_string(&json).unwrap();
    // The first "engines" array: tengen's ABOUT name, then theirs.
    let names_line = text.lines().find(|l| l.contains("\"engines\"")).unwrap();
    assert!(
        names_line.contains("\"tengen\"") && names_line.contains(&format!("\"{name}\"")),
        "{names_line}"
    );
    let reasons = strings(&text, "reason");
    let blacks = strings(&text, "black");
    let whites = strings(&text, "white");
    let results = strings(&text, "result");
    assert_eq!(reasons.len(), games, "{text}");
    for (i, why) in reasons.iter().enumerate() {
        let fine = why == "five in a row" || why == "full board" || why == "move limit";
        if fine {
            continue;
        }
        // Any other ending is a fault of the side that lost it. tengen must
        // never be that side, and no engine may lose by a protocol error
        // (that would be the runner misreading it) except Rapfi, whose
        // reader drops a command that arrives while it finishes a move and
        // answers ERROR to the coordinates (see the sparring README). An
        // outside engine may overrun its clock (Wine, timing itself by CPU
        // time, sometimes does at 100 ms): its fault, not ours.
        let loser = if results[i] == "1-0" {
            &whites[i]
        } else {
            &blacks[i]
        };
        let protocol = why.contains("protocol error");
        // Renju black with only forbidden cells left has no legal move: the
        // forbidden move it must play is no fault.
        if why.starts_with("forbidden move") && no_legal_move(&text, i, rule, size) {
            eprintln!(
                "{engine} {rule} {size}: game {} lost by {loser}: {why}, with no legal cell left",
                i + 1
            );
            continue;
        }
        assert!(
            loser == name && (!protocol || engine == "rapfi"),
            "{engine} {rule} {size}: game {} ({} vs {}) ended by '{why}', lost by {loser}\n{text}",
            i + 1,
            blacks[i],
            whites[i]
        );
        eprintln!(
            "{engine} {rule} {size}: game {} lost by {loser}: {why}",
            i + 1
        );
    }
}

#[test]
fn against_wine() {
    let Some(dir) = sparring("against_wine") else {
        return;
    };
    // Wine plays freestyle only, and never exits at end of input.
    match_against(&dir, "wine", "Wine", "freestyle", 15, 4);
}

#[test]
fn against_pentazen() {
    let Some(dir) = sparring("against_pentazen") else {
        return;
    };
    // PentaZen prints its search lines on stdout; 15x15 only.
    for rule in ["freestyle", "standard", "renju"] {
        match_against(&dir, "pentazen", "PentaZen", rule, 15, 2);
    }
}

#[test]
fn against_rapfi() {
    let Some(dir) = sparring("against_rapfi") else {
        return;
    };
    for rule in ["freestyle", "standard", "renju"] {
        match_against(&dir, "rapfi", "Rapfi", rule, 15, 2);
    }
    match_against(&dir, "rapfi", "Rapfi", "freestyle", 20, 2);
}

/// True when game `n` of `dir/games.sgf` (renju, 15x15) left black, to
/// move, only forbidden cells.
fn black_has_no_move(dir: &Path, n: usize) -> bool {
    let text = std::fs::read_to_string(dir.join("games.sgf")).unwrap_or_default();
    let Some(game) = text.split("(;").find(|g| g.contains(&format!("GN[{n}]"))) else {
        return false;
    };
    let mut moves: Vec<String> = Vec::new();
    for part in game.split(';').skip(1) {
        let b = part.as_bytes();
        if b.len() >= 5 && (b[0] == b'B' || b[0] == b'W') && b[1] == b'[' {
            moves.push(format!("{}{}", b[2] as char, b[3].wrapping_sub(b'a') + 1));
        }
    }
    // The forbidden move itself may or may not be in the record.
    let board =
        tengen::perft::position_from_moves(15, Rule::Renju, &moves.concat()).or_else(|_| {
            let n = moves.len().saturating_sub(1);
            tengen::perft::position_from_moves(15, Rule::Renju, &moves[..n].concat())
        });
    let Ok(mut board) = board else {
        return false;
    };
    if board.side_to_move() != Color::Black {
        return false;
    }
    let empty: Vec<Pos> = (0..15 * 15)
        .map(|i| Pos::new(i % 15, i / 15))
        .filter(|&p| board.is_empty(p))
        .collect();
    !empty.is_empty()
        && empty
            .iter()
            .all(|&p| tengen::board::rules::is_banned(&mut board, Color::Black, p))
}

/// tengen refereed by c-gomoku-cli, a manager written by others, against
/// Wine (freestyle) and itself (renju, standard): every game must end by
/// five or a draw, and tengen must never be the side that broke a rule of
/// the protocol or the clock.
#[test]
fn under_c_gomoku_cli() {
    let Some(dir) = sparring("under_c_gomoku_cli") else {
        return;
    };
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let cli = dir.join("c-gomoku-cli/c-gomoku-cli");
    for (rule, other) in [("0", "wine"), ("1", "self"), ("4", "self")] {
        let out = scratch(&format!("cli-{rule}"));
        let other_cmd = if other == "self" {
            BIN.to_string()
        } else {
            dir.join(other).join("run").to_string_lossy().into_owned()
        };
        let r = Command::new(&cli)
            .args(["-each", "tc=20/0.1"])
            .args(["-engine", "name=tengen"])
            .arg(format!("cmd={BIN}"))
            .args(["-engine", &format!("name={other}")])
            .arg(format!("cmd={other_cmd}"))
            .args(["-rule", rule, "-boardsize", "15", "-games", "2", "-repeat"])
            .args(["-drawafter", "225", "-concurrency", "1"])
            .arg("-sgf")
            .arg(out.join("games.sgf"))
            .current_dir(&out)
            .output()
            .expect("run c-gomoku-cli");
        let log =
            String::from_utf8_lossy(&r.stdout).into_owned() + &String::from_utf8_lossy(&r.stderr);
        let finished: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("Finished game"))
            .collect();
        assert_eq!(finished.len(), 2, "rule {rule}:\n{log}");
        for l in &finished {
            // "{Draw by fullfilled board}" is c-gomoku-cli's spelling.
            let lower = l.to_ascii_lowercase();
            if lower.contains("five connection") || lower.contains("draw") {
                continue;
            }
            // "Finished game 2 (wine vs tengen): 0-1 {White win by time
            // forfeit}": any other ending must be the outside engine's
            // fault (Wine sometimes overruns a 100 ms turn), never tengen's.
            let players = l
                .split_once('(')
                .and_then(|(_, r)| r.split_once(')'))
                .map(|(p, _)| p.to_string())
                .unwrap_or_default();
            let (black, white) = players.split_once(" vs ").unwrap_or(("", ""));
            let loser = if l.contains("White win") {
                black
            } else {
                white
            };
            // Renju self-play may fill the board until black's only empty
            // cells are forbidden: black's forced move then loses.
            let game: usize = l
                .split_whitespace()
                .nth(3)
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            if rule == "4" && lower.contains("forbidden") && black_has_no_move(&out, game) {
                eprintln!("rule {rule}: {l} (every empty cell forbidden to black)");
                continue;
            }
            assert!(
                loser != "tengen" && !loser.is_empty() && other != "self",
                "rule {rule}: {l}\n{log}"
            );
            eprintln!("rule {rule}: {l}");
        }
        assert!(log.contains("Score of"), "{log}");
    }
}

/// `scripts/milestone.sh`, the milestone gauntlet on the held-out books:
/// two games against Wine, refereed by c-gomoku-cli, and a score line.
#[test]
fn the_milestone_script_plays_the_held_out_book() {
    let Some(dir) = sparring("the_milestone_script_plays_the_held_out_book") else {
        return;
    };
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = scratch("milestone");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/milestone.sh");
    let r = Command::new("bash")
        .arg(&script)
        .arg(BIN)
        .arg("wine")
        .env("SPARRING", &dir)
        .env("OUT", &out)
        .env("GAMES", "2")
        .env("TURN_MS", "100")
        .env("CONCURRENCY", "1")
        .output()
        .expect("run the script");
    let text =
        String::from_utf8_lossy(&r.stdout).into_owned() + &String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("wine: Score of tengen vs wine:"))
        .unwrap_or_else(|| panic!("no score line:\n{text}"));
    // "wine: Score of tengen vs wine: 2 - 0 - 0  [1.000] 2; ..."
    let games: Vec<u32> = line
        .split(':')
        .nth(2)
        .unwrap_or("")
        .split(['-', '['])
        .take(3)
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    assert_eq!(games.iter().sum::<u32>(), 2, "{line}");
    // The first held-out opening, played twice.
    let openings = std::fs::read_to_string(out.join("openings.pos.txt")).unwrap();
    assert_eq!(openings.lines().count(), 1);
    assert!(out.join("wine.sgf").exists());
}

/// The milestone script refuses bad settings with a clear message, before
/// it plays anything.
#[test]
fn the_milestone_script_refuses_bad_settings() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/milestone.sh");
    for (key, value, says) in [
        ("GAMES", "3", "GAMES must be even"),
        ("GAMES", "ten", "GAMES must be a whole number"),
        ("TURN_MS", "0.5", "TURN_MS must be a whole number"),
        ("RULE", "caro", "no held-out book"),
        ("SIZE", "17", "no held-out book"),
        ("FIRST", "500", "fewer than"),
        ("FIRST", "0", "FIRST counts from 1"),
        ("SPARRING", "/nonexistent", "no c-gomoku-cli"),
        ("BOOK", "mine", "BOOK must be tengen or rapfi"),
    ] {
        let r = Command::new("bash")
            .arg(&script)
            .arg(BIN)
            .env(key, value)
            .env("GAMES", if key == "GAMES" { value } else { "4" })
            .output()
            .expect("run the script");
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{key}={value}: {err}");
        assert!(err.contains(says), "{key}={value}: {err}");
    }
}

/// `scripts/versus.sh`, the A/B test against an outside engine on the
/// tuning book: two settings of the binary each play the same seeded
/// opening against Wine, and the paired comparison is printed.
#[test]
fn the_versus_script_pairs_two_settings_on_the_same_openings() {
    let Some(dir) = sparring("the_versus_script_pairs_two_settings_on_the_same_openings") else {
        return;
    };
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = scratch("versus");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/versus.sh");
    // Into `into`, from the tuning part of `book`'s book.
    let run_in = |into: &Path, book: &str, games: &str| {
        Command::new("bash")
            .arg(&script)
            .arg("versus-test")
            .arg(BIN)
            .arg(format!("env TENGEN_PARAMS=width=10 {BIN}"))
            .arg("wine")
            .env("SPARRING", &dir)
            .env("OUT", into)
            .env("BOOK", book)
            .env("GAMES", games)
            .env("CHUNK", "1")
            .env("TURN_MS", "100")
            .env("CONCURRENCY", "1")
            .output()
            .expect("run the script")
    };
    let run = |games: &str| run_in(&out, "tengen", games);
    let r = run("4");
    let text =
        String::from_utf8_lossy(&r.stdout).into_owned() + &String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{text}");
    for side in ["base vs wine: ", "new  vs wine: "] {
        let line = text
            .lines()
            .find(|l| l.starts_with(side))
            .unwrap_or_else(|| panic!("no line {side:?}:\n{text}"));
        assert!(line.contains(", 4 games;"), "{line}");
    }
    assert!(
        text.contains("new - base: ") && text.contains("(95%, 2 openings paired)"),
        "{text}"
    );
    // Two chunks of one opening each, drawn from the tuning book; both
    // sides played the same openings.
    for chunk in ["chunk0000", "chunk0001"] {
        let opening = std::fs::read_to_string(out.join(format!("{chunk}.pos.txt"))).unwrap();
        assert_eq!(opening.lines().count(), 1, "{opening}");
        for side in ["base", "new"] {
            let sgf = std::fs::read_to_string(out.join(format!("{chunk}.{side}.sgf"))).unwrap();
            assert_eq!(sgf.matches("(;").count(), 2, "{sgf}");
        }
    }
    let new_side = std::fs::read_to_string(out.join("new.sh")).unwrap();
    assert!(new_side.contains("TENGEN_PARAMS=width=10"), "{new_side}");
    // Run again: every chunk is done, so nothing is replayed and the same
    // comparison comes back.
    let sgf = |chunk: &str| std::fs::read_to_string(out.join(format!("{chunk}.base.sgf"))).unwrap();
    let first = sgf("chunk0000");
    let again = run("4");
    let text2 = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(again.status.success());
    assert_eq!(
        text2.lines().find(|l| l.starts_with("new - base")),
        text.lines().find(|l| l.starts_with("new - base"))
    );
    assert_eq!(sgf("chunk0000"), first, "a finished chunk was replayed");
    // Longer: the openings drawn first stay, their games are kept, and
    // one more opening is played.
    let longer = run("6");
    let text3 = String::from_utf8_lossy(&longer.stdout).into_owned();
    assert!(longer.status.success(), "{text3}");
    assert!(text3.contains("(95%, 3 openings paired)"), "{text3}");
    assert_eq!(sgf("chunk0000"), first, "a finished chunk was replayed");
    assert_eq!(sgf("chunk0002").matches("(;").count(), 2);
    let book = |name: &str| {
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("openings")
                .join(name),
        )
        .unwrap()
    };
    let ours = book("tengen_opengen_f15_tune.pos.txt");
    for chunk in ["chunk0000", "chunk0001", "chunk0002"] {
        let opening = std::fs::read_to_string(out.join(format!("{chunk}.pos.txt"))).unwrap();
        assert!(
            ours.lines().any(|l| l == opening.trim_end()),
            "{chunk}: {opening}"
        );
    }
    // BOOK=rapfi draws from the tuning part of Rapfi's book instead.
    let out2 = scratch("versus-rapfi-book");
    let r = run_in(&out2, "rapfi", "2");
    let text4 = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{text4}");
    assert!(text4.contains("rapfi_opengen_f15_tune"), "{text4}");
    let theirs = book("rapfi_opengen_f15_tune.pos.txt");
    let opening = std::fs::read_to_string(out2.join("chunk0000.pos.txt")).unwrap();
    assert!(theirs.lines().any(|l| l == opening.trim_end()), "{opening}");
}

/// The versus script refuses bad settings with a clear message, before it
/// plays anything.
#[test]
fn the_versus_script_refuses_bad_settings() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/versus.sh");
    for (key, value, partner, says) in [
        ("GAMES", "3", "rapfi", "GAMES must be even"),
        ("GAMES", "ten", "rapfi", "GAMES must be a whole number"),
        ("CHUNK", "0", "rapfi", "CHUNK at least 1"),
        ("BOOK", "yixin", "rapfi", "BOOK must be tengen or rapfi"),
        ("RULE", "caro", "rapfi", "no tuning book"),
        ("RULE", "renju", "wine", "wine plays freestyle only"),
        ("SIZE", "20", "pentazen", "pentazen plays 15x15 only"),
        ("GAMES", "4", "embryo", "PARTNER must be"),
        ("SPARRING", "/nonexistent", "rapfi", "no c-gomoku-cli"),
    ] {
        let r = Command::new("bash")
            .arg(&script)
            .arg("bad")
            .arg(BIN)
            .arg(BIN)
            .arg(partner)
            .env(key, value)
            .env("GAMES", if key == "GAMES" { value } else { "4" })
            .env("OUT", std::env::temp_dir().join("tengen-versus-bad"))
            .output()
            .expect("run the script");
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{key}={value} {partner}: {err}");
        assert!(err.contains(says), "{key}={value} {partner}: {err}");
    }
    let r = Command::new("bash")
        .arg(&script)
        .arg("a name")
        .arg(BIN)
        .arg(BIN)
        .output()
        .expect("run the script");
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("letters, digits"));
}

#[test]
fn a_full_renju_board_leaves_black_only_forbidden_cells() {
    // Game 1 of a self-play run under c-gomoku-cli (2026-11-28): after 224
    // moves black's one empty cell, i11, makes six in column i.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/renju-full");
    assert!(black_has_no_move(&dir, 1));
    // No such game 2 in the record.
    assert!(!black_has_no_move(&dir, 2));
}
