//! Threat-space solver: victory by continuous fours (VCF) and victory by
//! continuous threats (VCT), proved by depth-first proof-number search
//! (df-pn) with a transposition table.
//!
//! The attacker moves at OR nodes, the defender at AND nodes.
//!
//! - The attacker plays fours and, while its budget of threats lasts (VCT),
//!   open threes: moves after which it threatens an open four.
//! - When the defender has a four, the attacker's only move is the block.
//! - The defender answers a four with its block. It answers an open three
//!   with every cell that takes the threat away, each checked by playing it,
//!   and with every four of its own (a counter-four the attacker must
//!   answer before going on).
//! - A line ends when the attacker makes five or an open four (or a double
//!   four), when the defender has no defence, or under renju when the
//!   defender (black) can only block on a forbidden cell.
//!
//! Renju black never attacks or defends on a forbidden cell. Standard's
//! exact five and caro's blocked five come from the pattern tables, so
//! every rule is handled by the same code.
//!
//! Proof and disproof numbers are integers and ties are broken by move
//! order, so a solve under a node limit is deterministic.

mod moves;
#[cfg(test)]
mod tests;

use moves::{expand_attack, expand_defence, finish_defence, finish_line, terminal_len};
pub use moves::{four_three_wins, three_three_wins};

use crate::board::{zobrist_key, Board, SIDE_KEY};
use crate::types::{Color, Pos};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Slots of the solver's cache of node moves.
const MOVE_CACHE: usize = 1 << 16;

/// Proof and disproof numbers saturate here ("infinite").
const INF: u32 = 1 << 28;

/// Which threats the attacker may use.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Fours only.
    Vcf,
    /// Fours and open threes.
    Vct,
}

/// What bounds a solve.
#[derive(Clone, Debug)]
pub struct SolveLimits {
    pub mode: Mode,
    /// Most open threes in one line (VCT); fours are not counted.
    pub max_threats: u32,
    /// Most nodes (each node is one position expanded).
    pub nodes: u64,
    /// Most time.
    pub time: Option<Duration>,
    /// Most positions kept in the table; past it the solve ends as unknown.
    pub max_entries: usize,
}

impl Default for SolveLimits {
    fn default() -> SolveLimits {
        SolveLimits {
            mode: Mode::Vct,
            max_threats: 10,
            nodes: 10_000_000,
            time: None,
            max_entries: 8_000_000,
        }
    }
}

/// The answer of a solve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A forced win: the main line, attacker and defender moves
    /// alternating, from the attacker's first move to its five (or to a
    /// four the defender may not block).
    Win(Vec<Pos>),
    /// No win of the kind asked for (proved within the limits: no VCF at
    /// all, or no VCT within the threat budget).
    NoWin,
    /// A limit ran out first.
    Unknown,
}

/// A solve's outcome and cost.
#[derive(Clone, Debug)]
pub struct Solution {
    pub outcome: Outcome,
    /// Plies from the position to the attacker's five along the longest
    /// defence (a win only).
    pub plies: u32,
    pub nodes: u64,
    pub time: Duration,
}

/// The keys are Zobrist keys already: no need to hash them again.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys")
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = k;
    }
}

type Table<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

#[derive(Copy, Clone, Debug)]
struct Entry {
    pn: u32,
    dn: u32,
}

const PROVEN: Entry = Entry { pn: 0, dn: INF };
const DISPROVEN: Entry = Entry { pn: INF, dn: 0 };
const UNKNOWN: Entry = Entry { pn: 1, dn: 1 };

/// A move of a node with what it costs the attacker's threat budget.
#[derive(Copy, Clone, Debug)]
struct Child {
    pos: Pos,
    cost: u32,
}

type Moves = SmallVec<[Child; 32]>;

// Short-lived, returned by value once per node: boxing would cost more.
#[allow(clippy::large_enum_variant)]
enum Expansion {
    Proven,
    Disproven,
    Moves(Moves),
}

