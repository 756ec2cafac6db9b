//! What bounds a search, what it reports as it goes, and what it answers.

use crate::types::Pos;
use std::time::Duration;

/// What stops a search.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Deepest iteration.
    pub depth: Option<i32>,
    /// Most nodes (checked every few hundred nodes).
    pub nodes: Option<u64>,
    /// Stop at once when this much time has passed.
    pub hard_time: Option<Duration>,
    /// Start no new iteration after this much time (with `adaptive`, the
    /// planned time of a move whose search is neither stable nor unstable).
    pub soft_time: Option<Duration>,
    /// Scale `soft_time` by how settled the search is: less when the best
    /// move and score hold from iteration to iteration, more (up to the
    /// hard limit) when the best move changes or the score falls.
    pub adaptive: bool,
    /// The clock has time to spend the whole turn on every move still to
    /// come (a turn limit alone, or a game clock with room to spare):
    /// time saved now buys nothing later (see
    /// [`super::params::Params::ample_pct`]).
    pub ample: bool,
}

impl Limits {
    pub fn depth(d: i32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }

    pub fn nodes(n: u64) -> Limits {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }

    /// Think for about `t` (hard limit `t`, soft limit half of it).
    pub fn movetime(t: Duration) -> Limits {
        Limits {
            hard_time: Some(t),
            soft_time: Some(t / 2),
            ..Limits::default()
        }
    }
}

/// Progress of a search, reported after each completed iteration.
#[derive(Clone, Debug)]
pub struct Info {
    pub depth: i32,
    pub seldepth: i32,
    pub score: i32,
    pub nodes: u64,
    pub nps: u64,
    pub time: Duration,
    pub pv: Vec<Pos>,
}

impl std::fmt::Display for Info {
    /// `depth D seldepth S score V nodes N nps R time MS pv h8 i9 ...`
    /// (the first 16 moves of the principal variation).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "depth {} seldepth {} score {} nodes {} nps {} time {} pv",
            self.depth,
            self.seldepth,
            self.score,
            self.nodes,
            self.nps,
            self.time.as_millis()
        )?;
        for p in self.pv.iter().take(16) {
            write!(f, " {}", p.to_pos_string())?;
        }
        Ok(())
    }
}

/// The answer of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    pub best: Option<Pos>,
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: i32,
    pub nodes: u64,
    pub pv: Vec<Pos>,
    /// The threat solver proved the win (`pv` is its main line).
    pub solved: bool,
}

/// Nodes per second.
pub fn nps(nodes: u64, t: Duration) -> u64 {
    let us = t.as_micros().max(1) as u64;
    nodes.saturating_mul(1_000_000) / us
}
