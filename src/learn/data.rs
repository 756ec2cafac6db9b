//! Self-play game records: a compact binary file of whole games, from
//! which every position is rebuilt by replaying the moves.
//!
//! Little-endian. A file starts with the magic `TGSP` and a version byte,
//! then holds games one after another:
//!
//! | field | type |
//! |---|---|
//! | rule (index in `Rule::ALL`) | u8 |
//! | width, height | u8, u8 |
//! | result: 1 black won, 2 white won, 0 draw | u8 |
//! | opening length (stones before the first searched move) | u8 |
//! | number of moves n (opening included) | u16 |
//! | moves (cell index `y * 32 + x`) | n x u16 |
//! | search score of each move, for its mover (0 in the opening) | n x i16 |

use crate::types::{Color, Pos, Rule};
use std::io::{self, Read, Write};

const MAGIC: &[u8; 4] = b"TGSP";
const VERSION: u8 = 1;

/// One game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    pub winner: Option<Color>,
    pub opening: usize,
    pub moves: Vec<Pos>,
    pub scores: Vec<i16>,
}

/// Writes the file header.
pub fn write_header(w: &mut impl Write) -> io::Result<()> {
    w.write_all(MAGIC)?;
    w.write_all(&[VERSION])
}

impl GameRecord {
    /// Appends the game to a file (after its header).
    pub fn write(&self, w: &mut impl Write) -> io::Result<()> {
        let rule = self.rule.index() as u8;
        let result = match self.winner {
            None => 0u8,
            Some(Color::Black) => 1,
            Some(Color::White) => 2,
        };
        let n = self.moves.len() as u16;
        let mut buf = Vec::with_capacity(8 + 4 * self.moves.len());
        buf.extend_from_slice(&[
            rule,
            self.width as u8,
            self.height as u8,
            result,
            self.opening as u8,
        ]);
        buf.extend_from_slice(&n.to_le_bytes());
        for p in &self.moves {
            buf.extend_from_slice(&(p.index() as u16).to_le_bytes());
        }
        for s in &self.scores {
            buf.extend_from_slice(&s.to_le_bytes());
        }
        w.write_all(&buf)
    }
}

fn bad(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

/// Reads every game of a file, checking the header and each record.
pub fn read_games(r: &mut impl Read) -> io::Result<Vec<GameRecord>> {
    read(r, false).map(|(games, _)| games)
}

/// [`read_games`] for a file still being written, or one whose writer was
/// stopped: a truncated last game is left out, and its byte offset given.
pub fn read_complete_games(r: &mut impl Read) -> io::Result<(Vec<GameRecord>, Option<usize>)> {
    read(r, true)
}

fn read(r: &mut impl Read, allow_cut: bool) -> io::Result<(Vec<GameRecord>, Option<usize>)> {
    let mut bytes = Vec::new();
    r.read_to_end(&mut bytes)?;
    if bytes.len() < 5 || &bytes[..4] != MAGIC {
        return Err(bad("not a tengen self-play file"));
    }
    if bytes[4] != VERSION {
        return Err(bad(format!(
            "self-play file version {} (this build reads {VERSION})",
            bytes[4]
        )));
    }
    let mut games = Vec::new();
    let mut i = 5;
    while i < bytes.len() {
        let at = i;
        let truncated = || {
            bad(format!(
                "game {} at byte {at} is truncated",
                games.len() + 1
            ))
        };
        let complete = bytes.get(i..i + 7).is_some_and(|h| {
            let n = u16::from_le_bytes([h[5], h[6]]) as usize;
            i + 7 + 4 * n <= bytes.len()
        });
        if allow_cut && !complete {
            return Ok((games, Some(at)));
        }
        let head = bytes.get(i..i + 7).ok_or_else(truncated)?;
        let rule = *Rule::ALL
            .get(head[0] as usize)
            .ok_or_else(|| bad(format!("game at byte {at}: unknown rule {}", head[0])))?;
        let (width, height) = (head[1] as usize, head[2] as usize);
        if !(crate::types::MIN_SIZE..=crate::types::MAX_SIZE).contains(&width)
            || !(crate::types::MIN_SIZE..=crate::types::MAX_SIZE).contains(&height)
        {
            return Err(bad(format!("game at byte {at}: bad size {width}x{height}")));
        }
        let winner = match head[3] {
            0 => None,
            1 => Some(Color::Black),
            2 => Some(Color::White),
            v => return Err(bad(format!("game at byte {at}: bad result {v}"))),
        };
        let opening = head[4] as usize;
        let n = u16::from_le_bytes([head[5], head[6]]) as usize;
        i += 7;
        let body = bytes.get(i..i + 4 * n).ok_or_else(truncated)?;
        let mut moves = Vec::with_capacity(n);
        for k in 0..n {
            let v = u16::from_le_bytes([body[2 * k], body[2 * k + 1]]) as usize;
            let p = Pos::from_index(v);
            if p.x() >= width || p.y() >= height {
                return Err(bad(format!("game at byte {at}: move {k} off the board")));
            }
            moves.push(p);
        }
        let scores = (0..n)
            .map(|k| i16::from_le_bytes([body[2 * n + 2 * k], body[2 * n + 2 * k + 1]]))
            .collect();
        i += 4 * n;
        games.push(GameRecord {
            rule,
            width,
            height,
            winner,
            opening: opening.min(n),
            moves,
            scores,
        });
    }
    Ok((games, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> GameRecord {
        GameRecord {
            rule: Rule::Renju,
            width: 15,
            height: 15,
            winner: Some(Color::White),
            opening: 2,
            moves: vec![Pos::new(7, 7), Pos::new(8, 8), Pos::new(14, 0)],
            scores: vec![0, 0, -29_990],
        }
    }

    #[test]
    fn games_round_trip() {
        let mut buf = Vec::new();
        write_header(&mut buf).unwrap();
        game().write(&mut buf).unwrap();
        let mut second = game();
        second.winner = None;
        second.rule = Rule::Freestyle;
        second.width = 20;
        second.write(&mut buf).unwrap();
        let back = read_games(&mut buf.as_slice()).unwrap();
        assert_eq!(back, vec![game(), second]);
    }

    #[test]
    fn damaged_files_are_refused() {
        let mut buf = Vec::new();
        write_header(&mut buf).unwrap();
        game().write(&mut buf).unwrap();
        let cut = &buf[..buf.len() - 1];
        let e = read_games(&mut &cut[..]).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
        // A file still being written: its complete games, and where the
        // cut one starts.
        let mut two = buf.clone();
        game().write(&mut two).unwrap();
        for cut in [buf.len() + 3, two.len() - 1] {
            let (games, at) = read_complete_games(&mut &two[..cut]).unwrap();
            assert_eq!((games, at), (vec![game()], Some(buf.len())));
        }
        assert_eq!(
            read_complete_games(&mut two.as_slice()).unwrap(),
            (vec![game(), game()], None)
        );
        let mut other = buf.clone();
        other[4] = 9;
        let e = read_games(&mut other.as_slice()).unwrap_err().to_string();
        assert!(e.contains("version 9"), "{e}");
        assert!(read_games(&mut &b"hello"[..]).is_err());
    }
}
