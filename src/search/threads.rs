//! Lazy SMP: a search on several threads. The calling thread is the main
//! one: it alone consults the solver, keeps the clock, reports and answers.
//! Each helper thread searches the same root on its own copy of the board
//! with its own killers, history and caches, writing to and reading from
//! the one shared transposition table, so the main thread finds there the
//! work the helpers did. Helpers skip some depths of the iterative
//! deepening (Stockfish's skip pattern) so the threads spread over depths
//! instead of all searching the same tree; they stop the moment the main
//! thread's search ends, and no helper outlives a search. A helper that
//! finishes the search first (its last iteration at the depth limit, or a
//! proved win or loss) stops the main thread, which then answers with the
//! helper's deeper result.

use super::limits::{Info, Limits, SearchResult};
use super::{is_decisive, Searcher, WIN};
use crate::board::Board;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// Most search threads (a sane bound for any machine and memory limit).
pub const MAX_THREADS: usize = 64;

/// Helper `i` (from 1) skips the depths `d` with
/// `((d + SKIP_PHASE[j]) / SKIP_SIZE[j])` odd, `j = (i - 1) % 20`.
const SKIP_SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

impl Searcher {
    /// Does this thread leave the iteration of `depth` to the others?
    pub(super) fn skips(&self, depth: i32) -> bool {
        match self.helper {
            None => false,
            Some((id, _)) => {
                let j = (id - 1) % 20;
                ((depth + SKIP_PHASE[j]) / SKIP_SIZE[j]) % 2 != 0
            }
        }
    }

    /// A helper adds its nodes not yet counted to the search's total.
    pub(super) fn flush_helper_nodes(&mut self) {
        if let Some((_, flushed)) = self.helper.as_mut() {
            self.helper_nodes.fetch_add(self.nodes - *flushed, Relaxed);
            *flushed = self.nodes;
        }
    }

    /// Iterative deepening on `self.threads` threads: this one and its
    /// helpers, which stop when it is done. The result is this thread's.
    pub(super) fn iterate_threads(
        &mut self,
        board: &mut Board,
        mut report: impl FnMut(&Info),
    ) -> SearchResult {
        let threads = self.threads.clamp(1, MAX_THREADS);
        if threads == 1 || self.helper.is_some() {
            return self.iterate(board, report);
        }
        let done = Arc::new(AtomicBool::new(false));
        self.helper_finished.store(false, Relaxed);
        let finished: Mutex<Option<SearchResult>> = Mutex::new(None);
        let main_result = std::thread::scope(|scope| {
            for id in 1..threads {
                let params = self.params.clone();
                let eval = self.eval.clone();
                let tt = self.tt.clone();
                let nodes = self.helper_nodes.clone();
                let done = done.clone();
                let mut board = board.clone();
                // No clock and no node limit: the main thread's end is the
                // helpers' end. A depth limit is kept.
                let limits = Limits {
                    depth: self.limits.depth,
                    ..Limits::default()
                };
                let excluded = self.root_excluded.clone();
                let start = self.start;
                let (finished, flag) = (&finished, self.helper_finished.clone());
                let depth_limit = limits.depth;
                scope.spawn(move || {
                    // Made on its own thread: a searcher's solver stays on
                    // the thread that made it.
                    let mut h = Searcher::sharing(params, eval, tt, done);
                    h.helper = Some((id, 0));
                    h.helper_nodes = nodes;
                    h.limits = limits;
                    h.start = start;
                    h.root_excluded = excluded;
                    h.gen_cache.new_search();
                    h.eval.attach(&mut board);
                    let r = h.iterate(&mut board, |_| {});
                    h.flush_helper_nodes();
                    let complete = !h.stopped
                        && (depth_limit.is_some_and(|d| r.depth >= d)
                            || (is_decisive(r.score) && WIN - r.score.abs() <= r.depth));
                    if complete && r.best.is_some() {
                        let mut f = finished.lock().expect("no helper panics holding it");
                        if f.as_ref().is_none_or(|o| r.depth > o.depth) {
                            *f = Some(r);
                        }
                        flag.store(true, Relaxed);
                    }
                });
            }
            let result = self.iterate(board, &mut report);
            done.store(true, Relaxed);
            result
        });
        self.helper_finished.store(false, Relaxed);
        let helper = finished.into_inner().expect("the helpers are done");
        match helper {
            // The main thread stopped because a helper finished first.
            Some(h) if h.depth > main_result.depth => {
                self.stopped = false;
                self.last_score = Some(h.score);
                let time = self.start.elapsed();
                let nodes = self.nodes();
                report(&Info {
                    depth: h.depth,
                    seldepth: h.pv.len() as i32,
                    score: h.score,
                    nodes,
                    nps: super::nps(nodes, time),
                    time,
                    pv: h.pv.clone(),
                });
                h
            }
            _ => main_result,
        }
    }
}
