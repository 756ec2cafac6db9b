//! The network's accumulators the board keeps: per colour, the sums of
//! the [`CodeVectors`] of every empty cell's pattern code, class pair and
//! line shapes, brought up to date lazily after a move and saved for
//! `unmake`, paused during threat searches.

use super::values::{self, line_feature, pair_feature, Acc, CodeVectors};
use super::{line_pos, Board, DIRS, PAD};
use crate::pattern::stone_code;
use crate::types::Color;
use std::sync::Arc;

impl Board {
    /// The vectors whose sums the board keeps, if any.
    #[inline]
    pub fn code_vectors(&self) -> Option<&Arc<CodeVectors>> {
        self.code_vectors.as_ref()
    }

    /// Keeps the sums of `vectors` (none: keeps no accumulators) from now
    /// on, like [`Board::set_code_values`].
    pub fn set_code_vectors(&mut self, vectors: Option<&Arc<CodeVectors>>) {
        let same = match (&self.code_vectors, vectors) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        if !same {
            self.replay_with(|b| {
                b.code_vectors = vectors.cloned();
                b.acc_history = Vec::with_capacity(b.history.capacity());
            });
        }
    }

    /// Per colour, the sums of the vectors of [`Board::code_vectors`] over
    /// the empty cells' codes (zero without them). A search calls
    /// [`Board::sync_acc`] first; otherwise the last move's change is
    /// worked out here each time. During a pause, those of the position at
    /// the pause.
    #[inline]
    pub fn acc(&self, c: Color) -> Acc {
        if self.acc_pending && self.acc_paused == 0 {
            self.acc_after_last()[c.index()]
        } else {
            self.acc[c.index()]
        }
    }

    /// Brings the sums up to date with the last move, if they are not.
    #[inline]
    pub fn sync_acc(&mut self) {
        if self.acc_pending && self.acc_paused == 0 {
            self.update_acc();
            self.acc_pending = false;
        }
    }

    /// Stops bringing the network accumulators up to date, for a search
    /// that makes and takes back moves without evaluating them (the threat
    /// searches): they stay those of the position at the pause, which is
    /// the position again once every move made since is taken back, before
    /// [`Board::resume_acc`]. Pauses nest.
    #[inline]
    pub fn pause_acc(&mut self) {
        self.acc_paused += 1;
    }

    /// Ends a [`Board::pause_acc`]; the moves made since must be taken back.
    #[inline]
    pub fn resume_acc(&mut self) {
        debug_assert!(self.acc_paused > 0);
        self.acc_paused = self.acc_paused.saturating_sub(1);
    }

    /// Adds the last move to the network accumulators, keeping the sums
    /// before it for `unmake`.
    fn update_acc(&mut self) {
        let new = self.acc_after_last();
        self.acc_history.push(self.acc);
        self.acc = new;
    }

    crate::simd::avx2_method!(
        /// The network accumulators after the last move, from those before
        /// it and the cells it saved for `unmake` (the stone's cell first):
        /// the stone's cell leaves the sums, the others move from their
        /// saved codes (and the classes of those) to their current ones.
        #[inline(never)]
        fn acc_after_last(&self) -> [Acc; 2] = Board::acc_after_last_body
    );

    /// The body of [`Board::acc_after_last`], inlined into each build of it.
    #[inline(always)]
    pub(super) fn acc_after_last_body(&self) -> [Acc; 2] {
        let Some(v) = &self.code_vectors else {
            return self.acc;
        };
        let mut out = self.acc;
        let start = self.history.last().map_or(0, |st| st.undo_len as usize);
        let class = &self.table.code_class;
        let entries = &self.undo[start..self.undo_len];
        // One colour at a time, its sums in a local copy the compiler can
        // keep in registers over all the cells.
        for col in [Color::Black, Color::White] {
            let (c, o) = (col.index(), 1 - col.index());
            let mut acc = self.acc[c];
            for (k, &e) in entries.iter().enumerate() {
                let q = (e & 0x3FF) as usize;
                let old = [((e >> 10) & 0x7FF) as usize, ((e >> 21) & 0x7FF) as usize];
                let old_pair = pair_feature(class[c][old[c]], class[o][old[o]]);
                if k == 0 {
                    v.remove(&mut acc, col, old[c]);
                    v.remove(&mut acc, col, old_pair);
                    continue;
                }
                let new = self.codes[c][q] as usize;
                if new != old[c] {
                    v.update(&mut acc, col, old[c], new);
                }
                let new_pair = pair_feature(self.cls[c][q], self.cls[o][q]);
                if new_pair != old_pair {
                    v.update(&mut acc, col, old_pair, new_pair);
                }
            }
            if v.lines() {
                self.lines_after_last(v, &mut acc, col);
            }
            out[c] = acc;
        }
        out
    }

    /// The line-shape part of [`Board::acc_after_last`] for colour `col`:
    /// along each line of the last move, its cell leaves the sums and the
    /// empty cells within four of it move from the shape they had without
    /// the stone to the one they have with it.
    #[inline(always)]
    fn lines_after_last(&self, v: &CodeVectors, acc: &mut Acc, col: Color) {
        let Some(st) = self.history.last() else {
            return;
        };
        let p = st.pos;
        let stone = stone_code(st.color);
        for d in 0..DIRS {
            let (line, t) = line_pos(d, p.x(), p.y());
            let new_key = self.keys[d][line];
            let old_key = new_key ^ (stone << (2 * (t + PAD)));
            if let Some(s) = values::line_shape(old_key, t, PAD, col) {
                v.remove(acc, col, line_feature(s));
            }
            // Slots past the line's ends hold the edge code, so they are
            // never empty.
            for u in (t + PAD - 4)..=(t + PAD + 4) {
                if u == t + PAD || (new_key >> (2 * u)) & 3 != 0 {
                    continue;
                }
                let old = values::line_shape(old_key, u - PAD, PAD, col);
                let new = values::line_shape(new_key, u - PAD, PAD, col);
                if old != new {
                    if let Some(s) = old {
                        v.remove(acc, col, line_feature(s));
                    }
                    if let Some(s) = new {
                        v.add(acc, col, line_feature(s));
                    }
                }
            }
        }
    }
}
