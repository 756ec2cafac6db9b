//! The search: iterative deepening over a negamax alpha-beta with
//! principal-variation search, aspiration windows, a transposition table,
//! killers, history, late-move reductions and forward pruning, a threat
//! search (VCF) at the horizon, and the threat solver at the root.
//!
//! The rooms: [`limits`] (what bounds a search and what it answers),
//! [`time`] (the clock), `root` (the solver, iterative deepening and the
//! refutation loop), `node` (one node of the tree, step by step),
//! [`position`] (what the tree needs of a position), [`ordering`] (move
//! scores, killers, history, the forced-list cache), [`tt`], `vcf` and
//! [`params`] (the tunable constants), `threads` (Lazy SMP: helper
//! threads on the shared table).
//!
//! The search never prints: progress goes to a callback.

pub mod limits;
mod node;
pub mod ordering;
pub mod params;
pub mod position;
mod root;
mod slots;
mod threads;
pub mod time;
pub mod tt;
pub mod tuned;
mod vcf;

use crate::board::Board;
use crate::eval::Evaluator;
use crate::movegen::ScoredMove;
use crate::types::{Pos, CELLS};
use arrayvec::ArrayVec;
use ordering::GenCache;
use params::Params;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Instant;
use tt::TranspositionTable;

pub use limits::{nps, Info, Limits, SearchResult};
pub use node::{child_depth, move_count_limit};
pub use position::SearchNode;
pub use threads::MAX_THREADS;
pub use time::adapt_time;

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

/// A principal variation.
pub type Pv = ArrayVec<Pos, MAX_PLY>;

/// A searcher: the table and the ordering memory persist between searches.
pub struct Searcher {
    pub params: Params,
    /// The static evaluation (and the learned move ordering) of every rule.
    pub eval: Evaluator,
    /// Shared by the threads of a parallel search.
    pub tt: Arc<TranspositionTable>,
    stop: Arc<AtomicBool>,
    /// Search threads, this one included (Lazy SMP; 1: this thread alone).
    pub threads: usize,
    /// Nodes the helper threads of this search have counted so far.
    helper_nodes: Arc<AtomicU64>,
    /// A helper thread: its number and the nodes it has counted.
    helper: Option<threads::Helper>,
    /// What the threads of a parallel search share, during one.
    smp: Option<Arc<threads::Smp>>,
    /// The iterative deepening (of a parallel search) this thread is in.
    generation: u32,
    /// The depth of the iteration under way.
    iter_depth: i32,
    /// The iteration under way was stopped because another thread had
    /// completed it.
    iteration_overtaken: bool,
    killers: [[Option<Pos>; 2]; MAX_PLY],
    /// The quiet static value of each node on the current line, where one
    /// was taken (for the trend of move-count pruning).
    evals: [Option<i32>; MAX_PLY],
    /// Whether the node at each ply is an expected cut node (set by its
    /// parent before searching it; for the likely fail-high).
    cut: [bool; MAX_PLY],
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
    /// The threat solver, for wins and losses by threats at the root.
    solver: crate::solver::Solver,
    /// The helper threads of a parallel search, kept between searches
    /// (none until the first one).
    pool: Option<threads::Pool>,
}

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Searcher({:?})", self.tt)
    }
}

impl Searcher {
    /// A searcher with the shipped evaluation and a transposition table of
    /// at most `tt_bytes` bytes.
    pub fn new(params: Params, tt_bytes: usize) -> Searcher {
        Searcher::with_eval(params, Evaluator::shipped(), tt_bytes)
    }

    /// A searcher with the evaluation `eval`.
    pub fn with_eval(params: Params, eval: Evaluator, tt_bytes: usize) -> Searcher {
        let tt = Arc::new(TranspositionTable::new(tt_bytes));
        Searcher::sharing(params, eval, tt, Arc::new(AtomicBool::new(false)))
    }

    /// A searcher on the table `tt`, stopped by `stop`.
    fn sharing(
        params: Params,
        eval: Evaluator,
        tt: Arc<TranspositionTable>,
        stop: Arc<AtomicBool>,
    ) -> Searcher {
        let mut solver = crate::solver::Solver::new();
        solver.set_stop_flag(stop.clone());
        Searcher {
            params,
            eval,
            tt,
            stop,
            threads: 1,
            helper_nodes: Arc::new(AtomicU64::new(0)),
            helper: None,
            smp: None,
            generation: 0,
            iter_depth: 0,
            iteration_overtaken: false,
            killers: [[None; 2]; MAX_PLY],
            evals: [None; MAX_PLY],
            cut: [false; MAX_PLY],
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
            solver,
            pool: None,
        }
    }

    /// The flag another thread sets to stop the search. It belongs to the
    /// caller: the search reads it and never clears it, so a stop that
    /// arrives before a search starts still stops it.
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
        // The helpers' own memory goes with them: new ones next time.
        self.pool = None;
    }

    /// Nodes searched so far in the current or last search, by every
    /// thread.
    pub fn nodes(&self) -> u64 {
        self.nodes + self.helper_nodes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Searches `board` (left as it was, keeping the sums of this
    /// searcher's evaluation from now on) within `limits`, reporting each
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
        self.helper_nodes
            .store(0, std::sync::atomic::Ordering::Relaxed);
        self.next_check = 0;
        self.stopped = false;
        self.eval.attach(board);
        let threads = self.threads.clamp(1, MAX_THREADS);
        // The table's maker writes it before searching where it can
        // (`TranspositionTable::warm`): never here, in a move's time.
        let mut r = if threads > 1 {
            self.with_helpers(board, threads, |s, b| s.search_main(b, &mut report))
        } else {
            self.search_main(board, &mut report)
        };
        // Every thread's nodes, the helpers' last ones included.
        r.nodes = self.nodes();
        r
    }

    /// The progress line of a result found whole (the solver's win, a
    /// helper's deeper iteration): its depth and line, every thread's
    /// nodes so far.
    fn info_of(&self, r: &SearchResult) -> Info {
        let elapsed = self.start.elapsed();
        Info {
            depth: r.depth,
            seldepth: r.pv.len() as i32,
            score: r.score,
            nodes: self.nodes(),
            nps: nps(self.nodes(), elapsed),
            time: elapsed,
            pv: r.pv.clone(),
        }
    }

    /// [`Searcher::search`] on this thread, helpers beside it or not.
    fn search_main(&mut self, board: &mut Board, report: &mut impl FnMut(&Info)) -> SearchResult {
        if !board.is_won() && !board.is_full() {
            if let Some(r) = self.solve_root(board) {
                report(&self.info_of(&r));
                self.last_score = Some(r.score);
                return self.allowed_answer(board, r);
            }
        }
        let result = self.iterate(board, &mut *report);
        let mut result = self.refute_loop(board, result, report);
        result.nodes = self.nodes();
        self.allowed_answer(board, result)
    }
}

#[cfg(test)]
mod tests;
