//! Shared by the hunting examples: one move of a semi-random game in which
//! one side builds shapes and the other plays loosely.

use rand::rngs::StdRng;
use rand::Rng;
use tengen::board::rules::is_banned;
use tengen::eval::Evaluator;
use tengen::movegen::CellScorer;
use tengen::search::ordering::Scorer;
use tengen::search::params::Params;
use tengen::{Board, Pos};

/// A move for the side to move: one of the 3 best cells by the ordering
/// score for the builder (`attacker`, a colour index), one of the `loose`
/// best for the other side; renju black's forbidden cells never. `None`
/// when no cell is playable.
pub fn semi_random_move(
    b: &mut Board,
    params: &Params,
    rng: &mut StdRng,
    attacker: usize,
    loose: usize,
) -> Option<Pos> {
    let me = b.side_to_move();
    let eval = Evaluator::shipped();
    let scorer = Scorer::new(b, params, eval.policy(b.rule(), me), me);
    let mut cands: Vec<(i32, Pos)> = b
        .candidates()
        .iter()
        .map(|p| (scorer.score(b, p), p))
        .collect();
    cands.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    cands.retain(|&(_, p)| !is_banned(b, me, p));
    let top = if me.index() == attacker { 3 } else { loose };
    let n = cands.len().min(top);
    (n > 0).then(|| cands[rng.gen_range(0..n)].1)
}
