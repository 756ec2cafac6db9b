//! A game as the board page sends it (rule, size, moves in pos notation),
//! replayed and checked; game records read (PSQ, SGF, pos text) and
//! written (PSQ, SGF).

use crate::board::Board;
use crate::types::{parse_pos_list, Color, Pos, Rule};
use serde::Deserialize;

/// Boards the page offers, as `Board::new` takes them.
pub const MIN_SIZE: usize = 5;
pub const MAX_SIZE: usize = 22;

/// Why a request's game or record is refused (a 400 with this text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameError(pub String);

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, GameError> {
    Err(GameError(msg.into()))
}

/// A game as a request names it: every field optional (freestyle, 15,
/// no moves).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSpec {
    pub rule: Option<String>,
    pub size: Option<usize>,
    /// Moves in pos notation, black first (`h8i9h9`).
    pub moves: Option<String>,
}

/// A checked game: a rule, a square board and the moves played on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    pub rule: Rule,
    pub size: usize,
    pub moves: Vec<Pos>,
}

impl GameSpec {
    /// The game, checked: a known rule, a size of 5 to 22, and moves that
    /// are all legal in turn (see [`Game::replay`]).
    pub fn game(&self) -> Result<Game, GameError> {
        let rule = match &self.rule {
            Some(r) => r.parse::<Rule>().map_err(|e| GameError(e.0))?,
            None => Rule::Freestyle,
        };
        let size = self.size.unwrap_or(15);
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return err(format!(
                "board size {size} is not offered ({MIN_SIZE} to {MAX_SIZE})"
            ));
        }
        let text = self.moves.as_deref().unwrap_or("");
        if text.len() > 4 * MAX_SIZE * MAX_SIZE {
            return err("the move list is longer than any game");
        }
        let moves = parse_pos_list(text).map_err(|e| GameError(e.0))?;
        let game = Game { rule, size, moves };
        game.replay()?;
        Ok(game)
    }
}

impl Game {
    /// The board after the moves, each checked in turn (see
    /// [`crate::perft::replay`]: on the board, on an empty cell, not after
    /// the game was won, and under renju not on a cell forbidden for
    /// black). A finished game (a five, a full board) is a good game.
    pub fn replay(&self) -> Result<Board, GameError> {
        crate::perft::replay(self.size, self.rule, &self.moves).map_err(|e| GameError(e.0))
    }

    /// The moves in pos notation (`h8i9h9`).
    pub fn pos_text(&self) -> String {
        self.moves.iter().map(|p| p.to_pos_string()).collect()
    }
}

/// Reads a game record: a Piskvork `.psq` file, an SGF game or a move list
/// in pos notation. The rule is the SGF's `RU` where it names one tengen
/// knows, else `rule`; the size the record's, else `size`. The moves are
/// checked as a game's are.
pub fn import(text: &str, rule: Rule, size: usize) -> Result<Game, GameError> {
    let t = text.trim_start_matches('\u{feff}').trim();
    if t.is_empty() {
        return err("the record is empty");
    }
    let game = if t.starts_with('(') {
        read_sgf(t, rule, size)?
    } else if t.starts_with("Piskvork") || t.lines().next().is_some_and(is_psq_move) {
        read_psq(t, rule, size)?
    } else {
        let compact: String = t.chars().filter(|c| !c.is_whitespace()).collect();
        let moves = parse_pos_list(&compact)
            .map_err(|e| GameError(format!("not a PSQ, SGF or pos record: {}", e.0)))?;
        Game { rule, size, moves }
    };
    if !(MIN_SIZE..=MAX_SIZE).contains(&game.size) {
        return err(format!(
            "the record's board ({0}x{0}) is not offered ({MIN_SIZE} to {MAX_SIZE})",
            game.size
        ));
    }
    game.replay()?;
    Ok(game)
}

/// `x,y` or `x,y,ms` with numbers: a move line of a PSQ file.
fn is_psq_move(line: &str) -> bool {
    let parts: Vec<&str> = line.trim().split(',').collect();
    (2..=3).contains(&parts.len())
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.trim().bytes().all(|b| b.is_ascii_digit()))
}

