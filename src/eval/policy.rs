//! The learned move ordering's features: what a candidate cell is, read
//! from the board, as entries of a per-colour table of integers (the
//! tables ship in the weights files; `tune --policy` fits them). The search
//! sums a cell's entries to order its moves.

use crate::board::Board;
use crate::pattern::pcode::NCODES;
use crate::types::{Color, Pos};

/// Entries of one colour's learned move-ordering table: own and opponent
/// pattern codes (interleaved), the pair of classes (ours, theirs), and the
/// distance to the last stone and to the one before it (Chebyshev, 1 to 8
/// or more).
pub const POLICY_LEN: usize = 2 * NCODES + 256 + 16;

/// The last move (the opponent's) and the one before it (ours).
#[inline]
pub fn recent_moves(board: &Board) -> [Option<Pos>; 2] {
    let mut m = board.moves().rev().map(|(p, _)| p);
    [m.next(), m.next()]
}

/// The table entries that score `p` for `me` (see [`POLICY_LEN`]).
#[inline]
pub fn policy_features(board: &Board, me: Color, p: Pos, recent: [Option<Pos>; 2]) -> [usize; 5] {
    let opp = me.opposite();
    let dist = |q: Option<Pos>| q.map_or(7, |q| p.distance(q).clamp(1, 8) - 1);
    [
        2 * board.code(me, p),
        2 * board.code(opp, p) + 1,
        2 * NCODES + 16 * board.class(me, p) as usize + board.class(opp, p) as usize,
        2 * NCODES + 256 + dist(recent[0]),
        2 * NCODES + 264 + dist(recent[1]),
    ]
}

/// The score of `p` for `me` by one colour's learned table.
#[inline]
pub fn policy_score(
    board: &Board,
    table: &[i32; POLICY_LEN],
    me: Color,
    p: Pos,
    recent: [Option<Pos>; 2],
) -> i32 {
    policy_features(board, me, p, recent)
        .iter()
        .map(|&i| table[i])
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft::position_from_moves;
    use crate::types::Rule;

    #[test]
    fn policy_features_index_inside_the_table() {
        let b = position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7").unwrap();
        let recent = recent_moves(&b);
        assert_eq!(
            recent,
            [Pos::parse_pos("g7").ok(), Pos::parse_pos("i8").ok()]
        );
        let f = policy_features(&b, Color::White, Pos::parse_pos("f6").unwrap(), recent);
        assert!(f.iter().all(|&i| i < POLICY_LEN));
        // f6 is next to g7 (distance 1) and 3 from i8.
        assert_eq!(f[3], 2 * NCODES + 256);
        assert_eq!(f[4], 2 * NCODES + 264 + 2);
        // No stone yet: the farthest bucket.
        let empty = Board::new(15, Rule::Freestyle).unwrap();
        let f = policy_features(&empty, Color::Black, empty.center(), recent_moves(&empty));
        assert_eq!((f[3], f[4]), (2 * NCODES + 263, 2 * NCODES + 271));
    }
}
