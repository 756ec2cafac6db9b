//! Static evaluation from the incremental pattern state.
//!
//! The board keeps, per side, how many empty cells have each threat class
//! and how many (cell, direction) pairs have each line pattern; the value
//! is a weighted sum of those counts, so evaluation costs the same at any
//! stage of the game and never scans the board.

use crate::board::Board;
use crate::pattern::{Class, Pattern};
use crate::search::params::Params;
use crate::types::{Color, Rule};

/// Largest magnitude of a static evaluation: far below win scores.
pub const EVAL_LIMIT: i32 = 20_000;

/// The position's value for the side to move.
pub fn evaluate(board: &Board, params: &Params) -> i32 {
    let me = board.side_to_move();
    let opp = me.opposite();
    let mut own = side_value(board, params, me, &params.eval_own, &params.class_own);
    let mut theirs = side_value(board, params, opp, &params.eval_opp, &params.class_opp);
    if board.rule() == Rule::Renju {
        // Black's threats are partly unusable: scale them down.
        if me == Color::Black {
            own = own * params.renju_black_percent / 100;
        } else {
            theirs = theirs * params.renju_black_percent / 100;
        }
    }
    (own - theirs).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

fn side_value(board: &Board, _params: &Params, c: Color, pw: &[i32; 16], cw: &[i32; 16]) -> i32 {
    let mut v = 0;
    for p in Pattern::ALL {
        v += pw[p as usize] * board.pattern_count(c, p) as i32;
    }
    for k in Class::ALL {
        v += cw[k as usize] * board.count(c, k) as i32;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft::position_from_moves;

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
}
