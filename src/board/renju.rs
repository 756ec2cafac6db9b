//! The renju forbidden-move check for black.

use super::{Board, DELTA, DIRS, PAD};
use crate::pattern::{Class, Pattern};
use crate::types::{Color, Pos, Rule};

impl Board {
    /// Is `p` forbidden for black under renju? Double four (two fours in one
    /// line included) and overline are seen in the cell's class at once; a
    /// double three is forbidden only if at least two of the threes are
    /// real: each can become a straight four by a black move that is itself
    /// not forbidden, checked recursively. A move that makes five is never
    /// forbidden. Always false under other rules, on stones and off the
    /// board.
    pub fn is_forbidden(&mut self, p: Pos) -> bool {
        if self.rule != Rule::Renju || !self.is_empty(p) {
            return false;
        }
        match self.class(Color::Black, p) {
            Class::Forbid => true,
            Class::MaybeForbid => self.real_threes(p) >= 2,
            _ => false,
        }
    }

    /// How many of the open threes black would make at `p` are real.
    fn real_threes(&mut self, p: Pos) -> usize {
        let half = self.table.half;
        let lo_mask = (1u64 << (2 * half)) - 1;
        // Window indices around p (the centre is not part of them, so they
        // stay the same once p is played).
        let mut windows = [0usize; DIRS];
        let mut three_dirs = [false; DIRS];
        for d in 0..DIRS {
            three_dirs[d] = self.pattern(Color::Black, p, d) == Pattern::F3;
            let (line, t) = super::line_pos(d, p.x(), p.y());
            let w = self.keys[d][line] >> (2 * (t + PAD - half));
            windows[d] = ((w & lo_mask) | ((w >> (2 * half + 2)) & lo_mask) << (2 * half)) as usize;
        }
        self.play_color(p, Color::Black);
        let mut real = 0;
        for d in (0..DIRS).filter(|&d| three_dirs[d]) {
            for j in 0..=2 * half {
                if j == half {
                    continue;
                }
                let shift = if j < half { 2 * j } else { 2 * (j - 1) };
                if (windows[d] >> shift) & 3 != 0 {
                    continue;
                }
                let with_e = windows[d] | 1 << shift;
                if Pattern::from_u8(self.table.line[with_e] & 15) != Pattern::F4 {
                    continue;
                }
                let e = Pos::from_index(
                    (p.index() as isize + (j as isize - half as isize) * DELTA[d]) as usize,
                );
                if !self.is_forbidden(e) {
                    real += 1;
                    break;
                }
            }
            if real >= 2 {
                break;
            }
        }
        self.unmake();
        real
    }

    /// Every cell forbidden for black, in index order (empty unless renju).
    pub fn forbidden_cells(&mut self) -> Vec<Pos> {
        if self.rule != Rule::Renju {
            return Vec::new();
        }
        let empty = self.on_board & !(self.stones[0] | self.stones[1]);
        empty.iter().filter(|&p| self.is_forbidden(p)).collect()
    }
}
