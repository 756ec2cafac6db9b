//! Parsing of match settings: time controls, opening books, engine
//! command lines.

use crate::board::Board;
use crate::types::{parse_pos_list, Color, Pos, Rule};
use std::time::Duration;

/// A time control: per move, per game, increment per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TimeControl {
    /// Time for one move (`None`: no per-move limit).
    pub turn: Option<Duration>,
    /// Time for the whole game (`None`: unlimited).
    pub game: Option<Duration>,
    /// Added to the game clock after each move.
    pub increment: Duration,
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        return Err(format!("'{s}' needs a unit: ms, s or m"));
    };
    let v: f64 = num.trim().parse().map_err(|_| format!("bad time '{s}'"))?;
    if !(v.is_finite() && v >= 0.0) {
        return Err(format!("bad time '{s}'"));
    }
    Ok(Duration::from_micros((v * unit * 1000.0).round() as u64))
}

impl TimeControl {
    /// The control as [`TimeControl::parse`] reads it back exactly
    /// (`100ms+0ms`, `0ms/60000ms+0ms`: milliseconds to the microsecond).
    pub fn spec(&self) -> String {
        let ms = |d: Duration| format!("{}ms", d.as_micros() as f64 / 1000.0);
        let game = self.game.map(|g| format!("/{}", ms(g))).unwrap_or_default();
        format!(
            "{}{game}+{}",
            ms(self.turn.unwrap_or(Duration::ZERO)),
            ms(self.increment)
        )
    }

    /// `TURN[/GAME][+INC]`, each with a unit: `100ms`, `1s`, `5s/120s`,
    /// `10s/180s+1s`. A turn of `0s` with a game time means no per-move
    /// limit.
    pub fn parse(s: &str) -> Result<TimeControl, String> {
        let (main, inc) = match s.split_once('+') {
            Some((m, i)) => (m, parse_duration(i)?),
            None => (s, Duration::ZERO),
        };
        let (turn, game) = match main.split_once('/') {
            Some((t, g)) => (parse_duration(t)?, Some(parse_duration(g)?)),
            None => (parse_duration(main)?, None),
        };
        if turn.is_zero() && game.is_none() {
            return Err(format!("time control '{s}' gives no time"));
        }
        Ok(TimeControl {
            turn: (!turn.is_zero()).then_some(turn),
            game,
            increment: inc,
        })
    }
}

/// One opening line: the moves from black, in the board's coordinates.
pub fn parse_opening(line: &str, size: usize) -> Result<Vec<Pos>, String> {
    let line = line.trim();
    let moves: Vec<(i64, i64)> = if line.contains(',') {
        // Offset notation: dx,dy pairs from the centre.
        let nums: Result<Vec<i64>, _> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .map(|t| t.parse::<i64>())
            .collect();
        let nums = nums.map_err(|_| format!("bad offset opening '{line}'"))?;
        if nums.len() % 2 != 0 {
            return Err(format!("odd number of offsets in '{line}'"));
        }
        let c = (size / 2) as i64;
        nums.chunks(2).map(|p| (c + p[0], c + p[1])).collect()
    } else {
        parse_pos_list(line)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|p| (p.x() as i64, p.y() as i64))
            .collect()
    };
    let mut out = Vec::with_capacity(moves.len());
    for (x, y) in moves {
        if x < 0 || y < 0 || x >= size as i64 || y >= size as i64 {
            return Err(format!("opening '{line}' leaves the {size}x{size} board"));
        }
        let p = Pos::new(x as usize, y as usize);
        if out.contains(&p) {
            return Err(format!("opening '{line}' plays {x},{y} twice"));
        }
        out.push(p);
    }
    Ok(out)
}

/// One opening line checked for a game under `rule`: it must leave a game
/// to play (no five on the board, no full board) and, under renju, place
/// no black stone on a cell forbidden when it is played.
pub fn parse_playable_opening(line: &str, size: usize, rule: Rule) -> Result<Vec<Pos>, String> {
    let moves = parse_opening(line, size)?;
    let mut board = Board::new(size, rule).map_err(|e| e.to_string())?;
    for &p in &moves {
        if board.side_to_move() == Color::Black && board.is_forbidden(p) {
            return Err(format!("opening '{}': black {p} is forbidden", line.trim()));
        }
        board.make(p);
        if board.is_won() {
            return Err(format!("opening '{}' already holds a five", line.trim()));
        }
    }
    if board.is_full() {
        return Err(format!("opening '{}' fills the board", line.trim()));
    }
    Ok(moves)
}

