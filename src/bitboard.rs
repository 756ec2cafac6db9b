//! A set of cells as bits, laid out like [`Pos`] indices: bit `y * 32 + x`.

use crate::types::{Pos, CELLS, STRIDE};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

const WORDS: usize = CELLS / 64;

/// A set of cells. Two rows per `u64`; the 10 columns past x = 21 of each row
/// are never set by the board, so shifts by up to two columns never wrap.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Bitboard(pub [u64; WORDS]);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard([0; WORDS]);

    /// All cells of a `w` x `h` board.
    pub fn board_mask(w: usize, h: usize) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        let row = (1u64 << w) - 1;
        for y in 0..h {
            b.0[y / 2] |= row << ((y % 2) * STRIDE);
        }
        b
    }

    #[inline]
    pub fn contains(&self, p: Pos) -> bool {
        let i = p.index();
        self.0[i / 64] >> (i % 64) & 1 != 0
    }

    #[inline]
    pub fn set(&mut self, p: Pos) {
        let i = p.index();
        self.0[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    pub fn clear(&mut self, p: Pos) {
        let i = p.index();
        self.0[i / 64] &= !(1 << (i % 64));
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    #[inline]
    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// Marks the 5x5 square centred on `p` (Chebyshev distance 2), clipped
    /// to the cells of `mask`.
    #[inline]
    pub fn add_square2(&mut self, p: Pos, mask: &Bitboard) {
        let (x, y) = (p.x(), p.y());
        let row = (0b11111u64 << x) >> 2;
        let y0 = y.saturating_sub(2);
        let y1 = (y + 2).min(super::types::MAX_SIZE - 1);
        for r in y0..=y1 {
            let w = r / 2;
            self.0[w] |= (row << ((r % 2) * STRIDE)) & mask.0[w];
        }
    }

    /// The cells in ascending index order.
    #[inline]
    pub fn iter(&self) -> BitIter<'_> {
        BitIter {
            words: &self.0,
            word: 0,
            bits: self.0[0],
        }
    }
}

/// Iterator over the cells of a [`Bitboard`].
pub struct BitIter<'a> {
    words: &'a [u64; WORDS],
    word: usize,
    bits: u64,
}

impl Iterator for BitIter<'_> {
    type Item = Pos;

    #[inline]
    fn next(&mut self) -> Option<Pos> {
        while self.bits == 0 {
            self.word += 1;
            if self.word >= WORDS {
                return None;
            }
            self.bits = self.words[self.word];
        }
        let b = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(Pos::from_index(self.word * 64 + b))
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitand(mut self, rhs: Bitboard) -> Bitboard {
        self &= rhs;
        self
    }
}

impl BitAndAssign for Bitboard {
    #[inline]
    fn bitand_assign(&mut self, rhs: Bitboard) {
        for (a, b) in self.0.iter_mut().zip(rhs.0) {
            *a &= b;
        }
    }
}

impl BitOr for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitor(mut self, rhs: Bitboard) -> Bitboard {
        self |= rhs;
        self
    }
}

impl BitOrAssign for Bitboard {
    #[inline]
    fn bitor_assign(&mut self, rhs: Bitboard) {
        for (a, b) in self.0.iter_mut().zip(rhs.0) {
            *a |= b;
        }
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(mut self) -> Bitboard {
        for a in self.0.iter_mut() {
            *a = !*a;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_clear_iterate() {
        let mut b = Bitboard::EMPTY;
        let cells = [
            Pos::new(0, 0),
            Pos::new(21, 0),
            Pos::new(3, 1),
            Pos::new(21, 21),
        ];
        for &p in &cells {
            b.set(p);
        }
        assert_eq!(b.count(), 4);
        assert_eq!(b.iter().collect::<Vec<_>>(), {
            let mut v = cells.to_vec();
            v.sort();
            v
        });
        b.clear(Pos::new(3, 1));
        assert!(!b.contains(Pos::new(3, 1)));
        assert!(b.contains(Pos::new(21, 21)));
    }

    #[test]
    fn square_is_clipped_to_the_board() {
        let mask = Bitboard::board_mask(15, 15);
        let mut b = Bitboard::EMPTY;
        b.add_square2(Pos::new(0, 0), &mask);
        assert_eq!(b.count(), 9);
        let mut c = Bitboard::EMPTY;
        c.add_square2(Pos::new(14, 7), &mask);
        assert_eq!(c.count(), 15);
        let mut d = Bitboard::EMPTY;
        d.add_square2(Pos::new(7, 7), &mask);
        assert_eq!(d.count(), 25);
        assert_eq!(Bitboard::board_mask(22, 22).count(), 484);
    }
}
