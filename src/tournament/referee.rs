//! The referee: plays one game between two engine processes and decides
//! it. Five by the rule wins; a move off the board, on a stone or (renju
//! black) on a forbidden cell loses; exceeding the turn or game time (with
//! a tolerance), crashing, hanging or breaking the protocol loses; a full
//! board or the ply cap is a draw.

use super::process::{is_reply, EngineProcess, ReplyError};
use super::setup::TimeControl;
use crate::board::Board;
use crate::protocol::command::parse_xy;
use crate::types::{Color, Pos, Rule};
use std::time::{Duration, Instant};

/// Settings for every game of a match.
#[derive(Clone, Debug)]
pub struct GameConfig {
    pub size: usize,
    pub rule: Rule,
    pub tc: TimeControl,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub max_memory: u64,
    /// A draw after this many plies (the opening included).
    pub draw_after: Option<usize>,
    /// Time allowed past a limit before it counts as a loss.
    pub tolerance: Duration,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    BlackWins,
    WhiteWins,
    Draw,
}

impl Outcome {
    pub fn code(self) -> &'static str {
        match self {
            Outcome::BlackWins => "1-0",
            Outcome::WhiteWins => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub opening: Vec<Pos>,
    /// Moves played by the engines, with the milliseconds each took.
    pub moves: Vec<(Pos, u64)>,
    pub outcome: Outcome,
    pub reason: String,
    /// Which side's engine broke down (crash, hang, a protocol error, a
    /// move on a taken or off-board cell: out of step), to restart it.
    pub faulty: Option<Color>,
}

impl GameRecord {
    pub fn plies(&self) -> usize {
        self.opening.len() + self.moves.len()
    }
}

fn lose(
    side: Color,
    reason: String,
    faulty: bool,
    opening: &[Pos],
    moves: Vec<(Pos, u64)>,
) -> GameRecord {
    GameRecord {
        opening: opening.to_vec(),
        moves,
        outcome: if side == Color::Black {
            Outcome::WhiteWins
        } else {
            Outcome::BlackWins
        },
        reason,
        faulty: faulty.then_some(side),
    }
}

/// Starts a new game on an engine: START, then the INFO settings.
fn prepare(e: &mut EngineProcess, cfg: &GameConfig) -> Result<(), String> {
    e.drain();
    e.send(&format!("START {}", cfg.size))
        .map_err(|e| format!("crashed at START ({e})"))?;
    // A move here is a reply too many to the last game, still on its way
    // when the game ended: skipped (the log keeps it).
    let not_a_move = |l: &str| is_reply(l) && l.split_whitespace().all(|m| parse_xy(m).is_none());
    match e.reply_where(Instant::now() + Duration::from_secs(30), not_a_move) {
        Ok(r) if r.trim().eq_ignore_ascii_case("OK") => {}
        Ok(r) => return Err(format!("answered START with '{r}'")),
        Err(ReplyError::Timeout) => return Err("no answer to START".into()),
        Err(ReplyError::Closed) => return Err("crashed at START".into()),
        Err(ReplyError::TooLong) => return Err("a line too long at START".into()),
    }
    let ms = |d: Option<Duration>| d.map(|d| d.as_millis() as u64).unwrap_or(0);
    let rule = cfg.rule.gomocup();
    // timeout_turn 0 means "as fast as possible" in the protocol: with a
    // game clock and no turn limit, the turn limit is the game's time.
    let turn = cfg.tc.turn.or(cfg.tc.game);
    let mut info = format!(
        "INFO rule {rule}\nINFO max_memory {}\nINFO timeout_turn {}\nINFO timeout_match {}\nINFO game_type 1",
        cfg.max_memory,
        ms(turn),
        ms(cfg.tc.game)
    );
    if let Some(d) = cfg.depth {
        info.push_str(&format!("\nINFO max_depth {d}"));
    }
    if let Some(n) = cfg.nodes {
        info.push_str(&format!("\nINFO max_node {n}"));
    }
    if let Some(t) = e.threads {
        info.push_str(&format!("\nINFO thread_num {t}"));
    }
    e.send(&info)
}

/// The `BOARD` command that sets `board` for the side to move (field 1:
/// its own stones, 2: the opponent's), ending in `DONE`, without a final
/// newline.
pub fn board_message(board: &Board) -> String {
    let side = board.side_to_move();
    let mut msg = String::from("BOARD");
    for (p, c) in board.moves() {
        let field = if c == side { 1 } else { 2 };
        msg.push_str(&format!("\n{},{},{field}", p.x(), p.y()));
    }
    msg.push_str("\nDONE");
    msg
}

/// Plays one game: `black` and `white` are the engines of each colour.
pub fn play(
    black: &mut EngineProcess,
    white: &mut EngineProcess,
    cfg: &GameConfig,
    opening: &[Pos],
) -> GameRecord {
    let mut board = match Board::new(cfg.size, cfg.rule) {
        Ok(b) => b,
        Err(e) => {
            return GameRecord {
                opening: opening.to_vec(),
                moves: Vec::new(),
                outcome: Outcome::Draw,
                reason: e.to_string(),
                faulty: None,
            }
        }
    };
    for &p in opening {
        if board.try_play(p).is_err() || board.is_won() {
            return GameRecord {
                opening: opening.to_vec(),
                moves: Vec::new(),
                outcome: Outcome::Draw,
                reason: "invalid opening".into(),
                faulty: None,
            };
        }
    }
    for (side, e) in [(Color::Black, &mut *black), (Color::White, &mut *white)] {
        if let Err(why) = prepare(e, cfg) {
            return lose(side, why, true, opening, Vec::new());
        }
    }
    let mut moves: Vec<(Pos, u64)> = Vec::new();
    let mut told = [false, false];
    let mut clock = [cfg.tc.game; 2];
    loop {
        if let Some(w) = board.winner() {
            let outcome = if w == Color::Black {
                Outcome::BlackWins
            } else {
                Outcome::WhiteWins
            };
            return GameRecord {
                opening: opening.to_vec(),
                moves,
                outcome,
                reason: "five in a row".into(),
                faulty: None,
            };
        }
        if board.is_full() || cfg.draw_after.is_some_and(|n| board.ply() >= n) {
            let reason = if board.is_full() {
                "full board"
            } else {
                "move limit"
            };
            return GameRecord {
                opening: opening.to_vec(),
                moves,
                outcome: Outcome::Draw,
                reason: reason.into(),
                faulty: None,
            };
        }
        let side = board.side_to_move();
        let e: &mut EngineProcess = if side == Color::Black { black } else { white };
        let mut msg = String::new();
        // Always, as Piskvork does: some engines plan only from time_left
        // (2147483647 is the protocol's "unlimited").
        let left_ms = clock[side.index()].map_or(2_147_483_647, |l| l.as_millis());
        msg.push_str(&format!("INFO time_left {left_ms}\n"));
        if !told[side.index()] {
            told[side.index()] = true;
            if board.ply() == 0 {
                msg.push_str("BEGIN");
            } else {
                msg.push_str(&board_message(&board));
            }
        } else if let Some(last) = board.last_move() {
            msg.push_str(&format!("TURN {},{}", last.x(), last.y()));
        }
        if let Err(why) = e.send(&msg) {
            return lose(side, format!("crashed ({why})"), true, opening, moves);
        }
        let mut limit = Duration::from_secs(24 * 3600);
        if let Some(t) = cfg.tc.turn {
            limit = limit.min(t);
        }
        if let Some(left) = clock[side.index()] {
            limit = limit.min(left);
        }
        let start = Instant::now();
        let reply = e.reply(start + limit + cfg.tolerance);
        let took = start.elapsed();
        let line = match reply {
            Ok(l) => l,
            Err(ReplyError::Timeout) => {
                return lose(
                    side,
                    format!("no move within {} ms", (limit + cfg.tolerance).as_millis()),
                    true,
                    opening,
                    moves,
                )
            }
            Err(ReplyError::Closed) => return lose(side, "crashed".into(), true, opening, moves),
            Err(ReplyError::TooLong) => {
                let why = format!("a line longer than {} bytes", super::process::MAX_LINE);
                return lose(side, why, true, opening, moves);
            }
        };
        let Some((x, y)) = crate::protocol::command::parse_xy(&line) else {
            return lose(
                side,
                format!(
                    "protocol error: '{}'",
                    line.chars().take(60).collect::<String>()
                ),
                true,
                opening,
                moves,
            );
        };
        if let Some(t) = cfg.tc.turn {
            if took > t + cfg.tolerance {
                return lose(
                    side,
                    format!("turn time exceeded ({} ms)", took.as_millis()),
                    false,
                    opening,
                    moves,
                );
            }
        }
        if let Some(left) = clock[side.index()].as_mut() {
            if took > *left + cfg.tolerance {
                return lose(
                    side,
                    format!("game time exceeded ({} ms)", took.as_millis()),
                    false,
                    opening,
                    moves,
                );
            }
            *left = left.saturating_sub(took) + cfg.tc.increment;
        }
        if !board.contains(x, y) {
            return lose(
                side,
                format!("illegal move {x},{y}: off the board"),
                true,
                opening,
                moves,
            );
        }
        let p = Pos::new(x, y);
        if board.stone(p).is_some() {
            return lose(
                side,
                format!("illegal move {x},{y}: occupied"),
                true,
                opening,
                moves,
            );
        }
        if side == Color::Black && board.rule() == Rule::Renju && board.is_forbidden(p) {
            moves.push((p, took.as_millis() as u64));
            return lose(
                side,
                format!("forbidden move {x},{y}"),
                false,
                opening,
                moves,
            );
        }
        board.make(p);
        moves.push((p, took.as_millis() as u64));
    }
}