/// The opening lines of a book file: LF, CRLF or CR, a missing final newline,
/// blank lines and `#` comments accepted.
pub fn book_lines(text: &str) -> Vec<String> {
    text.split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The openings of a book file that fit a board.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    /// In file order.
    pub openings: Vec<String>,
    /// Lines that do not fit, and the first one's reason.
    pub skipped: Option<(usize, String)>,
}

/// The openings of a book file that fit a `size` board and leave a game
/// to play under `rule` ([`parse_playable_opening`]). A book with none
/// that fit is an error.
pub fn load_book(path: &std::path::Path, size: usize, rule: Rule) -> Result<Book, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    // A line that is not UTF-8 is one more line that does not fit.
    let text = String::from_utf8_lossy(&bytes);
    let (fit, skipped): (Vec<String>, Vec<String>) = book_lines(&text)
        .into_iter()
        .partition(|l| parse_playable_opening(l, size, rule).is_ok());
    if fit.is_empty() {
        return Err(format!(
            "{} holds no opening for a {size}x{size} board",
            path.display()
        ));
    }
    let why = skipped.first().map(|first| {
        (
            skipped.len(),
            parse_playable_opening(first, size, rule)
                .err()
                .unwrap_or_default(),
        )
    });
    Ok(Book {
        openings: fit,
        skipped: why,
    })
}

/// The openings of several book files ([`load_book`] each), one from each
/// in turn while they last, then the rest of the longer ones: a mixed
/// book, e.g. half tengen's own openings and half an outside judge's. The
/// skipped count is the sum; the reason is the first book's that had one.
pub fn load_books(paths: &[std::path::PathBuf], size: usize, rule: Rule) -> Result<Book, String> {
    let books = paths
        .iter()
        .map(|p| load_book(p, size, rule))
        .collect::<Result<Vec<_>, _>>()?;
    let longest = books.iter().map(|b| b.openings.len()).max().unwrap_or(0);
    let mut openings = Vec::new();
    for i in 0..longest {
        for b in &books {
            if let Some(o) = b.openings.get(i) {
                openings.push(o.clone());
            }
        }
    }
    let skipped_count: usize = books
        .iter()
        .filter_map(|b| b.skipped.as_ref())
        .map(|s| s.0)
        .sum();
    let skipped = books
        .iter()
        .find_map(|b| b.skipped.as_ref())
        .map(|(_, why)| (skipped_count, why.clone()));
    Ok(Book { openings, skipped })
}

/// A shard `K/N` (1 <= K <= N): part K of N of a match's game list.
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard {s}: expected K/N with 1 <= K <= N");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// One of the 8 symmetries of a square board (0 = identity).
pub fn transform(p: Pos, k: usize, size: usize) -> Pos {
    let (x, y) = (p.x(), p.y());
    let m = size - 1;
    let (x, y) = match k % 8 {
        0 => (x, y),
        1 => (m - y, x),
        2 => (m - x, m - y),
        3 => (y, m - x),
        4 => (m - x, y),
        5 => (x, m - y),
        6 => (y, x),
        _ => (m - y, m - x),
    };
    Pos::new(x, y)
}

/// Splits a command line like a shell: spaces separate words, single and
/// double quotes group, backslash escapes outside single quotes.
pub fn split_command(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => cur.push(ch),
                        None => return Err(format!("unclosed ' in '{s}'")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch) => cur.push(ch),
                            None => return Err(format!("dangling \\ in '{s}'")),
                        },
                        Some(ch) => cur.push(ch),
                        None => return Err(format!("unclosed \" in '{s}'")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(ch) => cur.push(ch),
                    None => return Err(format!("dangling \\ in '{s}'")),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err("empty engine command".into());
    }
    Ok(words)
}

/// An engine as given on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name given with `name=`, else learnt from ABOUT.
    pub name: Option<String>,
    pub argv: Vec<String>,
    /// Search threads asked for with `INFO thread_num` (`threads=`).
    pub threads: Option<u32>,
}

