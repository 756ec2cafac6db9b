//! The protocol loop fuzzed in-process, at volume: the reader's line
//! splitting and the session's handling are the very code the binary runs,
//! fed random and mutated commands (every Gomocup and Yixin command, bad
//! arguments, garbage bytes, CR/CRLF/LF mixes, lines past the cap) one at
//! a time. After each, it checks: no panic, exactly one reply for each
//! command that expects one (none for those that expect none, or a lone
//! `ERROR`), a legal move for each `BEGIN`/`TURN`/`BOARD` answered with one
//! (renju-forbidden cells and blocked cells included), the engine's colour
//! right after any `BOARD`, and the incremental board equal to one
//! recomputed from scratch.

use super::*;
use crate::board::rules::is_banned;
use crate::board::Board;
use crate::pattern::Class;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::Cursor;
use std::sync::mpsc::TryRecvError;

/// Lines fed in all (block lines and garbage included).
const LINES: usize = 1_000_000;

const INFO_KEYS: [&str; 12] = [
    "timeout_turn",
    "timeout_match",
    "time_left",
    "max_memory",
    "rule",
    "max_depth",
    "max_node",
    "game_type",
    "thread_num",
    "folder",
    "evaluate",
    "nonsense",
];

/// A number, often near the board, sometimes wild.
fn num(rng: &mut StdRng) -> String {
    match rng.gen_range(0..10) {
        0 => format!("-{}", rng.gen_range(0..30)),
        1 => rng.gen::<u64>().to_string(),
        2 => "x".into(),
        3 => String::new(),
        _ => rng.gen_range(0..24).to_string(),
    }
}

/// A line of random printable bytes, spaces and commas (never a line end).
fn garbage(rng: &mut StdRng) -> String {
    let n = rng.gen_range(0..40);
    (0..n)
        .map(|_| match rng.gen_range(0..6) {
            0 => ' ',
            1 => ',',
            2 => char::from(rng.gen_range(b'0'..=b'9')),
            3 => char::from_u32(rng.gen_range(0x80..0x3000)).unwrap_or('?'),
            _ => char::from(rng.gen_range(b'!'..=b'~')),
        })
        .collect()
}

/// A command line that takes no block, or garbage.
fn one_line(rng: &mut StdRng, size: usize) -> String {
    let xy = |rng: &mut StdRng| {
        if rng.gen_range(0..8) == 0 {
            format!("{},{}", num(rng), num(rng))
        } else {
            format!("{},{}", rng.gen_range(0..size), rng.gen_range(0..size))
        }
    };
    match rng.gen_range(0..100) {
        0..=24 => {
            let key = INFO_KEYS[rng.gen_range(0..INFO_KEYS.len())];
            if key == "max_memory" {
                // Small tables (each is cleared at every new game: large
                // ones would make this test slow; tests/protocol_faults.rs
                // has the huge limit).
                return format!("INFO {key} {}", rng.gen_range(1..42u64 << 20));
            }
            format!("INFO {key} {}", num(rng))
        }
        25..=34 => [
            "ABOUT",
            "YXSHOWFORBID",
            "YXHASHCLEAR",
            "YXBLOCKRESET",
            "STOP",
        ][rng.gen_range(0..5)]
        .to_string(),
        35..=44 => format!("PLAY {}", xy(rng)),
        45..=49 => format!("TAKEBACK {}", xy(rng)),
        50..=51 => format!("START {}", num(rng)),
        52 => format!("RECTSTART {},{}", num(rng), num(rng)),
        53 => "RESTART".into(),
        54..=58 => format!("TURN {}", xy(rng)),
        59 => "BEGIN".into(),
        60 => format!("YXNBEST {}", rng.gen_range(0..4)),
        61..=75 => {
            // A known word, in any case, with garbage after it.
            let w = command::COMMAND_WORDS[rng.gen_range(0..command::COMMAND_WORDS.len())];
            let w = match rng.gen_range(0..3) {
                0 => w.to_ascii_lowercase(),
                _ => w.to_string(),
            };
            format!("{w} {}", garbage(rng))
        }
        _ => garbage(rng),
    }
}

/// The lines of a block: stones (fields 1 to 3, a few bad) and `DONE`.
fn block(rng: &mut StdRng, size: usize, stones: bool) -> Vec<String> {
    let mut lines = Vec::new();
    let n = rng.gen_range(0..12);
    let mut used = Vec::new();
    for _ in 0..n {
        let (x, y) = (rng.gen_range(0..size), rng.gen_range(0..size));
        if rng.gen_range(0..30) == 0 {
            let g = garbage(rng);
            // Not a block's end (DONE, END): those are tested apart.
            if parse(&g) != Command::End && !g.trim().eq_ignore_ascii_case("done") {
                lines.push(g);
            }
        } else if used.contains(&(x, y)) && rng.gen_range(0..4) != 0 {
            continue;
        } else if stones {
            used.push((x, y));
            lines.push(format!("{x},{y},{}", rng.gen_range(1..=3)));
        } else {
            lines.push(format!("{x},{y}"));
        }
    }
    lines.push(
        if rng.gen_range(0..2) == 0 {
            "DONE"
        } else {
            "done"
        }
        .into(),
    );
    lines
}

