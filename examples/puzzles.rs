//! Puzzle harness: an engine, through the Gomocup protocol, on the
//! tactical suite (`tests/tactics/suite.txt`, positions where the side to
//! move has a forced win). Each position is set with `BOARD` under a turn
//! limit; the reply is timed from the write of `DONE` to the read of the
//! move, and judged: a move that makes five, or one after which the
//! defender, searched by tengen's own library (1,000,000 nodes), is lost.
//! Timing belongs here, not in unit tests.
//!
//! ```text
//! cargo run --release --example puzzles -- [ENGINE] [--turn MS] [--suite FILE]
//! ```
//!
//! ENGINE defaults to `target/release/pbrain-tengen` (any Gomocup engine
//! command works, `name=N,cmd=...` too); the turn defaults to 1000 ms.
//! Prints one line a puzzle, then the count solved and the median and
//! worst reply times.

use std::time::{Duration, Instant};
use tengen::perft::position_from_moves;
use tengen::search::params::Params;
use tengen::search::{Limits, Searcher, WIN_MIN};
use tengen::tournament::process::EngineProcess;
use tengen::tournament::referee::board_message;
use tengen::tournament::setup::EngineSpec;
use tengen::{Board, Pos, Rule};

fn fail(msg: String) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}

/// Does `m` win for the side to move? A five, or a legal move after which
/// the defender is lost.
fn wins(board: &mut Board, m: Pos) -> bool {
    let me = board.side_to_move();
    if !board.is_empty(m) || tengen::board::rules::is_banned(board, me, m) {
        return false;
    }
    if board.makes_five(me, m) {
        return true;
    }
    board.make(m);
    let mut defender = Searcher::new(Params::default(), 32 << 20);
    let d = defender.search(board, &Limits::nodes(1_000_000), |_| {});
    board.unmake();
    d.score <= -WIN_MIN
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut engine = "target/release/pbrain-tengen".to_string();
    let mut turn = 1000u64;
    let mut suite = "tests/tactics/suite.txt".to_string();
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--turn" => {
                turn = v
                    .parse()
                    .unwrap_or_else(|_| fail(format!("bad --turn '{v}'")))
            }
            "--suite" => suite = v,
            a if !a.starts_with("--") => {
                engine = a.to_string();
                i += 1;
                continue;
            }
            a => fail(format!("unknown option {a}")),
        }
        i += 2;
    }
    let text = std::fs::read_to_string(&suite).unwrap_or_else(|e| fail(format!("{suite}: {e}")));
    let spec = EngineSpec::parse(&engine).unwrap_or_else(|e| fail(e));
    let far = || Instant::now() + Duration::from_secs(60);
    let (mut solved, mut total) = (0, 0);
    let mut times = Vec::new();
    for line in text.lines() {
        let main = line.split('#').next().unwrap_or("").trim();
        let f: Vec<&str> = main.split_whitespace().collect();
        if f.len() != 4 {
            continue;
        }
        let rule: Rule = f[0]
            .parse()
            .unwrap_or_else(|_| fail(format!("bad rule in '{line}'")));
        let size: usize = f[1]
            .parse()
            .unwrap_or_else(|_| fail(format!("bad size in '{line}'")));
        let mut board = position_from_moves(size, rule, f[2])
            .unwrap_or_else(|e| fail(format!("'{line}': {e}")));
        // A fresh engine a puzzle: nothing learnt from the one before.
        let mut e = EngineProcess::spawn(&spec, None).unwrap_or_else(|err| fail(err));
        e.send(&format!("START {size}")).unwrap();
        let ok = e.reply(far()).unwrap_or_default();
        if ok != "OK" {
            fail(format!("START {size}: {ok}"));
        }
        let msg = format!(
            "INFO rule {}\nINFO timeout_turn {turn}\nINFO timeout_match 0\nINFO time_left 2147483647\n{}",
            rule.gomocup(),
            board_message(&board)
        );
        let t = Instant::now();
        e.send(&msg).unwrap();
        let reply = e.reply(far()).unwrap_or_default();
        let took = t.elapsed();
        e.quit();
        let mv = tengen::protocol::command::parse_xy(&reply)
            .filter(|&(x, y)| x < size && y < size)
            .map(|(x, y)| Pos::new(x, y));
        let good = mv.is_some_and(|m| wins(&mut board, m));
        total += 1;
        if good {
            solved += 1;
            times.push(took);
        }
        println!(
            "{:<4} {:>6} ms  {} {} {} -> {}",
            if good { "win" } else { "MISS" },
            took.as_millis(),
            rule,
            size,
            f[2],
            mv.map(|m| m.to_pos_string()).unwrap_or(reply)
        );
    }
    times.sort();
    let median = times.get(times.len() / 2).map(|d| d.as_millis());
    println!(
        "{solved}/{total} solved at {turn} ms a move; reply time of the solved: median {} ms, worst {} ms",
        median.map(|m| m.to_string()).unwrap_or("-".into()),
        times.last().map(|d| d.as_millis().to_string()).unwrap_or("-".into())
    );
}
