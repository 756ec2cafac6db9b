//! Iterative deepening, negamax alpha-beta with principal-variation search,
//! aspiration windows, a transposition table, killers, history and
//! late-move reductions, and a threat search (VCF) at the horizon.
//!
//! The search never prints: progress goes to a callback.

pub mod params;
pub mod tt;
mod vcf;

use crate::board::Board;
use crate::eval::evaluate;
use crate::movegen::{find_class, generate, NodeKind, ScoredMove};
use crate::pattern::Class;
use crate::types::{Pos, CELLS};
use arrayvec::ArrayVec;
use params::Params;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tt::{Bound, TranspositionTable};

/// The score of a win: a win in `n` plies scores `WIN - n`.
pub const WIN: i32 = 30_000;
/// Scores beyond this are wins or losses.
pub const WIN_MIN: i32 = WIN - 1_000;
/// Deepest ply the search reaches (extensions included).
pub const MAX_PLY: usize = 128;

/// Is `score` a forced win or loss?
pub fn is_decisive(score: i32) -> bool {
    score.abs() >= WIN_MIN
}

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
    /// The game clock has room for the whole turn on every move to come
    /// (or there is no game clock), so saving time buys nothing.
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

/// A principal variation.
pub type Pv = ArrayVec<Pos, MAX_PLY>;

/// A searcher: the table and the ordering memory persist between searches.
pub struct Searcher {
    pub params: Params,
    pub tt: TranspositionTable,
    stop: Arc<AtomicBool>,
    killers: [[Option<Pos>; 2]; MAX_PLY],
    history: Box<[[i32; CELLS]; 2]>,
    buffers: Vec<Vec<ScoredMove>>,
    nodes: u64,
    next_check: u64,
    seldepth: usize,
    stopped: bool,
    start: Instant,
    limits: Limits,
    /// Cells the search may not play at the root (Yixin-Board's YXBLOCK).
    pub root_excluded: Vec<Pos>,
    vcf_line: Vec<Pos>,
    /// Positions where the threat search found no VCF, and to how many
    /// fours it looked (see `vcf::VcfCache`).
    vcf_cache: vcf::VcfCache,
    /// Move lists of forced nodes, for this search.
    gen_cache: GenCache,
    /// The best root move of the iteration under way, once one has been
    /// searched in full and beaten alpha: move, score, line.
    root_best: Option<(Pos, i32, Pv)>,
    /// The score of the last search (our previous move), for time
    /// management.
    last_score: Option<i32>,
    /// Moves generated at the root of the last iteration.
    root_moves: usize,
    /// The static value of the node at each ply of the current line
    /// (`NO_EVAL` where it was threatened or not computed).
    evals: [i32; MAX_PLY],
    /// The threat solver, for wins and losses by threats at the root.
    solver: crate::solver::Solver,
    /// The move left out at each ply by a singular-extension search.
    singular: [Option<Pos>; MAX_PLY],
    /// The depth of the iteration under way.
    root_depth: i32,
}

/// The time to stop after an iteration, from the planned time `soft`: half
/// of it while the best move holds, up to about twice that (never past
/// 60% of the hard limit, so the next iteration has time to change
/// something) when the best move changes (`changes`, a decaying count of
/// changes) or the score falls below the previous move's.
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

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Searcher({:?})", self.tt)
    }
}

impl Searcher {
    /// A searcher with a transposition table of at most `tt_bytes` bytes.
    pub fn new(params: Params, tt_bytes: usize) -> Searcher {
        let mut s = Searcher::unlinked(params, tt_bytes);
        s.solver.set_stop_flag(s.stop.clone());
        s
    }

    fn unlinked(params: Params, tt_bytes: usize) -> Searcher {
        Searcher {
            params,
            tt: TranspositionTable::new(tt_bytes),
            stop: Arc::new(AtomicBool::new(false)),
            killers: [[None; 2]; MAX_PLY],
            history: Box::new([[0; CELLS]; 2]),
            buffers: (0..MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            nodes: 0,
            next_check: 0,
            seldepth: 0,
            stopped: false,
            start: Instant::now(),
            limits: Limits::default(),
            root_excluded: Vec::new(),
            vcf_line: Vec::with_capacity(64),
            vcf_cache: vcf::VcfCache::new(),
            gen_cache: GenCache::new(),
            root_best: None,
            last_score: None,
            root_moves: 0,
            evals: [NO_EVAL; MAX_PLY],
            solver: crate::solver::Solver::new(),
            singular: [None; MAX_PLY],
            root_depth: 0,
        }
    }

    /// The flag another thread sets to stop the search.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Forgets everything learnt: table, killers, history.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.vcf_cache.clear();
        self.killers = [[None; 2]; MAX_PLY];
        self.history.iter_mut().for_each(|h| h.fill(0));
        self.last_score = None;
        self.solver.clear();
    }

