//! A slow, plain reference classifier for line patterns, written from the
//! definitions on an explicit array of cells, and a test that the fast table
//! agrees with it on every line shape of the window.

use super::{FiveRule, Pattern, PatternTable};
use crate::types::{Color, Rule};
use std::collections::HashMap;

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Cell {
    Empty,
    Own,
    Opp,
    Wall,
}

struct Reference {
    rule: FiveRule,
    memo: HashMap<Vec<Cell>, Pattern>,
}

impl Reference {
    /// Does the own stone at `c` belong to a winning five?
    fn five_at(&self, line: &[Cell], c: usize) -> bool {
        let mut left = c;
        while left > 0 && line[left - 1] == Cell::Own {
            left -= 1;
        }
        let mut right = c;
        while right + 1 < line.len() && line[right + 1] == Cell::Own {
            right += 1;
        }
        let len = right - left + 1;
        let ok = if self.rule.exact { len == 5 } else { len >= 5 };
        // Outside the window nothing is known: it is no opponent stone.
        let before = if left == 0 {
            None
        } else {
            Some(line[left - 1])
        };
        let after = line.get(right + 1).copied();
        let dead = self.rule.caro && before == Some(Cell::Opp) && after == Some(Cell::Opp);
        ok && !dead
    }

    fn run_len(line: &[Cell], c: usize) -> usize {
        let left = (0..c).rev().take_while(|&i| line[i] == Cell::Own).count();
        let right = (c + 1..line.len())
            .take_while(|&i| line[i] == Cell::Own)
            .count();
        left + right + 1
    }

    fn with(line: &[Cell], i: usize) -> Vec<Cell> {
        let mut v = line.to_vec();
        v[i] = Cell::Own;
        v
    }

    /// The empty cells that would complete a five through `c`.
    fn completions(&self, line: &[Cell], c: usize) -> Vec<usize> {
        (0..line.len())
            .filter(|&i| line[i] == Cell::Empty && self.five_at(&Self::with(line, i), c))
            .collect()
    }

    /// A straight four through `c`: four own stones in a row, including
    /// `c`, with an empty cell at each end that completes a five.
    fn straight_four(&self, line: &[Cell], c: usize) -> bool {
        let fives = self.completions(line, c);
        (0..line.len().saturating_sub(5)).any(|a| {
            let b = a + 5;
            (a + 1..b).contains(&c)
                && (a + 1..b).all(|i| line[i] == Cell::Own)
                && fives.contains(&a)
                && fives.contains(&b)
        })
    }

    /// The pattern of `c` in `line`, where `line[c]` is already own.
    fn pattern(&mut self, line: &[Cell], c: usize) -> Pattern {
        if let Some(&p) = self.memo.get(line) {
            return p;
        }
        let p = self.compute(line, c);
        self.memo.insert(line.to_vec(), p);
        p
    }

    fn compute(&mut self, line: &[Cell], c: usize) -> Pattern {
        if self.five_at(line, c) {
            return Pattern::F5;
        }
        if self.rule.exact && Self::run_len(line, c) >= 6 {
            return if self.rule.renju_black {
                Pattern::Overline
            } else {
                Pattern::Dead
            };
        }
        let fives = self.completions(line, c);
        if fives.len() >= 2 {
            if !self.rule.renju_black || self.straight_four(line, c) {
                return Pattern::F4;
            }
            return Pattern::D4;
        }
        if fives.len() == 1 {
            return Pattern::B4;
        }
        let empties: Vec<usize> = (0..line.len())
            .filter(|&i| line[i] == Cell::Empty)
            .collect();
        let next: Vec<Pattern> = empties
            .iter()
            .map(|&i| self.pattern(&Self::with(line, i), c))
            .collect();
        let any = |ps: &[Pattern]| next.iter().any(|p| ps.contains(p));
        if any(&[Pattern::F4]) {
            Pattern::F3
        } else if any(&[Pattern::B4, Pattern::D4]) {
            Pattern::B3
        } else if any(&[Pattern::F3]) {
            Pattern::F2
        } else if any(&[Pattern::B3]) {
            Pattern::B2
        } else if any(&[Pattern::F2]) {
            Pattern::F1
        } else if any(&[Pattern::B2]) {
            Pattern::B1
        } else {
            Pattern::Dead
        }
    }
}

/// Every window a board can produce: walls only at the outer ends of each
/// side, any mix of empty, black and white inside.
fn all_shapes(half: usize) -> Vec<Vec<u8>> {
    let mut side_shapes: Vec<Vec<u8>> = Vec::new();
    for walls in 0..=half {
        let free = half - walls;
        for code in 0..3usize.pow(free as u32) {
            let mut cells = vec![3u8; walls];
            let mut c = code;
            for _ in 0..free {
                cells.push((c % 3) as u8);
                c /= 3;
            }
            side_shapes.push(cells); // outermost first
        }
    }
    let mut out = Vec::new();
    for left in &side_shapes {
        for right in &side_shapes {
            let mut w: Vec<u8> = left.clone();
            w.push(255); // centre
            w.extend(right.iter().rev());
            out.push(w);
        }
    }
    out
}

fn check_rule(rule: Rule) {
    let table = PatternTable::get(rule);
    let half = table.half;
    let shapes = all_shapes(half);
    for color in [Color::Black, Color::White] {
        let own = color as u8 + 1;
        let mut reference = Reference {
            rule: FiveRule::of(rule, color),
            memo: HashMap::new(),
        };
        for shape in &shapes {
            let line: Vec<Cell> = shape
                .iter()
                .map(|&v| match v {
                    255 => Cell::Own,
                    0 => Cell::Empty,
                    3 => Cell::Wall,
                    v if v == own => Cell::Own,
                    _ => Cell::Opp,
                })
                .collect();
            let mut index = 0usize;
            let mut shift = 0;
            for &v in shape {
                if v != 255 {
                    index |= (v as usize) << shift;
                    shift += 2;
                }
            }
            let fast = Pattern::from_u8(table.line[index] >> (4 * color.index()) & 15);
            let slow = reference.pattern(&line, half);
            assert_eq!(
                fast, slow,
                "{rule} {color:?} window {shape:?}: table says {fast:?}, reference {slow:?}"
            );
        }
    }
}

#[test]
fn table_matches_reference_freestyle() {
    check_rule(Rule::Freestyle);
}

#[test]
fn table_matches_reference_standard() {
    check_rule(Rule::Standard);
}

#[test]
fn table_matches_reference_renju() {
    check_rule(Rule::Renju);
}

#[test]
fn table_matches_reference_caro() {
    check_rule(Rule::Caro);
}

#[test]
fn table_matches_reference_caro_exact() {
    check_rule(Rule::CaroExact);
}
