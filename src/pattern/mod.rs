//! Line patterns and per-cell threat classes, read from tables built once per
//! rule.
//!
//! A *line pattern* is the shape an empty cell would make along one line if
//! one side played there; it depends only on the cells within `half` cells
//! on either side (4 under freestyle, 5 under the exact-five and caro rules,
//! where the cell past a five decides whether it counts). The board keeps
//! each line as 2 bits per cell (empty, black, white, wall), so the window of
//! a cell is one shift and mask, and the table index is that window with the
//! centre cell taken out.
//!
//! The four line patterns of a cell combine into its *threat class* for a
//! side, through a second table indexed by the four 4-bit patterns.

#[cfg(test)]
mod reference;

pub mod pcode;

use crate::types::{Color, Rule};
use pcode::{pcode, NCODES};
use std::sync::OnceLock;

/// The shape a cell makes along one line for one side, weakest first.
///
/// `F` shapes are "flex" (open), `B` shapes "blocked" (closed). Each level is
/// defined from the one above: a cell makes an `F3` when, after it is played,
/// one more stone on the line can make an `F4`, and so on down.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// Nothing can come of this line.
    Dead = 0,
    /// One more stone makes a `B2`.
    B1 = 1,
    /// One more stone makes an `F2`.
    F1 = 2,
    /// Closed two: one more stone makes a `B3`.
    B2 = 3,
    /// Open two: one more stone makes an `F3`.
    F2 = 4,
    /// Closed three: one more stone makes a four.
    B3 = 5,
    /// Open three: one more stone makes a straight four.
    F3 = 6,
    /// Four: exactly one cell completes a five.
    B4 = 7,
    /// Open four: two cells complete a five (for renju black, only the
    /// straight four `.XXXX.`).
    F4 = 8,
    /// Two fours in one line (`X.XXX.X`), kept apart from `F4` only for
    /// renju black, for whom it is a forbidden double four.
    D4 = 9,
    /// Overline: six or more that win for nobody. Only kept for renju black,
    /// for whom it is forbidden; other sides see `Dead`.
    Overline = 10,
    /// The cell completes a five that wins under the rule.
    F5 = 11,
}

impl Pattern {
    pub const COUNT: usize = 12;

    pub const ALL: [Pattern; Pattern::COUNT] = [
        Pattern::Dead,
        Pattern::B1,
        Pattern::F1,
        Pattern::B2,
        Pattern::F2,
        Pattern::B3,
        Pattern::F3,
        Pattern::B4,
        Pattern::F4,
        Pattern::D4,
        Pattern::Overline,
        Pattern::F5,
    ];

    #[inline]
    pub fn from_u8(v: u8) -> Pattern {
        Pattern::ALL[(v as usize).min(Pattern::COUNT - 1)]
    }
}

/// The threat class of an empty cell for one side: the four line patterns
/// through it combined, weakest first.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
#[repr(u8)]
pub enum Class {
    /// Nothing worth naming.
    None = 0,
    /// Renju black: forbidden for certain (overline or double four).
    Forbid = 1,
    /// Renju black: two or more open threes here; forbidden unless at most
    /// one of them can really become a straight four (a recursive check,
    /// [`crate::board::Board::is_forbidden`]).
    MaybeForbid = 2,
    /// One open two.
    Flex2 = 3,
    /// One closed three.
    Block3 = 4,
    /// Two open twos.
    Flex2x2 = 5,
    /// A closed three and another three or open two.
    Block3Plus = 6,
    /// One open three.
    Flex3 = 7,
    /// An open three and a closed three or open two.
    Flex3Plus = 8,
    /// Two open threes (double three).
    Flex3x2 = 9,
    /// One four.
    Block4 = 10,
    /// A four and a closed three or open two.
    Block4Plus = 11,
    /// A four and an open three (four-three): wins unless answered by a four.
    Block4Flex3 = 12,
    /// An open four or two fours (double four): wins unless answered by a five.
    Flex4 = 13,
    /// Makes five.
    Five = 14,
}