    /// Searches `board` (left as it was) within `limits`, reporting each
    /// completed iteration to `report`.
    ///
    /// With the threat solver on (`params.solve_share`), a win by threats
    /// for the side to move is looked for first and played the fastest
    /// way. After the search (`params.refute_share`), the opponent's
    /// threats after the chosen move are solved; a move that loses to them
    /// is set aside and the search runs again without it, a few times at
    /// most.
    pub fn search(
        &mut self,
        board: &mut Board,
        limits: &Limits,
        mut report: impl FnMut(&Info),
    ) -> SearchResult {
        self.start = Instant::now();
        self.gen_cache.new_search();
        self.limits = limits.clone();
        self.nodes = 0;
        self.next_check = 0;
        self.stopped = false;
        self.stop.store(false, Ordering::Relaxed);
        if !board.is_won() && !board.is_full() {
            if let Some(r) = self.solve_root(board) {
                let elapsed = self.start.elapsed();
                report(&Info {
                    depth: 1,
                    seldepth: r.pv.len() as i32,
                    score: r.score,
                    nodes: self.nodes,
                    nps: nps(self.nodes, elapsed),
                    time: elapsed,
                    pv: r.pv.clone(),
                });
                self.last_score = Some(r.score);
                return r;
            }
        }
        let mut result = self.iterate(board, &mut report);
        let own_excluded = self.root_excluded.len();
        for _ in 0..self.params.refute_tries {
            // A proven loss needs no check; a win the tree claims does:
            // a width cut can hide the opponent's threats.
            let claimed_win = result.score > 0 && self.params.refute_wins;
            if self.stopped || (is_decisive(result.score) && !claimed_win) {
                break;
            }
            let Some(m) = result.best else { break };
            let Some(plies) = self.refuted(board, m) else {
                break;
            };
            log::info!("{m} loses to the opponent's threats: searching again without it");
            self.root_excluded.push(m);
            let again = self.iterate(board, &mut report);
            // Every other move loses by force too: the set-aside move, lost
            // only to a threat sequence, is the longer resistance.
            let all_lost = is_decisive(again.score) && again.score < 0;
            if again.best.is_none() || (self.stopped && again.depth == 0) || all_lost {
                // Keep the set-aside move, scored as the loss it is.
                result.score = result.score.min(-(WIN - 1 - plies as i32));
                break;
            }
            result = again;
        }
        self.root_excluded.truncate(own_excluded);
        result.nodes = self.nodes;
        result
    }

    /// The solver's budget for a share (percent) of this search's limits:
    /// nodes and time.
    fn solver_limits(&self, share: u32) -> crate::solver::SolveLimits {
        let share = share as u64;
        // A node limit is shared; a time limit bounds the solver by time
        // alone; a depth limit alone gives it a fixed budget.
        let nodes = match (self.limits.nodes, self.limits.hard_time) {
            (Some(n), _) => (n * share / 100).max(1),
            (None, Some(_)) => u64::MAX,
            (None, None) => self.params.solve_nodes * share / 100,
        };
        let time = self.limits.hard_time.map(|t| {
            let left = t.saturating_sub(self.start.elapsed());
            (t * share as u32 / 100).min(left)
        });
        crate::solver::SolveLimits {
            mode: crate::solver::Mode::Vct,
            max_threats: self.params.solve_threats,
            nodes: nodes.max(1),
            time,
            max_entries: 1 << 20,
        }
    }

    /// A win by threats for the side to move, as a search result.
    fn solve_root(&mut self, board: &mut Board) -> Option<SearchResult> {
        if self.params.solve_share == 0 {
            return None;
        }
        let limits = self.solver_limits(self.params.solve_share);
        let s = self.solver.solve(board, &limits);
        self.nodes += s.nodes;
        let crate::solver::Outcome::Win(line) = s.outcome else {
            return None;
        };
        let first = *line.first()?;
        if self.root_excluded.contains(&first) {
            return None;
        }
        Some(SearchResult {
            best: Some(first),
            score: WIN - s.plies as i32,
            depth: 1,
            nodes: self.nodes,
            pv: line,
            solved: true,
        })
    }

