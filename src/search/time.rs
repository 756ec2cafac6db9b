//! Time management: a move's limits from the game clock, and when to stop
//! deepening once an iteration is done.

use super::is_decisive;
use super::limits::Limits;
use std::time::Duration;

/// `time_left` and `timeout_match` at or above this are "unlimited".
pub const UNLIMITED_MS: i64 = 2_147_483_647;

/// The clock a manager sets (milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Per move; 0 = answer at once.
    pub timeout_turn: u64,
    /// Per game; 0 = unlimited.
    pub timeout_match: u64,
    /// Left in the game (may be negative).
    pub time_left: i64,
}

impl Clock {
    /// The search limits for a move, given the depth and node limits set,
    /// the empty cells left, the moves played and the time already spent
    /// since the manager sent the command.
    ///
    /// The hard limit is the turn time, or a seventh of the game time left
    /// when that is smaller, less a safety margin. The planned time spreads
    /// what is left of the game over the moves a game of Gomoku still has
    /// ([`moves_to_go`]); the search then stops early when its best move is
    /// settled and thinks longer when it is not ([`Limits::adaptive`]).
    pub fn limits(
        &self,
        depth: Option<i32>,
        nodes: Option<u64>,
        empty_cells: usize,
        ply: usize,
        spent: Duration,
    ) -> Limits {
        let mut limits = Limits {
            depth,
            nodes,
            ..Limits::default()
        };
        let unlimited_game = self.timeout_match == 0 || self.time_left >= UNLIMITED_MS;
        if self.timeout_turn == 0 && depth.is_none() && nodes.is_none() {
            // "Play as fast as possible": a quick tactical look only.
            limits.depth = Some(4);
            limits.hard_time = Some(Duration::from_millis(30));
            return limits;
        }
        let turn = if self.timeout_turn > 0 {
            self.timeout_turn
        } else {
            u64::MAX
        };
        if turn == u64::MAX && unlimited_game {
            if limits.depth.is_none() && limits.nodes.is_none() {
                limits.hard_time = Some(Duration::from_secs(3600));
            }
            return limits;
        }
        let left = if unlimited_game {
            u64::MAX
        } else {
            self.time_left.max(0) as u64
        };
        let own_moves = empty_cells.div_ceil(2).max(1) as u64;
        // Never more than a seventh of the game time on one move.
        let mut maximum = turn.min(left / own_moves.min(7));
        // Safety margin: process and pipe overhead, scheduler noise.
        maximum = maximum.saturating_sub(20 + maximum / 20).max(1);
        // Time enough to spend the whole turn on every move to come?
        let ample = left == u64::MAX || turn.saturating_mul(own_moves.min(64)) < left;
        let optimum = if ample {
            maximum * 9 / 10
        } else {
            (maximum * 9 / 10).min(left / moves_to_go(ply, empty_cells))
        };
        let ms = |t: u64| {
            Duration::from_millis(t)
                .saturating_sub(spent)
                .max(Duration::from_millis(1))
        };
        limits.hard_time = Some(ms(maximum));
        limits.soft_time = Some(ms(optimum.max(1)));
        limits.adaptive = true;
        limits.ample = ample;
        limits
    }
}

/// The moves of our own a game is still expected to last after `ply`
/// plies with `empty_cells` empty: most games of Gomoku between engines
/// end between ply 40 and 90, so about 20 moves early on, fewer as the
/// game goes on, never fewer than 8 (a long game must not run dry), never
/// more than the cells left.
pub fn moves_to_go(ply: usize, empty_cells: usize) -> u64 {
    let expected = 22u64.saturating_sub(ply as u64 / 5).max(8);
    expected.min(empty_cells.div_ceil(2).max(1) as u64)
}

/// The time to stop after an iteration, from the planned time `soft`: 60%
/// of it while the best move holds, 15 points more for each unit of
/// `changes` (a decaying count of best-move changes, up to 8) and half the
/// fall of the score below the previous move's (up to 80 points), within
/// 40% and 250% of it, and never past 60% of the hard limit (so the next
/// iteration has time to change something).
pub fn adapt_time(
    soft: Duration,
    hard: Option<Duration>,
    changes: i64,
    last: Option<i32>,
    score: i32,
) -> Duration {
    // Percent: 100 = the planned time.
    let mut pct: i64 = 60 + 15 * changes.min(8);
    if let Some(l) = last.filter(|l| !is_decisive(*l) && !is_decisive(score)) {
        let fall = (l - score) as i64;
        pct += (fall / 2).clamp(0, 80);
    }
    let t = soft * pct.clamp(40, 250) as u32 / 100;
    match hard {
        Some(h) => t.min(h * 3 / 5),
        None => t,
    }
}
