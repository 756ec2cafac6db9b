//! The network evaluator: a small integer network added to the tables.
//!
//! Input: per colour, an accumulator of [`CHANNELS`] integers, the sum
//! over the empty cells of two learned vectors ([`CodeVectors`]): one for
//! the cell's pattern code for that colour, one for the pair (the cell's
//! class for that colour, its class for the other), which sees where both
//! sides' threats meet. The board keeps both sums as moves are made and
//! undone, touching only the cells whose codes changed, as it keeps the
//! tables' sums. From the side to move's view the two
//! accumulators (its own first), clipped to `[0, 1024]` (1.0), feed a
//! hidden layer of [`HIDDEN`] units (int16 weights, int32 sums, plus a
//! learned vector for each set bit of the threat mask of [`threat_mask`]),
//! clipped again to `[0, 1024]`, then one output in evaluation units. The value of a
//! position is the tables' value plus the network's output, so the tables
//! are the network's linear part and a network with a zero output layer is
//! exactly the table evaluation it starts from.
//!
//! All integer, so the same input gives the same value everywhere. The
//! trainer (`train/`) fits the float model of the same arithmetic:
//!
//! ```text
//! acc   = sum of E[code] + E[pair]        E = e / 4096
//! x     = clamp(acc, 0, 1)                (own colour's channels, then the other's)
//! h     = clamp(W1 x + b1 + WM bits, 0, 1) W1 = w1 / 1024, b1 = b1 / 2^20, WM = wm / 2^20
//! value = WO h + bo                       WO = wo / 8, bo = bo / 8192
//! ```
//!
//! and the engine computes it as `x = clamp(round(acc / 4), 0, 1024)`,
//! `h = clamp(round((b1 + wm + w1 x) / 1024), 0, 1024)`,
//! `value = round((bo + wo h) / 8192)`, each `round(a / 2^s)` being
//! `(a + 2^(s-1)) >> s` (halves rounded up).
//!
//! Under renju each colour has its own vectors and its own layers (for the
//! side to move); elsewhere one set serves both, and files list it twice.
//!
//! File format (text, like the tables'):
//!
//! ```text
//! tengen-net 1
//! rule freestyle
//! features pcode1365+pair256 channels 32 hidden 32
//!                             (or pcode1365+pair256+line496: with line shapes)
//! boards 15-15                (optional: the board sizes it plays; all if absent)
//! trained 15                  (optional: the square board of its training games;
//!                              on another square board the accumulators are
//!                              moved by the difference of the two empty boards')
//! note data: ... (any number of note lines: data, commands, date)
//! embed black v...      1621 x 32 values (2117 x 32 with line shapes),
//!                       feature by feature (i16, scale 4096)
//! w1 black v...         32 x 64 values, hidden unit by unit (-8192..8192)
//! b1 black v...         32
//! wm black v...         11 x 32 values, mask bit by bit
//! wo black v...         32
//! bo black v            1
//! (the same six for white)
//! end
//! ```
//!
//! A file of another format, rule, feature set or size, or with a bad or
//! missing value, is refused with a message naming the line.