    /// Does the opponent win by threats after our move `m`? The length of
    /// their win in plies if so.
    fn refuted(&mut self, board: &mut Board, m: Pos) -> Option<u32> {
        if self.params.refute_share == 0 {
            return None;
        }
        let limits = self.solver_limits(self.params.refute_share);
        board.make(m);
        let won = board.is_won();
        let s = if won {
            None
        } else {
            Some(self.solver.solve(board, &limits))
        };
        board.unmake();
        let s = s?;
        self.nodes += s.nodes;
        matches!(s.outcome, crate::solver::Outcome::Win(_)).then_some(s.plies)
    }

    /// Iterative deepening from depth 1 within the limits set by
    /// [`Searcher::search`] (the clock keeps running from its start).
    fn iterate(&mut self, board: &mut Board, mut report: impl FnMut(&Info)) -> SearchResult {
        let limits = self.limits.clone();
        self.stopped = false;
        self.tt.new_search();
        self.killers = [[None; 2]; MAX_PLY];
        for h in self.history.iter_mut() {
            h.iter_mut().for_each(|v| *v /= 8);
        }
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as i32 / 2)
            .clamp(1, MAX_PLY as i32 / 2);
        let mut result = SearchResult {
            best: None,
            score: 0,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
            solved: false,
        };
        let mut prev = 0;
        // Best-move changes, halved each iteration (time management).
        let mut changes = 0i64;
        for depth in 1..=max_depth {
            self.root_depth = depth;
            self.root_best = None;
            self.seldepth = 0;
            let mut pv = Pv::new();
            let (mut alpha, mut beta) = (-WIN, WIN);
            let mut delta = self.params.aspiration;
            if depth >= 3 && !is_decisive(prev) {
                alpha = prev - delta;
                beta = prev + delta;
            }
            let score = loop {
                let s = self.negamax(board, depth, alpha, beta, 0, &mut pv);
                if self.stopped {
                    break s;
                }
                if s <= alpha && alpha > -WIN {
                    alpha = (s - delta).max(-WIN);
                } else if s >= beta && beta < WIN {
                    beta = (s + delta).min(WIN);
                } else {
                    break s;
                }
                delta *= 4;
            };
            if self.stopped {
                // A root move searched in full that beat the window's
                // alpha is better than the moves before it, the last
                // iteration's best among them: take it.
                if let Some((m, s, line)) = self.root_best.take() {
                    if result.best != Some(m) {
                        result.best = Some(m);
                        result.score = s;
                        result.pv = line.to_vec();
                    }
                } else if result.best.is_none() && !pv.is_empty() {
                    result.best = pv.first().copied();
                    result.pv = pv.to_vec();
                }
                break;
            }
            if depth > 1 && result.best != pv.first().copied() {
                changes += 4;
            }
            changes /= 2;
            prev = score;
            result = SearchResult {
                best: pv.first().copied(),
                score,
                depth,
                nodes: self.nodes,
                pv: pv.to_vec(),
                solved: false,
            };
            let elapsed = self.start.elapsed();
            report(&Info {
                depth,
                seldepth: self.seldepth as i32,
                score,
                nodes: self.nodes,
                nps: nps(self.nodes, elapsed),
                time: elapsed,
                pv: pv.to_vec(),
            });
            // A proven result needs no deeper search.
            if is_decisive(score) && WIN - score.abs() <= depth {
                break;
            }
            // On the clock, a lone legal reply (a five to block, the one
            // defence) is played without thinking on.
            if limits.adaptive && self.root_moves == 1 && depth >= 2 {
                break;
            }
            if let Some(t) = limits.soft_time {
                let t = if limits.adaptive && limits.ample && self.params.ample_pct > 0 {
                    // Nothing to save time for: keep deepening until this
                    // share of the hard limit.
                    limits.hard_time.unwrap_or(t) * self.params.ample_pct / 100
                } else if limits.adaptive {
                    adapt_time(t, limits.hard_time, changes, self.last_score, score)
                } else {
                    t
                };
                if elapsed >= t {
                    break;
                }
            }
        }
        result.nodes = self.nodes;
        self.last_score = (result.depth > 0).then_some(result.score);
        if result.best.is_none() {
            result.best = self.fallback_move(board);
        }
        result
    }

    /// Any playable cell, for a position the search found no move in.
    fn fallback_move(&self, board: &mut Board) -> Option<Pos> {
        let me = board.side_to_move();
        let mut cells = board.candidates();
        if cells.is_empty() {
            cells = *board.cells() & !(*board.stones(me) | *board.stones(me.opposite()));
        }
        let all: Vec<Pos> = cells
            .iter()
            .filter(|p| !self.root_excluded.contains(p))
            .collect();
        all.iter()
            .copied()
            .find(|&p| !crate::movegen::is_banned(board, me, p))
            .or_else(|| all.first().copied())
    }

    #[inline]
    fn check_stop(&mut self) {
        // The threat search adds nodes in bursts: check by distance, not
        // by a multiple of the count.
        if self.nodes < self.next_check {
            return;
        }
        self.next_check = self.nodes + 256;
        if self.stop.load(Ordering::Relaxed)
            || self.limits.nodes.is_some_and(|n| self.nodes >= n)
            || self
                .limits
                .hard_time
                .is_some_and(|t| self.start.elapsed() >= t)
        {
            self.stopped = true;
        }
    }

    /// Negamax alpha-beta with PVS over any [`SearchNode`].
    pub fn negamax<N: SearchNode>(
        &mut self,
        board: &mut N,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv: &mut Pv,
    ) -> i32 {
        self.node(board, depth, alpha, beta, ply, pv, false)
    }

    /// The cells a node may not play: the root's excluded cells, or the
    /// table move a singular-extension search leaves out (`skip_list`
    /// holds it).
    fn excluded<'a>(&'a self, ply: usize, skip: Option<Pos>, skip_list: &'a [Pos; 1]) -> &'a [Pos] {
        if ply == 0 {
            &self.root_excluded
        } else if skip.is_some() {
            skip_list
        } else {
            &[]
        }
    }

    /// One node of the negamax. `cut` says the parent expects this
    /// null-window node to fail high (an expected cut node).
    #[allow(clippy::too_many_arguments)]
    fn node<N: SearchNode>(
        &mut self,
        board: &mut N,
        mut depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv: &mut Pv,
        cut: bool,
    ) -> i32 {
        pv.clear();
        self.nodes += 1;
        self.check_stop();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        // A singular-extension search leaves the table move out: it is
        // another node, with its own table entry.
        let skip = self.singular[ply];
        let skip_list = [skip.unwrap_or_default()];
        if let Some((score, mv)) =
            board.decided(&self.params, ply, self.excluded(ply, skip, &skip_list))
        {
            if let Some(m) = mv {
                pv.push(m);
            }
            return score;
        }
        if ply + 2 >= MAX_PLY {
            return board.evaluate(&self.params);
        }
        let me = board.side();

        let key = match skip {
            Some(m) => board.key() ^ (m.index() as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93),
            None => board.key(),
        };
        let mut tt_move = None;
        let probe = self.tt.probe(key).filter(|_| self.params.tt);
        if let Some(e) = probe {
            tt_move = e.mv;
            if ply > 0 && e.depth >= depth {
                let s = score_from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    if let Some(m) = e.mv {
                        pv.push(m);
                    }
                    return s;
                }
            }
        }

        if depth <= 0 {
            if let Some(v) = board.horizon(self, ply, depth) {
                return v;
            }
        }

        // Internal iterative reduction: no table move to start with.
        if self.params.iir_depth > 0
            && ply > 0
            && depth >= self.params.iir_depth
            && tt_move.is_none()
            && (beta - alpha > 1 || cut)
        {
            depth -= 1;
        }

        // Is the side to move better off than two plies ago? Then move-count
        // pruning keeps more moves.
        let improving = if self.params.mcp_improving && self.params.mcp_scale > 0 {
            let e = if ply > 0 && !is_decisive(beta) {
                board.quiet_eval(&self.params).unwrap_or(NO_EVAL)
            } else {
                NO_EVAL
            };
            self.evals[ply] = e;
            ply >= 2 && e != NO_EVAL && self.evals[ply - 2] != NO_EVAL && e > self.evals[ply - 2]
        } else {
            false
        };

        // Reverse futility: far enough above beta, with nothing threatened,
        // a shallow search will not change that.
        if ply > 0
            && beta - alpha == 1
            && depth >= 1
            && depth <= self.params.rfp_depth
            && !is_decisive(beta)
        {
            if let Some(e) = board.quiet_eval(&self.params) {
                if e - self.params.rfp_margin * depth >= beta {
                    return e;
                }
            }
        }

        // Razoring: far below alpha with nothing threatened, only a threat
        // of our own could help; the horizon looks for that.
        if ply > 0 && beta - alpha == 1 && depth >= 1 && depth <= self.params.razor_depth {
            if let Some(e) = board.quiet_eval(&self.params) {
                if e + self.params.razor_margin * depth < alpha {
                    if let Some(v) = board.horizon(self, ply, 0) {
                        return v;
                    }
                }
            }
        }

        let width = if ply == 0 {
            self.params.root_width
        } else {
            self.params.width
        };
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        let excluded = self.excluded(ply, skip, &skip_list);
        // A forced node's list (its defences are each checked by playing
        // them) is kept for the rest of the search: the same position comes
        // again in the next iteration and in re-searches.
        let kind = if ply == 0 {
            board.generate(&self.params, width, excluded, &mut moves)
        } else if self.gen_cache.get(key, &mut moves) {
            NodeKind::Forced
        } else {
            let kind = board.generate(&self.params, width, excluded, &mut moves);
            if kind == NodeKind::Forced {
                self.gen_cache.put(key, &moves);
            }
            kind
        };
        if ply == 0 {
            self.root_moves = moves.len();
        }
        if moves.is_empty() {
            self.buffers[ply] = moves;
            // Nothing stops the opponent's threat: lost.
            return -(WIN - (ply as i32 + 2));
        }
        if let NodeKind::Win(p) = kind {
            self.buffers[ply] = moves;
            pv.push(p);
            return WIN - (ply as i32 + 1);
        }
        self.order(&mut moves, tt_move, ply, me);

        let forced = kind == NodeKind::Forced;
        let pv_node = beta - alpha > 1;

        // Singular extension: is the table move the only good one?
        let mut se_ext = 0;
        if self.params.se_depth > 0
            && ply > 0
            && skip.is_none()
            && !forced
            && depth >= self.params.se_depth
            && (ply as i32) < 2 * self.root_depth
        {
            if let (Some(m), Some(e)) = (tt_move, probe) {
                let tt_score = score_from_tt(e.score, ply);
                if e.depth >= depth - 3
                    && e.bound != Bound::Upper
                    && !is_decisive(tt_score)
                    && moves.first().is_some_and(|f| f.pos == m)
                {
                    let sb = tt_score - self.params.se_margin * depth;
                    self.singular[ply] = Some(m);
                    let mut scratch = Pv::new();
                    let v = self.node(board, (depth - 1) / 2, sb - 1, sb, ply, &mut scratch, cut);
                    self.singular[ply] = None;
                    if self.stopped {
                        self.buffers[ply] = moves;
                        return 0;
                    }
                    if v < sb {
                        se_ext = 1;
                    } else if sb >= beta {
                        self.buffers[ply] = moves;
                        return sb;
                    } else if tt_score >= beta {
                        se_ext = -1;
                    }
                }
            }
        }
        // Likely to fail high: an expected cut node well above beta.
        let likely_high = self.params.lfh_margin > 0
            && cut
            && !pv_node
            && !forced
            && !is_decisive(beta)
            && board
                .quiet_eval(&self.params)
                .is_some_and(|e| e >= beta - self.params.lfh_base + self.params.lfh_margin * depth);
        let alpha0 = alpha;
        let mut best = -WIN;
        let mut best_move = None;
        let mut child = Pv::new();
        let prune_from = if forced || beta - alpha > 1 || ply == 0 {
            usize::MAX
        } else if depth <= self.params.lmp_depth {
            ((3 + depth * depth) / 2) as usize
        } else if self.params.mcp_scale > 0 {
            move_count_limit(depth, self.params.mcp_scale * (1 + improving as i32))
        } else {
            usize::MAX
        };
        for (i, m) in moves.iter().enumerate() {
            let p = m.pos;
            if i >= prune_from && best > -WIN_MIN && !board.is_tactical(p) {
                continue;
            }
            // Only the table and cut-node reductions ask (two lookups a
            // move otherwise).
            let important = (self.params.lmr_scale > 0
                || (self.params.cut_reduce_index > 0 && cut))
                && i > 0
                && (board.is_tactical(p) || board.blocks_threat(p));
            let lfh_cut = likely_high && !board.makes_four(p);
            board.make(p);
            let new_depth = child_depth(kind, moves.len(), depth, self.params.forced_free)
                - lfh_cut as i32
                + if i == 0 { se_ext } else { 0 };
            let mut score;
            if i == 0 {
                score = -self.node(
                    board,
                    new_depth,
                    -beta,
                    -alpha,
                    ply + 1,
                    &mut child,
                    !pv_node && !cut,
                );
            } else {
                let r = if forced {
                    0
                } else if self.params.lmr_scale > 0 {
                    let pv_node = beta - alpha > 1;
                    let r = lmr_table(depth, i + 1, self.params.lmr_scale)
                        - pv_node as i32
                        - important as i32;
                    r.clamp(0, (new_depth - 1).max(0))
                } else if depth >= self.params.lmr_depth && i >= self.params.lmr_index {
                    1 + (i >= 2 * self.params.lmr_index) as i32
                } else {
                    0
                };
                // An expected cut node reduces its late quiet moves more.
                let r = if !forced
                    && cut
                    && self.params.cut_reduce_index > 0
                    && i >= self.params.cut_reduce_index
                    && depth >= 3
                    && !important
                {
                    (r + 1).min((new_depth - 1).max(0))
                } else {
                    r
                };
                score = -self.node(
                    board,
                    new_depth - r,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    &mut child,
                    r > 0 || !cut,
                );
                if score > alpha && r > 0 {
                    score = -self.node(
                        board,
                        new_depth,
                        -alpha - 1,
                        -alpha,
                        ply + 1,
                        &mut child,
                        !cut,
                    );
                }
                if score > alpha && score < beta {
                    score = -self.node(board, new_depth, -beta, -alpha, ply + 1, &mut child, false);
                }
            }
            board.unmake();
            if self.stopped {
                self.buffers[ply] = moves;
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(p);
                if score > alpha {
                    alpha = score;
                    // Once a move beat alpha, the rest only have to
                    // refute it: a ply less will do.
                    if self.params.alpha_reduce
                        && ply > 0
                        && depth > 2
                        && depth < 12
                        && !is_decisive(score)
                        && score < beta
                    {
                        depth -= 1;
                    }
                    pv.clear();
                    pv.push(p);
                    let _ = pv.try_extend_from_slice(&child);
                    if ply == 0 {
                        self.root_best = Some((p, score, pv.clone()));
                    }
                    if alpha >= beta {
                        if !forced {
                            let k = &mut self.killers[ply];
                            if k[0] != Some(p) {
                                k[1] = k[0];
                                k[0] = Some(p);
                            }
                        }
                        let h = &mut self.history[me][p.index()];
                        *h = (*h + depth * depth).min(1 << 20);
                        if self.params.history_malus && !forced {
                            for q in moves[..i].iter() {
                                let h = &mut self.history[me][q.pos.index()];
                                *h = (*h - depth * depth).max(-(1 << 20));
                            }
                        }
                        break;
                    }
                }
            }
        }
        self.buffers[ply] = moves;
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if self.params.tt {
            self.tt
                .store(key, depth, score_to_tt(best, ply), bound, best_move);
        }
        best
    }

    /// Puts the table move first, then killers, then the rest by static
    /// score plus history.
    fn order(&self, moves: &mut [ScoredMove], tt_move: Option<Pos>, ply: usize, side: usize) {
        let side = side & 1;
        for m in moves.iter_mut() {
            let bonus = if Some(m.pos) == tt_move {
                1 << 28
            } else if Some(m.pos) == self.killers[ply][0] {
                1 << 26
            } else if Some(m.pos) == self.killers[ply][1] {
                1 << 25
            } else {
                self.history[side][m.pos.index()] / 64
            };
            m.score = m.score.saturating_add(bonus);
        }
        crate::movegen::sort_moves(moves);
    }

    /// Nodes searched so far in the current or last search.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// The move lists of forced nodes (only those, so a hit is a forced node),