impl EngineSpec {
    /// `CMD`, or settings then the command: `name=NAME,threads=N,cmd=CMD`
    /// (any of the settings, in any order; cmd last: it may hold commas).
    pub fn parse(s: &str) -> Result<EngineSpec, String> {
        let s = s.trim();
        let keyed = s.starts_with("cmd=") || s.contains(",cmd=");
        if !keyed {
            return Ok(EngineSpec {
                name: None,
                argv: split_command(s)?,
                threads: None,
            });
        }
        let (head, cmd) = match s.strip_prefix("cmd=") {
            Some(cmd) => ("", cmd),
            None => s
                .split_once(",cmd=")
                .ok_or(format!("'{s}': expected name=NAME,threads=N,cmd=CMD"))?,
        };
        let mut spec = EngineSpec {
            name: None,
            argv: split_command(cmd)?,
            threads: None,
        };
        for item in head.split(',').filter(|i| !i.is_empty()) {
            match item.split_once('=') {
                Some(("name", n)) => spec.name = Some(n.to_string()),
                Some(("threads", n)) => match n.trim().parse::<u32>() {
                    Ok(t) if t >= 1 => spec.threads = Some(t),
                    _ => return Err(format!("'{s}': threads={n} is not 1 or more")),
                },
                _ => return Err(format!("'{s}': unknown engine setting '{item}'")),
            }
        }
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Opening files of random bytes, 1 MB lines, CR-only and CRLF mixes,
    /// off-board and repeated moves, fives and full boards: the book reader
    /// never panics, and every opening it keeps is a game to play.
    #[test]
    fn fuzzed_opening_books() {
        let mut rng = StdRng::seed_from_u64(9);
        let dir = std::env::temp_dir().join(format!("tengen-books-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (mut lines, mut kept, mut files) = (0usize, 0usize, 0usize);
        // Mostly on the board, now and then one column or row past it.
        let pos = |rng: &mut StdRng, size: usize| {
            let edge = size + (rng.gen_range(0..20) == 0) as usize;
            Pos::new(rng.gen_range(0..edge), rng.gen_range(0..edge)).to_pos_string()
        };
        for f in 0..300 {
            let size = [5, 6, 15, 20][f % 4];
            let rule = Rule::ALL[f % Rule::ALL.len()];
            let mut text: Vec<u8> = Vec::new();
            for _ in 0..rng.gen_range(0..200) {
                let line: Vec<u8> = match rng.gen_range(0..10) {
                    0 => (0..rng.gen_range(0..60)).map(|_| rng.gen()).collect(),
                    1 if rng.gen_range(0..50) == 0 => vec![b'h'; 1 << 20],
                    2 => {
                        let n = rng.gen_range(0..8) * 2 + rng.gen_range(0..10) / 9;
                        let offs: Vec<String> =
                            (0..n).map(|_| rng.gen_range(-4..4).to_string()).collect();
                        offs.join(", ").into_bytes()
                    }
                    3 => b"h8i8h9i9h10i10h11i11h12".to_vec(),
                    4 => b"# a comment".to_vec(),
                    _ => (0..rng.gen_range(0..8))
                        .map(|_| pos(&mut rng, size))
                        .collect::<String>()
                        .into_bytes(),
                };
                text.extend_from_slice(&line);
                text.extend_from_slice([&b"\n"[..], b"\r\n", b"\r"][rng.gen_range(0..3)]);
                lines += 1;
            }
            let path = dir.join(format!("book{f}.txt"));
            std::fs::write(&path, &text).unwrap();
            files += 1;
            let Ok(book) = load_book(&path, size, rule) else {
                continue;
            };
            for o in &book.openings {
                let moves = parse_playable_opening(o, size, rule).expect("kept, so playable");
                let mut b = Board::new(size, rule).unwrap();
                for p in moves {
                    assert!(b.is_empty(p), "{o}");
                    b.make(p);
                    assert!(!b.is_won(), "{o}");
                }
                kept += 1;
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        println!("opening fuzz: {files} files, {lines} lines, {kept} openings kept");
        assert!(kept > 100, "{kept}");
    }

    #[test]
    fn time_controls() {
        let ms = Duration::from_millis;
        assert_eq!(
            TimeControl::parse("100ms").unwrap(),
            TimeControl {
                turn: Some(ms(100)),
                game: None,
                increment: Duration::ZERO
            }
        );
        assert_eq!(TimeControl::parse("1s").unwrap().turn, Some(ms(1000)));
        let t = TimeControl::parse("5s/120s").unwrap();
        assert_eq!((t.turn, t.game), (Some(ms(5000)), Some(ms(120_000))));
        let t = TimeControl::parse("10s/180s+1s").unwrap();
        assert_eq!(
            (t.turn, t.game, t.increment),
            (Some(ms(10_000)), Some(ms(180_000)), ms(1000))
        );
        assert_eq!(TimeControl::parse("0s/60s").unwrap().turn, None);
        assert_eq!(TimeControl::parse("0.5s").unwrap().turn, Some(ms(500)));
        for text in [
            "100ms",
            "5s/120s",
            "10s/180s+1s",
            "0s/60s",
            "1.5ms/2m+0.25s",
        ] {
            let t = TimeControl::parse(text).unwrap();
            assert_eq!(TimeControl::parse(&t.spec()).unwrap(), t, "{text}");
        }
        for bad in ["100", "abc", "1x", "-1s", "0s", "1s/2", ""] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn openings_in_both_notations() {
        let off = parse_opening("0,0, 1,0, 1,3", 15).unwrap();
        assert_eq!(off, vec![Pos::new(7, 7), Pos::new(8, 7), Pos::new(8, 10)]);
        let pos = parse_opening("h8i8i11", 15).unwrap();
        assert_eq!(pos, off);
        assert!(parse_opening("0,0, 1", 15).is_err());
        assert!(parse_opening("0,0, 9,0", 15).is_err());
        assert!(parse_opening("h8h8", 15).is_err());
        // Openings that leave no game: a five, a full board, a forbidden
        // black stone (renju: h8 is a double three for black at the end).
        let five = "h8i8h9i9h10i10h11i11h12";
        assert!(parse_opening(five, 15).is_ok());
        let e = parse_playable_opening(five, 15, Rule::Freestyle).unwrap_err();
        assert!(e.contains("five"), "{e}");
        let full: String = (0..25)
            .map(|i| Pos::new(i % 5, i / 5).to_pos_string())
            .collect();
        let e = parse_playable_opening(&full, 5, Rule::Freestyle).unwrap_err();
        assert!(e.contains("five") || e.contains("fills"), "{e}");
        let double_three = "f8a1g8a15h6o1h7o15h8";
        assert!(parse_playable_opening(double_three, 15, Rule::Freestyle).is_ok());
        let e = parse_playable_opening(double_three, 15, Rule::Renju).unwrap_err();
        assert!(e.contains("forbidden"), "{e}");
        assert!(parse_opening("zz", 15).is_err());
        // The c-gomoku-cli example file: CRLF, no final newline.
        let text = "8,-3, 6,-4\r\n\r\n6,6, 4,6\r\n# comment\r\n-1,3";
        assert_eq!(book_lines(text), vec!["8,-3, 6,-4", "6,6, 4,6", "-1,3"]);
        let shared = include_str!("../../openings/README.md");
        assert!(shared.contains("offset"));
    }

    #[test]
    fn symmetries_are_distinct_and_invertible() {
        let p = Pos::new(2, 5);
        let images: std::collections::HashSet<Pos> = (0..8).map(|k| transform(p, k, 15)).collect();
        assert_eq!(images.len(), 8);
        for k in 0..8 {
            let q = transform(p, k, 15);
            assert!(q.x() < 15 && q.y() < 15);
        }
    }

    #[test]
    fn command_lines() {
        assert_eq!(split_command("a b  c").unwrap(), vec!["a", "b", "c"]);
        assert_eq!(
            split_command("'/x y/e' --o \"q r\"").unwrap(),
            vec!["/x y/e", "--o", "q r"]
        );
        assert!(split_command("'open").is_err());
        assert!(split_command("  ").is_err());
        let e = EngineSpec::parse("name=Old,cmd=./pbrain-x --a 1,2").unwrap();
        assert_eq!(e.name.as_deref(), Some("Old"));
        assert_eq!(e.argv, vec!["./pbrain-x", "--a", "1,2"]);
        assert_eq!(EngineSpec::parse("pbrain-y").unwrap().name, None);
        let t = EngineSpec::parse("threads=2,name=T,cmd=./e x,y").unwrap();
        assert_eq!(
            (t.name.as_deref(), t.threads, t.argv.len()),
            (Some("T"), Some(2), 2)
        );
        assert_eq!(EngineSpec::parse("cmd=./e").unwrap().threads, None);
        assert!(EngineSpec::parse("threads=0,cmd=./e").is_err());
        assert!(EngineSpec::parse("colour=red,cmd=./e").is_err());
    }

    #[test]
    fn books_given_together_are_mixed_one_opening_of_each_in_turn() {
        let d = std::env::temp_dir().join(format!("tengen-books-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let (a, b) = (d.join("a.txt"), d.join("b.txt"));
        std::fs::write(&a, "# own\nh8\nh8i9\nh8i9h9\n").unwrap();
        std::fs::write(&b, "# outside\na1\nzz9\nb2\n").unwrap();
        let mixed = load_books(&[a.clone(), b.clone()], 15, Rule::Freestyle).unwrap();
        assert_eq!(mixed.openings, ["h8", "a1", "h8i9", "b2", "h8i9h9"]);
        assert_eq!(mixed.skipped.as_ref().map(|s| s.0), Some(1));
        let alone = load_books(std::slice::from_ref(&a), 15, Rule::Freestyle).unwrap();
        assert_eq!(
            alone.openings,
            load_book(&a, 15, Rule::Freestyle).unwrap().openings
        );
        assert!(load_books(&[a, d.join("missing.txt")], 15, Rule::Freestyle).is_err());
        let _ = std::fs::remove_dir_all(&d);
    }
}