/// A key for each remaining threat budget and for the attacker's colour,
/// so entries of different budgets never mix.
fn budget_key(threats: u32, attacker: Color) -> u64 {
    let mut z = (threats as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ if attacker == Color::White {
            0xD1B5_4A32_D192_ED03
        } else {
            0
        };
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The solver: its table persists between solves of the same attacker and
/// limits (cleared by [`Solver::clear`]).
pub struct Solver {
    table: Table<Entry>,
    /// The moves of recently expanded nodes, by key (direct-mapped): df-pn
    /// comes back to a node many times, and its moves cost far more to
    /// find than to keep.
    moves: Vec<Option<(u64, Rc<[Child]>)>>,
    limits: SolveLimits,
    attacker: Color,
    nodes: u64,
    /// The node count at which the clock and the stop flag are read next.
    next_check: u64,
    /// The node count at which the node and table limits are read next.
    next_limit_check: u64,
    start: Instant,
    aborted: bool,
    stop: Option<Arc<AtomicBool>>,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    pub fn new() -> Solver {
        Solver {
            table: Table::default(),
            moves: vec![None; MOVE_CACHE],
            limits: SolveLimits::default(),
            attacker: Color::Black,
            nodes: 0,
            next_check: 0,
            next_limit_check: 0,
            start: Instant::now(),
            aborted: false,
            stop: None,
        }
    }

    /// Another thread may stop a solve through this flag.
    pub fn set_stop_flag(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// Forgets every proof.
    pub fn clear(&mut self) {
        self.table.clear();
        self.moves.fill(None);
    }

    /// The attacker's budget of open threes.
    fn threats_of(&self, max_threats: u32) -> u32 {
        match self.limits.mode {
            Mode::Vcf => 0,
            Mode::Vct => max_threats,
        }
    }

    /// Does the side to move of `board` (the attacker) win by threats?
    /// `board` is left as it was.
    pub fn solve(&mut self, board: &mut Board, limits: &SolveLimits) -> Solution {
        // Nothing here evaluates: the network's sums wait.
        board.pause_acc();
        let s = self.solve_paused(board, limits);
        board.resume_acc();
        s
    }

    fn solve_paused(&mut self, board: &mut Board, limits: &SolveLimits) -> Solution {
        self.start = Instant::now();
        self.nodes = 0;
        self.next_check = 0;
        self.next_limit_check = 0;
        self.aborted = false;
        let attacker = board.side_to_move();
        // Keys hold the attacker and the threats left, so every entry
        // stays true from solve to solve; only the size is kept in check.
        if self.table.len() > limits.max_entries / 2 {
            self.table.clear();
        }
        self.attacker = attacker;
        self.limits = limits.clone();
        let threats = self.threats_of(limits.max_threats);
        let key = self.key(board, threats);
        let root = self.mid(board, true, threats, key, INF - 1, INF - 1);
        let time = self.start.elapsed();
        let (outcome, plies) = if root.pn == 0 {
            let mut lens = Table::default();
            let plies = self.proof_len(board, true, threats, &mut lens);
            let mut line = Vec::new();
            self.main_line(board, threats, &mut lens, &mut line);
            (Outcome::Win(line), plies)
        } else if root.dn == 0 {
            (Outcome::NoWin, 0)
        } else {
            (Outcome::Unknown, 0)
        };
        Solution {
            outcome,
            plies,
            nodes: self.nodes,
            time,
        }
    }

    fn key(&self, board: &Board, threats: u32) -> u64 {
        board.hash() ^ budget_key(threats, self.attacker)
    }

    /// The key of the position after the side to move plays `p`.
    fn child_key(&self, board: &Board, p: Pos, threats: u32) -> u64 {
        board.hash()
            ^ zobrist_key(board.side_to_move(), p)
            ^ SIDE_KEY
            ^ budget_key(threats, self.attacker)
    }

    fn lookup(&self, key: u64) -> Entry {
        self.table.get(&key).copied().unwrap_or(UNKNOWN)
    }

    /// The clock and the stop flag are read every 128 nodes (about a
    /// millisecond: a solve inside a timed search must not outlast its
    /// share by much); the node and table limits every 1024, which fixes
    /// where a node-limited solve ends.
    fn check_limits(&mut self) {
        if self.nodes < self.next_check {
            return;
        }
        self.next_check = self.nodes + 128;
        if self.nodes >= self.next_limit_check {
            self.next_limit_check = self.nodes + 1024;
            if self.nodes >= self.limits.nodes || self.table.len() >= self.limits.max_entries {
                self.aborted = true;
            }
        }
        if self.limits.time.is_some_and(|t| self.start.elapsed() >= t)
            || self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            self.aborted = true;
        }
    }

    /// Multiple iterative deepening: searches the node until its proof
    /// number reaches `thpn` or its disproof number `thdn`.
    fn mid(
        &mut self,
        board: &mut Board,
        or: bool,
        threats: u32,
        key: u64,
        thpn: u32,
        thdn: u32,
    ) -> Entry {
        self.nodes += 1;
        self.check_limits();
        if self.aborted {
            return self.lookup(key);
        }
        let slot = (key >> 48) as usize % MOVE_CACHE;
        let moves = match &self.moves[slot] {
            Some((k, m)) if *k == key => m.clone(),
            _ => match self.expand(board, or, threats) {
                Expansion::Proven => {
                    self.table.insert(key, PROVEN);
                    return PROVEN;
                }
                Expansion::Disproven => {
                    self.table.insert(key, DISPROVEN);
                    return DISPROVEN;
                }
                Expansion::Moves(m) => {
                    let m: Rc<[Child]> = m.as_slice().into();
                    self.moves[slot] = Some((key, m.clone()));
                    m
                }
            },
        };
        let keys: SmallVec<[u64; 32]> = moves
            .iter()
            .map(|c| self.child_key(board, c.pos, threats - c.cost))
            .collect();
        loop {
            // This node's numbers from its children's, and the child to
            // search: the most proving (OR) or disproving (AND) one.
            let mut best = 0;
            let mut best_v = INF + 1;
            let mut second_v = INF;
            let mut sum: u32 = 0;
            let mut best_child = UNKNOWN;
            for (i, &k) in keys.iter().enumerate() {
                let e = self.lookup(k);
                let (v, other) = if or { (e.pn, e.dn) } else { (e.dn, e.pn) };
                sum = sum.saturating_add(other).min(INF);
                if v < best_v {
                    second_v = best_v.min(INF);
                    best_v = v;
                    best = i;
                    best_child = e;
                } else if v < second_v {
                    second_v = v;
                }
            }
            let node = if or {
                Entry {
                    pn: best_v,
                    dn: sum,
                }
            } else {
                Entry {
                    pn: sum,
                    dn: best_v,
                }
            };
            self.table.insert(key, node);
            if node.pn >= thpn || node.dn >= thdn || node.pn == 0 || node.dn == 0 {
                return node;
            }
            // Thresholds of the child (with the 1 + 1/4 trick: stay a
            // little longer in a child before switching).
            let sibling = second_v.saturating_add(second_v / 4 + 1).min(INF - 1);
            let (cpn, cdn) = if or {
                (
                    thpn.min(sibling),
                    thdn.saturating_sub(node.dn)
                        .saturating_add(best_child.dn)
                        .min(INF - 1),
                )
            } else {
                (
                    thpn.saturating_sub(node.pn)
                        .saturating_add(best_child.pn)
                        .min(INF - 1),
                    thdn.min(sibling),
                )
            };
            let c = moves[best];
            board.make(c.pos);
            self.mid(board, !or, threats - c.cost, keys[best], cpn, cdn);
            board.unmake();
            if self.aborted {
                return node;
            }
        }
    }

    /// The moves of a node, or its value when it is decided at once.
    fn expand(&mut self, board: &mut Board, or: bool, threats: u32) -> Expansion {
        if or {
            expand_attack(board, threats)
        } else {
            expand_defence(board)
        }
    }

    /// Plies to the five along the proof (the attacker choosing the
    /// shortest win, the defender the longest resistance).
    fn proof_len(
        &mut self,
        board: &mut Board,
        or: bool,
        threats: u32,
        lens: &mut Table<u32>,
    ) -> u32 {
        let key = self.key(board, threats);
        if let Some(&n) = lens.get(&key) {
            return n;
        }
        let n = match self.expand(board, or, threats) {
            Expansion::Proven => terminal_len(board, or),
            Expansion::Disproven => INF,
            Expansion::Moves(moves) => {
                let mut best = if or { INF } else { 0 };
                for c in moves {
                    let ck = self.child_key(board, c.pos, threats - c.cost);
                    if self.lookup(ck).pn != 0 {
                        if or {
                            continue;
                        }
                        // A defence the table lost: prove it again.
                        board.make(c.pos);
                        let e = self.mid(board, true, threats, ck, INF - 1, INF - 1);
                        board.unmake();
                        if e.pn != 0 {
                            best = INF;
                            break;
                        }
                    }
                    board.make(c.pos);
                    let l = self.proof_len(board, !or, threats - c.cost, lens);
                    board.unmake();
                    best = if or { best.min(l) } else { best.max(l) };
                }
                best.saturating_add(1).min(INF)
            }
        };
        lens.insert(key, n);
        n
    }

    /// The attacker's fastest winning move in a proved position: the
    /// child with the shortest proof.
    fn fastest(
        &mut self,
        board: &mut Board,
        threats: u32,
        lens: &mut Table<u32>,
    ) -> Option<(Pos, u32)> {
        let Expansion::Moves(moves) = expand_attack(board, threats) else {
            return None;
        };
        let mut best: Option<(u32, Pos, u32)> = None;
        for c in moves {
            let ck = self.child_key(board, c.pos, threats - c.cost);
            if self.lookup(ck).pn != 0 {
                continue;
            }
            board.make(c.pos);
            let l = self.proof_len(board, false, threats - c.cost, lens);
            board.unmake();
            if best.is_none_or(|(b, _, _)| l < b) {
                best = Some((l, c.pos, c.cost));
            }
        }
        best.map(|(_, p, cost)| (p, cost))
    }

    /// The main line of a proved position: the attacker's fastest move,
    /// the defender's longest resistance, down to the five.
    fn main_line(
        &mut self,
        board: &mut Board,
        threats: u32,
        lens: &mut Table<u32>,
        line: &mut Vec<Pos>,
    ) {
        let start = board.ply();
        let mut threats = threats;
        loop {
            // Attacker to move.
            match expand_attack(board, threats) {
                Expansion::Proven => {
                    finish_line(board, line);
                    break;
                }
                Expansion::Disproven => break,
                Expansion::Moves(_) => {}
            }
            let Some((p, cost)) = self.fastest(board, threats, lens) else {
                break;
            };
            threats -= cost;
            line.push(p);
            board.make(p);
            // Defender to move: the longest resistance.
            match expand_defence(board) {
                Expansion::Proven => {
                    finish_defence(board, line);
                    break;
                }
                Expansion::Disproven => break,
                Expansion::Moves(moves) => {
                    let mut best: Option<(u32, Pos)> = None;
                    for c in moves {
                        board.make(c.pos);
                        let l = self.proof_len(board, true, threats, lens);
                        board.unmake();
                        if l < INF && best.is_none_or(|(b, _)| l > b) {
                            best = Some((l, c.pos));
                        }
                    }
                    let Some((_, d)) = best else { break };
                    line.push(d);
                    board.make(d);
                }
            }
        }
        while board.ply() > start {
            board.unmake();
        }
    }

    /// A winning first move for the side to move, if the table proves one
    /// (the fastest). For the engine and the proof checker.
    pub fn winning_move(&mut self, board: &mut Board, limits: &SolveLimits) -> Option<Pos> {
        match self.solve(board, limits).outcome {
            Outcome::Win(line) => line.first().copied(),
            _ => None,
        }
    }
}