use super::weights::{threat_mask, WeightsError};
use crate::board::{line_feature, pair_feature, Acc, Board, CodeVectors, CHANNELS, DIRS};
use crate::types::{Color, Rule, MAX_SIZE, MIN_SIZE};
use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Hidden units.
pub const HIDDEN: usize = 32;
/// Inputs of the hidden layer: both accumulators.
pub const INPUTS: usize = 2 * CHANNELS;
/// Bits of the threat mask ([`threat_mask`]).
pub const MASK_BITS: usize = 11;
/// The format version this build reads and writes.
pub const NET_FORMAT: u32 = 1;
/// The feature set: per colour, each empty cell's pattern code and its
/// pair of classes (own, other's): [`crate::board::NFEATURES`].
pub const FEATURES: &str = "pcode1365+pair256";
/// The feature set with line shapes: [`FEATURES`], and each empty cell's
/// shape along each of its four lines ([`crate::board::line_feature`]):
/// [`crate::board::ALL_FEATURES`].
pub const FEATURES_LINES: &str = "pcode1365+pair256+line496";
/// Upper clip of an input and of a hidden unit: 1.0 in the float model.
pub const ONE: i32 = 1024;
/// `x = round(acc / 2^SHIFT_INPUT)`: the vectors are scaled by 4096.
pub const SHIFT_INPUT: u32 = 2;
/// `h = round((b1 + wm + w1 x) / 2^SHIFT_HIDDEN)`: w1 is scaled by 1024.
pub const SHIFT_HIDDEN: u32 = 10;
/// Largest first-layer weight (8.0): with the inputs at most 1024 and the
/// biases' limits, the hidden sums stay within i32.
pub const W1_LIMIT: i64 = 8192;
/// `value = round((bo + wo h) / 2^SHIFT_OUT)`: wo is scaled by 8, h by 1024.
pub const SHIFT_OUT: u32 = 13;
/// Largest output weight: 7500 evaluation units for a whole hidden unit,
/// so that the output's sum stays within i32.
pub const WO_LIMIT: i64 = 60_000;

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// An accumulator channel as an input: `clamp(round(a / 4), 0, 1024)`.
#[inline(always)]
fn input(a: i32) -> i16 {
    ((a + (1 << (SHIFT_INPUT - 1))) >> SHIFT_INPUT).clamp(0, ONE) as i16
}

/// The layers after the accumulators, for one colour to move.
#[derive(Clone, PartialEq, Eq)]
pub struct Head {
    /// The first layer's weights by pairs of inputs: `w1[p][2 * j + k]`
    /// is hidden unit `j`'s weight from input `2 * p + k` (see
    /// [`Head::w1`]), so that the forward pass adds a pair of inputs to
    /// all hidden units with one multiply-add per four units, and skips
    /// the pairs that are both zero (most, after the clip).
    w1: [[i16; 2 * HIDDEN]; INPUTS / 2],
    pub b1: [i32; HIDDEN],
    /// Per threat-mask bit, what it adds to each hidden unit.
    pub wm: [[i32; HIDDEN]; MASK_BITS],
    pub wo: [i32; HIDDEN],
    pub bo: i32,
}

impl Head {
    pub fn zero() -> Head {
        Head {
            w1: [[0; 2 * HIDDEN]; INPUTS / 2],
            b1: [0; HIDDEN],
            wm: [[0; HIDDEN]; MASK_BITS],
            wo: [0; HIDDEN],
            bo: 0,
        }
    }

    /// Hidden unit `j`'s weight from input `i` (the side to move's
    /// channels, then the other side's).
    #[inline]
    pub fn w1(&self, j: usize, i: usize) -> i16 {
        self.w1[i / 2][2 * j + i % 2]
    }

    pub fn set_w1(&mut self, j: usize, i: usize, w: i16) {
        self.w1[i / 2][2 * j + i % 2] = w;
    }

    crate::simd::avx2_method!(
        /// The output for accumulators `own` (the side to move's) and `other`
        /// with threat mask `mask`.
        #[inline]
        pub fn forward(&self, own: &Acc, other: &Acc, mask: usize) -> i32 = Head::forward_body
    );

