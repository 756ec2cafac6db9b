//! A per-line cache of scores that depend only on a cell's line shapes
//! (the learned move ordering's shape entries, `crate::eval::policy`):
//! for each colour to move, each line and each empty cell on it, the
//! score of the cell's two line shapes there. A line's entries are
//! recomputed only when its key differs from the one they were computed
//! for, so a node reads four numbers a cell where it would look up eight
//! shapes and eight table entries; the moves of the threat searches, which
//! never order by shapes, cost nothing.

use super::{line_pos, values, Board, DIRS, LINES, NLINES, PAD};
use crate::types::{Color, Pos, MAX_SIZE};
use std::sync::Arc;

/// The cached scores of one colour to move.
#[derive(Clone)]
struct Side {
    /// The table the scores were computed from: held, so that no other
    /// table takes its address while the scores name it.
    owner: Option<Arc<[i32]>>,
    /// The board's hash when every line was last brought up to date.
    hash: u64,
    /// Per line, the key its scores were computed for (0, which no real
    /// line has, until then).
    keys: [[u64; LINES]; DIRS],
    /// Per line and slot: the score of the empty cell there.
    scores: [[[i32; MAX_SIZE]; LINES]; DIRS],
}

/// See the module documentation; kept by the board, both colours.
#[derive(Clone)]
pub struct LineScores {
    sides: [Side; 2],
}

impl LineScores {
    fn new() -> Box<LineScores> {
        let side = Side {
            owner: None,
            hash: 0,
            keys: [[0; LINES]; DIRS],
            scores: [[[0; MAX_SIZE]; LINES]; DIRS],
        };
        Box::new(LineScores {
            sides: [side.clone(), side],
        })
    }
}

impl Board {
    /// Brings the line scores of `me` to move up to date: every line whose
    /// key changed since gets, for each empty cell, `score(own, opp)` of
    /// the cell's line shapes there for `me` and for the opponent
    /// ([`NLINES`] for a line without a stone of that colour within four).
    /// `owner` is the table `score` reads (its entries must not change
    /// while shared): another table's scores are all recomputed.
    pub fn refresh_line_scores<const N: usize>(
        &mut self,
        me: Color,
        owner: &Arc<[i32; N]>,
        score: impl Fn(usize, usize) -> i32,
    ) {
        let cache = self.line_scores.get_or_insert_with(LineScores::new);
        let side = &mut cache.sides[me.index()];
        if !owned_by(&side.owner, &owner[..]) {
            side.owner = Some(owner.clone());
            side.keys = [[0; LINES]; DIRS];
        }
        let opp = me.opposite();
        let (w, h) = (self.width, self.height);
        // The lines that cross the board (see `line_pos`).
        let lines = [0..h, 0..w, MAX_SIZE - h..MAX_SIZE + w - 1, 0..w + h - 1];
        for (d, range) in lines.into_iter().enumerate() {
            for line in range {
                let key = self.keys[d][line];
                if side.keys[d][line] == key {
                    continue;
                }
                side.keys[d][line] = key;
                // Bit 2u is set where slot u is empty (slots past the
                // line's ends hold the edge code).
                let mut empty = !(key | key >> 1) & 0x5555_5555_5555_5555;
                while empty != 0 {
                    let t = empty.trailing_zeros() as usize / 2 - PAD;
                    empty &= empty - 1;
                    let own = values::line_shape(key, t, PAD, me).unwrap_or(NLINES);
                    let theirs = values::line_shape(key, t, PAD, opp).unwrap_or(NLINES);
                    side.scores[d][line][t] = score(own, theirs);
                }
            }
        }
        side.hash = self.hash;
    }

    /// Is the line-score cache of `me` to move up to date for this position
    /// and the table `owner` (see [`Board::refresh_line_scores`])?
    #[inline]
    pub fn line_scores_ready(&self, me: Color, owner: &[i32]) -> bool {
        self.line_scores.as_ref().is_some_and(|c| {
            let side = &c.sides[me.index()];
            side.hash == self.hash && owned_by(&side.owner, owner)
        })
    }

    /// The sum over the four lines of empty cell `p` of its cached score
    /// for `me` to move; only meaningful when [`Board::line_scores_ready`].
    #[inline]
    pub fn line_score(&self, me: Color, p: Pos) -> i32 {
        let Some(c) = &self.line_scores else {
            return 0;
        };
        let side = &c.sides[me.index()];
        let mut s = 0;
        for d in 0..DIRS {
            let (line, t) = line_pos(d, p.x(), p.y());
            s += side.scores[d][line][t];
        }
        s
    }
}

/// Are the scores computed from `table` (the same allocation: the cache
/// holds its owner, so the address is not reused while it does)?
#[inline]
fn owned_by(owner: &Option<Arc<[i32]>>, table: &[i32]) -> bool {
    owner
        .as_ref()
        .is_some_and(|o| std::ptr::eq(o.as_ptr(), table.as_ptr()))
}