/// by position key, valid for one search (the parameters that shape a list
/// may change between searches). Direct-mapped, replaced always; a list
/// too long to keep is not kept.
struct GenCache {
    entries: Box<[GenEntry]>,
    search: u32,
}

#[derive(Clone)]
struct GenEntry {
    key: u64,
    search: u32,
    moves: ArrayVec<ScoredMove, 20>,
}

const GEN_CACHE_BITS: u32 = 14;

impl GenCache {
    fn new() -> GenCache {
        let empty = GenEntry {
            key: 0,
            search: 0,
            moves: ArrayVec::new(),
        };
        GenCache {
            entries: vec![empty; 1 << GEN_CACHE_BITS].into_boxed_slice(),
            search: 0,
        }
    }

    /// Forgets every list (by moving on to a new search number).
    fn new_search(&mut self) {
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            self.entries.iter_mut().for_each(|e| e.search = 0);
            self.search = 1;
        }
    }

    #[inline]
    fn slot(key: u64) -> usize {
        (key >> (64 - GEN_CACHE_BITS)) as usize
    }

    /// Copies the forced list kept for `key` into `out`, if there is one.
    #[inline]
    fn get(&self, key: u64, out: &mut Vec<ScoredMove>) -> bool {
        let e = &self.entries[Self::slot(key)];
        let hit = e.key == key && e.search == self.search;
        if hit {
            out.clear();
            out.extend_from_slice(&e.moves);
        }
        hit
    }

    /// Keeps the forced list `moves` for `key`.
    #[inline]
    fn put(&mut self, key: u64, moves: &[ScoredMove]) {
        let search = self.search;
        let e = &mut self.entries[Self::slot(key)];
        e.moves.clear();
        if e.moves.try_extend_from_slice(moves).is_ok() {
            e.key = key;
            e.search = search;
        } else {
            e.search = 0;
        }
    }
}