/// Joins lines with random line ends (LF, CRLF, CR), as raw bytes.
fn raw(rng: &mut StdRng, lines: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l.as_bytes());
        out.extend_from_slice([&b"\n"[..], b"\r\n", b"\r"][rng.gen_range(0..3)]);
    }
    out
}

/// Does a top-level line start a block (and so must come with one)?
fn takes_block(cmd: &Command) -> bool {
    matches!(
        cmd,
        Command::Board
            | Command::YxBoard
            | Command::Swap2Board
            | Command::YxBlock
            | Command::YxBlockUndo
    )
}

/// How many non-MESSAGE replies a command gives: exactly one, or none
/// (a lone ERROR allowed).
fn expects_reply(cmd: &Command) -> bool {
    !matches!(
        cmd,
        Command::Info(..)
            | Command::Stop
            | Command::YxHashClear
            | Command::YxBlock
            | Command::YxBlockUndo
            | Command::YxBlockReset
            | Command::YxBoard
    )
}

/// The colour of the engine after a BOARD of these fields: the side with
/// more stones is black; even counts, black to move.
fn colour_of_board(fields: &[u8]) -> Color {
    let own = fields.iter().filter(|&&f| f == 1).count();
    if own + 1 == fields.len() - own {
        Color::White
    } else if 2 * own == fields.len() {
        Color::Black
    } else {
        Color::to_move_after(fields.len())
    }
}

#[test]
fn a_million_fuzzed_lines() {
    let mut rng = StdRng::seed_from_u64(28);
    // Small searches: the horizon's threat search too (it runs to its own
    // budget), and no root solver (the protocol is under test here; the
    // solver has tests of its own).
    let params = crate::search::params::Params {
        vcf_nodes: 64,
        solve_share: 0,
        refute_share: 0,
        ..Default::default()
    };
    let mut engine = Engine::with(params, crate::eval::Evaluator::shipped());
    let (tx, rx) = channel();
    let stop = engine.stop_flag();
    let quit = Arc::new(AtomicBool::new(false));
    let stops = Arc::new(AtomicU64::new(0));
    let mut session = Session {
        engine: &mut engine,
        out: Vec::<u8>::new(),
        rx,
        quit: quit.clone(),
        stop: stop.clone(),
        stops: stops.clone(),
    };
    let (mut lines, mut commands, mut moves, mut boards, mut long) = (0, 0, 0, 0, 0);
    while lines < LINES {
        // Fast searches and a small table, whatever the fuzz set: node
        // and depth limits from 1 to 10 (a five and a block are played
        // at every one), or 48 nodes to depth 2.
        let o = &mut session.engine.options;
        let tight = |rng: &mut StdRng, other: u64| match rng.gen_range(0..3) {
            0 => other,
            _ => rng.gen_range(1..=10),
        };
        o.max_nodes = Some(tight(&mut rng, 48));
        o.max_depth = Some(tight(&mut rng, 2) as i32);
        o.timeout_turn = 1000;
        let size = session.engine.size().map_or(15, |(w, h)| w.min(h));
        let mut unit = vec![one_line(&mut rng, size)];
        let r = rng.gen_range(0..1000);
        if r < 20 {
            unit = vec!["BOARD".into()];
            unit.extend(block(&mut rng, size, true));
        } else if r < 50 {
            unit = vec!["YXBOARD".into()];
            unit.extend(block(&mut rng, size, true));
        } else if r < 70 {
            unit = vec![["YXBLOCK", "YXBLOCKUNDO"][rng.gen_range(0..2)].into()];
            unit.extend(block(&mut rng, size, false));
        } else if r < 73 {
            unit = vec!["SWAP2BOARD".into()];
            let mut b = block(&mut rng, size, true);
            b.truncate(rng.gen_range(0..b.len()));
            b.push("DONE".into());
            unit.extend(b);
        } else if r == 999 && rng.gen_range(0..40) == 0 {
            unit = vec!["x".repeat(MAX_LINE + rng.gen_range(1..1000))];
            long += 1;
        }
        let first = parse(&unit[0]);
        if unit.len() == 1 && (takes_block(&first) || first == Command::End) {
            continue;
        }
        // What the engine knew before: its side to move and blocked cells.
        let before_side = session.engine.board().map(|b| b.side_to_move());
        let blocked = session.engine.blocked.clone();
        let bytes = raw(&mut rng, &unit);
        lines += unit.len();
        assert!(read_inputs(
            &mut Cursor::new(bytes),
            &tx,
            &stop,
            &quit,
            &stops
        ));
        let too_long = unit[0].len() > MAX_LINE;
        if !too_long && unit[0].trim().is_empty() {
            // Skipped by the reader: nothing to answer.
            assert!(matches!(session.rx.try_recv(), Err(TryRecvError::Empty)));
            continue;
        }
        session.out.clear();
        assert!(session.step(), "the session ended on {:?}", unit[0]);
        assert!(
            matches!(session.rx.try_recv(), Err(TryRecvError::Empty)),
            "input left over after {unit:?}"
        );
        commands += 1;
        let text = String::from_utf8(std::mem::take(&mut session.out)).expect("UTF-8 replies");
        let replies: Vec<&str> = text.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
        let cmd = if too_long { Command::About } else { first };
        if too_long {
            assert_eq!(replies.len(), 1, "{text}");
            assert!(replies[0].starts_with("ERROR line longer"), "{text}");
            continue;
        }
        if expects_reply(&cmd) {
            assert_eq!(replies.len(), 1, "{unit:?} -> {text:?}");
        } else {
            assert!(
                replies.is_empty() || (replies.len() == 1 && replies[0].starts_with("ERROR")),
                "{unit:?} -> {text:?}"
            );
        }
        let searched = matches!(cmd, Command::Begin | Command::Turn(..) | Command::Board);
        if let (true, Some(p)) = (searched, replies.first().and_then(|r| parse_xy(r))) {
            moves += 1;
            let p = Pos::new(p.0, p.1);
            let b = session.engine.board_mut().expect("a game");
            let (last, colour) = b.moves().last().expect("the move is on the board");
            assert_eq!(last, p, "{unit:?}");
            assert!(!blocked.contains(&p) || b.ply() == b.width() * b.height());
            let me = match cmd {
                Command::Board => {
                    boards += 1;
                    let fields: Vec<u8> = unit[1..unit.len() - 1]
                        .iter()
                        .filter_map(|l| l.rsplit(',').next()?.trim().parse().ok())
                        .collect();
                    colour_of_board(&fields)
                }
                Command::Begin => before_side.expect("a game"),
                _ => b.moves().rev().nth(1).expect("their stone").1.opposite(),
            };
            assert_eq!(colour, me, "{unit:?}");
            b.unmake();
            forced_answer_taken(b, p, colour, &blocked, &unit);
            b.play_color(p, colour);
            if b.rule() == Rule::Renju && colour == Color::Black {
                b.unmake();
                let forbidden = b.is_forbidden(p);
                let cells = *b.cells();
                let any_legal = cells
                    .iter()
                    .any(|q| b.is_empty(q) && !blocked.contains(&q) && !b.is_forbidden(q));
                b.play_color(p, colour);
                assert!(!forbidden || !any_legal, "forbidden {p}: {unit:?}");
            }
        }
        if let Some(b) = session.engine.board() {
            if !matches!(
                cmd,
                Command::Info(..) | Command::About | Command::Unknown(_)
            ) {
                b.check_consistency()
                    .unwrap_or_else(|e| panic!("{e} after {unit:?}"));
            }
        }
    }
    println!(
        "protocol fuzz: {lines} lines, {commands} commands, {moves} moves checked \
         ({boards} after BOARD), {long} lines past the cap"
    );
    assert!(
        moves > 1000 && boards > 100,
        "{moves} moves, {boards} boards"
    );
}

