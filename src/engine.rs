//! The engine facade: owns the board, the searcher (with its table) and the
//! options a manager sets; turns clock and memory settings into search
//! limits and a table size. It never prints: progress goes to a callback.

use crate::board::{Board, MoveError};
use crate::eval::Evaluator;
use crate::pattern::PatternTable;
use crate::search::params::Params;
use crate::search::time::Clock;
use crate::search::tt::TranspositionTable;
use crate::search::tuned::ParamSets;
use crate::search::{Info, Limits, SearchResult, Searcher};
use crate::types::{Color, Pos, Rule};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use crate::search::time::{moves_to_go, UNLIMITED_MS};
/// Memory the process needs besides the transposition table: code, stacks,
/// pattern tables of every rule, board copies.
pub const BASE_MEMORY: u64 = 40 << 20;
/// Memory each search thread past the first needs besides the shared
/// table: its caches (move lists, VCF, solver moves), history and stack.
pub const HELPER_MEMORY: u64 = 12 << 20;
/// Table size when the manager sets no memory limit.
pub const DEFAULT_TT_BYTES: usize = 128 << 20;

/// What the manager has told the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Milliseconds per move; 0 = answer at once.
    pub timeout_turn: u64,
    /// Milliseconds per game; 0 = unlimited.
    pub timeout_match: u64,
    /// Milliseconds left in the game (may be negative).
    pub time_left: i64,
    /// Bytes the process may use; 0 = no limit.
    pub max_memory: u64,
    pub rule: Rule,
    pub max_depth: Option<i32>,
    pub max_nodes: Option<u64>,
    /// Search threads (`INFO thread_num`); 1 unless the manager says.
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            timeout_turn: 30_000,
            timeout_match: 0,
            time_left: UNLIMITED_MS,
            max_memory: 0,
            rule: Rule::Freestyle,
            max_depth: None,
            max_nodes: None,
            threads: 1,
        }
    }
}

impl Options {
    /// Transposition table bytes that keep the process under `max_memory`.
    pub fn tt_bytes(&self) -> usize {
        if self.max_memory == 0 {
            return DEFAULT_TT_BYTES;
        }
        // At most 16 GiB, or 1 GiB in a 32-bit process's address space,
        // and never more than half the machine's memory (a table is cleared
        // at every new game, which touches every page of it).
        let mut most: u64 = if usize::BITS >= 64 { 1 << 34 } else { 1 << 30 };
        if let Some(total) = physical_memory() {
            most = most.min(total / 2);
        }
        let helpers = (self.threads.max(1) - 1) as u64 * HELPER_MEMORY;
        let room = self.max_memory.saturating_sub(BASE_MEMORY + helpers) * 9 / 10;
        room.min(most) as usize
    }

    /// The clock part of the options.
    pub fn clock(&self) -> Clock {
        Clock {
            timeout_turn: self.timeout_turn,
            timeout_match: self.timeout_match,
            time_left: self.time_left,
        }
    }

    /// The search limits for a move (see [`Clock::limits`]).
    pub fn limits(&self, empty_cells: usize, ply: usize, spent: Duration) -> Limits {
        self.clock()
            .limits(self.max_depth, self.max_nodes, empty_cells, ply, spent)
    }
}

/// The search threads for a requested count: at least 1, at most the
/// machine's cores and [`MAX_THREADS`](crate::search::MAX_THREADS); an
/// error for no count or one below 1.
pub fn thread_count(requested: Option<i64>) -> Result<usize, String> {
    match requested {
        Some(n) if n >= 1 => {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            Ok((n.min(crate::search::MAX_THREADS as i64) as usize).min(cores))
        }
        Some(n) => Err(format!("{n} is not a thread count (1 or more)")),
        None => Err("not a number".into()),
    }
}

/// The machine's memory in bytes, where the system says (Linux's
/// `/proc/meminfo`), read once: the table is fitted before every move.
fn physical_memory() -> Option<u64> {
    static TOTAL: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *TOTAL.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    })
}