/// `256 * ln(i)`, rounded, for i up to 64 (integers, so the reductions
/// are the same on every platform).
const LN256: [i32; 65] = [
    0, 0, 177, 281, 355, 412, 459, 498, 532, 562, 589, 614, 636, 657, 676, 693, 710, 725, 740, 754,
    767, 779, 791, 803, 814, 824, 834, 844, 853, 862, 871, 879, 887, 895, 903, 910, 917, 924, 931,
    938, 944, 951, 957, 963, 969, 975, 980, 986, 991, 996, 1001, 1007, 1012, 1016, 1021, 1026,
    1030, 1035, 1039, 1044, 1048, 1052, 1057, 1061, 1065,
];

/// The late-move reduction of the `n`-th move (from 1) at `depth`:
/// `ln(depth) * ln(n) * scale / 100`, rounded down.
pub fn lmr_table(depth: i32, n: usize, scale: i32) -> i32 {
    let d = LN256[depth.clamp(0, 64) as usize];
    let m = LN256[n.min(64)];
    d * m / 256 * scale / (256 * 100)
}

/// No static value at this ply (see `Searcher::evals`).
const NO_EVAL: i32 = i32::MIN;

/// `depth^1.32`, rounded down, for depths up to 32 (integers, so pruning
/// is the same on every platform).
const POW132: [i32; 33] = [
    0, 1, 2, 4, 6, 8, 10, 13, 15, 18, 20, 23, 26, 29, 32, 35, 38, 42, 45, 48, 52, 55, 59, 62, 66,
    70, 73, 77, 81, 85, 89, 93, 97,
];

