//! Integers the board sums over its empty cells by pattern code.
//!
//! Per colour and pattern code, two values: one counted while that colour
//! is to move (`own`), one while the other side is (`opp`). The board keeps
//! the four sums up to date as moves are made and undone, touching only the
//! cells whose codes changed, so a linear evaluation over the codes costs
//! nothing to read. The board gives the numbers no meaning: the evaluation
//! supplies them (`crate::eval::Weights`) and reads the sums back.

use crate::pattern::pcode::NCODES;
use crate::types::Color;
use std::sync::{Arc, OnceLock};

/// Per colour, `own` and `opp` values for every pattern code.
#[derive(Clone, PartialEq, Eq)]
pub struct CodeValues {
    /// Interleaved: entry `2 * code` is `own[code]`, `2 * code + 1`
    /// `opp[code]`.
    tables: [Box<[i32; 2 * NCODES]>; 2],
}

impl CodeValues {
    /// All zero.
    pub fn new() -> CodeValues {
        CodeValues {
            tables: [Box::new([0; 2 * NCODES]), Box::new([0; 2 * NCODES])],
        }
    }

    /// The shared all-zero tables boards start with.
    pub fn zero() -> Arc<CodeValues> {
        static ZERO: OnceLock<Arc<CodeValues>> = OnceLock::new();
        ZERO.get_or_init(|| Arc::new(CodeValues::new())).clone()
    }

    /// The `own` and `opp` values of pattern code `code` for colour `c`.
    #[inline(always)]
    pub fn get(&self, c: Color, code: usize) -> (i32, i32) {
        let t = &self.tables[c.index()];
        (t[2 * code], t[2 * code + 1])
    }

    #[inline]
    pub fn own(&self, c: Color, code: usize) -> i32 {
        self.tables[c.index()][2 * code]
    }

    #[inline]
    pub fn opp(&self, c: Color, code: usize) -> i32 {
        self.tables[c.index()][2 * code + 1]
    }

    pub fn set_own(&mut self, c: Color, code: usize, v: i32) {
        self.tables[c.index()][2 * code] = v;
    }

    pub fn set_opp(&mut self, c: Color, code: usize, v: i32) {
        self.tables[c.index()][2 * code + 1] = v;
    }
}

impl Default for CodeValues {
    fn default() -> CodeValues {
        CodeValues::new()
    }
}

/// Channels of a [`CodeVectors`] entry: the width of the network
/// evaluator's accumulators.
pub const CHANNELS: usize = 32;

/// One accumulator: per channel, a sum over empty cells.
pub type Acc = [i32; CHANNELS];

/// Classes a pair feature combines ([`crate::pattern::Class::COUNT`]).
pub const NCLASSES: usize = 16;

/// Features of an empty cell for one colour: its pattern code (`0..NCODES`)
/// and its pair (`NCODES..`, [`pair_feature`]).
pub const NFEATURES: usize = NCODES + NCLASSES * NCLASSES;

/// The pair feature of a cell whose class is `own` for the colour and
/// `opp` for the other: where both sides' threats meet, which the codes
/// (one colour each) cannot see.
#[inline(always)]
pub const fn pair_feature(own: u8, opp: u8) -> usize {
    NCODES + (own as usize & 15) * NCLASSES + (opp as usize & 15)
}

/// Per colour and feature (pattern code or pair), a vector of
/// [`CHANNELS`] integers: the first layer of the network evaluator
/// (`crate::eval::net`). The board keeps, per colour, the sum of the
/// vectors of its empty cells' two features, updated like the
/// [`CodeValues`] sums (only the cells whose codes or classes changed),
/// and gives them no meaning. The values are 16-bit (the network file's);
/// they are kept widened to 32 bits, so that an update is plain adds of
/// whole vectors (no sign extension on every move).
#[derive(Clone, PartialEq, Eq)]
pub struct CodeVectors {
    tables: [Box<[[i32; CHANNELS]; NFEATURES]>; 2],
}

impl CodeVectors {
    /// All zero.
    pub fn new() -> CodeVectors {
        CodeVectors {
            tables: [
                Box::new([[0; CHANNELS]; NFEATURES]),
                Box::new([[0; CHANNELS]; NFEATURES]),
            ],
        }
    }

    /// The vector of feature `code` (a pattern code or a pair) for colour
    /// `c`.
    #[inline(always)]
    pub fn get(&self, c: Color, code: usize) -> [i16; CHANNELS] {
        // Every value was set from an i16.
        self.tables[c.index()][code].map(|x| x as i16)
    }

    pub fn set(&mut self, c: Color, code: usize, v: [i16; CHANNELS]) {
        self.tables[c.index()][code] = v.map(i32::from);
    }

    /// `acc += self[c][new] - self[c][old]`: a cell's feature changed.
    #[inline(always)]
    pub fn update(&self, acc: &mut Acc, c: Color, old: usize, new: usize) {
        let t = &self.tables[c.index()];
        let (o, n) = (&t[old], &t[new]);
        for i in 0..CHANNELS {
            acc[i] += n[i] - o[i];
        }
    }

    /// `acc -= self[c][code]`: a cell left the empty cells.
    #[inline(always)]
    pub fn remove(&self, acc: &mut Acc, c: Color, code: usize) {
        let v = &self.tables[c.index()][code];
        for i in 0..CHANNELS {
            acc[i] -= v[i];
        }
    }

    /// `acc += self[c][code]`.
    #[inline(always)]
    pub fn add(&self, acc: &mut Acc, c: Color, code: usize) {
        let v = &self.tables[c.index()][code];
        for i in 0..CHANNELS {
            acc[i] += v[i];
        }
    }
}

impl Default for CodeVectors {
    fn default() -> CodeVectors {
        CodeVectors::new()
    }
}