/// Why a position could not be set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    NoGame,
    BadSize(usize, usize),
    Move(MoveError),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::NoGame => write!(f, "no game: send START first"),
            EngineError::BadSize(w, h) => write!(f, "unsupported board size {w}x{h} (5 to 22)"),
            EngineError::Move(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<MoveError> for EngineError {
    fn from(e: MoveError) -> EngineError {
        EngineError::Move(e)
    }
}

/// The engine.
pub struct Engine {
    board: Option<Board>,
    searcher: Searcher,
    pub options: Options,
    /// Cells the search may not play (YXBLOCK).
    pub blocked: Vec<Pos>,
    /// Where each game's search constants come from (its rule and board);
    /// `None`: the constants given at creation, in every game.
    param_sets: Option<ParamSets>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Engine({:?})", self.board)
    }
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl Engine {
    /// An engine with each game's tuned parameters and the shipped
    /// evaluation.
    pub fn new() -> Engine {
        Engine::with_sets(ParamSets::default(), Evaluator::shipped())
    }

    /// An engine with these search parameters in every game, and this
    /// evaluation.
    pub fn with(params: Params, eval: Evaluator) -> Engine {
        Engine {
            board: None,
            searcher: Searcher::with_eval(params, eval, 1 << 20),
            options: Options::default(),
            blocked: Vec::new(),
            param_sets: None,
        }
    }

    /// An engine whose search parameters follow each game's rule and
    /// board ([`ParamSets::for_game`]), with this evaluation.
    pub fn with_sets(sets: ParamSets, eval: Evaluator) -> Engine {
        let params = sets.for_game(Rule::Freestyle, 15);
        let mut e = Engine::with(params, eval);
        e.param_sets = Some(sets);
        e
    }

    /// The search parameters of the game now set up.
    pub fn params(&self) -> &Params {
        &self.searcher.params
    }

    /// Picks the search parameters of the current rule and board.
    fn select_params(&mut self) {
        if let (Some(sets), Some(b)) = (&self.param_sets, &self.board) {
            let p = sets.for_game(b.rule(), b.width().max(b.height()));
            if p != self.searcher.params {
                self.searcher.params = p;
                // What was learnt under other constants (the candidate
                // cache, the table) goes.
                self.searcher.clear();
            }
        }
    }

    /// The flag that stops a search from another thread.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.searcher.stop_flag()
    }

    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
    }

    pub fn board_mut(&mut self) -> Option<&mut Board> {
        self.board.as_mut()
    }

    /// Starts a new game on a `w` x `h` board.
    pub fn new_game(&mut self, w: usize, h: usize) -> Result<(), EngineError> {
        let board =
            Board::new_rect(w, h, self.options.rule).map_err(|_| EngineError::BadSize(w, h))?;
        self.board = Some(board);
        self.blocked.clear();
        self.select_params();
        // A new game starts from nothing learnt: the same game plays the
        // same way whatever was played before (node-limited matches are
        // reproducible game by game, so resumed and sharded ones agree).
        self.searcher.clear();
        Ok(())
    }

    /// Clears the board, keeping its size.
    pub fn restart(&mut self) -> Result<(), EngineError> {
        let (w, h) = self.size().ok_or(EngineError::NoGame)?;
        self.new_game(w, h)
    }

    pub fn size(&self) -> Option<(usize, usize)> {
        self.board.as_ref().map(|b| (b.width(), b.height()))
    }

    /// Sets the rule; a game in progress is replayed under it.
    pub fn set_rule(&mut self, rule: Rule) {
        self.options.rule = rule;
        PatternTable::get(rule);
        if let Some(b) = &self.board {
            if b.rule() != rule {
                let stones: Vec<(Pos, Color)> = b.moves().collect();
                let (w, h) = (b.width(), b.height());
                if let Ok(mut nb) = Board::new_rect(w, h, rule) {
                    for (p, c) in stones {
                        nb.play_color(p, c);
                    }
                    self.board = Some(nb);
                }
            }
        }
        self.select_params();
    }

    /// Replaces the position by `stones` (in move order), all or nothing.
    pub fn set_position(&mut self, stones: &[(Pos, Color)]) -> Result<(), EngineError> {
        let b = self.board.as_ref().ok_or(EngineError::NoGame)?;
        let mut nb =
            Board::new_rect(b.width(), b.height(), b.rule()).map_err(|_| EngineError::NoGame)?;
        for &(p, c) in stones {
            nb.try_play_color(p, c)?;
        }
        self.board = Some(nb);
        Ok(())
    }

    /// Replaces the position by `stones` with `me` to move, whatever the
    /// order of the list (a manager's `BOARD` need not follow play order).
    pub fn set_position_to_move(
        &mut self,
        stones: &[(Pos, Color)],
        me: Color,
    ) -> Result<(), EngineError> {
        self.set_position(stones)?;
        if let Some(b) = self.board.as_mut() {
            if b.side_to_move() != me {
                b.toggle_side();
            }
        }
        Ok(())
    }

    /// Plays a move for the side to move (checked).
    pub fn play(&mut self, p: Pos) -> Result<(), EngineError> {
        let b = self.board.as_mut().ok_or(EngineError::NoGame)?;
        b.try_play(p)?;
        Ok(())
    }

    /// Plays a move given as coordinates (checked against the board size).
    pub fn play_xy(&mut self, x: usize, y: usize) -> Result<Pos, EngineError> {
        let b = self.board.as_mut().ok_or(EngineError::NoGame)?;
        b.try_play_xy(x, y)?;
        Ok(Pos::new(x, y))
    }

    /// Takes back the stone at `p`: the last move is unmade; an earlier
    /// one is removed and the rest replayed.
    pub fn takeback(&mut self, p: Pos) -> Result<(), EngineError> {
        let b = self.board.as_ref().ok_or(EngineError::NoGame)?;
        if b.last_move() == Some(p) {
            if let Some(b) = self.board.as_mut() {
                b.unmake();
            }
            return Ok(());
        }
        if b.stone(p).is_none() {
            return Err(EngineError::Move(MoveError::OffBoard {
                x: p.x(),
                y: p.y(),
            }));
        }
        let stones: Vec<(Pos, Color)> = b.moves().filter(|&(q, _)| q != p).collect();
        self.set_position(&stones)
    }

    /// Clears the transposition table and the ordering memory.
    pub fn clear_hash(&mut self) {
        self.searcher.clear();
    }

    /// Fits the table to `max_memory` at a game's start (the protocol's
    /// START, answered once it is done, so no move pays for it): resized
    /// when the limit asks for another size, and written in full (see
    /// [`TranspositionTable::warm`]) so that no search faults its pages in.
    pub fn fit_table_for_game(&mut self) -> Option<String> {
        let note = self.resize_table(true);
        self.searcher.tt.warm();
        note
    }

    /// Fits the table to `max_memory` within a game (an `INFO` setting,
    /// or before a search): a smaller limit shrinks it at once, a larger
    /// one grows it at the next game's start. Managers send `INFO` just
    /// before the move, so a table made and written here would be paid
    /// for by that move (a 256 MiB table took 0.66 s to write on this
    /// project's virtual machine, where a huge page the host has not yet
    /// backed costs about 5 ms; faulted in by the search instead, its
    /// pages stall the first moves as much).
    pub fn fit_table(&mut self) -> Option<String> {
        self.resize_table(false)
    }

    fn resize_table(&mut self, grow: bool) -> Option<String> {
        let want = self.options.tt_bytes();
        let have = self.searcher.tt.bytes();
        // The table holds a power of two of entries: resize only when the
        // wanted size would give a different one.
        let fitted = TranspositionTable::entries_for(want) * TranspositionTable::ENTRY_BYTES;
        if fitted == have || (fitted > have && !grow) {
            return None;
        }
        // Free the old table first: old and new never live at once.
        self.searcher.tt = Arc::new(TranspositionTable::new(0));
        self.searcher.tt = Arc::new(TranspositionTable::largest_within(want));
        let got = self.searcher.tt.bytes();
        (got < fitted).then(|| {
            format!(
                "hash table of {} MiB: {} MiB could not be allocated",
                got >> 20,
                fitted >> 20
            )
        })
    }

    /// [`Engine::fit_table`] where no one is told: the note goes to the log.
    fn note_table(&mut self) {
        if let Some(note) = self.fit_table() {
            log::warn!("{note}");
        }
    }

    /// Searches the current position, the clock having started at `start`.
    pub fn think(&mut self, start: Instant, report: impl FnMut(&Info)) -> Option<SearchResult> {
        self.note_table();
        let board = self.board.as_mut()?;
        let empty = board.width() * board.height() - board.ply();
        let limits = self.options.limits(empty, board.ply(), start.elapsed());
        self.searcher.root_excluded = self.blocked.clone();
        self.searcher.threads = self.options.threads;
        let r = self.searcher.search(board, &limits, report);
        Some(r)
    }

    /// Searches with explicit limits (the current position).
    pub fn think_with(
        &mut self,
        limits: &Limits,
        excluded: &[Pos],
        report: impl FnMut(&Info),
    ) -> Option<SearchResult> {
        self.note_table();
        let board = self.board.as_mut()?;
        let mut ex = self.blocked.clone();
        ex.extend_from_slice(excluded);
        self.searcher.root_excluded = ex;
        self.searcher.threads = self.options.threads;
        let r = self.searcher.search(board, limits, report);
        self.searcher.root_excluded.clear();
        Some(r)
    }

    /// Bytes of the current transposition table.
    pub fn tt_bytes(&self) -> usize {
        self.searcher.tt.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_game_gets_the_parameters_of_its_rule_and_board() {
        let sets = ParamSets::with_overrides("width=7").unwrap();
        let mut e = Engine::with_sets(sets.clone(), Evaluator::shipped());
        for (rule, size) in [
            (Rule::Renju, 15),
            (Rule::Freestyle, 20),
            (Rule::Standard, 15),
            (Rule::Caro, 20),
            (Rule::Freestyle, 15),
        ] {
            e.set_rule(rule);
            e.new_game(size, size).unwrap();
            assert_eq!(*e.params(), sets.for_game(rule, size), "{rule:?} {size}");
            assert_eq!(e.params().width, 7);
        }
        // A rule changed in mid-game switches the set too.
        e.new_game(20, 20).unwrap();
        e.play(Pos::new(10, 10)).unwrap();
        e.set_rule(Rule::Renju);
        assert_eq!(*e.params(), sets.for_game(Rule::Renju, 20));
        // Fixed parameters stay fixed.
        let p = Params {
            width: 5,
            ..Params::default()
        };
        let mut f = Engine::with(p.clone(), Evaluator::shipped());
        f.set_rule(Rule::Renju);
        f.new_game(20, 20).unwrap();
        assert_eq!(*f.params(), p);
    }

    #[test]
    fn limits_respect_turn_and_match_time() {
        let o = Options {
            timeout_turn: 1000,
            ..Options::default()
        };
        let l = o.limits(200, 20, Duration::ZERO);
        let hard = l.hard_time.unwrap();
        assert!(
            hard < Duration::from_millis(1000) && hard > Duration::from_millis(500),
            "{hard:?}"
        );
        assert!(l.ample, "a turn limit alone");
        assert!(l.soft_time.unwrap() < hard);
        // Little time left in the game: a small share of it.
        let o = Options {
            timeout_turn: 5000,
            timeout_match: 60_000,
            time_left: 3000,
            ..Options::default()
        };
        let hard = o.limits(200, 20, Duration::ZERO).hard_time.unwrap();
        assert!(hard <= Duration::from_millis(600), "{hard:?}");
        // Negative time left still plays.
        let o = Options {
            timeout_match: 60_000,
            time_left: -50,
            ..Options::default()
        };
        assert!(o.limits(200, 20, Duration::ZERO).hard_time.unwrap() >= Duration::from_millis(1));
        // Play at once.
        let o = Options {
            timeout_turn: 0,
            ..Options::default()
        };
        assert_eq!(o.limits(200, 20, Duration::ZERO).depth, Some(4));
        // ... whatever the game clock says.
        let o = Options {
            timeout_turn: 0,
            timeout_match: 900_000,
            time_left: 800_000,
            ..Options::default()
        };
        let l = o.limits(200, 20, Duration::ZERO);
        assert!(l.hard_time.unwrap() <= Duration::from_millis(30), "{l:?}");
    }

    #[test]
    fn a_game_clock_is_spent_over_the_moves_to_come() {
        // Gomocup's 180 s / 30 s: the first move plans about a twentieth,
        // never more than the turn, and the plan shrinks with the clock.
        let at = |left: i64, ply: usize| {
            let o = Options {
                timeout_turn: 30_000,
                timeout_match: 180_000,
                time_left: left,
                ..Options::default()
            };
            o.limits(225 - ply, ply, Duration::ZERO)
        };
        let l = at(180_000, 4);
        let (soft, hard) = (l.soft_time.unwrap(), l.hard_time.unwrap());
        assert!(l.adaptive);
        assert!(!l.ample, "180 s do not last 30 s a move");
        assert!(soft >= Duration::from_millis(7_000) && soft <= Duration::from_millis(10_000));
        assert!(
            hard <= Duration::from_millis(30_000) && hard > soft,
            "{hard:?}"
        );
        let late = at(20_000, 80);
        assert!(late.soft_time.unwrap() <= Duration::from_millis(20_000 / 8));
        assert!(late.hard_time.unwrap() <= Duration::from_millis(20_000 / 7));
        // Planned moves shrink with the game but never below 8.
        assert!(moves_to_go(0, 225) > moves_to_go(60, 165));
        assert_eq!(moves_to_go(200, 25), 8);
        assert_eq!(moves_to_go(200, 5), 3);
        // A turn limit far below the game's share: the whole turn is usable.
        let o = Options {
            timeout_turn: 200,
            timeout_match: 100_000_000,
            time_left: 100_000_000,
            ..Options::default()
        };
        let l = o.limits(200, 20, Duration::ZERO);
        // Nothing to save for: the planned time is 90% of the hard limit.
        assert!(l.ample);
        assert_eq!(l.soft_time.unwrap(), Duration::from_millis(153));
        assert!(l.hard_time.unwrap() >= Duration::from_millis(150));
        assert!(l.hard_time.unwrap() < Duration::from_millis(200));
    }

    #[test]
    fn table_fits_memory() {
        let o = Options {
            max_memory: 350 << 20,
            ..Options::default()
        };
        let tt = o.tt_bytes();
        assert!(tt as u64 + BASE_MEMORY <= 350 << 20);
        assert!(tt > 200 << 20);
        let tiny = Options {
            max_memory: 1 << 20,
            ..Options::default()
        };
        assert_eq!(tiny.tt_bytes(), 0);
        assert!(TranspositionTable::new(tiny.tt_bytes()).bytes() <= 64 << 10);
    }

    #[test]
    fn a_table_grows_at_a_game_start_and_shrinks_at_once() {
        // Managers send INFO max_memory just before the first move: the
        // table grows at the next START, never in a move's time; a lower
        // limit is kept at once.
        let mut e = Engine::new();
        e.new_game(15, 15).unwrap();
        assert_eq!(e.fit_table_for_game(), None);
        let start = e.tt_bytes();
        e.options.max_memory = (BASE_MEMORY + 4 * start as u64) * 10 / 9 + (1 << 20);
        assert_eq!(e.fit_table(), None);
        assert_eq!(e.tt_bytes(), start, "not grown within the game");
        e.new_game(15, 15).unwrap();
        e.fit_table_for_game();
        assert_eq!(e.tt_bytes(), 4 * start, "grown at the start");
        e.options.max_memory = BASE_MEMORY + (16 << 20);
        e.fit_table();
        assert!(e.tt_bytes() <= 16 << 20, "shrunk at once: {}", e.tt_bytes());
        assert!(e.tt_bytes() > 0);
    }

    #[test]
    fn takeback_and_bad_moves_leave_the_position() {
        let mut e = Engine::new();
        assert_eq!(e.play_xy(7, 7), Err(EngineError::NoGame));
        e.new_game(15, 15).unwrap();
        e.play_xy(7, 7).unwrap();
        e.play_xy(8, 8).unwrap();
        e.play_xy(9, 9).unwrap();
        let before = e.board().unwrap().hash();
        assert!(e.play_xy(7, 7).is_err());
        assert!(e.play_xy(15, 0).is_err());
        assert_eq!(e.board().unwrap().hash(), before);
        e.takeback(Pos::new(8, 8)).unwrap();
        assert_eq!(e.board().unwrap().ply(), 2);
        assert_eq!(e.board().unwrap().stone(Pos::new(9, 9)), Some(Color::Black));
        e.takeback(Pos::new(9, 9)).unwrap();
        assert_eq!(e.board().unwrap().ply(), 1);
    }
}
