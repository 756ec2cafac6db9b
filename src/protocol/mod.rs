//! The Gomocup protocol on stdin/stdout (with Yixin-Board extensions).
//!
//! A reader thread timestamps every line as it arrives (the manager's clock
//! runs from when it sends a command) and sets the stop flag at once for
//! `STOP`, `YXSTOP` and `END`, so they act while the engine is thinking.
//! Each line carries how many stops had arrived before it: a stop belongs
//! to the commands read before it, so one that arrives before their search
//! starts still stops it. Lines are capped at [`MAX_LINE`] bytes. Only
//! protocol replies go to stdout; logs go to stderr.

pub mod command;
#[cfg(test)]
mod fuzz;
mod swap2;

use crate::engine::{Engine, UNLIMITED_MS};
use crate::search::{Info, Limits};
use crate::types::{Color, Pos, Rule};
use command::{parse, parse_board_line, parse_xy, Command};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Longest input line read; the rest of a longer one is skipped.
pub const MAX_LINE: usize = 1 << 20;

/// What the reader thread sends.
enum Input {
    /// A line, when it arrived, and the stops read before it.
    Line(Instant, String, u64),
    /// A line longer than [`MAX_LINE`], skipped.
    TooLong,
    Eof,
}

/// Reads one line (up to `\n` or `\r`: a CR LF pair gives an empty line
/// after it, and empty lines are skipped) into `buf`. `None` at the end of
/// input with nothing read; `Some(true)` as soon as the line passes `max`
/// bytes (`buf` holds its first `max`; [`skip_line`] skips the rest), else
/// `Some(false)`.
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> Option<bool> {
    buf.clear();
    let mut any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return any.then_some(false),
        };
        if chunk.is_empty() {
            return any.then_some(false);
        }
        any = true;
        let end = chunk.iter().position(|&b| b == b'\n' || b == b'\r');
        let n = end.unwrap_or(chunk.len());
        let room = max - buf.len();
        if n > room {
            buf.extend_from_slice(&chunk[..room]);
            input.consume(room);
            return Some(true);
        }
        buf.extend_from_slice(&chunk[..n]);
        input.consume(n + end.is_some() as usize);
        if end.is_some() {
            return Some(false);
        }
    }
}

/// The reader: every line of `input` to `tx`, timestamped and tagged with
/// the stops read before it; `STOP`/`YXSTOP`/`END` set the stop flag (and
/// `END` the quit flag) at once. False when the session has gone.
fn read_inputs(
    input: &mut impl BufRead,
    tx: &Sender<Input>,
    stop: &AtomicBool,
    quit: &AtomicBool,
    stops: &AtomicU64,
) -> bool {
    let mut buf = Vec::new();
    while let Some(cut) = read_line(input, &mut buf, MAX_LINE) {
        let now = Instant::now();
        if cut {
            skip_line(input);
            if tx.send(Input::TooLong).is_err() {
                return false;
            }
            continue;
        }
        let line = String::from_utf8_lossy(&buf).trim().to_string();
        if line.is_empty() {
            continue;
        }
        let word = line
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        // Counted before the flag is set (see `Session::arm`).
        let stop_now = || {
            stops.fetch_add(1, Ordering::SeqCst);
            stop.store(true, Ordering::SeqCst);
        };
        if word == "STOP" || word == "YXSTOP" {
            stop_now();
        }
        if word == "END" {
            quit.store(true, Ordering::SeqCst);
            stop_now();
        }
        let seen = stops.load(Ordering::SeqCst);
        if tx.send(Input::Line(now, line, seen)).is_err() {
            return false;
        }
    }
    true
}

/// Skips input up to the end of the current line (or of the input).
pub fn skip_line(input: &mut impl BufRead) {
    loop {
        let (n, done) = match input.fill_buf() {
            Ok([]) | Err(_) => return,
            Ok(chunk) => match chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            },
        };
        input.consume(n);
        if done {
            return;
        }
    }
}

