//! Lazy SMP: a search on several threads. The calling thread is the main
//! one: it alone runs the root solver and the refutation checks, keeps the
//! clock, reports and answers. Helper threads, started with the search
//! (so they already search while the main thread's solver runs), search
//! the same root on their own copies of the board with their own killers,
//! history and caches, writing to and reading from the one shared
//! transposition table.
//!
//! The threads share their progress: the deepest iteration any of them
//! completed. A thread whose iteration another has already completed
//! drops it and goes on deeper; the main thread takes the completed
//! iteration as its own (reports it, checks its clock on it), so the time
//! to a depth is that of the fastest thread, and no thread repeats a depth
//! already done. Every odd-numbered helper works one depth ahead of the
//! others, so the table holds the next iteration's tree before the main
//! thread gets there.
//!
//! Within an iteration, a thread that comes to a move another thread is
//! searching from the same position puts it off until its other moves
//! are done (ABDADA's idea, as a hint through a small shared table), so
//! two threads at one node split its moves rather than both searching
//! the first ones.
//!
//! Each iterative deepening of the main thread (the first and each
//! re-search without a refuted root move) is a generation: helpers drop
//! their work and restart on the new root when it begins. They stop when
//! the main thread's search ends, and the search returns only once every
//! helper is out of it. The helper threads themselves are kept between
//! searches (a [`Pool`] of the searcher, idle on a channel), so a move's
//! search starts them with a message; clearing the searcher (a new game)
//! or dropping it ends them.

use super::limits::SearchResult;
use super::Searcher;
use crate::board::Board;
use crate::types::Pos;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{mpsc, Arc, Condvar, Mutex};

/// Most search threads (a sane bound for any machine and memory limit).
pub const MAX_THREADS: usize = 64;

/// Remaining depth from which a thread puts off a move another thread is
/// searching from the same position (ABDADA's idea, as a hint: the move
/// is searched later, once the others are done).
pub(super) const PUT_OFF_DEPTH: i32 = 3;

/// Slots of the table of moves being searched (position and move hashed).
const BUSY_SLOTS: usize = 1 << 15;

/// What the threads of one search share besides the table.
pub(super) struct Smp {
    /// The search is over: helpers return.
    done: AtomicBool,
    /// `generation << 32 | depth`: the deepest iteration completed by any
    /// thread in the current generation (read at every stop check).
    progress: AtomicU64,
    /// The current generation, its root's excluded cells and the deepest
    /// completed iteration's result; `wake` tells waiting helpers of a new
    /// generation or the end.
    state: Mutex<State>,
    wake: Condvar,
    /// Nodes the helpers have counted so far.
    nodes: Arc<AtomicU64>,
    /// Moves being searched now: the hash of position and move, in a slot
    /// it picks; 0 is free.
    busy: Box<[AtomicU64]>,
}

struct State {
    generation: u32,
    excluded: Vec<Pos>,
    deepest: Option<SearchResult>,
}

/// Which thread of a parallel search a searcher is.
#[derive(Clone, Copy, Debug)]
pub(super) struct Helper {
    /// From 1.
    id: usize,
    /// Nodes already added to the shared count.
    flushed: u64,
}

fn pack(generation: u32, depth: i32) -> u64 {
    (generation as u64) << 32 | depth.max(0) as u64
}

