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

/// The freestyle network's file.
const FREESTYLE_NET: &str = include_str!("weights/freestyle-net.txt");

/// The networks compiled into the engine: the rule each plays, the rule
/// its file names, and the file (a rule without one is evaluated by its
/// tables alone). Each was fitted on top of its file's rule's shipped
/// tables: a change to the tables asks for a new fit. A rule may play
/// another rule's file, added to its own tables, where an SPRT showed it
/// pays (standard, renju and caro play freestyle's: docs/strength.md;
/// two networks fitted to renju's own games played worse than its tables).
const SHIPPED: &[(Rule, Rule, &str)] = &[
    (Rule::Freestyle, Rule::Freestyle, FREESTYLE_NET),
    (Rule::Standard, Rule::Freestyle, FREESTYLE_NET),
    (Rule::Renju, Rule::Freestyle, FREESTYLE_NET),
    (Rule::Caro, Rule::Freestyle, FREESTYLE_NET),
];
impl Net {
    /// The network compiled in for `rule`, if there is one.
    pub fn shipped(rule: Rule) -> Option<Result<Net, WeightsError>> {
        let (_, from, text) = SHIPPED.iter().find(|(r, _, _)| *r == rule)?;
        // A file lent to several rules is read once (one file a rule
        // fitted for); each rule gets a copy, its vectors shared.
        static PARSED: [OnceLock<Result<Net, WeightsError>>; Rule::ALL.len()] =
            [const { OnceLock::new() }; Rule::ALL.len()];
        let parsed = PARSED[from.index()].get_or_init(|| Net::parse(text));
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

    /// Reads a network file.
    pub fn from_file(path: &Path) -> Result<Net, WeightsError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| WeightsError(format!("{}: {e}", path.display())))?;
        Net::parse(&text).map_err(|e| WeightsError(format!("{}: {}", path.display(), e.0)))
    }

    /// Reads the text format.
    pub fn parse(text: &str) -> Result<Net, WeightsError> {
        let err = |line: usize, msg: String| WeightsError(format!("line {}: {msg}", line + 1));
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (n, first) = lines
            .next()
            .ok_or_else(|| WeightsError("empty file".into()))?;
        let version = first
            .strip_prefix("tengen-net ")
            .ok_or_else(|| err(n, "not a tengen network file".into()))?;
        if version.trim().parse::<u32>().ok() != Some(NET_FORMAT) {
            return Err(err(
                n,
                format!(
                    "format version {} (this build reads {NET_FORMAT})",
                    version.trim()
                ),
            ));
        }
        let (n, rule_line) = lines
            .next()
            .ok_or_else(|| WeightsError("no rule line".into()))?;
        let rule: Rule = rule_line
            .strip_prefix("rule ")
            .and_then(|r| r.trim().parse().ok())
            .ok_or_else(|| err(n, format!("expected 'rule NAME', got '{rule_line}'")))?;
        let (n, feat_line) = lines
            .next()
            .ok_or_else(|| WeightsError("no features line".into()))?;
        let want = |f: &str| format!("features {f} channels {CHANNELS} hidden {HIDDEN}");
        let got = feat_line
            .split_ascii_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let lines_on = if got == want(FEATURES_LINES) {
            true
        } else if got == want(FEATURES) {
            false
        } else {
            return Err(err(
                n,
                format!(
                    "'{}' does not fit this build ('{}' or '{}')",
                    feat_line.trim(),
                    want(FEATURES),
                    want(FEATURES_LINES)
                ),
            ));
        };
        let mut net = Net::zero(rule);
        let mut lines = lines.peekable();
        if let Some((n, line)) = lines.next_if(|(_, l)| l.starts_with("boards ")) {
            let range = line["boards ".len()..].trim();
            net.boards = range
                .split_once('-')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                .filter(|&(a, b)| MIN_SIZE <= a && a <= b && b <= MAX_SIZE)
                .ok_or_else(|| {
                    err(
                        n,
                        format!("'boards {range}': expected MIN-MAX within {MIN_SIZE}-{MAX_SIZE}"),
                    )
                })?;
        }
        if let Some((n, line)) = lines.next_if(|(_, l)| l.starts_with("trained ")) {
            let side = line["trained ".len()..].trim();
            net.trained = Some(
                side.parse()
                    .ok()
                    .filter(|s| (MIN_SIZE..=MAX_SIZE).contains(s))
                    .ok_or_else(|| {
                        err(
                            n,
                            format!("'trained {side}': expected a board side within {MIN_SIZE}-{MAX_SIZE}"),
                        )
                    })?,
            );
        }
        let mut vectors = CodeVectors::new();
        vectors.set_lines(lines_on);
        let nfeatures = vectors.features();
        let tables: [(&str, usize, i64); 6] = [
            ("embed", nfeatures * CHANNELS, i16::MAX as i64),
            ("w1", HIDDEN * INPUTS, W1_LIMIT),
            ("b1", HIDDEN, 100_000_000),
            ("wm", MASK_BITS * HIDDEN, 100_000_000),
            ("wo", HIDDEN, WO_LIMIT),
            ("bo", 1, 100_000_000),
        ];
        let mut seen = [[false; 6]; 2];
        let mut ended = false;
        let mut values = Vec::new();
        for (n, line) in lines {
            if ended {
                return Err(err(n, "text after 'end'".into()));
            }
            if let Some(note) = line.strip_prefix("note ") {
                net.notes.push(note.to_string());
                continue;
            }
            if line.trim() == "end" {
                ended = true;
                continue;
            }
            let mut words = line.split_ascii_whitespace();
            let name = words.next().unwrap_or("");
            let t = tables
                .iter()
                .position(|e| e.0 == name)
                .ok_or_else(|| err(n, format!("unknown table '{name}'")))?;
            let color = match words.next() {
                Some("black") => Color::Black,
                Some("white") => Color::White,
                other => return Err(err(n, format!("unknown colour '{}'", other.unwrap_or("")))),
            };
            if seen[color.index()][t] {
                return Err(err(n, format!("{name} {} given twice", color_name(color))));
            }
            seen[color.index()][t] = true;
            let (_, want, limit) = tables[t];
            values.clear();
            for (i, word) in words.enumerate() {
                let v: i64 = word
                    .parse()
                    .ok()
                    .filter(|v: &i64| v.abs() <= limit)
                    .ok_or_else(|| err(n, format!("bad value '{word}' at entry {i}")))?;
                if i >= want {
                    return Err(err(n, format!("more than {want} values")));
                }
                values.push(v as i32);
            }
            if values.len() != want {
                return Err(err(n, format!("{} values, expected {want}", values.len())));
            }
            let head = &mut net.heads[color.index()];
            match t {
                0 => {
                    for code in 0..nfeatures {
                        let mut v = [0i16; CHANNELS];
                        for (k, x) in v.iter_mut().enumerate() {
                            *x = values[code * CHANNELS + k] as i16;
                        }
                        vectors.set(color, code, v);
                    }
                }
                1 => {
                    for j in 0..HIDDEN {
                        for i in 0..INPUTS {
                            head.set_w1(j, i, values[j * INPUTS + i] as i16);
                        }
                    }
                }
                2 => head.b1.copy_from_slice(&values),
                3 => {
                    for (b, row) in head.wm.iter_mut().enumerate() {
                        row.copy_from_slice(&values[b * HIDDEN..(b + 1) * HIDDEN]);
                    }
                }
                4 => head.wo.copy_from_slice(&values),
                _ => head.bo = values[0],
            }
        }
        if !ended {
            return Err(WeightsError("no 'end' line: the file is truncated".into()));
        }
        for c in [Color::Black, Color::White] {
            if let Some(t) = seen[c.index()].iter().position(|s| !s) {
                return Err(WeightsError(format!(
                    "no {} {} table",
                    tables[t].0,
                    color_name(c)
                )));
            }
        }
        net.vectors = Arc::new(vectors);
        let trained = net.trained;
        net.set_trained(trained);
        Ok(net)
    }

    /// Writes the text format.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let features = if self.vectors.lines() {
            FEATURES_LINES
        } else {
            FEATURES
        };
        let mut s = format!(
            "tengen-net {NET_FORMAT}\nrule {}\nfeatures {features} channels {CHANNELS} hidden {HIDDEN}\n",
            self.rule
        );
        let _ = writeln!(s, "boards {}-{}", self.boards.0, self.boards.1);
        if let Some(t) = self.trained {
            let _ = writeln!(s, "trained {t}");
        }
        for note in &self.notes {
            let _ = writeln!(s, "note {note}");
        }
        let line = |s: &mut String, name: &str, c: Color, vals: &mut dyn Iterator<Item = i32>| {
            let _ = write!(s, "{name} {}", color_name(c));
            for v in vals {
                let _ = write!(s, " {v}");
            }
            s.push('\n');
        };
        for c in [Color::Black, Color::White] {
            let h = &self.heads[c.index()];
            let v = &self.vectors;
            line(
                &mut s,
                "embed",
                c,
                &mut (0..v.features()).flat_map(|code| v.get(c, code).map(i32::from)),
            );
            line(
                &mut s,
                "w1",
                c,
                &mut (0..HIDDEN).flat_map(|j| (0..INPUTS).map(move |i| h.w1(j, i) as i32)),
            );
            line(&mut s, "b1", c, &mut h.b1.iter().copied());
            line(&mut s, "wm", c, &mut h.wm.iter().flatten().copied());
            line(&mut s, "wo", c, &mut h.wo.iter().copied());
            line(&mut s, "bo", c, &mut std::iter::once(h.bo));
        }
        s.push_str("end\n");
        s
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Evaluator;
    use crate::types::Pos;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_layers_give_the_same_output_in_every_build() {
        // `forward` runs through `avx2_method!` (the AVX2 build where
        // the processor has it); the plain body must agree on random
        // sums (inside and outside the clipped range) and threat masks.
        let mut rng = rand::rngs::StdRng::seed_from_u64(515);
        let net = Net::random(Rule::Freestyle, 9);
        for head in net.heads.iter() {
            for _ in 0..2000 {
                let own: Acc = std::array::from_fn(|_| rng.gen_range(-2000..6000));
                let other: Acc = std::array::from_fn(|_| rng.gen_range(-2000..6000));
                let mask = rng.gen_range(0..1usize << MASK_BITS);
                assert_eq!(
                    head.forward(&own, &other, mask),
                    head.forward_body(&own, &other, mask)
                );
            }
        }
    }

    /// Plays up to `plies` random moves on `b` (attached to `e`, whose
    /// network for the rule is `net`), checking after each that the
    /// board's sums give the network's output from scratch and that the
    /// evaluation is the tables plus the network; with `unmake`, undoes
    /// a move now and then and checks again. Returns the outputs seen.
    fn walk_random_game(
        e: &Evaluator,
        net: &Net,
        b: &mut Board,
        rng: &mut rand::rngs::StdRng,
        plies: usize,
        unmake: bool,
    ) -> std::collections::HashSet<i32> {
        let rule = b.rule();
        let limit = crate::eval::EVAL_LIMIT;
        let mut outputs = std::collections::HashSet::new();
        for _ in 0..plies {
            let cands: Vec<_> = b.candidates().iter().collect();
            if cands.is_empty() || b.is_won() {
                break;
            }
            b.make(cands[rng.gen_range(0..cands.len())]);
            let out = net.output(b);
            outputs.insert(out);
            assert_eq!(out, net.output_from_scratch(b), "{rule} {b:?}");
            let table = crate::eval::evaluate(b, e.weights(rule));
            if table.abs() < limit {
                assert_eq!(e.evaluate(b), (table + out).clamp(-limit, limit));
            }
            if unmake && rng.gen_range(0..4) == 0 {
                b.unmake();
                assert_eq!(net.output(b), net.output_from_scratch(b));
            }
        }
        outputs
    }

    #[test]
    fn incremental_accumulators_equal_sums_from_scratch() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(31);
        for rule in Rule::ALL {
            let net = Arc::new(Net::random(rule, rule.index() as u64));
            let e = Evaluator::shipped().with_net(net.clone());
            for size in [15, 20] {
                let mut b = Board::new(size, rule).unwrap();
                e.attach(&mut b);
                let outputs = walk_random_game(&e, &net, &mut b, &mut rng, 60, true);
                b.check_consistency().unwrap();
                // A random network is not constant.
                assert!(outputs.len() > 10, "{rule}: {outputs:?}");
            }
        }
    }

    #[test]
    fn incremental_line_shapes_equal_sums_from_scratch() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(37);
        for rule in [Rule::Freestyle, Rule::Renju] {
            let net = Arc::new(Net::random_with(rule, 3 + rule.index() as u64, true));
            assert!(net.vectors.lines());
            let e = Evaluator::shipped().with_net(net.clone());
            for size in [7, 15, 22] {
                for _ in 0..3 {
                    let mut b = Board::new(size, rule).unwrap();
                    e.attach(&mut b);
                    let outputs = walk_random_game(&e, &net, &mut b, &mut rng, 90, true);
                    b.check_consistency().unwrap();
                    assert!(outputs.len() > 5, "{rule} {size}: {outputs:?}");
                }
            }
            // The line shapes count: the same network without them reads
            // another value on the same position.
            let mut b = Board::new(15, rule).unwrap();
            for m in ["h8", "i9", "h9", "h10", "g7"] {
                b.make(Pos::parse_pos(m).unwrap());
            }
            let mut plain = (*net).clone();
            let mut v = (*net.vectors).clone();
            v.set_lines(false);
            plain.vectors = Arc::new(v);
            assert_ne!(plain.accumulators(&b), net.accumulators(&b));
        }
    }

    #[test]
    fn shipped_networks_read_and_fit_their_tables() {
        // One file a rule fitted for (`Net::shipped` reads each once).
        for (_, from, text) in SHIPPED {
            for (_, other, other_text) in SHIPPED {
                assert!(from != other || text == other_text, "two files for {from}");
            }
        }
        let e = Evaluator::shipped();
        for rule in Rule::ALL {
            match Net::shipped(rule) {
                None => assert!(e.net(rule).is_none()),
                Some(n) => {
                    let n = n.unwrap();
                    assert_eq!(n.rule, rule);
                    assert!(
                        !n.notes.is_empty(),
                        "{rule}: a shipped network names its data"
                    );
                    let net = e.net(rule).unwrap().clone();
                    // Along a random game on its boards: the shipped
                    // evaluation is the tables plus the network, from the
                    // board's sums as from scratch.
                    let mut rng = rand::rngs::StdRng::seed_from_u64(rule.index() as u64);
                    let mut b = Board::new(net.boards.0.max(15), rule).unwrap();
                    e.attach(&mut b);
                    let outputs = walk_random_game(&e, &net, &mut b, &mut rng, 40, false);
                    assert!(outputs.len() > 5, "{rule}: {outputs:?}");
                }
            }
            assert!(e.clone().without_nets().net(rule).is_none());
        }
    }

    #[test]
    fn a_network_plays_only_on_its_boards() {
        let mut net = Net::random(Rule::Freestyle, 4);
        net.boards = (15, 15);
        let net = Arc::new(net);
        let e = Evaluator::shipped().without_nets().with_net(net.clone());
        for (size, fits) in [(15, true), (20, false), (13, false)] {
            let mut b = Board::new(size, Rule::Freestyle).unwrap();
            e.attach(&mut b);
            let c = size as i32 / 2;
            for (dx, dy) in [(0, 0), (1, 1), (1, 0), (0, 2), (2, 1)] {
                b.make(crate::types::Pos::new((c + dx) as usize, (c + dy) as usize));
            }
            let tables = crate::eval::evaluate(&b, e.weights(Rule::Freestyle));
            assert_eq!(net.fits(&b), fits);
            assert_eq!(b.code_vectors().is_some(), fits);
            if fits {
                assert_eq!(e.evaluate(&b), tables + net.output(&b));
                assert_ne!(net.output(&b), 0);
            } else {
                assert_eq!(e.evaluate(&b), tables);
            }
        }
    }

    /// Random stones within `reach` of the centre.
    fn central_cells(rng: &mut rand::rngs::StdRng, reach: i32) -> Vec<(i32, i32)> {
        let n = rng.gen_range(1..9);
        let mut cells = Vec::new();
        while cells.len() < n {
            let d = (rng.gen_range(-reach..=reach), rng.gen_range(-reach..=reach));
            if !cells.contains(&d) {
                cells.push(d);
            }
        }
        cells
    }

    /// `cells` played around the centre of a `size` board attached to `e`.
    fn centred(e: &Evaluator, rule: Rule, size: usize, cells: &[(i32, i32)]) -> Board {
        let mut b = Board::new(size, rule).unwrap();
        e.attach(&mut b);
        let c = size as i32 / 2;
        for &(dx, dy) in cells {
            b.make(crate::types::Pos::new((c + dx) as usize, (c + dy) as usize));
        }
        b
    }

    #[test]
    fn a_network_trained_on_one_board_sees_the_same_centre_on_another() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(77);
        // An empty board gives the trained board's output, every rule and
        // size (the shifts are made for exactly that).
        for rule in Rule::ALL {
            let mut net = Net::random(rule, 12);
            net.set_trained(Some(15));
            let e = Evaluator::shipped()
                .without_nets()
                .with_net(Arc::new(net.clone()));
            let want = net.output(&centred(&e, rule, 15, &[]));
            for size in [5, 9, 14, 16, 20, 22] {
                let b = centred(&e, rule, size, &[]);
                assert_eq!(net.output(&b), want, "{rule} {size}");
            }
        }
        // Freestyle windows reach 4 cells each way: stones within 1 of the
        // centre of a 19x19 board change no cell whose window meets an
        // edge, so bigger boards give exactly its outputs, incrementally
        // and from scratch.
        let mut net = Net::random(Rule::Freestyle, 5);
        net.set_trained(Some(19));
        assert_eq!(net.trained(), Some(19));
        let e = Evaluator::shipped()
            .without_nets()
            .with_net(Arc::new(net.clone()));
        for _ in 0..40 {
            let cells = central_cells(&mut rng, 1);
            let want = net.output(&centred(&e, Rule::Freestyle, 19, &cells));
            for size in [20, 21, 22] {
                let b = centred(&e, Rule::Freestyle, size, &cells);
                assert!(net.fits(&b));
                assert_eq!(net.output(&b), want, "{size} {cells:?}");
                assert_eq!(net.output_from_scratch(&b), want);
            }
        }
        // From 15x15, where the edges are near, the shift brings the
        // outputs on 20x20 closer to those of 15x15 than no shift does.
        for rule in [Rule::Freestyle, Rule::Renju] {
            let mut net = Net::random(rule, 12);
            net.set_trained(Some(15));
            let e = Evaluator::shipped()
                .without_nets()
                .with_net(Arc::new(net.clone()));
            let mut plain = net.clone();
            plain.set_trained(None);
            let (mut shifted, mut unshifted) = (0i64, 0i64);
            for _ in 0..40 {
                let cells = central_cells(&mut rng, 2);
                let want = net.output(&centred(&e, rule, 15, &cells)) as i64;
                let b = centred(&e, rule, 20, &cells);
                shifted += (net.output(&b) as i64 - want).abs();
                unshifted += (plain.output_from_scratch(&b) as i64 - want).abs();
            }
            assert!(shifted < unshifted, "{rule}: {shifted} against {unshifted}");
        }
        // The line is written and read back; a side out of range is refused.
        let mut net = Net::random(Rule::Freestyle, 3);
        net.set_trained(Some(15));
        let text = net.to_text();
        assert!(text.contains("\ntrained 15\n"));
        assert_eq!(Net::parse(&text).unwrap().trained(), Some(15));
        let bad = text.replace("trained 15", "trained 40");
        assert!(Net::parse(&bad).unwrap_err().0.contains("trained 40"));
        // Rectangular boards are not shifted: the network leaves them.
        let b = Board::new_rect(20, 15, Rule::Freestyle).unwrap();
        assert!(!net.fits(&b));
    }

    #[test]
    fn paused_sums_come_back() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let net = Arc::new(Net::random(Rule::Freestyle, 2));
        let e = Evaluator::shipped().with_net(net.clone());
        let mut b =
            crate::perft::position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7j10").unwrap();
        e.attach(&mut b);
        let before = net.output(&b);
        b.pause_acc();
        for _ in 0..6 {
            let cands: Vec<_> = b.candidates().iter().collect();
            b.make(cands[rng.gen_range(0..cands.len())]);
        }
        for _ in 0..6 {
            b.unmake();
        }
        b.resume_acc();
        assert_eq!(net.output(&b), before);
        b.check_consistency().unwrap();
    }

    #[test]
    fn the_forward_pass_is_the_documented_arithmetic() {
        let mut h = Head::zero();
        // Input 0 (own channel 0) and input CHANNELS + 1 (other channel 1).
        h.set_w1(0, 0, 1024); // 1.0
        h.set_w1(0, CHANNELS + 1, -512); // -0.5
        h.b1[0] = 1 << 17; // 0.125
        h.wm[3][0] = 1 << 18; // 0.25 when mask bit 3 is set
        h.wo[0] = 8 * 100; // 100 units
        h.bo = 8192 * 7; // 7 units
        let mut own = [0; CHANNELS];
        let mut other = [0; CHANNELS];
        own[0] = 2048; // 0.5
        other[1] = 12000; // clipped to 1.0
                          // h = clamp(0.5 - 0.5 + 0.125, 0, 1) = 0.125: 100 * 0.125 + 7 = 19.5 -> 20.
        assert_eq!(h.forward(&own, &other, 0), 20);
        // With bit 3: h = 0.375: 37.5 + 7 = 44.5 -> 45 (halves round up).
        assert_eq!(h.forward(&own, &other, 1 << 3), 45);
        // Inputs below zero are clipped: h = 0.5 + 0.125 = 0.625: 69.5 -> 70.
        other[1] = -16000;
        assert_eq!(h.forward(&own, &other, 0), 70);
        // The hidden unit is clipped at 1: 100 + 7.
        own[0] = 4096;
        h.b1[0] = 1 << 20;
        assert_eq!(h.forward(&own, &other, 0), 107);
        // x = round(13 / 4) = 3, h = round(2032 * 3 / 1024) = 6 (of 1024):
        // 100 * 6/1024 + 7 = 7.6 -> 8; 9 / 4 rounds to 2 (h 4: 7.4 -> 7).
        h.set_w1(0, 0, 2032);
        h.b1[0] = 0;
        own[0] = 13;
        assert_eq!(h.forward(&own, &other, 0), 8);
        own[0] = 9;
        assert_eq!(h.forward(&own, &other, 0), 7);
        // A large sum.
        own[0] = 1 << 24;
        h.b1[0] = 0;
        assert_eq!(h.forward(&own, &other, 0), 107);
        own[0] = 9;
        h.wo[0] = -8 * 100;
        h.bo = 0;
        h.b1[0] = 511;
        own[0] = 0;
        // h = round(511 / 1024) = 0: the output is 0; with b1 = 32 << 10,
        // h = 32/1024: -3.125 -> -3.
        assert_eq!(h.forward(&own, &other, 0), 0);
        h.b1[0] = 32 << 10;
        assert_eq!(h.forward(&own, &other, 0), -3);
    }

    #[test]
    fn files_round_trip_and_bad_files_are_refused() {
        let net = Net::random(Rule::Renju, 5);
        let mut with_notes = net.clone();
        with_notes.notes = vec!["data: 10 games".into(), "date: today".into()];
        with_notes.boards = (15, 15);
        let text = with_notes.to_text();
        let back = Net::parse(&text).unwrap();
        assert_eq!(back.rule, Rule::Renju);
        assert_eq!(back.notes, with_notes.notes);
        assert_eq!(back.boards, (15, 15));
        // Without a boards line: every size.
        let all = Net::parse(&text.replace("boards 15-15\n", "")).unwrap();
        assert_eq!(all.boards, (MIN_SIZE, MAX_SIZE));
        assert!(*back.vectors == *net.vectors);
        assert!(back.heads == net.heads);
        assert_eq!(back.to_text(), text);
        // With line shapes: the features line names them, the vectors
        // come back with them.
        let lined = Net::random_with(Rule::Freestyle, 6, true);
        let lined_text = lined.to_text();
        assert!(lined_text.contains(&format!("features {FEATURES_LINES} ")));
        let back = Net::parse(&lined_text).unwrap();
        assert!(back.vectors.lines() && *back.vectors == *lined.vectors);
        assert_eq!(back.to_text(), lined_text);
        // A file whose vectors do not match its features line.
        let short = lined_text.replace(FEATURES_LINES, FEATURES);
        let e = Net::parse(&short).expect_err("too many vectors accepted");
        assert!(e.0.contains("more than"), "{}", e.0);

        let refused = |t: &str, why: &str| {
            let e = Net::parse(t)
                .err()
                .unwrap_or_else(|| panic!("accepted: {why}"));
            assert!(e.0.contains(why), "{why}: {}", e.0);
        };
        refused("", "empty file");
        refused("tengen-eval 2\n", "not a tengen network file");
        refused(
            &text.replace("tengen-net 1", "tengen-net 2"),
            "format version 2 (this build reads 1)",
        );
        refused(
            &text.replace("rule renju", "rule chess"),
            "expected 'rule NAME'",
        );
        refused(
            &text.replace("channels 32", "channels 16"),
            "does not fit this build",
        );
        refused(&text.replace("\nend\n", "\n"), "truncated");
        refused(
            &text.replace("boards 15-15", "boards 16-15"),
            "expected MIN-MAX",
        );
        refused(
            &text.replace("boards 15-15", "boards 4-15"),
            "expected MIN-MAX",
        );
        refused(&text.replace("\nbo white", "\nbo black"), "given twice");
        let w1 = text.lines().find(|l| l.starts_with("w1 black")).unwrap();
        refused(
            &text.replace(w1, &format!("{w1} 5")),
            "more than 2048 values",
        );
        let mut words: Vec<&str> = w1.split(' ').collect();
        words[7] = "9000";
        refused(
            &text.replace(w1, &words.join(" ")),
            "bad value '9000' at entry 5",
        );
        // A vector entry beyond 16 bits.
        let embed = text.lines().find(|l| l.starts_with("embed white")).unwrap();
        let mut words: Vec<&str> = embed.split(' ').collect();
        words[2 + CHANNELS] = "32768";
        refused(
            &text.replace(embed, &words.join(" ")),
            &format!("bad value '32768' at entry {CHANNELS}"),
        );
        let short = &w1[..w1.rfind(' ').unwrap()];
        refused(&text.replace(w1, short), "2047 values, expected 2048");
        let wm = text.lines().find(|l| l.starts_with("wm white")).unwrap();
        refused(&text.replace(&format!("{wm}\n"), ""), "no wm white table");
    }
}