/// A Piskvork record: `Piskvorky WxH, ...` then `x,y,ms` lines (1-based)
/// up to the first line that is not a move (the players' names, the
/// result).
fn read_psq(text: &str, rule: Rule, size: usize) -> Result<Game, GameError> {
    let mut lines = text.lines().peekable();
    let mut size = size;
    if let Some(head) = lines.peek().copied() {
        if head.starts_with("Piskvork") {
            lines.next();
            let dims = head
                .split_whitespace()
                .nth(1)
                .map(|d| d.trim_end_matches(','))
                .unwrap_or("");
            let (w, h) = dims
                .split_once('x')
                .ok_or_else(|| GameError(format!("PSQ header without a board size: '{head}'")))?;
            let (w, h): (usize, usize) = match (w.parse(), h.parse()) {
                (Ok(w), Ok(h)) => (w, h),
                _ => return err(format!("PSQ header with a bad board size: '{head}'")),
            };
            if w != h {
                return err(format!("the board page plays square boards, not {w}x{h}"));
            }
            size = w;
        }
    }
    let mut moves = Vec::new();
    for line in lines {
        if !is_psq_move(line) {
            break;
        }
        let mut it = line.trim().split(',').map(|n| n.trim().parse::<usize>());
        let (Some(Ok(x)), Some(Ok(y))) = (it.next(), it.next()) else {
            return err(format!("bad PSQ move line '{line}'"));
        };
        if x == 0 || y == 0 || x > size || y > size {
            return err(format!("PSQ move {x},{y} is off the {size}x{size} board"));
        }
        moves.push(Pos::new(x - 1, y - 1));
    }
    Ok(Game { rule, size, moves })
}

/// The properties of an SGF game's main line, in order: the first node's
/// and those of the nodes that follow it (the first variation of each
/// branch).
fn sgf_properties(text: &str) -> Result<Vec<(String, String)>, GameError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut depth = 0usize;
    // Once the main line's first variation ends, the rest is skipped.
    let mut done_depth: Option<usize> = None;
    let mut ident = String::new();
    while i < b.len() {
        let c = b[i];
        match c {
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                if depth == 0 {
                    return err("SGF: ')' without '('");
                }
                depth -= 1;
                if done_depth.is_none() {
                    done_depth = Some(depth);
                }
                i += 1;
                if depth == 0 {
                    return Ok(out);
                }
            }
            b'[' => {
                let start = i + 1;
                let mut j = start;
                let mut value = Vec::new();
                while j < b.len() && b[j] != b']' {
                    if b[j] == b'\\' && j + 1 < b.len() {
                        j += 1;
                    }
                    value.push(b[j]);
                    j += 1;
                }
                if j >= b.len() {
                    return err("SGF: a value without its ']'");
                }
                if ident.is_empty() {
                    return err("SGF: a value without a property name");
                }
                let skipping = done_depth.is_some_and(|d| depth > d);
                if !skipping {
                    out.push((ident.clone(), String::from_utf8_lossy(&value).into_owned()));
                }
                i = j + 1;
            }
            b';' => {
                ident.clear();
                i += 1;
            }
            c if c.is_ascii_uppercase() => {
                // A new name starts after a value; letters go on a name.
                if i > 0 && (b[i - 1] == b']' || b[i - 1].is_ascii_whitespace()) {
                    ident.clear();
                }
                ident.push(c as char);
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            c => {
                return err(format!(
                    "SGF: unexpected '{}' at offset {i}",
                    (c as char).escape_default()
                ))
            }
        }
        if out.len() > 4 * MAX_SIZE * MAX_SIZE {
            return err("SGF: more properties than any game has");
        }
    }
    err("SGF: the game is not closed with ')'")
}

