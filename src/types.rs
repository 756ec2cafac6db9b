//! Small `Copy` types shared by every module: cells, colours and rules.

use std::fmt;
use std::str::FromStr;

/// Smallest board side a manager may ask for.
pub const MIN_SIZE: usize = 5;
/// Largest board side a manager may ask for.
pub const MAX_SIZE: usize = 22;
/// Cells are indexed `y * STRIDE + x`, so one `u64` holds two rows of a
/// bitboard and neighbours are a constant offset apart.
pub const STRIDE: usize = 32;
/// Size of every per-cell array.
pub const CELLS: usize = MAX_SIZE * STRIDE;

/// A cell of the board. `x` is the column (0-based, left to right) and `y`
/// the row (0-based, top to bottom), as in the Gomocup protocol.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Pos(u16);

impl Pos {
    /// The cell at column `x`, row `y`. Both must be below [`MAX_SIZE`].
    #[inline]
    pub const fn new(x: usize, y: usize) -> Pos {
        debug_assert!(x < MAX_SIZE && y < MAX_SIZE);
        Pos((y * STRIDE + x) as u16)
    }

    /// The cell with the given array index (`y * STRIDE + x`).
    #[inline]
    pub const fn from_index(i: usize) -> Pos {
        Pos(i as u16)
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub const fn x(self) -> usize {
        self.0 as usize % STRIDE
    }

    #[inline]
    pub const fn y(self) -> usize {
        self.0 as usize / STRIDE
    }

    /// The Chebyshev (king-move) distance to `other`.
    #[inline]
    pub fn distance(self, other: Pos) -> usize {
        self.x()
            .abs_diff(other.x())
            .max(self.y().abs_diff(other.y()))
    }

    /// Parses one move of "pos" notation: a letter for x (`a` = 0) and the
    /// row number y + 1, e.g. `h8` = (7, 7).
    pub fn parse_pos(s: &str) -> Result<Pos, ParseError> {
        let moves = parse_pos_list(s)?;
        match moves.as_slice() {
            [p] => Ok(*p),
            _ => Err(ParseError(format!("expected one move, got '{s}'"))),
        }
    }

    /// Writes the cell in pos notation (`h8`).
    pub fn to_pos_string(self) -> String {
        format!("{}{}", (b'a' + self.x() as u8) as char, self.y() + 1)
    }
}

impl fmt::Display for Pos {
    /// Protocol form `x,y`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x(), self.y())
    }
}

/// An error in text that names moves, sizes or rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// Parses a move list in pos notation (`h8h9i8`, black first). Coordinates
/// are checked against [`MAX_SIZE`] only; the board checks its own size.
pub fn parse_pos_list(s: &str) -> Result<Vec<Pos>, ParseError> {
    let bytes = s.trim().as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i].to_ascii_lowercase();
        if !c.is_ascii_lowercase() {
            return Err(ParseError(format!(
                "bad move list '{s}': expected a column letter at offset {i}"
            )));
        }
        let x = (c - b'a') as usize;
        i += 1;
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() && i - start < 2 {
            i += 1;
        }
        if start == i {
            return Err(ParseError(format!(
                "bad move list '{s}': expected a row number at offset {start}"
            )));
        }
        // At most two ASCII digits: parsing cannot fail or overflow.
        let row: usize = s.trim()[start..i].parse().unwrap_or(0);
        if x >= MAX_SIZE || row == 0 || row > MAX_SIZE {
            return Err(ParseError(format!(
                "bad move list '{s}': {} is outside any board",
                &s.trim()[start - 1..i]
            )));
        }
        out.push(Pos::new(x, row - 1));
    }
    Ok(out)
}

/// A side. Black moves first.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    #[inline]
    pub const fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The side to move after `stones` stones, when colours alternate.
    pub const fn to_move_after(stones: usize) -> Color {
        if stones.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        }
    }
}