impl Class {
    /// Size of per-class count arrays.
    pub const COUNT: usize = 16;

    pub const ALL: [Class; 15] = [
        Class::None,
        Class::Forbid,
        Class::MaybeForbid,
        Class::Flex2,
        Class::Block3,
        Class::Flex2x2,
        Class::Block3Plus,
        Class::Flex3,
        Class::Flex3Plus,
        Class::Flex3x2,
        Class::Block4,
        Class::Block4Plus,
        Class::Block4Flex3,
        Class::Flex4,
        Class::Five,
    ];

    #[inline]
    pub fn from_u8(v: u8) -> Class {
        Class::ALL[(v as usize).min(Class::ALL.len() - 1)]
    }

    /// A four or better: the cell makes (at least) a four.
    #[inline]
    pub fn is_four(self) -> bool {
        self >= Class::Block4
    }
}

/// How one side wins along a line.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct FiveRule {
    /// Only exactly five wins (six or more is an overline).
    pub exact: bool,
    /// A five blocked by opponent stones at both ends does not win.
    pub caro: bool,
    /// Renju black: overline and two fours in a line are kept as forbidden
    /// shapes, and only a straight four makes a three open.
    pub renju_black: bool,
}

impl FiveRule {
    pub fn of(rule: Rule, color: Color) -> FiveRule {
        let black = color == Color::Black;
        match rule {
            Rule::Freestyle => FiveRule {
                exact: false,
                caro: false,
                renju_black: false,
            },
            Rule::Standard => FiveRule {
                exact: true,
                caro: false,
                renju_black: false,
            },
            Rule::Renju => FiveRule {
                exact: black,
                caro: false,
                renju_black: black,
            },
            Rule::Caro => FiveRule {
                exact: false,
                caro: true,
                renju_black: false,
            },
            Rule::CaroExact => FiveRule {
                exact: true,
                caro: true,
                renju_black: false,
            },
        }
    }
}

/// The window half-length a rule needs: cells past the five matter only
/// for exact five and caro.
pub const fn half_len(rule: Rule) -> usize {
    match rule {
        Rule::Freestyle => 4,
        _ => 5,
    }
}

/// Cell codes in line keys.
pub const EMPTY: u64 = 0;
pub const WALL: u64 = 3;

/// The stone code of a colour in line keys.
#[inline]
pub const fn stone_code(c: Color) -> u64 {
    c as u64 + 1
}

/// The tables of one rule.
pub struct PatternTable {
    pub rule: Rule,
    /// Window half-length: cells read on each side of the centre.
    pub half: usize,
    /// Indexed by the window key without its centre (2 bits a cell, nearest
    /// the low end the leftmost): black pattern in the low nibble, white in
    /// the high nibble.
    pub line: Box<[u8]>,
    /// Per colour: the 4 line patterns (4 bits each) -> class (low 4 bits)
    /// and the dense pattern code ([`crate::pattern::pcode`], above them), so
    /// one lookup gives both.
    pub combine: [&'static [u16; 1 << 16]; 2],
    /// Per colour: dense pattern code -> class.
    pub code_class: [&'static [u8; NCODES]; 2],
}

impl PatternTable {
    /// The table of a rule, built on first use and shared afterwards.
    pub fn get(rule: Rule) -> &'static PatternTable {
        static TABLES: [OnceLock<PatternTable>; Rule::ALL.len()] = [const { OnceLock::new() }; 5];
        TABLES[rule.index()].get_or_init(|| PatternTable::build(rule))
    }

    fn build(rule: Rule) -> PatternTable {
        static COMBINE: [OnceLock<Box<[u16; 1 << 16]>>; 2] = [OnceLock::new(), OnceLock::new()];
        static CODE_CLASS: [OnceLock<Box<[u8; NCODES]>>; 2] = [OnceLock::new(), OnceLock::new()];
        let combine_for = |renju_black: bool| -> &'static [u16; 1 << 16] {
            COMBINE[renju_black as usize].get_or_init(|| build_combine(renju_black))
        };
        let code_class_for = |renju_black: bool| -> &'static [u8; NCODES] {
            CODE_CLASS[renju_black as usize].get_or_init(|| {
                let mut t = Box::new([0u8; NCODES]);
                for (code, k) in t.iter_mut().enumerate() {
                    *k = crate::pattern::pcode::class_of(code, renju_black) as u8;
                }
                t
            })
        };
        let black_renju = FiveRule::of(rule, Color::Black).renju_black;
        let half = half_len(rule);
        PatternTable {
            rule,
            half,
            line: build_line_table(rule, half),
            combine: [combine_for(black_renju), combine_for(false)],
            code_class: [code_class_for(black_renju), code_class_for(false)],
        }
    }

    /// The line pattern byte (black | white << 4) of a window index.
    #[inline]
    pub fn pattern_byte(&self, index: usize) -> u8 {
        self.line[index]
    }

    /// The class of four line patterns (4 bits each) for a colour.
    #[inline]
    pub fn class_of(&self, color: Color, patterns: u16) -> Class {
        Class::from_u8((self.combine[color.index()][patterns as usize] & 15) as u8)
    }
}