    /// The body of [`Head::forward`], inlined into each build of it.
    #[inline(always)]
    fn forward_body(&self, own: &Acc, other: &Acc, mask: usize) -> i32 {
        let mut z = self.b1;
        let mut bits = mask;
        while bits != 0 {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if b < MASK_BITS {
                for (zj, wj) in z.iter_mut().zip(&self.wm[b]) {
                    *zj += wj;
                }
            }
        }
        // Two plain loops (not one over a chain) so that each is a few
        // vector min/max instructions.
        let mut x = [0i16; INPUTS];
        let (xo, xt) = x.split_at_mut(CHANNELS);
        for (xi, &a) in xo.iter_mut().zip(own) {
            *xi = input(a);
        }
        for (xi, &a) in xt.iter_mut().zip(other) {
            *xi = input(a);
        }
        // Products of i16 pairs summed in i32: one multiply-add
        // instruction for each pair of lanes where the target has it.
        for (p, row) in self.w1.iter().enumerate() {
            let (a, b) = (x[2 * p] as i32, x[2 * p + 1] as i32);
            if a | b == 0 {
                continue;
            }
            for (zj, w) in z.iter_mut().zip(row.chunks_exact(2)) {
                *zj += a * w[0] as i32 + b * w[1] as i32;
            }
        }
        let mut out = self.bo;
        for (zj, wj) in z.iter().zip(&self.wo) {
            out += wj * ((zj + (1 << (SHIFT_HIDDEN - 1))) >> SHIFT_HIDDEN).clamp(0, ONE);
        }
        (out + (1 << (SHIFT_OUT - 1))) >> SHIFT_OUT
    }
}

/// One rule's network.
#[derive(Clone)]
pub struct Net {
    pub rule: Rule,
    /// The board sizes it evaluates, smallest and largest side (those of
    /// its training games); on other boards the tables play alone.
    pub boards: (usize, usize),
    /// The side of the square board its games were played on, when the
    /// file names it. On another square board the accumulators are moved
    /// by the sums of an empty board of the trained size less those of an
    /// empty board of this one ([`Net::shift`]): the cells far from the
    /// stones, whose codes and classes are those of an empty board, then
    /// add up to what they did in training, and a position away from the
    /// edges feeds the layers what it would on the trained board. Set by
    /// [`Net::set_trained`] (after the vectors).
    trained: Option<usize>,
    /// Per square board side (index `side - MIN_SIZE`), per colour: what
    /// `trained` adds to that board's accumulators (all zero without it).
    shifts: Arc<Vec<[Acc; 2]>>,
    /// How it was made: data, commands, date (free text, a line each).
    pub notes: Vec<String>,
    /// Per colour, per code: the vector the board sums.
    pub vectors: Arc<CodeVectors>,
    /// Per colour to move.
    pub heads: [Box<Head>; 2],
}

impl fmt::Debug for Net {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Net({}, {} notes)", self.rule, self.notes.len())
    }
}

/// The network files compiled in: freestyle's two, the fit on the
/// 113,325 games of `data/selfplay/f15/` and standard's 24,000 replayed
/// (2026-12-06, 15x15) and the one before it on 103,325 and the same
/// 24,000 (2026-12-06, 15x15 to 20x20, where the newer one played worse:
/// docs/strength.md), which renju and caro play too; and standard's two:
/// the fit on all of freestyle's games replayed and standard's own
/// (2026-12-05), and the one before it (2026-12-03).
const FILES: [&str; 4] = [
    include_str!("../weights/freestyle-net.txt"),
    include_str!("../weights/freestyle-net-2.txt"),
    include_str!("../weights/standard-net.txt"),
    include_str!("../weights/standard-net-2.txt"),
];

/// The networks compiled into the engine: the rule each plays, the rule
/// its file names, and the file (its index in [`FILES`]; a rule without
/// one is evaluated by its tables alone). Each was fitted on top of its
/// file's rule's shipped tables: a change to the tables asks for a new
/// fit. A rule may play another rule's file, added to its own tables,
/// where an SPRT showed it pays (renju and caro play freestyle's files:
/// docs/strength.md; two networks fitted to renju's own games played
/// worse than its tables). Standard's own file was fitted on freestyle's
/// games read with standard's patterns and on standard's games.
///
/// A rule may have two entries: the first plays on the boards its file
/// names, the second on the other boards its file names (the newest on
/// 15x15, the one before it, shifted, on the others).
const SHIPPED: &[(Rule, Rule, usize)] = &[
    (Rule::Freestyle, Rule::Freestyle, 0),
    (Rule::Freestyle, Rule::Freestyle, 1),
    (Rule::Standard, Rule::Standard, 2),
    (Rule::Standard, Rule::Standard, 3),
    (Rule::Renju, Rule::Freestyle, 0),
    (Rule::Renju, Rule::Freestyle, 1),
    (Rule::Caro, Rule::Freestyle, 0),
    (Rule::Caro, Rule::Freestyle, 1),
];
impl Net {
    /// The network compiled in for `rule`, if there is one.
    pub fn shipped(rule: Rule) -> Option<Result<Net, WeightsError>> {
        Net::shipped_nth(rule, 0)
    }