/// Move-count pruning: the index from which quiet moves are skipped at
/// `depth`, `(3 + depth^1.32) * scale / 200` (at least 1).
pub fn move_count_limit(depth: i32, scale: i32) -> usize {
    let t = POW132[depth.clamp(0, 32) as usize];
    ((3 + t) * scale / 200).max(1) as usize
}

/// The depth a child is searched to: a forced reply costs no depth when
/// there are at most `free` of them (1: only a lone reply).
pub fn child_depth(kind: NodeKind, moves: usize, depth: i32, free: usize) -> i32 {
    if kind == NodeKind::Forced && moves <= free {
        depth
    } else {
        depth - 1
    }
}

/// What the search needs of a position. The Gomoku board implements it;
/// so does a small game tree in the tests, which runs the very same
/// negamax.
pub trait SearchNode {
    /// The transposition key.
    fn key(&self) -> u64;
    /// The side to move, 0 or 1 (indexes history).
    fn side(&self) -> usize;
    /// A result known without searching (a won or lost position, a draw),
    /// with the move that wins, if any. `excluded` are cells the root may
    /// not play.
    fn decided(
        &mut self,
        params: &Params,
        ply: usize,
        excluded: &[Pos],
    ) -> Option<(i32, Option<Pos>)>;
    /// The value at the horizon (`depth` <= 0), or `None` if the node must
    /// still be searched (a threat to answer).
    fn horizon(&mut self, searcher: &mut Searcher, ply: usize, depth: i32) -> Option<i32>;
    /// The static evaluation, for the side to move.
    fn evaluate(&mut self, params: &Params) -> i32;
    /// The static evaluation of an inner node, when nothing is threatened
    /// that a static value would miss (for pruning); `None` otherwise.
    fn quiet_eval(&mut self, params: &Params) -> Option<i32>;
    /// Does move `m` make a three or a four for the side to move (never
    /// pruned by move count)?
    fn is_tactical(&self, m: Pos) -> bool;
    /// Does move `m` take a cell where the opponent would make an open
    /// three or a four?
    fn blocks_threat(&self, m: Pos) -> bool;
    /// Does `m` make a four (or five) for the side to move?
    fn makes_four(&self, _m: Pos) -> bool {
        false
    }
    /// The moves to search, ordered.
    fn generate(
        &mut self,
        params: &Params,
        width: usize,
        excluded: &[Pos],
        out: &mut Vec<ScoredMove>,
    ) -> NodeKind;
    fn make(&mut self, m: Pos);
    fn unmake(&mut self);
}

