//! Two parameter sets of tengen against each other, in-process, from the
//! balanced freestyle openings in colour-swapped pairs: a quick A/B check
//! of a search change before a full match.
//!
//! cargo run --release --example ab_match -- PARAM A_VALUE B_VALUE [GAMES] [MOVE_MS] [FIRST_OPENING]
//! PARAM is any name `Params::set` knows (width, rfp_depth, vcf_nodes, ...).

use std::time::Duration;
use tengen::search::params::Params;
use tengen::search::{Limits, Searcher};
use tengen::types::parse_pos_list;
use tengen::{Board, Rule};

fn with(name: &str, value: i64) -> Params {
    let mut p = Params::default();
    p.set(name, value).unwrap_or_else(|e| panic!("{e}"));
    p
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "threat_extension".into());
    let a: i64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2);
    let b: i64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
    let games: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(40);
    let ms: u64 = args.get(5).and_then(|s| s.parse().ok()).unwrap_or(100);
    let first: usize = args.get(6).and_then(|s| s.parse().ok()).unwrap_or(0);
    let openings: Vec<&str> = include_str!("../openings/rapfi_opengen_f15_balanced.pos.txt")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut players = [
        Searcher::new(with(&name, a), 32 << 20),
        Searcher::new(with(&name, b), 32 << 20),
    ];
    let (mut wa, mut wb, mut draws) = (0, 0, 0);
    for g in 0..games {
        let opening = openings[(first + g / 2) % openings.len()];
        let mut board = Board::new(15, Rule::Freestyle).expect("board");
        for p in parse_pos_list(opening).expect("opening") {
            board.try_play(p).expect("opening move");
        }
        let a_side = if g % 2 == 0 {
            board.side_to_move()
        } else {
            board.side_to_move().opposite()
        };
        players.iter_mut().for_each(|p| p.clear());
        while !board.is_won() && !board.is_full() {
            let who = if board.side_to_move() == a_side { 0 } else { 1 };
            let limits = Limits {
                hard_time: Some(Duration::from_millis(ms)),
                soft_time: Some(Duration::from_millis(ms / 2)),
                ..Limits::default()
            };
            let Some(p) = players[who].search(&mut board, &limits, |_| {}).best else {
                break;
            };
            board.try_play(p).expect("legal move");
        }
        match board.winner() {
            Some(c) if c == a_side => wa += 1,
            Some(_) => wb += 1,
            None => draws += 1,
        }
        eprintln!(
            "game {:2}: {opening} A {:?}: +{wa} -{wb} ={draws}",
            g + 1,
            a_side
        );
    }
    let score = (wa as f64 + draws as f64 / 2.0) / games as f64 * 100.0;
    println!("{name} {a} vs {b} at {ms} ms: +{wa} -{wb} ={draws}, A scores {score:.1}%");
}