    /// The `n`-th network compiled in for `rule` (see [`SHIPPED`]: where a
    /// rule has two, the first plays the boards it fits and the second
    /// the others it fits).
    pub fn shipped_nth(rule: Rule, n: usize) -> Option<Result<Net, WeightsError>> {
        let (_, from, file) = SHIPPED.iter().filter(|(r, _, _)| *r == rule).nth(n)?;
        // A file lent to several rules is read once; each rule gets a
        // copy, its vectors shared.
        static PARSED: [OnceLock<Result<Net, WeightsError>>; FILES.len()] =
            [const { OnceLock::new() }; FILES.len()];
        let parsed = PARSED[*file].get_or_init(|| Net::parse(FILES[*file]));
        Some(
            parsed
                .clone()
                .and_then(|mut n| {
                    // The file names the rule it was fitted for; lent to
                    // another, it plays that one.
                    if n.rule == *from {
                        n.rule = rule;
                        Ok(n)
                    } else {
                        Err(WeightsError(format!("a network for {}", n.rule)))
                    }
                })
                .map_err(|e| WeightsError(format!("shipped network for {rule}: {}", e.0))),
        )
    }

    /// All zero: adds nothing to the tables.
    pub fn zero(rule: Rule) -> Net {
        Net {
            rule,
            boards: (MIN_SIZE, MAX_SIZE),
            trained: None,
            shifts: Arc::new(Vec::new()),
            notes: Vec::new(),
            vectors: Arc::new(CodeVectors::new()),
            heads: [Box::new(Head::zero()), Box::new(Head::zero())],
        }
    }

    /// Whether it evaluates boards of `board`'s size.
    #[inline]
    pub fn fits(&self, board: &Board) -> bool {
        let (lo, hi) = self.boards;
        let shifted = self
            .trained
            .is_some_and(|t| board.width() != t || board.height() != t);
        (lo..=hi).contains(&board.width())
            && (lo..=hi).contains(&board.height())
            // The shifts are made for square boards.
            && (!shifted || board.width() == board.height())
    }

    /// What is added to the accumulators of colour `c` on `board` (see
    /// [`Net::trained`]), or `None` when nothing is.
    #[inline]
    pub fn shift(&self, board: &Board, c: Color) -> Option<&Acc> {
        let t = self.trained?;
        let side = board.width();
        if side == t || side != board.height() {
            return None;
        }
        Some(&self.shifts.get(side.checked_sub(MIN_SIZE)?)?[c.index()])
    }

    /// The side of the square board it was trained on, if its file says.
    pub fn trained(&self) -> Option<usize> {
        self.trained
    }

    /// Names the board it was trained on (see [`Net::trained`]) and makes
    /// the shifts of the other boards from the vectors as they are now.
    pub fn set_trained(&mut self, side: Option<usize>) {
        self.trained = side.filter(|s| (MIN_SIZE..=MAX_SIZE).contains(s));
        let Some(t) = self.trained else {
            self.shifts = Arc::new(Vec::new());
            return;
        };
        let empty = |side: usize| -> [Acc; 2] {
            // Sizes within MIN_SIZE..=MAX_SIZE always make a board.
            let b = Board::new(side, self.rule).expect("a board size in range");
            self.accumulators(&b)
        };
        let base = empty(t);
        let shifts = (MIN_SIZE..=MAX_SIZE)
            .map(|side| {
                let here = empty(side);
                std::array::from_fn(|c| std::array::from_fn(|k| base[c][k] - here[c][k]))
            })
            .collect();
        self.shifts = Arc::new(shifts);
    }