/// Reads slot `j` (0..2*half+1, centre at `half`) of a window index with the
/// centre removed. The centre reads as `None`.
#[inline]
fn slot(index: usize, half: usize, j: usize) -> Option<u64> {
    use std::cmp::Ordering::*;
    match j.cmp(&half) {
        Less => Some((index as u64 >> (2 * j)) & 3),
        Equal => None,
        Greater => Some((index as u64 >> (2 * (j - 1))) & 3),
    }
}

/// The bit offset of slot `j` (not the centre) inside a window index.
#[inline]
fn slot_shift(half: usize, j: usize) -> usize {
    if j < half {
        2 * j
    } else {
        2 * (j - 1)
    }
}

/// Whether window `index` is one a board can produce: walls only at the
/// outer ends of each side (a line's cells past the board's edge), any mix
/// of empty, black and white inside. Of the 4^(2 half) keys only about
/// one in eight for half 5 (one in four for 4) is one.
fn is_board_window(index: usize, half: usize) -> bool {
    let wall = |j: usize| (index >> (2 * j)) & 3 == WALL as usize;
    // Left side: slots 0..half, the outermost first.
    let mut j = 0;
    while j < half && wall(j) {
        j += 1;
    }
    // Right side: slots half..2 half, the outermost last.
    let mut k = 2 * half;
    while k > half && wall(k - 1) {
        k -= 1;
    }
    !(j..half).chain(half..k).any(wall)
}

/// The pattern bytes of every window a board can produce (the others,
/// never read, stay 0).
fn build_line_table(rule: Rule, half: usize) -> Box<[u8]> {
    let n = 1usize << (4 * half);
    let mut table = vec![0u8; n];
    let rules = [
        FiveRule::of(rule, Color::Black),
        FiveRule::of(rule, Color::White),
    ];
    // Adding a stone to an empty slot raises the index, so every index a
    // pattern depends on is already filled in when walking downwards; it
    // leaves the walls as they were, so it is a board's window too.
    for index in (0..n).rev() {
        if !is_board_window(index, half) {
            continue;
        }
        let mut byte = 0u8;
        for color in [Color::Black, Color::White] {
            let shift = 4 * color.index();
            let p = classify(index, half, color, rules[color.index()], |j| {
                Pattern::from_u8((table[j] >> shift) & 15)
            });
            byte |= (p as u8) << shift;
        }
        table[index] = byte;
    }
    table.into_boxed_slice()
}

