//! The evaluation tables of each rule and their file format.
//!
//! Per colour, three tables: `own[code]`, the value of an empty cell whose
//! pattern code for that colour is `code` when that colour is to move;
//! `opp[code]`, what such a cell is worth to that colour when the other
//! side is to move; and `threat[mask]`, a correction for the side to move
//! indexed by which threat classes each side holds (see [`threat_mask`]).
//! Outside renju both colours share one set; the file still lists both.
//!
//! The tables ship as text files in `src/eval/weights/`, one per rule,
//! compiled in with `include_str!`:
//!
//! ```text
//! tengen-eval 2
//! rule freestyle
//! note made by: pbrain-tengen tune --data ... (any number of note lines)
//! own black v0 v1 ... v1364
//! opp black ...
//! threat black v0 ... v2047
//! policy black v0 ... v3995     (optional: the learned move ordering;
//!                               a table of 3002, without the line
//!                               shapes, is read too)
//! own white ...
//! opp white ...
//! threat white ...
//! policy white ...              (with policy black)
//! end
//! ```
//!
//! Version 1 is the same without the policy lines, and still read. A file
//! with another version, another rule, a missing or short table or
//! a bad number is refused with a message naming the line.

use super::policy::{POLICY_LEN, POLICY_LEN_CODES};
use crate::board::CodeValues;
use crate::pattern::pcode::{class_of, patterns_of, NCODES};
use crate::pattern::{Class, Pattern};
use crate::types::{Color, Rule};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// The format version this build writes. It reads this one and version 1
/// (the same without the optional move-ordering tables).
pub const FORMAT_VERSION: u32 = 2;
/// Entries of a threat table: 11 mask bits.
pub const NMASKS: usize = 2048;

/// The tables of one rule.
#[derive(Clone, PartialEq, Eq)]
pub struct Weights {
    pub rule: Rule,
    /// How the tables were made (free text, one entry a line).
    pub notes: Vec<String>,
    /// Per colour: own and opponent cell values by pattern code, which the
    /// board sums as moves are made (see [`CodeValues`]).
    pub cells: Arc<CodeValues>,
    /// Per colour (the side to move): the threat-mask correction.
    pub threat: [Box<[i32; NMASKS]>; 2],
    /// Per colour to move, the learned move ordering (see
    /// [`super::policy`]). `None`: the search's hand-set ordering.
    /// Shared: a board's cached line-shape scores name their table (see
    /// [`super::policy::refresh_shape_scores`]).
    pub policy: Option<[Arc<[i32; POLICY_LEN]>; 2]>,
}

impl fmt::Debug for Weights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Weights({}, {} notes)", self.rule, self.notes.len())
    }
}

/// Why a weights file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeightsError(pub String);

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad evaluation weights: {}", self.0)
    }
}

impl std::error::Error for WeightsError {}

/// The 11-bit threat mask from the side to move's view: which classes
/// each side can make somewhere, strongest first.
///
/// Bits, low to high: opponent five; own open four (or double four);
/// opponent open four; own four-three or four-plus; own plain four; own
/// double three or three-plus; own open three; then the opponent's
/// four-three/four-plus, four, double three/three-plus and open three.
#[inline]
pub fn threat_mask(has: impl Fn(Color, Class) -> bool, me: Color) -> usize {
    let opp = me.opposite();
    let side = |c: Color| -> usize {
        ((has(c, Class::Block4Flex3) || has(c, Class::Block4Plus)) as usize)
            | (has(c, Class::Block4) as usize) << 1
            | ((has(c, Class::Flex3x2) || has(c, Class::Flex3Plus)) as usize) << 2
            | (has(c, Class::Flex3) as usize) << 3
    };
    (has(opp, Class::Five) as usize)
        | (has(me, Class::Flex4) as usize) << 1
        | (has(opp, Class::Flex4) as usize) << 2
        | side(me) << 3
        | side(opp) << 7
}

/// The weights compiled into the engine, one file per rule.
const SHIPPED: [(Rule, &str); 5] = [
    (Rule::Freestyle, include_str!("weights/freestyle.txt")),
    (Rule::Standard, include_str!("weights/standard.txt")),
    (Rule::Renju, include_str!("weights/renju.txt")),
    (Rule::Caro, include_str!("weights/caro.txt")),
    (Rule::CaroExact, include_str!("weights/caro-exact.txt")),
];

