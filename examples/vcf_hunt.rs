//! Finds positions whose shortest VCF is long, for the tactical suite:
//! semi-random games in which one side builds shapes, keeping positions
//! where a VCF exists but none of fewer than `--min` fours does.
//!
//! cargo run --release --example vcf_hunt -- [RULE] [MIN_FOURS] [COUNT] [SEED]

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod common;
use common::semi_random_move;
use tengen::search::params::Params;
use tengen::search::Searcher;
use tengen::{Board, Rule};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rule: Rule = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(Rule::Freestyle);
    let min: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let count: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5);
    let seed: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut rng = StdRng::seed_from_u64(seed);
    let params = Params::default();
    let mut searcher = Searcher::new(Params::default(), 1 << 20);
    let mut found = 0;
    let mut games = 0;
    while found < count && games < 200_000 {
        games += 1;
        let mut b = Board::new(15, rule).expect("board");
        let attacker = rng.gen_range(0..2);
        for _ in 0..rng.gen_range(10..50) {
            if b.is_won() || b.is_full() {
                break;
            }
            // The attacker builds (best few), the defender plays loosely.
            let Some(p) = semi_random_move(&mut b, &params, &mut rng, attacker, 12) else {
                break;
            };
            b.make(p);
            let side = b.side_to_move();
            if b.is_won() {
                break;
            }
            if side.index() != attacker {
                continue;
            }
            // Attacker to move: is there a long VCF and no short one?
            let opp = side.opposite();
            if b.count(opp, tengen::pattern::Class::Five) > 0 {
                continue;
            }
            let long = searcher.find_vcf(&mut b, 40, 2_000_000);
            let Some(line) = long else { continue };
            let fours = line.len().div_ceil(2) as u32;
            if fours < min {
                continue;
            }
            if searcher.find_vcf(&mut b, min - 1, 20_000_000).is_some() {
                continue;
            }
            let moves: String = b.moves().map(|(p, _)| p.to_pos_string()).collect();
            let l: Vec<String> = line.iter().map(|p| p.to_pos_string()).collect();
            println!(
                "{} 15 {} vcf {} # {}",
                rule.name(),
                moves,
                fours,
                l.join(" ")
            );
            found += 1;
            break;
        }
    }
    eprintln!("{found} found in {games} games");
}
