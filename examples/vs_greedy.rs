//! tengen against a one-ply greedy player built from the same evaluator:
//! for each candidate, make it and take the one whose evaluation is best
//! for the mover (a five at once). Games start from the balanced freestyle
//! openings and are played in colour-swapped pairs.
//!
//! cargo run --release --example vs_greedy -- [GAMES] [MOVE_MS] [RULE]

use std::time::Duration;
use tengen::board::rules::is_banned;
use tengen::eval::Evaluator;
use tengen::search::params::Params;
use tengen::search::{Limits, Searcher};
use tengen::types::parse_pos_list;
use tengen::{Board, Pos, Rule};

fn greedy(board: &mut Board, eval: &Evaluator) -> Option<Pos> {
    let me = board.side_to_move();
    let mut best: Option<(i32, Pos)> = None;
    for p in board.candidates().iter() {
        if is_banned(board, me, p) {
            continue;
        }
        board.make(p);
        let v = if board.is_won() {
            i32::MAX
        } else {
            -eval.evaluate(board)
        };
        board.unmake();
        if best.is_none_or(|(b, _)| v > b) {
            best = Some((v, p));
        }
    }
    best.map(|(_, p)| p)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(40);
    let ms: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200);
    let rule: Rule = args
        .get(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(Rule::Freestyle);
    let openings: Vec<&str> = include_str!("../openings/rapfi_opengen_f15_balanced.pos.txt")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let eval = Evaluator::shipped();
    let mut searcher = Searcher::new(Params::default(), 64 << 20);
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for g in 0..games {
        let opening = openings[(g / 2) % openings.len()];
        let mut board = Board::new(15, rule).expect("board");
        for p in parse_pos_list(opening).expect("opening") {
            board.try_play(p).expect("opening move");
        }
        // Even games: tengen plays the side to move after the opening.
        let tengen_side = if g % 2 == 0 {
            board.side_to_move()
        } else {
            board.side_to_move().opposite()
        };
        searcher.clear();
        while !board.is_won() && !board.is_full() {
            let mv = if board.side_to_move() == tengen_side {
                let limits = Limits {
                    hard_time: Some(Duration::from_millis(ms)),
                    soft_time: Some(Duration::from_millis(ms / 2)),
                    ..Limits::default()
                };
                searcher.search(&mut board, &limits, |_| {}).best
            } else {
                greedy(&mut board, &eval)
            };
            let Some(p) = mv else { break };
            board.try_play(p).expect("legal move");
        }
        match board.winner() {
            Some(c) if c == tengen_side => wins += 1,
            Some(_) => losses += 1,
            None => draws += 1,
        }
        eprintln!(
            "game {:2}: opening {opening}, tengen {:?}, {} plies, result {}-{}-{}",
            g + 1,
            tengen_side,
            board.ply(),
            wins,
            losses,
            draws
        );
    }
    let score = (wins as f64 + draws as f64 / 2.0) / games as f64 * 100.0;
    println!("tengen vs greedy ({rule}, {ms} ms a move): +{wins} -{losses} ={draws}, {score:.1}% of the points");
}