impl SearchNode for Board {
    fn key(&self) -> u64 {
        self.hash()
    }

    fn side(&self) -> usize {
        self.side_to_move().index()
    }

    fn decided(
        &mut self,
        params: &Params,
        ply: usize,
        excluded: &[Pos],
    ) -> Option<(i32, Option<Pos>)> {
        if self.is_won() {
            return Some((-(WIN - ply as i32), None));
        }
        if self.is_full() {
            return Some((0, None));
        }
        let me = self.side_to_move();
        let opp = me.opposite();
        if self.count(me, Class::Five) > 0 {
            if let Some(p) = find_class(self, me, Class::Five).filter(|p| !excluded.contains(p)) {
                return Some((WIN - (ply as i32 + 1), Some(p)));
            }
        }
        // An open four (or double four) wins unless the opponent has a
        // five; at the root the move itself is wanted, so search it.
        if ply > 0 && self.count(opp, Class::Five) == 0 && self.count(me, Class::Flex4) > 0 {
            return Some((WIN - (ply as i32 + 3), None));
        }
        // A four-three against an opponent without fours wins (see
        // `four_three_wins` for the rules where it may not).
        if params.static_four_three && ply > 0 && crate::solver::four_three_wins(self, me) {
            return Some((WIN - (ply as i32 + 5), None));
        }
        // So does a double open three against no fours.
        if params.static_three_three && ply > 0 && crate::solver::three_three_wins(self, me) {
            return Some((WIN - (ply as i32 + 5), None));
        }
        None
    }