/// Runs the protocol with `engine` until `END` or end of input.
pub fn run(engine: Engine, input: impl BufRead + Send + 'static, output: impl Write) {
    // Build every rule's pattern tables in the background now, so that a
    // rule arriving just before the first move costs that move nothing.
    thread::spawn(|| {
        for rule in Rule::ALL {
            crate::pattern::PatternTable::get(rule);
        }
    });
    let mut engine = engine;
    let stop = engine.stop_flag();
    let quit = Arc::new(AtomicBool::new(false));
    let stops = Arc::new(AtomicU64::new(0));
    let (tx, rx) = channel();
    {
        let stop = stop.clone();
        let quit = quit.clone();
        let stops = stops.clone();
        thread::spawn(move || {
            let mut input = input;
            if read_inputs(&mut input, &tx, &stop, &quit, &stops) {
                // End of input: the commands already read are still answered.
                let _ = tx.send(Input::Eof);
            }
        });
    }
    let mut session = Session {
        engine: &mut engine,
        out: output,
        rx,
        quit,
        stop,
        stops,
    };
    session.serve();
}

/// `END` arrived inside a block.
struct Quit;

struct Session<'a, W: Write> {
    engine: &'a mut Engine,
    out: W,
    rx: Receiver<Input>,
    quit: Arc<AtomicBool>,
    /// The engine's stop flag.
    stop: Arc<AtomicBool>,
    /// Stops read so far by the reader.
    stops: Arc<AtomicU64>,
}

/// The `ABOUT` reply.
pub fn about() -> String {
    format!(
        "name=\"tengen\", version=\"{}\", author=\"The tengen authors\", country=\"International\"",
        env!("CARGO_PKG_VERSION")
    )
}