/// An SGF game (`SZ`, `RU`, then `B`/`W` moves; `AB`/`AW` set-up stones
/// are refused: the board page keeps a game, not a diagram).
fn read_sgf(text: &str, rule: Rule, size: usize) -> Result<Game, GameError> {
    let props = sgf_properties(text)?;
    let mut game = Game {
        rule,
        size,
        moves: Vec::new(),
    };
    let mut next = Color::Black;
    for (id, v) in props {
        match id.as_str() {
            "SZ" => {
                let n = v.split(':').next().unwrap_or("").trim();
                game.size = n
                    .parse()
                    .map_err(|_| GameError(format!("SGF: bad board size SZ[{v}]")))?;
            }
            "RU" => {
                if let Ok(r) = v.parse::<Rule>() {
                    game.rule = r;
                }
            }
            "AB" | "AW" | "AE" => {
                return err("SGF: set-up stones (AB/AW) are not a game the board can replay")
            }
            "B" | "W" => {
                let c = if id == "B" {
                    Color::Black
                } else {
                    Color::White
                };
                if c != next {
                    return err(format!("SGF: two {} moves in a row", id));
                }
                let v = v.trim();
                if v.is_empty() {
                    return err("SGF: a pass is not a Gomoku move");
                }
                let xy: Vec<u8> = v.bytes().collect();
                if xy.len() != 2 || !xy.iter().all(|c| c.is_ascii_lowercase()) {
                    return err(format!("SGF: bad point {id}[{v}]"));
                }
                let (x, y) = ((xy[0] - b'a') as usize, (xy[1] - b'a') as usize);
                if x >= game.size || y >= game.size {
                    let s = game.size;
                    return err(format!("SGF: {id}[{v}] is off the {s}x{s} board"));
                }
                game.moves.push(Pos::new(x, y));
                next = next.opposite();
            }
            _ => {}
        }
    }
    Ok(game)
}

/// The game as a Piskvork `.psq` record (1-based `x,y,0` lines), with the
/// result code when the game is over (1 black won, 2 white won, 0 a full
/// board).
pub fn to_psq(game: &Game) -> String {
    let mut s = format!("Piskvorky {0}x{0}, 11:11, 0\n", game.size);
    for p in &game.moves {
        s.push_str(&format!("{},{},0\n", p.x() + 1, p.y() + 1));
    }
    if let Some(result) = result_of(game) {
        s.push_str("black\nwhite\n");
        s.push_str(match result {
            Some(Color::Black) => "1\n",
            Some(Color::White) => "2\n",
            None => "0\n",
        });
    }
    s
}

/// The game's result: `None` while it goes on; `Some(None)` a full board.
fn result_of(game: &Game) -> Option<Option<Color>> {
    let board = game.replay().ok()?;
    match board.winner() {
        Some(c) => Some(Some(c)),
        None if board.is_full() => Some(None),
        None => None,
    }
}