/// The pattern of the centre of window `index` for `color`, given the
/// patterns of every window with one more own stone (`sub`).
fn classify(
    index: usize,
    half: usize,
    color: Color,
    rule: FiveRule,
    sub: impl Fn(usize) -> Pattern,
) -> Pattern {
    let own = stone_code(color);
    let opp = stone_code(color.opposite());
    let width = 2 * half + 1;
    let is_own = |j: usize| slot(index, half, j).is_none_or(|v| v == own);

    // The run of own stones through the centre.
    let mut lo = half;
    while lo > 0 && is_own(lo - 1) {
        lo -= 1;
    }
    let mut hi = half;
    while hi + 1 < width && is_own(hi + 1) {
        hi += 1;
    }
    let len = hi - lo + 1;
    let blocked_left = lo > 0 && slot(index, half, lo - 1) == Some(opp);
    let blocked_right = hi + 1 < width && slot(index, half, hi + 1) == Some(opp);
    let long_enough = if rule.exact { len == 5 } else { len >= 5 };
    if long_enough && !(rule.caro && blocked_left && blocked_right) {
        return Pattern::F5;
    }
    if rule.exact && len >= 6 {
        return if rule.renju_black {
            Pattern::Overline
        } else {
            Pattern::Dead
        };
    }

    let mut fives = [0usize; 2];
    let mut n_fives = 0;
    let mut best = [false; Pattern::COUNT];
    for j in 0..width {
        if slot(index, half, j) != Some(EMPTY) {
            continue;
        }
        let p = sub(index | (own as usize) << slot_shift(half, j));
        if p == Pattern::F5 {
            if n_fives < 2 {
                fives[n_fives] = j;
            }
            n_fives += 1;
        }
        best[p as usize] = true;
    }
    if n_fives >= 2 {
        let straight = fives[1] - fives[0] == 5 && (fives[0] + 1..fives[1]).all(is_own);
        return if straight || !rule.renju_black {
            Pattern::F4
        } else {
            Pattern::D4
        };
    }
    if n_fives == 1 {
        return Pattern::B4;
    }
    let has = |p: Pattern| best[p as usize];
    if has(Pattern::F4) {
        Pattern::F3
    } else if has(Pattern::B4) || has(Pattern::D4) {
        Pattern::B3
    } else if has(Pattern::F3) {
        Pattern::F2
    } else if has(Pattern::B3) {
        Pattern::B2
    } else if has(Pattern::F2) {
        Pattern::F1
    } else if has(Pattern::B2) {
        Pattern::B1
    } else {
        Pattern::Dead
    }
}

fn build_combine(renju_black: bool) -> Box<[u16; 1 << 16]> {
    let mut table = Box::new([0u16; 1 << 16]);
    for (key, entry) in table.iter_mut().enumerate() {
        let mut n = [0u32; 16];
        for d in 0..4 {
            n[(key >> (4 * d)) & 15] += 1;
        }
        *entry = combine(&n, renju_black) as u16 | (pcode(key as u16) as u16) << 4;
    }
    table
}

/// The class of a cell from how many of its four lines have each pattern.
pub fn combine(n: &[u32; 16], renju_black: bool) -> Class {
    let c = |p: Pattern| n[p as usize];
    if c(Pattern::F5) > 0 {
        return Class::Five;
    }
    if renju_black {
        let fours = c(Pattern::B4) + c(Pattern::F4) + 2 * c(Pattern::D4);
        if c(Pattern::Overline) > 0 || fours >= 2 {
            return Class::Forbid;
        }
        if c(Pattern::F3) >= 2 {
            return Class::MaybeForbid;
        }
    }
    let threes_and_twos = c(Pattern::B3) + c(Pattern::F2);
    if c(Pattern::F4) > 0 || c(Pattern::D4) > 0 || c(Pattern::B4) >= 2 {
        Class::Flex4
    } else if c(Pattern::B4) > 0 {
        if c(Pattern::F3) > 0 {
            Class::Block4Flex3
        } else if threes_and_twos > 0 {
            Class::Block4Plus
        } else {
            Class::Block4
        }
    } else if c(Pattern::F3) >= 2 {
        Class::Flex3x2
    } else if c(Pattern::F3) > 0 {
        if threes_and_twos > 0 {
            Class::Flex3Plus
        } else {
            Class::Flex3
        }
    } else if c(Pattern::B3) > 0 && threes_and_twos >= 2 {
        Class::Block3Plus
    } else if c(Pattern::F2) >= 2 {
        Class::Flex2x2
    } else if c(Pattern::B3) > 0 {
        Class::Block3
    } else if c(Pattern::F2) > 0 {
        Class::Flex2
    } else {
        Class::None
    }
}