impl<W: Write> Session<'_, W> {
    fn reply(&mut self, line: &str) {
        // A manager that closed the pipe cannot be told anything more.
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }

    fn serve(&mut self) {
        while self.step() {}
    }

    /// Handles the next command (with its block, if it has one); false at
    /// the end (`END`, the end of input).
    fn step(&mut self) -> bool {
        let Ok(input) = self.rx.recv() else {
            return false;
        };
        let (at, line, seen) = match input {
            Input::Line(at, line, seen) => (at, line, seen),
            Input::TooLong => {
                self.reply(&format!("ERROR line longer than {MAX_LINE} bytes: skipped"));
                return true;
            }
            Input::Eof => return false,
        };
        log::debug!("<- {line}");
        let cmd = parse(&line);
        if cmd == Command::End {
            return false;
        }
        self.arm(seen);
        // Err: END inside a block.
        self.handle(cmd, at).is_ok()
    }

    /// Readies the stop flag for a command read when `seen` stops had
    /// arrived: clear, unless a stop has arrived since (it belongs to this
    /// command, or to one before it still to be answered).
    fn arm(&mut self, seen: u64) {
        self.stop.store(false, Ordering::SeqCst);
        if self.stops.load(Ordering::SeqCst) > seen {
            self.stop.store(true, Ordering::SeqCst);
        }
    }

    /// Reads the lines of a block up to `DONE` (or the end of input).
    /// `END` inside it ends the session: `Err`.
    fn read_block(&mut self) -> Result<Vec<String>, Quit> {
        let mut lines = Vec::new();
        loop {
            match self.rx.recv() {
                Ok(Input::Line(_, line, _)) => {
                    if line.eq_ignore_ascii_case("done") {
                        break;
                    }
                    if parse(&line) == Command::End {
                        return Err(Quit);
                    }
                    lines.push(line);
                }
                Ok(Input::TooLong) => {
                    self.reply(&format!("ERROR line longer than {MAX_LINE} bytes: skipped"));
                }
                Ok(Input::Eof) | Err(_) => break,
            }
        }
        Ok(lines)
    }

    fn handle(&mut self, cmd: Command, at: Instant) -> Result<(), Quit> {
        match cmd {
            Command::Start(n) => self.start(n, n),
            Command::RectStart(w, h) => self.start(w, h),
            Command::Restart => match self.engine.restart() {
                Ok(()) => self.reply("OK"),
                Err(e) => self.reply(&format!("ERROR {e}")),
            },
            Command::Begin => {
                if self.engine.board().is_none() {
                    self.reply("ERROR no game: send START first");
                } else {
                    self.think_and_play(at);
                }
            }
            Command::Turn(x, y) => match self.engine.play_xy(x, y) {
                Ok(_) => self.think_and_play(at),
                Err(e) => self.reply(&format!("ERROR TURN {x},{y}: {e}")),
            },
            Command::Play(x, y) => match self.engine.play_xy(x, y) {
                Ok(p) => self.reply(&p.to_string()),
                Err(e) => self.reply(&format!("ERROR PLAY {x},{y}: {e}")),
            },
            Command::Takeback(x, y) => {
                let fits = self.engine.size().is_some_and(|(w, h)| x < w && y < h);
                if !fits {
                    self.reply(&format!("ERROR TAKEBACK {x},{y}: not a cell of the board"));
                    return Ok(());
                }
                match self.engine.takeback(Pos::new(x, y)) {
                    Ok(()) => self.reply("OK"),
                    Err(_) => self.reply(&format!("ERROR TAKEBACK {x},{y}: no stone there")),
                }
            }
            Command::Board => {
                let lines = self.read_block()?;
                if self.set_board(&lines, "BOARD") {
                    self.think_and_play(at);
                }
            }
            Command::YxBoard => {
                let lines = self.read_block()?;
                self.set_board(&lines, "YXBOARD");
            }
            Command::Swap2Board => {
                let lines = self.read_block()?;
                if self.set_board(&lines, "SWAP2BOARD") {
                    let answer = swap2::answer(self.engine, at);
                    if !self.quit.load(Ordering::SeqCst) {
                        self.reply(&answer);
                    }
                }
            }
            Command::Info(key, value) => self.info(&key, &value),
            Command::End => {}
            Command::About => self.reply(&about()),
            Command::Stop => {}
            Command::YxShowForbid => self.show_forbid(),
            Command::YxHashClear => self.engine.clear_hash(),
            Command::YxNBest(n) => self.nbest(n, at),
            Command::YxBlock | Command::YxBlockUndo => {
                let add = matches!(cmd, Command::YxBlock);
                for line in self.read_block()? {
                    let Some((x, y)) = parse_xy(&line) else {
                        continue;
                    };
                    let fits = self.engine.size().is_some_and(|(w, h)| x < w && y < h);
                    if !fits {
                        continue;
                    }
                    let p = Pos::new(x, y);
                    self.engine.blocked.retain(|&q| q != p);
                    if add {
                        self.engine.blocked.push(p);
                    }
                }
            }
            Command::YxBlockReset => self.engine.blocked.clear(),
            Command::Unknown(text) => self.reply(&format!("UNKNOWN command '{text}'")),
            Command::Malformed(text) => self.reply(&format!("ERROR {text}")),
        }
        Ok(())
    }

    fn start(&mut self, w: usize, h: usize) {
        match self.engine.new_game(w, h) {
            Ok(()) => {
                let note = self.engine.fit_table_for_game();
                self.reply("OK");
                if let Some(note) = note {
                    self.reply(&format!("MESSAGE {note}"));
                }
            }
            Err(e) => self.reply(&format!("ERROR {e}")),
        }
    }

    fn info(&mut self, key: &str, value: &str) {
        let int = value.trim().parse::<i64>().ok();
        // A number a key cannot take is refused and the value kept: a
        // negative limit, a rule outside the Gomocup bits (1 exactly
        // five, 2 continuous game, 4 renju, 8 caro), or no number at all.
        // `time_left` may be negative (the clock ran out).
        let bad = match (key, int) {
            (
                "timeout_turn" | "timeout_match" | "max_memory" | "max_depth" | "max_node",
                Some(v),
            ) if v < 0 => Some("a negative value"),
            ("rule", Some(v)) if !(0..=15).contains(&v) => Some("not a Gomocup rule (0 to 15)"),
            (
                "timeout_turn" | "timeout_match" | "time_left" | "max_memory" | "max_depth"
                | "max_node" | "rule",
                None,
            ) => Some("not a whole number"),
            _ => None,
        };
        if let Some(why) = bad {
            self.reply(&format!("ERROR INFO {key} {value}: {why}; ignored"));
            return;
        }
        match (key, int) {
            ("timeout_turn", Some(v)) => self.engine.options.timeout_turn = v.max(0) as u64,
            ("timeout_match", Some(v)) => self.engine.options.timeout_match = v.max(0) as u64,
            ("time_left", Some(v)) => self.engine.options.time_left = v.min(UNLIMITED_MS),
            ("max_memory", Some(v)) => {
                self.engine.options.max_memory = v.max(0) as u64;
                if self.engine.board().is_some() {
                    if let Some(note) = self.engine.fit_table() {
                        self.reply(&format!("MESSAGE {note}"));
                    }
                }
            }
            ("rule", Some(v)) => self.engine.set_rule(Rule::from_gomocup(v as u32)),
            ("max_depth", Some(v)) => {
                self.engine.options.max_depth = (v > 0).then_some(v.min(60) as i32)
            }
            ("max_node", Some(v)) => self.engine.options.max_nodes = (v > 0).then_some(v as u64),
            ("thread_num", v) => match crate::engine::thread_count(v) {
                Ok(n) => {
                    if Some(n) != v.map(|v| v as usize) {
                        self.reply(&format!(
                            "MESSAGE thread_num {value}: {n} threads (the machine's cores)"
                        ));
                    }
                    self.engine.options.threads = n;
                    if self.engine.board().is_some() {
                        if let Some(note) = self.engine.fit_table() {
                            self.reply(&format!("MESSAGE {note}"));
                        }
                    }
                }
                Err(e) => self.reply(&format!(
                    "ERROR INFO thread_num {value}: {e}; {} kept",
                    self.engine.options.threads
                )),
            },
            // game_type, folder, evaluate and unknown keys: nothing to do.
            _ => log::debug!("INFO {key} {value} ignored"),
        }
    }

    /// Builds the position of a BOARD-like block: fields 1 own, 2
    /// opponent, 3 a stone of a winning line (continuous game), counted as
    /// the opponent's. All or nothing.
    fn set_board(&mut self, lines: &[String], name: &str) -> bool {
        let Some((w, h)) = self.engine.size() else {
            self.reply(&format!("ERROR {name}: no game: send START first"));
            return false;
        };
        let mut stones = Vec::new();
        for line in lines {
            match parse_board_line(line) {
                Some((x, y, f)) if x < w && y < h => stones.push((Pos::new(x, y), f)),
                Some((x, y, _)) => {
                    self.reply(&format!("ERROR {name}: {x},{y} is off the {w}x{h} board"));
                    return false;
                }
                None => {
                    self.reply(&format!(
                        "ERROR {name}: bad line '{line}' (expected x,y,field)"
                    ));
                    return false;
                }
            }
        }
        // The fields say whose each stone is (1 ours; 2, or 3 of a
        // continuous game, the opponent's), whatever the order of the
        // lines; the counts say which side is black: the side with more
        // stones, or black to move when they are even.
        let own = stones.iter().filter(|s| s.1 == 1).count();
        let me = if own + 1 == stones.len() - own {
            Color::White
        } else if 2 * own == stones.len() {
            Color::Black
        } else {
            // Not a position of alternate moves: the parity decides.
            Color::to_move_after(stones.len())
        };
        let placed: Vec<(Pos, Color)> = stones
            .iter()
            .map(|&(p, f)| (p, if f == 1 { me } else { me.opposite() }))
            .collect();
        match self.engine.set_position_to_move(&placed, me) {
            Ok(()) => true,
            Err(e) => {
                self.reply(&format!("ERROR {name}: {e}"));
                false
            }
        }
    }

    fn think_and_play(&mut self, at: Instant) {
        let mut last = Instant::now();
        let mut seldepth = 0;
        let out = &mut self.out;
        let result = self.engine.think(at, |info| {
            seldepth = seldepth.max(info.seldepth);
            if last.elapsed() >= Duration::from_millis(300) {
                last = Instant::now();
                let _ = writeln!(out, "{}", message(info));
                let _ = out.flush();
            }
        });
        if self.quit.load(Ordering::SeqCst) {
            return;
        }
        // One summary line a move, however short the move: what a
        // manager's log keeps of how deep the engine looked.
        if let Some(r) = &result {
            let time = at.elapsed();
            let summary = Info {
                depth: r.depth,
                seldepth: seldepth.max(r.pv.len() as i32),
                score: r.score,
                nodes: r.nodes,
                nps: crate::search::nps(r.nodes, time),
                time,
                pv: r.pv.clone(),
            };
            self.reply(&message(&summary));
        }
        if let Some(r) = result.as_ref().filter(|r| r.solved) {
            // Yixin-Board shows MESSAGE lines: say what the solver proved.
            let line: Vec<String> = r.pv.iter().map(|p| p.to_pos_string()).collect();
            let plies = crate::search::WIN - r.score;
            self.reply(&format!(
                "MESSAGE win by threats in {plies} plies: {}",
                line.join(" ")
            ));
        }
        match result.and_then(|r| r.best) {
            Some(p) => {
                if let Err(e) = self.engine.play(p) {
                    log::error!("own move {p} refused: {e}");
                }
                self.reply(&p.to_string());
            }
            None => {
                let blocked = self
                    .engine
                    .board()
                    .is_some_and(|b| b.ply() < b.width() * b.height());
                self.reply(if blocked {
                    "ERROR no move to play: every empty cell is blocked (YXBLOCK)"
                } else {
                    "ERROR no move to play: the board is full"
                })
            }
        }
    }

    fn show_forbid(&mut self) {
        let cells = match self.engine.board_mut() {
            Some(b) => b.forbidden_cells(),
            None => Vec::new(),
        };
        let mut s = String::from("FORBID ");
        for p in cells {
            s.push_str(&format!("{:02}{:02}", p.x(), p.y()));
        }
        s.push('.');
        self.reply(&s);
    }

    /// The `n` best moves: searched one after another, each excluding the
    /// ones found before, in the time of one move.
    fn nbest(&mut self, n: usize, at: Instant) {
        let Some(b) = self.engine.board() else {
            self.reply("ERROR no game: send START first");
            return;
        };
        let empty = b.width() * b.height() - b.ply();
        let n = n.min(empty).max(1);
        let base = self.engine.options.limits(empty, b.ply(), at.elapsed());
        let share = |t: Option<Duration>| t.map(|t| t / n as u32);
        let limits = Limits {
            hard_time: share(base.hard_time),
            soft_time: share(base.soft_time),
            ..base
        };
        let mut found: Vec<Pos> = Vec::new();
        let mut scored: Vec<(i32, Pos)> = Vec::new();
        for _ in 0..n {
            let Some(r) = self.engine.think_with(&limits, &found, |_| {}) else {
                break;
            };
            // Only a move the search (or the solver) played out: once the
            // moves worth searching are all listed, the search has none
            // and falls back on any cell, which it never scored.
            let Some(p) = r
                .best
                .filter(|p| !found.contains(p) && r.pv.first() == Some(p))
            else {
                break;
            };
            scored.push((r.score, p));
            found.push(p);
            if self.engine.stop_flag().load(Ordering::SeqCst) {
                break;
            }
        }
        if self.quit.load(Ordering::SeqCst) {
            return;
        }
        // Best first (each search had its share of the time, so a later
        // one may score higher); ties keep the order they were found in.
        scored.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
        for (i, (score, p)) in scored.iter().enumerate() {
            self.reply(&format!("MESSAGE NBEST {} {p} score {score}", i + 1));
        }
        match scored.first().map(|&(_, p)| p) {
            Some(p) => {
                let s = p.to_string();
                self.reply(&s);
            }
            None => self.reply("ERROR no move to suggest"),
        }
    }
}

/// A progress line for the manager.
fn message(info: &Info) -> String {
    format!("MESSAGE {info}")
}