impl Weights {
    /// The tables compiled in for `rule`.
    pub fn shipped(rule: Rule) -> Result<Weights, WeightsError> {
        let text = SHIPPED
            .iter()
            .find(|(r, _)| *r == rule)
            .map(|(_, t)| *t)
            .unwrap_or(SHIPPED[0].1);
        Weights::parse(text, Some(rule))
            .map_err(|e| WeightsError(format!("shipped file for {rule}: {}", e.0)))
    }

    /// Reads a weights file (any rule: the file says which).
    pub fn from_file(path: &Path) -> Result<Weights, WeightsError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| WeightsError(format!("{}: {e}", path.display())))?;
        Weights::parse(&text, None)
            .map_err(|e| WeightsError(format!("{}: {}", path.display(), e.0)))
    }

    /// The hand-set evaluation of the first version, in table form: a
    /// cell's value is the sum of its line-pattern weights and its class
    /// weight; renju black's values are scaled to 85%.
    pub fn handmade(rule: Rule) -> Weights {
        const PAT_OWN: [(Pattern, i32, i32); 9] = [
            (Pattern::B1, 1, 1),
            (Pattern::F1, 2, 2),
            (Pattern::B2, 4, 3),
            (Pattern::F2, 10, 8),
            (Pattern::B3, 14, 10),
            (Pattern::F3, 40, 28),
            (Pattern::B4, 45, 30),
            (Pattern::F4, 120, 70),
            (Pattern::D4, 120, 70),
        ];
        const CLASS: [(Class, i32, i32); 11] = [
            (Class::Flex2x2, 30, 20),
            (Class::Block3Plus, 30, 20),
            (Class::Flex3, 20, 10),
            (Class::Flex3Plus, 80, 50),
            (Class::Flex3x2, 400, 150),
            (Class::Block4, 10, 10),
            (Class::Block4Plus, 60, 40),
            (Class::Block4Flex3, 1500, 300),
            (Class::Flex4, 3000, 400),
            (Class::Five, 0, 0),
            (Class::None, 0, 0),
        ];
        let mut w = Weights::zero(rule);
        w.notes
            .push("the hand-set evaluation of tengen 0.1 in table form".into());
        let mut cells = CodeValues::new();
        for color in [Color::Black, Color::White] {
            let renju_black = rule == Rule::Renju && color == Color::Black;
            for code in 0..NCODES {
                let (mut own, mut opp) = (0, 0);
                for p in patterns_of(code) {
                    if let Some(&(_, o, t)) = PAT_OWN.iter().find(|e| e.0 == p) {
                        own += o;
                        opp += t;
                    }
                }
                let class = class_of(code, renju_black);
                if let Some(&(_, o, t)) = CLASS.iter().find(|e| e.0 == class) {
                    own += o;
                    opp += t;
                }
                if renju_black {
                    own = own * 85 / 100;
                    opp = opp * 85 / 100;
                }
                cells.set_own(color, code, own);
                cells.set_opp(color, code, opp);
            }
        }
        w.cells = Arc::new(cells);
        w
    }

    /// All-zero tables.
    pub fn zero(rule: Rule) -> Weights {
        Weights {
            rule,
            notes: Vec::new(),
            cells: CodeValues::zero(),
            threat: [Box::new([0; NMASKS]), Box::new([0; NMASKS])],
            policy: None,
        }
    }

    /// Reads the text format. `rule`, when given, must match the file's.
    pub fn parse(text: &str, rule: Option<Rule>) -> Result<Weights, WeightsError> {
        let err = |line: usize, msg: String| WeightsError(format!("line {}: {msg}", line + 1));
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (n, first) = lines
            .next()
            .ok_or_else(|| WeightsError("empty file".into()))?;
        let version = first
            .strip_prefix("tengen-eval ")
            .ok_or_else(|| err(n, "not a tengen evaluation file".into()))?;
        let version: u32 = version.trim().parse().unwrap_or(0);
        if !(1..=FORMAT_VERSION).contains(&version) {
            return Err(err(
                n,
                format!("format version {version} (this build reads 1 to {FORMAT_VERSION})"),
            ));
        }
        let (n, rule_line) = lines
            .next()
            .ok_or_else(|| WeightsError("no rule line".into()))?;
        let file_rule: Rule = rule_line
            .strip_prefix("rule ")
            .and_then(|r| r.trim().parse().ok())
            .ok_or_else(|| err(n, format!("expected 'rule NAME', got '{rule_line}'")))?;
        if let Some(r) = rule {
            if r != file_rule {
                return Err(err(n, format!("tables for {file_rule}, expected {r}")));
            }
        }
        let mut w = Weights::zero(file_rule);
        let mut cells = CodeValues::new();
        let mut seen = [[false; 4]; 2];
        let mut policy = [Box::new([0; POLICY_LEN]), Box::new([0; POLICY_LEN])];
        let mut ended = false;
        for (n, line) in lines {
            if ended {
                return Err(err(n, "text after 'end'".into()));
            }
            if let Some(note) = line.strip_prefix("note ") {
                w.notes.push(note.to_string());
                continue;
            }
            if line.trim() == "end" {
                ended = true;
                continue;
            }
            let mut words = line.split_ascii_whitespace();
            let table = match words.next() {
                Some("own") => 0,
                Some("opp") => 1,
                Some("threat") => 2,
                Some("policy") if version >= 2 => 3,
                other => return Err(err(n, format!("unknown table '{}'", other.unwrap_or("")))),
            };
            let color = match words.next() {
                Some("black") => Color::Black,
                Some("white") => Color::White,
                other => return Err(err(n, format!("unknown colour '{}'", other.unwrap_or("")))),
            };
            if seen[color.index()][table] {
                return Err(err(n, "table given twice".into()));
            }
            seen[color.index()][table] = true;
            let want = match table {
                2 => NMASKS,
                3 => POLICY_LEN,
                _ => NCODES,
            };
            let mut count = 0;
            for (i, word) in words.enumerate() {
                let v: i32 = word
                    .parse()
                    .ok()
                    .filter(|v: &i32| v.abs() <= 1_000_000)
                    .ok_or_else(|| err(n, format!("bad value '{word}' at entry {i}")))?;
                if i >= want {
                    return Err(err(n, format!("more than {want} values")));
                }
                match table {
                    0 => cells.set_own(color, i, v),
                    1 => cells.set_opp(color, i, v),
                    2 => w.threat[color.index()][i] = v,
                    _ => policy[color.index()][i] = v,
                }
                count += 1;
            }
            // A policy table without the line shapes (their entries 0).
            let short = table == 3 && count == POLICY_LEN_CODES;
            if count != want && !short {
                let or = if table == 3 {
                    format!(" (or {POLICY_LEN_CODES}, without the line shapes)")
                } else {
                    String::new()
                };
                return Err(err(n, format!("{count} values, expected {want}{or}")));
            }
        }
        if !ended {
            return Err(WeightsError("no 'end' line: the file is truncated".into()));
        }
        if seen.iter().any(|s| s[..3].iter().any(|s| !s)) || seen[0][3] != seen[1][3] {
            return Err(WeightsError("a table is missing".into()));
        }
        if seen[0][3] {
            w.policy = Some(policy.map(Arc::from));
        }
        w.cells = Arc::new(cells);
        Ok(w)
    }

    /// Writes the text format.
    pub fn to_text(&self) -> String {
        let mut s = format!("tengen-eval {FORMAT_VERSION}\nrule {}\n", self.rule);
        for note in &self.notes {
            s.push_str(&format!("note {note}\n"));
        }
        for color in [Color::Black, Color::White] {
            let name = if color == Color::Black {
                "black"
            } else {
                "white"
            };
            for (table, label) in ["own", "opp"].iter().enumerate() {
                s.push_str(&format!("{label} {name}"));
                for code in 0..NCODES {
                    let (own, opp) = self.cells.get(color, code);
                    s.push_str(&format!(" {}", if table == 0 { own } else { opp }));
                }
                s.push('\n');
            }
            s.push_str(&format!("threat {name}"));
            for v in self.threat[color.index()].iter() {
                s.push_str(&format!(" {v}"));
            }
            s.push('\n');
            if let Some(policy) = &self.policy {
                s.push_str(&format!("policy {name}"));
                for v in policy[color.index()].iter() {
                    s.push_str(&format!(" {v}"));
                }
                s.push('\n');
            }
        }
        s.push_str("end\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_tables_load_for_every_rule() {
        for rule in Rule::ALL {
            let w = Weights::parse(
                SHIPPED.iter().find(|(r, _)| *r == rule).unwrap().1,
                Some(rule),
            )
            .unwrap();
            assert_eq!(w.rule, rule);
            assert!(!w.notes.is_empty(), "{rule}: the file says how it was made");
            // For the side to move, a cell that makes an open three is
            // worth more than a dead one.
            let three = crate::pattern::pcode::pcode(Pattern::F3 as u16);
            for c in [Color::Black, Color::White] {
                assert!(w.cells.own(c, three) > w.cells.own(c, 0), "{rule}");
            }
        }
    }

    #[test]
    fn text_round_trips() {
        let mut w = Weights::handmade(Rule::Renju);
        w.threat[1][77] = -12;
        w.notes.push("a test".into());
        let back = Weights::parse(&w.to_text(), Some(Rule::Renju)).unwrap();
        assert!(back == w);
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        let good = Weights::handmade(Rule::Freestyle).to_text();
        let bad = |text: &str, rule: Option<Rule>, want: &str| {
            let e = Weights::parse(text, rule).unwrap_err().to_string();
            assert!(e.contains(want), "'{want}' not in '{e}'");
        };
        // Truncated: cut in the middle of a table, or before 'end'.
        bad(&good[..good.len() / 2], None, "values, expected");
        bad(good.trim_end().trim_end_matches("end"), None, "truncated");
        bad(
            &good.replacen("tengen-eval 2", "tengen-eval 7", 1),
            None,
            "version 7",
        );
        bad(&good, Some(Rule::Renju), "expected renju");
        bad("hello\n", None, "not a tengen evaluation file");
        bad(
            &good.replacen("own black 0", "own black x", 1),
            None,
            "bad value 'x'",
        );
        let no_threat: String = good
            .lines()
            .filter(|l| !l.starts_with("threat white"))
            .map(|l| format!("{l}\n"))
            .collect();
        bad(&no_threat, None, "missing");
        assert!(Weights::parse(&good, Some(Rule::Freestyle)).is_ok());
    }

    #[test]
    fn move_ordering_tables_are_optional_and_checked() {
        // Version 2 carries the learned move ordering; it round-trips.
        let mut w = Weights::handmade(Rule::Freestyle);
        let mut tables = [Box::new([3; POLICY_LEN]), Box::new([5; POLICY_LEN])];
        tables[1][POLICY_LEN - 1] = -7;
        w.policy = Some(tables.map(Arc::from));
        let text = w.to_text();
        assert!(text.starts_with("tengen-eval 2\n"));
        assert!(Weights::parse(&text, None).unwrap() == w);
        // A version-1 file (no such tables) still loads, without them.
        let v1: String = Weights::handmade(Rule::Freestyle).to_text().replacen(
            "tengen-eval 2",
            "tengen-eval 1",
            1,
        );
        assert!(Weights::parse(&v1, None).unwrap().policy.is_none());
        let bad = |text: &str, want: &str| {
            let e = Weights::parse(text, None).unwrap_err().to_string();
            assert!(e.contains(want), "'{want}' not in '{e}'");
        };
        // ...but may not have them.
        bad(
            &text.replacen("tengen-eval 2", "tengen-eval 1", 1),
            "unknown table 'policy'",
        );
        // Both colours or neither; each of full length.
        let one: String = text
            .lines()
            .filter(|l| !l.starts_with("policy white"))
            .map(|l| format!("{l}\n"))
            .collect();
        bad(&one, "missing");
        let short = text.replacen(" -7\n", "\n", 1);
        bad(
            &short,
            &format!("{} values, expected {POLICY_LEN}", POLICY_LEN - 1),
        );
        // A table of the length before the line shapes loads, their
        // entries 0.
        let codes: String = text
            .lines()
            .map(|l| match l.strip_prefix("policy ") {
                Some(rest) => {
                    let v: Vec<&str> = rest.split(' ').take(1 + POLICY_LEN_CODES).collect();
                    format!("policy {}\n", v.join(" "))
                }
                None => format!("{l}\n"),
            })
            .collect();
        let old = Weights::parse(&codes, None).unwrap().policy.unwrap();
        assert!(old[0][..POLICY_LEN_CODES].iter().all(|&v| v == 3));
        assert!(old[1][..POLICY_LEN_CODES].iter().all(|&v| v == 5));
        assert!(old
            .iter()
            .all(|t| t[POLICY_LEN_CODES..].iter().all(|&v| v == 0)));
    }

    #[test]
    fn threat_mask_bits() {
        let has = |c: Color, k: Class| {
            (c == Color::Black && k == Class::Flex3) || (c == Color::White && k == Class::Five)
        };
        assert_eq!(threat_mask(has, Color::Black), 1 | 1 << 6);
        assert_eq!(threat_mask(has, Color::White), 1 << 10);
    }
}
