//! perft: counts the positions reachable in `depth` moves, as a check and a
//! speed measure of make/unmake with the full pattern update.
//!
//! perft(p, 0) = 1; perft(p, d) = the sum of perft(p + m, d - 1) over the
//! candidates m: the empty cells within Chebyshev distance 2 of a stone (the
//! centre on an empty board), less black's forbidden cells under renju. A
//! position whose last move won has no candidates.

use crate::board::Board;
use crate::types::{parse_pos_list, Color, Pos, Rule};
use std::fmt;

/// What a perft run counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PerftCount {
    /// perft(p, depth).
    pub leaves: u64,
    /// make+unmake pairs performed.
    pub moves: u64,
}

/// Runs perft on `board` (left as it was).
pub fn perft(board: &mut Board, depth: u32) -> PerftCount {
    let mut moves = 0;
    let leaves = perft_inner(board, depth, &mut moves);
    PerftCount { leaves, moves }
}

fn perft_inner(board: &mut Board, depth: u32, moves: &mut u64) -> u64 {
    if depth == 0 {
        return 1;
    }
    if board.is_won() {
        return 0;
    }
    let renju_black = board.rule() == Rule::Renju && board.side_to_move() == Color::Black;
    let mut leaves = 0;
    for p in board.candidates().iter() {
        if renju_black && board.is_forbidden(p) {
            continue;
        }
        board.make(p);
        *moves += 1;
        leaves += perft_inner(board, depth - 1, moves);
        board.unmake();
    }
    leaves
}

/// Why a position could not be set up from a move list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupError(pub String);

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SetupError {}

/// Plays `moves` (black first) on a new board, refusing moves off the
/// board, on a stone, on a forbidden cell, or after the game is over. A
/// list that ends the game (a five, a full board) is a good list.
pub fn replay(size: usize, rule: Rule, moves: &[Pos]) -> Result<Board, SetupError> {
    let mut board = Board::new(size, rule).map_err(|e| SetupError(e.to_string()))?;
    for (i, &p) in moves.iter().enumerate() {
        let (n, name) = (i + 1, p.to_pos_string());
        if board.is_won() {
            return Err(SetupError(format!(
                "move {n} ({name}) comes after the game is over"
            )));
        }
        if !board.contains(p.x(), p.y()) {
            return Err(SetupError(format!(
                "move {n} ({name}) is off the {size}x{size} board"
            )));
        }
        if !board.is_empty(p) {
            return Err(SetupError(format!("move {n} ({name}) is on a stone")));
        }
        if board.side_to_move() == Color::Black && board.is_forbidden(p) {
            return Err(SetupError(format!(
                "move {n} ({name}) is forbidden for black under renju"
            )));
        }
        board
            .try_play(p)
            .map_err(|e| SetupError(format!("move {n} ({name}): {e}")))?;
    }
    Ok(board)
}

/// Plays a move list in pos notation (black first) on a new board, as
/// [`replay`] does, and refuses a list that ends the game: a position to
/// search.
pub fn position_from_moves(size: usize, rule: Rule, moves: &str) -> Result<Board, SetupError> {
    let list = parse_pos_list(moves).map_err(|e| SetupError(e.to_string()))?;
    let board = replay(size, rule, &list)?;
    if board.is_won() {
        let last = board
            .last_move()
            .map(Pos::to_pos_string)
            .unwrap_or_default();
        return Err(SetupError(format!(
            "the game is already over: {last} made five"
        )));
    }
    if board.is_full() {
        return Err(SetupError("the board is full".into()));
    }
    Ok(board)
}
