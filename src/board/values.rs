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

/// Line shapes ([`line_shape`]): the pairs of side codes, unordered.
pub const NLINES: usize = NSIDES * (NSIDES + 1) / 2;

/// Every feature a [`CodeVectors`] may hold: the codes and pairs, then
/// (in a network with them) the line shapes ([`line_feature`]).
pub const ALL_FEATURES: usize = NFEATURES + NLINES;

/// The feature of line shape `shape` ([`line_shape`]).
#[inline(always)]
pub const fn line_feature(shape: usize) -> usize {
    NFEATURES + shape
}

/// Side codes: what one side of a cell's line holds for a colour, read
/// outward over four cells (own stone, empty, or blocked: an opponent's
/// stone or the edge), up to the first blocked cell: blocked at the k-th
/// cell (k = 1..4) with the own stones before it, or not blocked within
/// four with its own stones (1 + 2 + 4 + 8 + 16).
const NSIDES: usize = 31;

/// Per colour, per byte of four line slots (2 bits a slot, 0 empty, then
/// the stone codes, 3 the edge), the side code (bit 7: an own stone
/// within); `[c][0]` reads the slots nearest first from the low bits,
/// `[c][1]` from the high bits.
static SIDE_CODES: [[[u8; 256]; 2]; 2] = side_codes();

const fn side_codes() -> [[[u8; 256]; 2]; 2] {
    let mut out = [[[0u8; 256]; 2]; 2];
    let mut c = 0;
    while c < 2 {
        // The stone codes are `colour + 1` (`crate::pattern::stone_code`).
        let own = c as u8 + 1;
        let mut dir = 0;
        while dir < 2 {
            let mut byte = 0;
            while byte < 256 {
                let mut bits = 0u8;
                let mut k = 0;
                let mut code = 255u8;
                while k < 4 {
                    let slot = if dir == 0 { k } else { 3 - k };
                    let s = (byte >> (2 * slot)) as u8 & 3;
                    if s == own {
                        bits |= 1 << k;
                    } else if s != 0 {
                        code = ((1u8 << k) - 1) + bits;
                        break;
                    }
                    k += 1;
                }
                if code == 255 {
                    code = 15 + bits;
                }
                out[c][dir][byte] = code | if bits != 0 { 0x80 } else { 0 };
                byte += 1;
            }
            dir += 1;
        }
        c += 1;
    }
    out
}

/// The line shape of the cell at slot `t` of a line whose key (2 bits a
/// slot, `pad` slots of edge first) is `key`, for colour `c`: its two
/// side codes, unordered (a shape and its mirror image are one), or
/// `None` when neither side holds a stone of `c` within four. `t + pad`
/// must be at least 4 and `t + pad + 5` at most 32.
#[inline(always)]
pub fn line_shape(key: u64, t: usize, pad: usize, c: Color) -> Option<usize> {
    let codes = &SIDE_CODES[c.index()];
    let right = codes[0][((key >> (2 * (t + pad + 1))) & 0xFF) as usize];
    let left = codes[1][((key >> (2 * (t + pad - 4))) & 0xFF) as usize];
    if (right | left) & 0x80 == 0 {
        return None;
    }
    let (a, b) = ((right & 0x7F) as usize, (left & 0x7F) as usize);
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    Some(hi * (hi + 1) / 2 + lo)
}

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
///
/// With `lines` the board also sums, for each empty cell and each of its
/// four lines, the vector of the cell's [`line_shape`] there
/// ([`line_feature`]); the vectors of the cells whose shapes a move
/// changed (the empty cells within four of it along its lines) are
/// updated.
#[derive(Clone, PartialEq, Eq)]
pub struct CodeVectors {
    tables: [Box<[[i32; CHANNELS]; ALL_FEATURES]>; 2],
    lines: bool,
}

impl CodeVectors {
    /// All zero, without line shapes.
    pub fn new() -> CodeVectors {
        CodeVectors {
            tables: [
                Box::new([[0; CHANNELS]; ALL_FEATURES]),
                Box::new([[0; CHANNELS]; ALL_FEATURES]),
            ],
            lines: false,
        }
    }

    /// Whether the line shapes are features too.
    #[inline(always)]
    pub fn lines(&self) -> bool {
        self.lines
    }

    pub fn set_lines(&mut self, lines: bool) {
        self.lines = lines;
    }

    /// The number of features in use: [`NFEATURES`], or
    /// [`ALL_FEATURES`] with line shapes.
    pub fn features(&self) -> usize {
        if self.lines {
            ALL_FEATURES
        } else {
            NFEATURES
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A line key with `cells` from slot `pad` on (`.` empty, `x` black,
    /// `o` white, `#` edge) and the edge everywhere else.
    fn key_of(cells: &str, pad: usize) -> u64 {
        let mut key = u64::MAX;
        for (i, ch) in cells.chars().enumerate() {
            let code = match ch {
                '.' => 0,
                'x' => 1,
                'o' => 2,
                _ => 3,
            };
            let shift = 2 * (i + pad);
            key = (key & !(3 << shift)) | code << shift;
        }
        key
    }

    #[test]
    fn line_shapes_read_each_side_to_its_first_block() {
        let pad = 5;
        let shape = |cells: &str, t: usize, c: Color| line_shape(key_of(cells, pad), t, pad, c);
        // Nothing of the colour within four: no shape.
        assert_eq!(shape("...............", 7, Color::Black), None);
        assert_eq!(shape("......o.o......", 7, Color::Black), None);
        assert!(shape("......o.o......", 7, Color::White).is_some());
        // A stone five cells away is out of reach.
        assert_eq!(shape("..x............", 7, Color::Black), None);
        assert!(shape("...x...........", 7, Color::Black).is_some());
        // Mirror images are one shape; what lies past a block does not
        // count; the edge blocks like an opponent's stone.
        let a = shape("....xx.x.......", 7, Color::Black);
        assert_eq!(a, shape(".......x.xx....", 7, Color::Black));
        assert_ne!(a, shape("....xx...x.....", 7, Color::Black));
        assert_eq!(
            shape("...ox.x........", 7, Color::Black),
            shape("..xox.x........", 7, Color::Black)
        );
        assert_eq!(
            shape("...ox.x........", 7, Color::Black),
            shape("x.x............", 3, Color::Black)
        );
        // Colours see the same stones as their own or as blocks.
        assert_ne!(
            shape("....x..o.......", 7, Color::Black),
            shape("....o..x.......", 7, Color::Black)
        );
        assert_eq!(
            shape("....x..o.......", 7, Color::Black),
            shape("....o..x.......", 7, Color::White)
        );
    }

    #[test]
    fn every_line_shape_is_in_range_and_all_are_reached() {
        // Every 9-cell window (the centre empty) over both colours.
        let pad = 5;
        let mut seen = vec![false; NLINES];
        for w in 0..(1u32 << 16) {
            let mut key = u64::MAX;
            for s in 0..8 {
                let slot = if s < 4 { s } else { s + 1 };
                let code = (w >> (2 * s)) as u64 & 3;
                let shift = 2 * (slot + pad);
                key = (key & !(3 << shift)) | code << shift;
            }
            key &= !(3 << (2 * (4 + pad)));
            for c in [Color::Black, Color::White] {
                if let Some(s) = line_shape(key, 4, pad, c) {
                    assert!(s < NLINES);
                    seen[s] = true;
                }
            }
        }
        // The shapes with no own stone on either side are never given:
        // five side codes have none (blocked at once, at 2, 3, 4, or open
        // and empty), which makes 15 unordered pairs.
        assert_eq!(seen.iter().filter(|&&s| s).count(), NLINES - 15);
    }
}