/// Packs four 4-bit patterns of one colour out of a cell's pattern word
/// (one byte a direction: black low nibble, white high nibble).
#[inline]
pub fn nibbles(word: u32, color: Color) -> u16 {
    let x = (word >> (4 * color.index() as u32)) & 0x0F0F_0F0F;
    let x = (x | (x >> 4)) & 0x00FF_00FF;
    ((x | (x >> 8)) & 0xFFFF) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Window index from a picture of the line, centre marked `*`:
    /// `.` empty, `x` black, `o` white, `#` wall.
    pub(crate) fn window(pic: &str) -> (usize, usize) {
        let cells: Vec<char> = pic.chars().collect();
        let half = cells.len() / 2;
        assert_eq!(cells[half], '*', "centre of {pic}");
        let mut index = 0usize;
        let mut shift = 0;
        for (j, ch) in cells.iter().enumerate() {
            if j == half {
                continue;
            }
            let v = match ch {
                '.' => 0,
                'x' => 1,
                'o' => 2,
                '#' => 3,
                _ => panic!("bad cell {ch}"),
            };
            index |= v << shift;
            shift += 2;
        }
        (index, half)
    }

    fn pat(rule: Rule, color: Color, pic: &str) -> Pattern {
        let (index, half) = window(pic);
        let t = PatternTable::get(rule);
        assert_eq!(t.half, half, "window size for {rule}");
        Pattern::from_u8(t.line[index] >> (4 * color.index()) & 15)
    }

    #[test]
    fn freestyle_shapes() {
        use Pattern::*;
        let b = Color::Black;
        let r = Rule::Freestyle;
        assert_eq!(pat(r, b, "xxxx*...."), F5);
        assert_eq!(pat(r, b, "xxxx*xx.."), F5);
        assert_eq!(pat(r, b, "..xx*x..."), F4);
        assert_eq!(pat(r, b, ".oxx*x..."), B4);
        assert_eq!(pat(r, b, ".x.x*x.x."), F4);
        assert_eq!(pat(r, b, "...x*x..."), F3);
        assert_eq!(pat(r, b, "..ox*x..."), B3);
        assert_eq!(pat(r, b, "...x*...."), F2);
        assert_eq!(pat(r, b, "...o*...."), B1);
        assert_eq!(pat(r, b, "...o*x..."), B2);
        assert_eq!(pat(r, b, "...o*o..."), Dead);
        assert_eq!(pat(r, Color::White, "..xo*o..."), B3);
        assert_eq!(pat(r, Color::White, "...x*x..."), Dead);
    }

    #[test]
    fn exact_and_renju_shapes() {
        use Pattern::*;
        let b = Color::Black;
        let w = Color::White;
        assert_eq!(pat(Rule::Standard, b, ".xxxx*x...."), Dead);
        assert_eq!(pat(Rule::Standard, w, ".oooo*.o..."), F5);
        assert_eq!(pat(Rule::Renju, b, ".xxxx*x...."), Overline);
        assert_eq!(pat(Rule::Renju, w, ".oooo*o...."), F5);
        assert_eq!(pat(Rule::Renju, b, "..x.x*x.x.."), D4);
        assert_eq!(pat(Rule::Renju, w, "..o.o*o.o.."), F4);
        assert_eq!(pat(Rule::Renju, b, "...xx*x...."), F4);
        // Only the gap completes a five: the other end would be a six.
        assert_eq!(pat(Rule::Renju, b, "xx.xx*....."), B3);
        assert_eq!(pat(Rule::Renju, b, ".x.xx*....."), B4);
        assert_eq!(pat(Rule::Renju, b, ".x.xx*x.x.."), Dead);
        assert_eq!(pat(Rule::Standard, w, ".o.oo*o.o.."), Dead);
        assert_eq!(pat(Rule::Freestyle, w, "o.oo*o.o."), F4);
    }

    #[test]
    fn caro_shapes() {
        use Pattern::*;
        let b = Color::Black;
        assert_eq!(pat(Rule::Caro, b, "oxxxx*o...."), Dead);
        assert_eq!(pat(Rule::Caro, b, "#xxxx*o...."), F5);
        assert_eq!(pat(Rule::Caro, b, ".xxxx*o...."), F5);
        assert_eq!(pat(Rule::Caro, b, ".oxxx*....."), B4);
        assert_eq!(pat(Rule::Caro, b, ".oxxx*.o..."), Dead);
        assert_eq!(pat(Rule::CaroExact, b, ".xxxx*x...."), Dead);
        assert_eq!(pat(Rule::Caro, b, ".xxxx*x...."), F5);
    }

    #[test]
    fn board_windows_are_walls_at_the_ends_and_stones_inside() {
        // Each side: w walls outermost, then any of 3 codes on the rest.
        for half in [4, 5] {
            let side: usize = (0..=half).map(|w| 3usize.pow((half - w) as u32)).sum();
            let n = (0..1usize << (4 * half))
                .filter(|&i| is_board_window(i, half))
                .count();
            assert_eq!(n, side * side, "half {half}");
        }
        let (index, half) = window("#x..*..o#");
        assert!(is_board_window(index, half));
        let (index, half) = window("#.#.*....");
        assert!(!is_board_window(index, half));
        let (index, half) = window("....*#..#");
        assert!(!is_board_window(index, half));
        let (index, half) = window("####*####");
        assert!(is_board_window(index, half));
    }

    #[test]
    fn one_lookup_gives_class_and_code() {
        // Every key of valid patterns: the entry's class is the class of
        // its patterns, its code their dense code, and the code alone gives
        // the class back (as `unmake` reads it).
        for rule in Rule::ALL {
            let t = PatternTable::get(rule);
            for c in [Color::Black, Color::White] {
                let renju_black = FiveRule::of(rule, c).renju_black;
                for key in 0..(1u32 << 16) {
                    if (0..4).any(|d| (key >> (4 * d)) & 15 >= Pattern::COUNT as u32) {
                        continue;
                    }
                    let e = t.combine[c.index()][key as usize];
                    let mut n = [0u32; 16];
                    for d in 0..4 {
                        n[((key >> (4 * d)) & 15) as usize] += 1;
                    }
                    let class = combine(&n, renju_black) as u16;
                    assert_eq!(e & 15, class, "{rule} {c:?} {key:04x}");
                    assert_eq!(e >> 4, pcode(key as u16) as u16);
                    assert_eq!(t.code_class[c.index()][(e >> 4) as usize] as u16, class);
                }
            }
        }
    }

    #[test]
    fn combine_classes() {
        let mut n = [0u32; 16];
        n[Pattern::B4 as usize] = 1;
        n[Pattern::F3 as usize] = 1;
        n[Pattern::Dead as usize] = 2;
        assert_eq!(combine(&n, false), Class::Block4Flex3);
        n[Pattern::F3 as usize] = 2;
        n[Pattern::Dead as usize] = 1;
        assert_eq!(combine(&n, true), Class::MaybeForbid);
        let mut m = [0u32; 16];
        m[Pattern::B4 as usize] = 2;
        m[Pattern::Dead as usize] = 2;
        assert_eq!(combine(&m, false), Class::Flex4);
        assert_eq!(combine(&m, true), Class::Forbid);
        m[Pattern::F5 as usize] = 1;
        assert_eq!(combine(&m, true), Class::Five);
    }

    #[test]
    fn nibble_packing() {
        let word = 0x8B_21_F0_35u32;
        assert_eq!(nibbles(word, Color::Black), 0xB105);
        assert_eq!(nibbles(word, Color::White), 0x82F3);
    }
}