impl Smp {
    fn new(excluded: &[Pos], nodes: Arc<AtomicU64>) -> Smp {
        Smp {
            done: AtomicBool::new(false),
            progress: AtomicU64::new(pack(0, 0)),
            state: Mutex::new(State {
                generation: 0,
                excluded: excluded.to_vec(),
                deepest: None,
            }),
            wake: Condvar::new(),
            nodes,
            busy: (0..BUSY_SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // No thread panics holding it; a poisoned lock is still whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The generation and the deepest depth completed in it.
    pub(super) fn progress(&self) -> (u32, i32) {
        let p = self.progress.load(Relaxed);
        ((p >> 32) as u32, p as u32 as i32)
    }

    pub(super) fn is_done(&self) -> bool {
        self.done.load(Relaxed)
    }

    /// A thread completed iteration `r.depth` of `generation`.
    pub(super) fn publish(&self, generation: u32, r: &SearchResult) {
        let mut s = self.state();
        if s.generation != generation || s.deepest.as_ref().is_some_and(|d| d.depth >= r.depth) {
            return;
        }
        s.deepest = Some(r.clone());
        self.progress.store(pack(generation, r.depth), Relaxed);
    }

    /// The deepest iteration completed in `generation`, if deeper than
    /// `depth`.
    pub(super) fn deeper_than(&self, generation: u32, depth: i32) -> Option<SearchResult> {
        let s = self.state();
        (s.generation == generation)
            .then(|| s.deepest.clone())
            .flatten()
            .filter(|r| r.depth > depth)
    }

    /// A new iterative deepening of the main thread, on a root without
    /// `excluded`: helpers restart on it. Its number.
    pub(super) fn new_generation(&self, excluded: &[Pos]) -> u32 {
        let mut s = self.state();
        s.generation += 1;
        s.excluded = excluded.to_vec();
        s.deepest = None;
        self.progress.store(pack(s.generation, 0), Relaxed);
        self.wake.notify_all();
        s.generation
    }

    fn finish(&self) {
        let _s = self.state();
        self.done.store(true, Relaxed);
        self.wake.notify_all();
    }

    /// The next generation after `seen` (its number and excluded cells),
    /// waiting for it; `None` once the search is done.
    fn next_after(&self, seen: Option<u32>) -> Option<(u32, Vec<Pos>)> {
        let mut s = self.state();
        loop {
            if self.is_done() {
                return None;
            }
            if seen != Some(s.generation) {
                return Some((s.generation, s.excluded.clone()));
            }
            s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The busy-table hash of move `p` from position `key` (never 0).
#[inline]
fn busy_hash(key: u64, p: Pos) -> u64 {
    (key ^ (p.index() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1
}

impl Searcher {
    /// Is another thread searching move `p` from position `key` now?
    #[inline]
    pub(super) fn busy(&self, key: u64, p: Pos) -> bool {
        let Some(smp) = &self.smp else { return false };
        let h = busy_hash(key, p);
        smp.busy[h as usize % BUSY_SLOTS].load(Relaxed) == h
    }

    /// Marks move `p` from `key` as being searched by this thread: the
    /// slot and hash to clear after it ([`Searcher::unmark_busy`]).
    #[inline]
    pub(super) fn mark_busy(&self, key: u64, p: Pos) -> (usize, u64) {
        let h = busy_hash(key, p);
        let slot = h as usize % BUSY_SLOTS;
        if let Some(smp) = &self.smp {
            smp.busy[slot].store(h, Relaxed);
        }
        (slot, h)
    }

    /// The search of a marked move is over (the slot is cleared unless
    /// another move has taken it since).
    #[inline]
    pub(super) fn unmark_busy(&self, (slot, h): (usize, u64)) {
        if let Some(smp) = &self.smp {
            let _ = smp.busy[slot].compare_exchange(h, 0, Relaxed, Relaxed);
        }
    }

    /// The depth of this thread's next iteration after `depth`: the next
    /// one, or past what another thread completed (odd-numbered helpers
    /// one further), never past `max_depth` while one is left below it.
    pub(super) fn next_depth(&self, depth: i32, max_depth: i32) -> i32 {
        let next = depth + 1;
        let Some(smp) = &self.smp else { return next };
        let (generation, done) = smp.progress();
        if generation != self.generation {
            return next;
        }
        let ahead = self.helper.is_some_and(|h| h.id % 2 == 1) as i32;
        let want = next.max(done + 1 + ahead);
        if want > max_depth {
            next.max(done + 1)
        } else {
            want
        }
    }

    /// Has another thread already completed the iteration this one is
    /// searching (or, for a helper, has the search or its generation
    /// moved on)? Checked with the clock.
    pub(super) fn overtaken(&mut self) -> bool {
        let Some(smp) = &self.smp else { return false };
        if self.helper.is_some() && smp.is_done() {
            return true;
        }
        let (generation, done) = smp.progress();
        if generation != self.generation {
            return self.helper.is_some();
        }
        if done >= self.iter_depth {
            self.iteration_overtaken = true;
            return true;
        }
        false
    }

    /// The deepest iteration with a move that a thread of this parallel
    /// search completed in this generation, if deeper than `depth`.
    pub(super) fn deeper_done(&self, depth: i32) -> Option<SearchResult> {
        self.smp
            .as_ref()?
            .deeper_than(self.generation, depth)
            .filter(|r| r.best.is_some())
    }

    /// A helper adds its nodes not yet counted to the search's total.
    pub(super) fn flush_helper_nodes(&mut self) {
        if let Some(h) = self.helper.as_mut() {
            self.helper_nodes.fetch_add(self.nodes - h.flushed, Relaxed);
            h.flushed = self.nodes;
        }
    }

    /// Runs `main` (the main thread's whole search) with `threads - 1`
    /// helpers beside it, searching `board` until it returns. The helpers
    /// are this searcher's [`Pool`], kept from one search to the next.
    pub(super) fn with_helpers<R>(
        &mut self,
        board: &mut Board,
        threads: usize,
        main: impl FnOnce(&mut Searcher, &mut Board) -> R,
    ) -> R {
        let smp = Arc::new(Smp::new(&self.root_excluded, self.helper_nodes.clone()));
        self.smp = Some(smp.clone());
        self.generation = 0;
        let mut pool = self.pool.take().unwrap_or_default();
        pool.resize(threads - 1);
        let started: Vec<bool> = pool
            .workers
            .iter()
            .enumerate()
            .map(|(i, w)| {
                w.jobs
                    .send(Job {
                        id: i + 1,
                        params: self.params.clone(),
                        eval: self.eval.clone(),
                        tt: self.tt.clone(),
                        board: board.clone(),
                        depth: self.limits.depth,
                        start: self.start,
                        smp: smp.clone(),
                    })
                    .is_ok()
            })
            .collect();
        let r = main(self, board);
        smp.finish();
        // Every helper is out of the search before it returns (a worker
        // that died answers nothing: it is made again next time).
        let mut whole = true;
        for (w, started) in pool.workers.iter().zip(started) {
            whole &= started && w.done.recv().is_ok();
        }
        if !whole {
            pool = Pool::default();
        }
        self.pool = Some(pool);
        self.smp = None;
        r
    }

    /// Starts a new iterative deepening of the main thread (a re-search
    /// on a root with a move set aside): the helpers follow.
    pub(super) fn new_generation(&mut self) {
        if let Some(smp) = &self.smp {
            self.generation = smp.new_generation(&self.root_excluded);
        }
    }
}

/// One search for a helper: what it searches and with what.
struct Job {
    /// From 1.
    id: usize,
    params: super::params::Params,
    eval: crate::eval::Evaluator,
    tt: Arc<super::tt::TranspositionTable>,
    board: Board,
    /// A depth limit is kept; no clock and no node limit: the main
    /// thread's end is the helpers' end.
    depth: Option<i32>,
    start: std::time::Instant,
    smp: Arc<Smp>,
}

/// A helper thread kept between searches: its searcher (made on its own
/// thread: a searcher's solver stays on the thread that made it) keeps
/// its history and threat caches as the main thread's does, and starting
/// a search costs a message, not a thread and fresh caches (about 4 ms
/// and 1,200 page faults a search on this machine when each search made
/// its helpers).
struct Worker {
    jobs: mpsc::Sender<Job>,
    /// One message for each job done.
    done: mpsc::Receiver<()>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Worker {
    fn spawn(id: usize) -> Option<Worker> {
        let (jobs, job_rx) = mpsc::channel::<Job>();
        let (done_tx, done) = mpsc::channel();
        let handle = std::thread::Builder::new()
            .name(format!("tengen-helper-{id}"))
            .spawn(move || {
                let mut helper: Option<Searcher> = None;
                for job in job_rx {
                    let h = helper.get_or_insert_with(|| {
                        Searcher::sharing(
                            job.params.clone(),
                            job.eval.clone(),
                            job.tt.clone(),
                            Arc::new(AtomicBool::new(false)),
                        )
                    });
                    h.run_helper(job);
                    if done_tx.send(()).is_err() {
                        return;
                    }
                }
            })
            .ok()?;
        Some(Worker {
            jobs,
            done,
            handle: Some(handle),
        })
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the job channel ends the thread's loop.
        let (closed, _) = mpsc::channel();
        self.jobs = closed;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The helper threads of a searcher, made on its first parallel search
/// and kept until it is cleared or dropped.
#[derive(Default)]
pub(super) struct Pool {
    workers: Vec<Worker>,
}

impl Pool {
    /// How many helper threads there are.
    #[cfg(test)]
    pub(super) fn helpers(&self) -> usize {
        self.workers.len()
    }

    /// Exactly `n` helpers (fewer if the system refuses threads: the
    /// search then runs with those it has).
    fn resize(&mut self, n: usize) {
        self.workers.truncate(n);
        while self.workers.len() < n {
            match Worker::spawn(self.workers.len() + 1) {
                Some(w) => self.workers.push(w),
                None => break,
            }
        }
    }
}

impl Searcher {
    /// A helper's part of one parallel search: each generation of the
    /// main thread's deepening in turn, until the search is done.
    fn run_helper(&mut self, job: Job) {
        let Job {
            id,
            params,
            eval,
            tt,
            mut board,
            depth,
            start,
            smp,
        } = job;
        self.params = params;
        self.eval = eval;
        self.tt = tt;
        self.helper = Some(Helper { id, flushed: 0 });
        self.helper_nodes = smp.nodes.clone();
        self.limits = super::limits::Limits {
            depth,
            ..Default::default()
        };
        self.start = start;
        self.nodes = 0;
        self.next_check = 0;
        self.smp = Some(smp.clone());
        self.gen_cache.new_search();
        self.eval.attach(&mut board);
        let mut seen = None;
        while let Some((generation, excluded)) = smp.next_after(seen) {
            seen = Some(generation);
            self.generation = generation;
            self.root_excluded = excluded;
            self.iterate(&mut board, |_| {});
            self.flush_helper_nodes();
        }
        self.smp = None;
    }
}
