//! Pattern codes: the unordered combination of a cell's four line patterns
//! for one side, numbered densely.
//!
//! Four patterns out of [`Pattern::COUNT`] form C(15, 4) = 1365 multisets;
//! each gets a code in lexicographic order of its sorted tuple. The
//! evaluation tables are indexed by that code, so they distinguish every
//! combination of shapes a cell can hold (not only its threat class).

use super::{combine, Class, Pattern};
use std::sync::OnceLock;

/// Number of pattern codes.
pub const NCODES: usize = 1365;

/// The code of four 4-bit patterns (direction 0 lowest), as the board's
/// `pattern_code` gives them.
#[inline]
pub fn pcode(patterns: u16) -> usize {
    table()[patterns as usize] as usize
}

fn table() -> &'static [u16; 1 << 16] {
    static TABLE: OnceLock<Box<[u16; 1 << 16]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut index =
            [[[[0u16; Pattern::COUNT]; Pattern::COUNT]; Pattern::COUNT]; Pattern::COUNT];
        let mut n = 0u16;
        for (a, t) in index.iter_mut().enumerate() {
            for (b, t) in t.iter_mut().enumerate().skip(a) {
                for (c, t) in t.iter_mut().enumerate().skip(b) {
                    for v in t.iter_mut().skip(c) {
                        *v = n;
                        n += 1;
                    }
                }
            }
        }
        debug_assert_eq!(n as usize, NCODES);
        let mut table = Box::new([0u16; 1 << 16]);
        for (key, code) in table.iter_mut().enumerate() {
            let mut p = [0usize; 4];
            for (d, v) in p.iter_mut().enumerate() {
                *v = ((key >> (4 * d)) & 15).min(Pattern::COUNT - 1);
            }
            p.sort_unstable();
            *code = index[p[0]][p[1]][p[2]][p[3]];
        }
        table
    })
}

/// The four patterns of a code, weakest first.
pub fn patterns_of(code: usize) -> [Pattern; 4] {
    static LIST: OnceLock<Vec<[Pattern; 4]>> = OnceLock::new();
    LIST.get_or_init(|| {
        let mut v = Vec::with_capacity(NCODES);
        for a in 0..Pattern::COUNT {
            for b in a..Pattern::COUNT {
                for c in b..Pattern::COUNT {
                    for d in c..Pattern::COUNT {
                        v.push([a, b, c, d].map(|i| Pattern::ALL[i]));
                    }
                }
            }
        }
        v
    })[code]
}

/// The threat class of a code (`renju_black`: black under renju).
pub fn class_of(code: usize, renju_black: bool) -> Class {
    let mut n = [0u32; 16];
    for p in patterns_of(code) {
        n[p as usize] += 1;
    }
    combine(&n, renju_black)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_dense_and_order_free() {
        let mut seen = vec![false; NCODES];
        for key in 0..(1u32 << 16) {
            let nib: Vec<u32> = (0..4).map(|d| (key >> (4 * d)) & 15).collect();
            if nib.iter().any(|&v| v as usize >= Pattern::COUNT) {
                continue;
            }
            let code = pcode(key as u16);
            seen[code] = true;
            let mut sorted = nib.clone();
            sorted.sort_unstable();
            let back: Vec<u32> = patterns_of(code).iter().map(|&p| p as u32).collect();
            assert_eq!(back, sorted, "key {key:04x}");
            // Any order of the same four patterns gives the same code.
            let rev = nib
                .iter()
                .rev()
                .enumerate()
                .fold(0u16, |k, (d, &v)| k | (v as u16) << (4 * d));
            assert_eq!(pcode(rev), code);
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(pcode(0), 0);
    }
}
