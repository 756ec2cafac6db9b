//! Finds positions whose win by threats needs many threes, for the solver's
//! suite: semi-random games in which one side builds shapes, keeping a
//! position where the side to move wins by a VCT with `MIN` threes allowed
//! and not with fewer (both proved by the solver).
//!
//! cargo run --release --example vct_hunt -- [RULE] [MIN_THREATS] [COUNT] [SEED]
//!
//! Prints suite lines: `RULE 15 MOVES vct # T threats, N plies: LINE`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod common;
use common::semi_random_move;
use tengen::search::params::Params;
use tengen::solver::{Mode, Outcome, SolveLimits, Solver};
use tengen::{Board, Rule};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rule: Rule = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(Rule::Freestyle);
    let min: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4);
    let count: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3);
    let seed: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut rng = StdRng::seed_from_u64(seed);
    let params = Params::default();
    let limits = |t: u32| SolveLimits {
        mode: Mode::Vct,
        max_threats: t,
        nodes: 3_000_000,
        ..SolveLimits::default()
    };
    let mut found = 0;
    let mut games = 0;
    while found < count && games < 100_000 {
        games += 1;
        let mut b = Board::new(15, rule).expect("board");
        let attacker = rng.gen_range(0..2);
        for _ in 0..rng.gen_range(8..40) {
            if b.is_won() || b.is_full() {
                break;
            }
            let Some(p) = semi_random_move(&mut b, &params, &mut rng, attacker, 10) else {
                break;
            };
            b.make(p);
            if b.is_won() || b.side_to_move().index() != attacker {
                continue;
            }
            // Quick filters: a win with the full budget, none with fewer.
            let mut solver = Solver::new();
            let Outcome::Win(line) = solver.solve(&mut b, &limits(min + 2)).outcome else {
                continue;
            };
            if solver.solve(&mut b, &limits(min - 1)).outcome != Outcome::NoWin {
                continue;
            }
            let s = solver.solve(&mut b, &limits(min));
            let Outcome::Win(_) = s.outcome else { continue };
            let moves: String = b.moves().map(|(p, _)| p.to_pos_string()).collect();
            let l: Vec<String> = line.iter().map(|p| p.to_pos_string()).collect();
            println!(
                "{} 15 {} vct # {} threats, {} plies: {}",
                rule.name(),
                moves,
                min,
                s.plies,
                l.join(" ")
            );
            found += 1;
            break;
        }
    }
    eprintln!("{found} found in {games} games");
}