    fn horizon(&mut self, searcher: &mut Searcher, ply: usize, depth: i32) -> Option<i32> {
        let opp = self.side_to_move().opposite();
        if self.count(opp, Class::Five) > 0 {
            return None;
        }
        if let Some(n) = searcher.vcf_at_horizon(self) {
            return Some(WIN - (ply as i32 + n as i32));
        }
        // The opponent threatens a VCF. The static value would hide it:
        // search on for a few plies (the defence is among the moves), or,
        // past that, count the threat against the side to move.
        let params = &searcher.params;
        if params.threat_extension > 0 || params.vcf_threat_penalty > 0 {
            self.toggle_side();
            let threat = searcher.vcf_at_horizon(self);
            self.toggle_side();
            if threat.is_some() {
                if depth > -searcher.params.threat_extension {
                    return None;
                }
                return Some(evaluate(self, &searcher.params) - searcher.params.vcf_threat_penalty);
            }
        }
        Some(evaluate(self, &searcher.params))
    }

    fn evaluate(&mut self, params: &Params) -> i32 {
        evaluate(self, params)
    }

    fn is_tactical(&self, m: Pos) -> bool {
        self.class(self.side_to_move(), m) >= Class::Flex3
    }

    fn makes_four(&self, m: Pos) -> bool {
        self.class(self.side_to_move(), m).is_four()
    }

    fn blocks_threat(&self, m: Pos) -> bool {
        self.class(self.side_to_move().opposite(), m) >= Class::Flex3
    }

    fn quiet_eval(&mut self, params: &Params) -> Option<i32> {
        let opp = self.side_to_move().opposite();
        let threatened = [Class::Five, Class::Flex4, Class::Block4Flex3]
            .iter()
            .any(|&k| self.count(opp, k) > 0);
        (!threatened).then(|| evaluate(self, params))
    }

    fn generate(
        &mut self,
        params: &Params,
        width: usize,
        excluded: &[Pos],
        out: &mut Vec<ScoredMove>,
    ) -> NodeKind {
        generate(self, params, width, excluded, out)
    }

    fn make(&mut self, m: Pos) {
        Board::make(self, m)
    }

    fn unmake(&mut self) {
        Board::unmake(self)
    }
}

fn nps(nodes: u64, t: Duration) -> u64 {
    let us = t.as_micros().max(1) as u64;
    nodes.saturating_mul(1_000_000) / us
}

/// Win scores are stored relative to the node, not the root.
fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= WIN_MIN {
        s + ply as i32
    } else if s <= -WIN_MIN {
        s - ply as i32
    } else {
        s
    }
}

fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= WIN_MIN {
        s - ply as i32
    } else if s <= -WIN_MIN {
        s + ply as i32
    } else {
        s
    }
}

#[cfg(test)]
mod tests;
