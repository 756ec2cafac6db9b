//! Static evaluation from the incremental pattern state.
//!
//! Every empty cell holds, for each side, a pattern code: the combination
//! of its four line patterns ([`pcode`]). The value of a position for the
//! side to move is the sum over empty cells of a learned table's value of
//! the cell's code for the side to move, less the sum of the opponent's
//! codes in a second table, plus a correction for which threat classes
//! each side holds ([`weights::threat_mask`]). The board keeps the sums as
//! moves are made, so evaluation is O(1) and never scans the board.

pub mod pcode;
pub mod weights;

use crate::board::Board;
use crate::search::params::Params;
use weights::threat_mask;

/// Largest magnitude of a static evaluation: far below win scores.
pub const EVAL_LIMIT: i32 = 20_000;

/// The position's value for the side to move.
pub fn evaluate(board: &Board, _params: &Params) -> i32 {
    let me = board.side_to_move();
    let opp = me.opposite();
    let mask = threat_mask(|c, k| board.count(c, k) > 0, me);
    let threat = board.weights().threat[me.index()][mask];
    (board.value_sum(me, true) - board.value_sum(opp, false) + threat)
        .clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// The evaluation recomputed cell by cell from the tables (a check of the
/// incremental sums and of the tuner's features).
pub fn evaluate_from_scratch(board: &Board) -> i32 {
    let me = board.side_to_move();
    let opp = me.opposite();
    let w = board.weights();
    let mut v = 0;
    for p in board.cells().iter() {
        if board.stone(p).is_some() {
            continue;
        }
        v += w.cells[me.index()][2 * pcode::pcode(board.pattern_code(me, p))];
        v -= w.cells[opp.index()][2 * pcode::pcode(board.pattern_code(opp, p)) + 1];
    }
    let mask = threat_mask(|c, k| board.count(c, k) > 0, me);
    (v + w.threat[me.index()][mask]).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft::position_from_moves;
    use crate::types::Rule;

    #[test]
    fn symmetric_positions_are_even_and_threats_count() {
        let params = Params::default();
        let empty = Board::new(15, Rule::Freestyle).unwrap();
        assert_eq!(evaluate(&empty, &params), 0);
        // Black has an open three, white scattered stones: black to move is ahead.
        let b = position_from_moves(15, Rule::Freestyle, "h8a1i8a15j8").unwrap();
        let white_to_move = evaluate(&b, &params);
        assert!(white_to_move < -100, "{white_to_move}");
        // White has the three and black is to move: black is behind.
        let m = position_from_moves(15, Rule::Freestyle, "a1h8a15i8o1j8").unwrap();
        assert!(evaluate(&m, &params) < -100);
        // Black has the three and is to move: black is ahead, by more than
        // the side not to move would be.
        let own = position_from_moves(15, Rule::Freestyle, "h8a1i8a15j8o1").unwrap();
        assert!(evaluate(&own, &params) > -white_to_move);
    }

    #[test]
    fn incremental_equals_from_scratch_along_random_games() {
        use rand::{Rng, SeedableRng};
        let params = Params::default();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for rule in crate::types::Rule::ALL {
            for size in [15, 20] {
                let mut b = Board::new(size, rule).unwrap();
                for _ in 0..60 {
                    let cands: Vec<_> = b.candidates().iter().collect();
                    if cands.is_empty() || b.is_won() {
                        break;
                    }
                    b.make(cands[rng.gen_range(0..cands.len())]);
                    assert_eq!(
                        evaluate(&b, &params),
                        evaluate_from_scratch(&b),
                        "{rule} {b:?}"
                    );
                    if rng.gen_range(0..4) == 0 {
                        b.unmake();
                        assert_eq!(evaluate(&b, &params), evaluate_from_scratch(&b));
                    }
                }
            }
        }
    }
}