/// The game as one SGF tree (GM[4]), `RE` when it is over.
pub fn to_sgf(game: &Game) -> String {
    let mut s = format!(
        "(;GM[4]FF[4]CA[UTF-8]AP[tengen]SZ[{}]RU[{}]",
        game.size,
        game.rule.name()
    );
    match result_of(game) {
        Some(Some(Color::Black)) => s.push_str("RE[B+]"),
        Some(Some(Color::White)) => s.push_str("RE[W+]"),
        Some(None) => s.push_str("RE[0]"),
        None => {}
    }
    let mut c = Color::Black;
    for p in &game.moves {
        let who = if c == Color::Black { 'B' } else { 'W' };
        let (x, y) = ((b'a' + p.x() as u8) as char, (b'a' + p.y() as u8) as char);
        s.push_str(&format!(";{who}[{x}{y}]"));
        c = c.opposite();
    }
    s.push_str(")\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(rule: &str, size: usize, moves: &str) -> GameSpec {
        GameSpec {
            rule: Some(rule.into()),
            size: Some(size),
            moves: Some(moves.into()),
        }
    }

    #[test]
    fn games_are_checked_move_by_move() {
        let g = spec("freestyle", 15, "h8i9h9").game().unwrap();
        assert_eq!(g.moves.len(), 3);
        assert_eq!(g.pos_text(), "h8i9h9");
        let bad = |s: GameSpec| s.game().unwrap_err().0;
        assert!(bad(spec("chess", 15, "")).contains("unknown rule"));
        assert!(bad(spec("freestyle", 4, "")).contains("not offered"));
        assert!(bad(spec("freestyle", 23, "")).contains("not offered"));
        assert!(bad(spec("freestyle", 15, "h8h8")).contains("move 2 (h8) is on a stone"));
        assert!(bad(spec("freestyle", 9, "h8j10")).contains("off the 9x9 board"));
        assert!(bad(spec("freestyle", 15, "h8x")).contains("bad move list"));
        // Five in a row ends the game; a move after it is refused.
        let five = "a1b1a2b2a3b3a4b4a5";
        let b = spec("freestyle", 15, five)
            .game()
            .unwrap()
            .replay()
            .unwrap();
        assert_eq!(b.winner(), Some(Color::Black));
        assert!(bad(spec("freestyle", 15, &format!("{five}b5"))).contains("after the game"));
        // Renju: black's double three at h8 (f8 g8 / h6 h7 ... ) refused.
        let dt = "f8a1g8a3h6a5h7a7";
        let e = bad(spec("renju", 15, &format!("{dt}h8")));
        assert!(e.contains("forbidden for black"), "{e}");
        assert!(spec("freestyle", 15, &format!("{dt}h8")).game().is_ok());
    }

    #[test]
    fn records_round_trip() {
        let g = spec("renju", 15, "h8i9h9i8j10").game().unwrap();
        let psq = to_psq(&g);
        assert!(psq.starts_with("Piskvorky 15x15"));
        assert!(psq.contains("8,8,0\n9,9,0\n"));
        assert_eq!(import(&psq, Rule::Renju, 15).unwrap(), g);
        let sgf = to_sgf(&g);
        assert!(sgf.contains("RU[renju]"), "{sgf}");
        assert!(sgf.contains(";B[hh];W[ii]"), "{sgf}");
        // The SGF names its rule: imported under it whatever the page had.
        assert_eq!(import(&sgf, Rule::Freestyle, 9).unwrap(), g);
        assert_eq!(import("h8 i9 h9i8\nj10", Rule::Renju, 15).unwrap(), g);
        // A finished game carries its result.
        let won = spec("freestyle", 15, "a1b1a2b2a3b3a4b4a5").game().unwrap();
        assert!(to_psq(&won).ends_with("black\nwhite\n1\n"));
        assert!(to_sgf(&won).contains("RE[B+]"));
        // What the match runner writes reads back.
        let runner = "Piskvorky 20x20, 11:11, 0\n8,8,0\n9,9,120\n1,15,5\na\nb\n2\n";
        let g = import(runner, Rule::Freestyle, 15).unwrap();
        assert_eq!(g.size, 20);
        assert_eq!(
            g.moves,
            vec![Pos::new(7, 7), Pos::new(8, 8), Pos::new(0, 14)]
        );
        // Variations: the main line is read.
        let v = import("(;SZ[15];B[hh](;W[ii];B[jj])(;W[aa]))", Rule::Freestyle, 15).unwrap();
        assert_eq!(v.pos_text(), "h8i9j10");
    }

    #[test]
    fn bad_records_are_refused_with_a_reason() {
        let bad = |t: &str| import(t, Rule::Freestyle, 15).unwrap_err().0;
        assert!(bad("").contains("empty"));
        assert!(bad("Piskvorky 15x13, 11:11, 0\n1,1,0").contains("square"));
        assert!(bad("Piskvorky 30x30, 11:11, 0\n1,1,0").contains("not offered"));
        assert!(bad("Piskvorky 15x15, 11:11, 0\n16,1,0").contains("off the"));
        assert!(bad("Piskvorky 15x15, 11:11, 0\n1,1,0\n1,1,0").contains("on a stone"));
        assert!(bad("(;SZ[15];B[hh];B[ii])").contains("two B moves"));
        assert!(bad("(;SZ[15];B[hh]").contains("not closed"));
        assert!(bad("(;SZ[15];B[])").contains("pass"));
        assert!(bad("(;SZ[15];AB[hh])").contains("set-up"));
        assert!(bad("(;SZ[abc])").contains("bad board size"));
        assert!(bad("(;SZ[15];B[zz])").contains("off the"));
        assert!(bad("(;SZ[15];B[hh").contains("']'"));
        assert!(bad("hello world").contains("not a PSQ, SGF or pos"));
        assert!(bad("(;SZ[15]@)").contains("unexpected"));
    }
}