/// The game rules Gomocup plays.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Rule {
    /// Five or more in a row wins.
    Freestyle,
    /// Exactly five wins; an overline wins for nobody.
    Standard,
    /// Black: exactly five, and double three, double four and overline are
    /// forbidden. White: five or more, no restriction.
    Renju,
    /// Five or more wins unless both ends are blocked by opponent stones
    /// (the edge is no block). Gomocup rule 8.
    Caro,
    /// As [`Rule::Caro`], but only exactly five wins. Gomocup rule 9.
    CaroExact,
}

impl Rule {
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::Standard,
        Rule::Renju,
        Rule::Caro,
        Rule::CaroExact,
    ];

    /// The rule's place in [`Rule::ALL`] (indexes per-rule tables; the
    /// declaration order is the order of `ALL`, checked in the tests).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The Gomocup `INFO rule` value of this rule (the inverse of
    /// [`Rule::from_gomocup`]).
    pub fn gomocup(self) -> u32 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
            Rule::Caro => 8,
            Rule::CaroExact => 9,
        }
    }

    /// The rule of a Gomocup `INFO rule` bit mask (1 exactly five, 2
    /// continuous game, 4 renju, 8 caro). A lone 2 is renju, as
    /// Yixin-Board sends it.
    pub fn from_gomocup(mask: u32) -> Rule {
        if mask == 2 || mask & 4 != 0 {
            Rule::Renju
        } else if mask & 8 != 0 {
            if mask & 1 != 0 {
                Rule::CaroExact
            } else {
                Rule::Caro
            }
        } else if mask & 1 != 0 {
            Rule::Standard
        } else {
            Rule::Freestyle
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
            Rule::Caro => "caro",
            Rule::CaroExact => "caro-exact",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rule {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Rule, ParseError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "freestyle" | "gomoku" | "0" => Ok(Rule::Freestyle),
            "standard" | "exact" | "1" => Ok(Rule::Standard),
            "renju" | "4" => Ok(Rule::Renju),
            "caro" | "8" => Ok(Rule::Caro),
            "caro-exact" | "caro9" | "9" => Ok(Rule::CaroExact),
            other => Err(ParseError(format!(
                "unknown rule '{other}' (expected freestyle, standard, renju, caro or caro-exact)"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_index_is_its_place_in_all() {
        for (i, r) in Rule::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
        }
    }

    #[test]
    fn pos_notation_round_trips() {
        let moves = parse_pos_list("h8h9i8").unwrap();
        assert_eq!(moves, vec![Pos::new(7, 7), Pos::new(7, 8), Pos::new(8, 7)]);
        assert_eq!(Pos::new(7, 7).to_pos_string(), "h8");
        assert_eq!(parse_pos_list("a1v22k10").unwrap()[1], Pos::new(21, 21));
        assert_eq!(Pos::parse_pos("k10").unwrap(), Pos::new(10, 9));
        assert_eq!(Pos::new(3, 4).to_string(), "3,4");
    }

    #[test]
    fn pos_notation_rejects_garbage() {
        for bad in ["8h", "h", "h0", "w1", "h23", "h8-", "h100"] {
            assert!(parse_pos_list(bad).is_err(), "{bad} should not parse");
        }
        assert!(Pos::parse_pos("h8h9").is_err());
    }

    #[test]
    fn gomocup_rule_masks() {
        assert_eq!(Rule::from_gomocup(0), Rule::Freestyle);
        assert_eq!(Rule::from_gomocup(1), Rule::Standard);
        assert_eq!(Rule::from_gomocup(2), Rule::Renju);
        assert_eq!(Rule::from_gomocup(4), Rule::Renju);
        assert_eq!(Rule::from_gomocup(3), Rule::Standard);
        assert_eq!(Rule::from_gomocup(8), Rule::Caro);
        assert_eq!(Rule::from_gomocup(9), Rule::CaroExact);
        assert_eq!("RENJU".parse::<Rule>().unwrap(), Rule::Renju);
        assert!("chess".parse::<Rule>().is_err());
        for rule in Rule::ALL {
            assert_eq!(Rule::from_gomocup(rule.gomocup()), rule);
        }
    }
}