/// The oracle of forced answers: with a five of its own to make, the
/// engine (`me`, about to play `p` on `b`) makes one; otherwise, against
/// the opponent's five, it blocks (where a block is playable; caro's
/// stones past the five are blocks too, and are left to the referee's
/// tests). Blocked cells (YXBLOCK) are never fives or blocks here.
fn forced_answer_taken(b: &mut Board, p: Pos, me: Color, blocked: &[Pos], unit: &[String]) {
    let cells: Vec<Pos> = b
        .cells()
        .iter()
        .filter(|&q| b.is_empty(q) && !blocked.contains(&q))
        .collect();
    let fives = |b: &mut Board, c: Color| -> Vec<Pos> {
        cells
            .iter()
            .copied()
            .filter(|&q| b.class(c, q) == Class::Five && !is_banned(b, me, q))
            .collect()
    };
    let mine = fives(b, me);
    if !mine.is_empty() {
        assert!(
            mine.contains(&p),
            "{p} is no five of {mine:?}: {unit:?}\n{b:?}"
        );
        return;
    }
    if matches!(b.rule(), Rule::Caro | Rule::CaroExact) {
        return;
    }
    let theirs = fives(b, me.opposite());
    if !theirs.is_empty() {
        assert!(
            theirs.contains(&p),
            "{p} blocks none of {theirs:?}: {unit:?}\n{b:?}"
        );
    }
}

#[test]
fn colour_rule_of_board() {
    assert_eq!(colour_of_board(&[2, 2, 1, 1]), Color::Black);
    assert_eq!(colour_of_board(&[2, 2, 2, 1, 1]), Color::White);
    assert_eq!(colour_of_board(&[1, 1, 2]), Color::White);
    assert_eq!(colour_of_board(&[]), Color::Black);
}
