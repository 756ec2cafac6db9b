//! How often would tengen's candidate list hold the move a player chose?
//! Reads game records (SGF as c-gomoku-cli writes them, e.g. the
//! gauntlet's), replays each game, and for every move after the opening
//! (moves commented `opening move` are skipped) made in a quiet position
//! (no five, open four or four-three threat to answer), finds the move's
//! rank in tengen's static ordering of the candidates. Prints, per player,
//! how many moves ranked first, in the top 3, 8, 12 and 16, later, or
//! were not candidates at all: the share outside the top 8 is what a
//! quiet node of the search can never see.
//!
//! ```text
//! cargo run --release --example policy_rank -- FILE.sgf... [--params SPEC] [--weights FILE]
//! ```
//!
//! The ordering is the built-in one; `--weights FILE` measures the
//! move-ordering tables of a weights file from `tune --policy` instead.
//! The gauntlet's records (`../shared/sparring/gauntlet.sh` names their
//! folder) give the moves of Rapfi and PentaZen.

use tengen::eval::Evaluator;
use tengen::movegen::{generate, NodeKind, ScoredMove};
use tengen::search::ordering::Scorer;
use tengen::search::params::Params;
use tengen::{Board, Pos, Rule};

#[derive(Default)]
struct Tally {
    ranks: Vec<usize>,
    absent: usize,
}

fn sgf_moves(game: &str) -> (usize, Vec<(Pos, bool)>) {
    let size = game
        .find("SZ[")
        .and_then(|i| game[i + 3..].split(']').next()?.parse().ok())
        .unwrap_or(15);
    let mut out = Vec::new();
    let b = game.as_bytes();
    let mut i = 0;
    while i + 5 < b.len() {
        if b[i] == b';' && (b[i + 1] == b'B' || b[i + 1] == b'W') && b[i + 2] == b'[' {
            let x = (b[i + 3] - b'a') as usize;
            let y = (b[i + 4] - b'a') as usize;
            let rest = &game[i + 5..];
            let end = rest.find(';').unwrap_or(rest.len());
            let opening = rest[..end].contains("opening move");
            out.push((Pos::new(x, y), opening));
            i += 5;
        } else {
            i += 1;
        }
    }
    (size, out)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut params = Params::default();
    let mut eval = Evaluator::shipped();
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--weights" {
            eval = Evaluator::from_file(Some(std::path::Path::new(&args[i + 1]))).expect("weights");
            i += 2;
        } else if args[i] == "--params" {
            params = Params::with_overrides(&args[i + 1]).expect("params");
            i += 2;
        } else {
            files.push(args[i].clone());
            i += 1;
        }
    }
    let mut tally: std::collections::BTreeMap<String, Tally> = Default::default();
    let mut moves = Vec::<ScoredMove>::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        for game in text.split("(;").skip(1) {
            let player = |tag: &str| {
                game.find(tag)
                    .and_then(|i| game[i + 3..].split(']').next())
                    .unwrap_or("?")
                    .to_string()
            };
            let names = [player("PB["), player("PW[")];
            let rule = if game.contains("RU[4]") {
                Rule::Renju
            } else if game.contains("RU[1]") {
                Rule::Standard
            } else {
                Rule::Freestyle
            };
            let (size, seq) = sgf_moves(game);
            let mut board = Board::new(size, rule).expect("size");
            for (k, &(p, opening)) in seq.iter().enumerate() {
                if !opening && !board.is_won() {
                    let me = board.side_to_move();
                    let scorer = Scorer::new(&board, &params, eval.policy(rule, me), me);
                    let kind = generate(&mut board, &scorer, 400, &[], &mut moves);
                    if kind == NodeKind::Quiet {
                        let t = tally.entry(names[k % 2].clone()).or_default();
                        match moves.iter().position(|m| m.pos == p) {
                            Some(r) => t.ranks.push(r),
                            None => t.absent += 1,
                        }
                    }
                }
                if board.try_play(p).is_err() {
                    break;
                }
            }
        }
    }
    for (name, t) in tally {
        let n = t.ranks.len() + t.absent;
        let within = |k: usize| t.ranks.iter().filter(|&&r| r < k).count();
        let pct = |c: usize| 100.0 * c as f64 / n.max(1) as f64;
        println!(
            "{name:>10}: {n} quiet moves; top1 {:.1}%  top3 {:.1}%  top8 {:.1}%  top12 {:.1}%  top16 {:.1}%  later {:.1}%  not a candidate {:.1}%",
            pct(within(1)),
            pct(within(3)),
            pct(within(8)),
            pct(within(12)),
            pct(within(16)),
            pct(t.ranks.len() - within(16)),
            pct(t.absent)
        );
    }
}
