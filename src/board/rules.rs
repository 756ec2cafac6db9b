//! Rule helpers every layer above the board shares: renju black's banned
//! cells, the cells of a threat class, and the moves that stop a five.

use super::{Board, DIRS};
use crate::bitboard::Bitboard;
use crate::pattern::Class;
use crate::types::{Color, Pos, Rule};
use smallvec::SmallVec;

/// Does a four-three point of `c` win by its shape under this rule? Not
/// for renju black (its three may be a false one, its open four
/// forbidden) and not under caro (a four can be stopped past its five
/// cell, which may touch the three).
pub fn four_three_counts(board: &Board, c: Color) -> bool {
    match board.rule() {
        Rule::Renju => c == Color::White,
        Rule::Caro | Rule::CaroExact => false,
        _ => true,
    }
}

/// Is `p` a cell the side to move may not play (renju black's forbidden
/// cells)? Cheap for every cell whose class cannot be forbidden.
#[inline]
pub fn is_banned(board: &mut Board, me: Color, p: Pos) -> bool {
    me == Color::Black
        && board.rule() == Rule::Renju
        && matches!(
            board.class(Color::Black, p),
            Class::Forbid | Class::MaybeForbid
        )
        && board.is_forbidden(p)
}

/// The first empty candidate cell where `c` has class `k`.
pub fn find_class(board: &Board, c: Color, k: Class) -> Option<Pos> {
    if board.count(c, k) == 0 {
        return None;
    }
    board.candidates().iter().find(|&p| board.class(c, p) == k)
}

/// The empty candidate cells where `c` has class `k`.
pub fn cells_of(board: &Board, c: Color, k: Class) -> SmallVec<[Pos; 4]> {
    if board.count(c, k) == 0 {
        return SmallVec::new();
    }
    board
        .candidates()
        .iter()
        .filter(|&p| board.class(c, p) == k)
        .collect()
}

/// The moves of the side to move that stop every five point of the
/// opponent: the five cell itself when there is one (none when there are
/// more). Under caro a stone just past a five cell also stops it (a five
/// blocked at both ends does not win), so there every cell on the lines
/// through the five cells is tried.
pub fn stop_fives(board: &mut Board) -> SmallVec<[Pos; 4]> {
    let me = board.side_to_move();
    let opp = me.opposite();
    let fives = cells_of(board, opp, Class::Five);
    if !matches!(board.rule(), Rule::Caro | Rule::CaroExact) {
        return match fives.len() {
            1 if !is_banned(board, me, fives[0]) => fives,
            _ => SmallVec::new(),
        };
    }
    let mut tried = Bitboard::EMPTY;
    let mut out = SmallVec::new();
    for &f in &fives {
        for d in 0..DIRS {
            for q in board.line_cells(f, d, 5) {
                if !board.is_empty(q) || tried.contains(q) {
                    continue;
                }
                tried.set(q);
                // Our stone only takes from the opponent's lines: no new
                // five cell appears, so reading the five cells again with
                // it in place is enough.
                let stopped = fives
                    .iter()
                    .all(|&g| g == q || board.class_with(opp, g, q, me) != Class::Five);
                if stopped {
                    out.push(q);
                }
            }
        }
    }
    out
}