    /// The forward pass from the accumulators `own` and `other` of the
    /// side to move and its opponent on `board`, moved as
    /// [`Net::shift`] says.
    #[inline]
    fn forward_on(&self, board: &Board, own: &Acc, other: &Acc, mask: usize) -> i32 {
        let me = board.side_to_move();
        let head = &self.heads[me.index()];
        match (self.shift(board, me), self.shift(board, me.opposite())) {
            (Some(a), Some(b)) => {
                let own: Acc = std::array::from_fn(|k| own[k] + a[k]);
                let other: Acc = std::array::from_fn(|k| other[k] + b[k]);
                head.forward(&own, &other, mask)
            }
            _ => head.forward(own, other, mask),
        }
    }

    /// The network's part of the value of `board` for the side to move,
    /// from the board's accumulators when it keeps this network's (see
    /// [`super::Evaluator::attach`]), else summed cell by cell.
    #[inline]
    pub fn output(&self, board: &Board) -> i32 {
        match board.code_vectors() {
            Some(v) if Arc::ptr_eq(v, &self.vectors) => {
                let me = board.side_to_move();
                let mask = threat_mask(|c, k| board.count(c, k) > 0, me);
                self.forward_on(board, &board.acc(me), &board.acc(me.opposite()), mask)
            }
            _ => self.output_from_scratch(board),
        }
    }

    /// The accumulators of `board` summed cell by cell.
    pub fn accumulators(&self, board: &Board) -> [Acc; 2] {
        let mut acc = [[0; CHANNELS]; 2];
        for p in board.cells().iter() {
            if board.stone(p).is_none() {
                let k = [Color::Black, Color::White].map(|c| board.class(c, p) as u8);
                for c in [Color::Black, Color::White] {
                    let (i, o) = (c.index(), c.opposite().index());
                    self.vectors.add(&mut acc[i], c, board.code(c, p));
                    self.vectors.add(&mut acc[i], c, pair_feature(k[i], k[o]));
                    if self.vectors.lines() {
                        for d in 0..DIRS {
                            if let Some(s) = board.line_shape(c, p, d) {
                                self.vectors.add(&mut acc[i], c, line_feature(s));
                            }
                        }
                    }
                }
            }
        }
        acc
    }

    /// [`Net::output`] from accumulators summed cell by cell (a check of
    /// the board's incremental sums).
    pub fn output_from_scratch(&self, board: &Board) -> i32 {
        let acc = self.accumulators(board);
        let me = board.side_to_move();
        let mask = threat_mask(|c, k| board.count(c, k) > 0, me);
        self.forward_on(board, &acc[me.index()], &acc[me.opposite().index()], mask)
    }

    /// A network of random small values (for tests and benchmarks): every
    /// path of the arithmetic is used.
    pub fn random(rule: Rule, seed: u64) -> Net {
        Net::random_with(rule, seed, false)
    }

    /// [`Net::random`], with line shapes when `lines`.
    pub fn random_with(rule: Rule, seed: u64, lines: bool) -> Net {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut net = Net::zero(rule);
        let mut vectors = CodeVectors::new();
        vectors.set_lines(lines);
        for c in [Color::Black, Color::White] {
            for code in 1..vectors.features() {
                let mut v = [0i16; CHANNELS];
                for x in v.iter_mut() {
                    *x = rng.gen_range(-1280..=1920);
                }
                vectors.set(c, code, v);
            }
            let h = &mut net.heads[c.index()];
            for j in 0..HIDDEN {
                for i in 0..INPUTS {
                    h.set_w1(j, i, rng.gen_range(-2000..=2000));
                }
            }
            for b in h.b1.iter_mut() {
                *b = rng.gen_range(-60_000..=120_000);
            }
            for w in h.wm.iter_mut().flatten() {
                *w = rng.gen_range(-50_000..=50_000);
            }
            for w in h.wo.iter_mut() {
                *w = rng.gen_range(-800..=800);
            }
            h.bo = rng.gen_range(-40000..=40000);
        }
        net.vectors = Arc::new(vectors);
        net
    }
}

mod file;

#[cfg(test)]
mod tests;
