//! One node of the negamax, as a sequence of steps: decided positions, the
//! table probe, the horizon, pruning before the moves, the moves (from the
//! forced-list cache or the generator), the move loop with late-move
//! reductions and move-count pruning, and the table store.

use super::position::SearchNode;
use super::tt::{Bound, Probe as TtProbe};
use super::{is_decisive, Pv, Searcher, MAX_PLY, WIN, WIN_MIN};
use crate::movegen::{NodeKind, ScoredMove};
use crate::types::Pos;
use smallvec::SmallVec;
use std::sync::atomic::Ordering;

/// What the table says of a node: a score to return at once, or the move
/// to try first.
enum Probe {
    Cut(i32),
    Move(Option<Pos>),
}

impl Searcher {
    #[inline]
    pub(super) fn check_stop(&mut self) {
        // The threat search adds nodes in bursts: check by distance, not
        // by a multiple of the count.
        if self.nodes < self.next_check {
            return;
        }
        self.next_check = self.nodes + 256;
        self.flush_helper_nodes();
        if self.stop.load(Ordering::Relaxed)
            || self.overtaken()
            || self.limits.nodes.is_some_and(|n| self.nodes() >= n)
            || self
                .limits
                .hard_time
                .is_some_and(|t| self.start.elapsed() >= t)
        {
            self.stopped = true;
        }
    }

    /// Negamax alpha-beta with PVS over any [`SearchNode`]: one node.
    pub fn negamax<N: SearchNode>(
        &mut self,
        board: &mut N,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv: &mut Pv,
    ) -> i32 {
        pv.clear();
        self.nodes += 1;
        self.check_stop();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);

        // Decided: a five, an open four, a four-three, a full board.
        let excluded: &[Pos] = if ply == 0 { &self.root_excluded } else { &[] };
        if let Some((score, mv)) = board.decided(&self.params, ply, excluded) {
            if let Some(m) = mv {
                pv.push(m);
            }
            return score;
        }
        if ply + 2 >= MAX_PLY {
            return board.evaluate(&self.eval);
        }

        // Table probe.
        let key = board.key();
        let entry = self.tt.probe(key).filter(|_| self.params.tt);
        let tt_move = match self.probe(entry, depth, alpha, beta, ply, pv) {
            Probe::Cut(s) => return s,
            Probe::Move(m) => m,
        };

        // Internal iterative reduction: no move to try first.
        let depth = self.iir(depth, ply, entry);

        // Horizon: the threat search, then the static value.
        if depth <= 0 {
            if let Some(v) = board.horizon(self, ply) {
                return v;
            }
        }

        // Pruning before the moves: reverse futility, razoring.
        if let Some(v) = self.prune_early(board, depth, alpha, beta, ply, entry) {
            return v;
        }

        // The moves.
        let pv_node = beta - alpha > 1;
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        let kind = self.moves_of(board, key, ply, &mut moves);
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
        let me = board.side();
        self.order(&mut moves, tt_move, ply, me);

        // The move loop.
        let forced = kind == NodeKind::Forced;
        let cut_node = !pv_node && ply > 0 && self.cut[ply];
        let likely_high = self.likely_fail_high(cut_node, forced, depth, beta, ply);
        let alpha0 = alpha;
        let mut best = -WIN;
        let mut best_move = None;
        let mut child = Pv::new();
        let prune_from = self.prune_from(forced || pv_node || ply == 0, depth, ply);
        // With `widen_pv`, a quiet PV node whose kept moves all lost goes
        // on with the rest of its candidates (once).
        let mut widen = self.params.widen_pv && pv_node && kind == NodeKind::Quiet;
        let mut next = 0;
        // In a parallel search, moves another thread is searching from
        // this position now are put off until the others are done.
        let mut put_off: SmallVec<[usize; 16]> = SmallVec::new();
        let may_put_off = self.smp.is_some() && depth >= super::threads::PUT_OFF_DEPTH;
        let mut resumed = 0;
        loop {
            let (i, first_visit) = if next < moves.len() {
                next += 1;
                (next - 1, true)
            } else if resumed < put_off.len() {
                resumed += 1;
                (put_off[resumed - 1], false)
            } else {
                if !widen || best > -WIN_MIN {
                    break;
                }
                widen = false;
                let excluded: &[Pos] = if ply == 0 { &self.root_excluded } else { &[] };
                board.widen(&self.params, &self.eval, excluded, &mut moves);
                if next == moves.len() {
                    break;
                }
                continue;
            };
            let p = moves[i].pos;
            if i >= prune_from && best > -WIN_MIN && !board.is_tactical(p) {
                continue;
            }
            let distraction = if forced && i > 0 {
                board.distraction(p)
            } else {
                0
            };
            // Far from both last stones, a shallow node skips it.
            if distraction == 3 && ply > 0 && depth < self.params.distract_prune && best > -WIN_MIN
            {
                continue;
            }
            let reduces = self.params.distract_depth > 0 && depth >= self.params.distract_depth;
            let distraction = if reduces { distraction } else { 0 };
            if may_put_off && i > 0 && first_visit && self.busy(key, p) {
                put_off.push(i);
                continue;
            }
            let busy = may_put_off.then(|| self.mark_busy(key, p));
            board.make(p);
            // Likely fail-high: a ply shallower.
            let new_depth =
                child_depth(kind, moves.len(), depth, self.params.forced_free) - likely_high as i32;
            let mut score;
            if i == 0 {
                // The first move of a PV node leads to a PV node; that of
                // an expected cut node to an expected all node.
                self.cut[ply + 1] = !pv_node && !cut_node;
                score = -self.negamax(board, new_depth, -beta, -alpha, ply + 1, &mut child);
            } else {
                let r = if forced {
                    distraction.min(new_depth - 1).max(0)
                } else {
                    self.reduction(depth, i)
                };
                self.cut[ply + 1] = true;
                score = -self.negamax(
                    board,
                    new_depth - r,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    &mut child,
                );
                if score > alpha && r > 0 {
                    self.cut[ply + 1] = !cut_node;
                    score =
                        -self.negamax(board, new_depth, -alpha - 1, -alpha, ply + 1, &mut child);
                }
                if score > alpha && score < beta {
                    self.cut[ply + 1] = false;
                    score = -self.negamax(board, new_depth, -beta, -alpha, ply + 1, &mut child);
                }
            }
            board.unmake();
            if let Some(token) = busy {
                self.unmark_busy(token);
            }
            if self.stopped {
                self.buffers[ply] = moves;
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(p);
                if score > alpha {
                    alpha = score;
                    pv.clear();
                    pv.push(p);
                    let _ = pv.try_extend_from_slice(&child);
                    if ply == 0 {
                        self.root_best = Some((p, score, pv.clone()));
                    }
                    if alpha >= beta {
                        self.reward(p, ply, me, depth, forced);
                        break;
                    }
                }
            }
        }
        self.buffers[ply] = moves;

        // Table store.
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

    /// What the table's entry says: a cut when it is deep enough and its
    /// bound decides against the window (never at the root), else its move.
    #[inline]
    fn probe(
        &self,
        entry: Option<TtProbe>,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv: &mut Pv,
    ) -> Probe {
        let Some(e) = entry else {
            return Probe::Move(None);
        };
        // With `pv_tt_cut` off, a PV node (an open window) is searched
        // whatever its entry says (Stockfish's and Rapfi's rule).
        let pv_node = beta - alpha > 1;
        if ply > 0 && e.depth >= depth && (self.params.pv_tt_cut || !pv_node) {
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
                return Probe::Cut(s);
            }
        }
        Probe::Move(e.mv)
    }

    /// The node's trend: whether its static value is above that of our
    /// last node with one (two plies up, else four), `None` when either
    /// is unknown.
    #[inline]
    pub(super) fn trend(&self, ply: usize) -> Option<bool> {
        let e = self.evals[ply]?;
        let before = [2, 4]
            .iter()
            .filter(|&&k| ply >= k)
            .find_map(|&k| self.evals[ply - k])?;
        Some(e > before)
    }

    /// Internal iterative reduction (see
    /// [`super::params::Params::iir_depth`]): the depth to search a node
    /// below the root with no table move at.
    #[inline]
    pub(super) fn iir(&self, depth: i32, ply: usize, entry: Option<TtProbe>) -> i32 {
        let p = &self.params;
        if p.iir_depth == 0 || depth < p.iir_depth || ply == 0 {
            return depth;
        }
        let no_move = entry.and_then(|e| e.mv).is_none();
        depth - no_move as i32
    }

    /// Reverse futility (far enough above beta, with nothing threatened, a
    /// shallow search will not change that) and razoring (far below alpha,
    /// only a threat of our own could help: the horizon looks for that),
    /// at null-window nodes below the root. First it keeps the node's
    /// quiet static value (see [`SearchNode::quiet_eval`]) for the
    /// improving test, where something uses it.
    #[inline]
    pub(super) fn prune_early<N: SearchNode>(
        &mut self,
        board: &mut N,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        entry: Option<TtProbe>,
    ) -> Option<i32> {
        let p = &self.params;
        let inner = ply > 0 && depth >= 1;
        let null_window = beta - alpha == 1;
        let prunes = null_window && depth <= p.rfp_depth.max(p.razor_depth);
        let trend = p.mcp_improving > 0;
        self.evals[ply] = if inner && (prunes || trend) {
            board.quiet_eval(&self.eval)
        } else {
            None
        };
        if !inner || !null_window {
            return None;
        }
        let mut e = self.evals[ply]?;
        // The table's score, where its bound says more than the static
        // value does.
        if let Some(t) = entry.filter(|t| self.params.tt_eval && !is_decisive(t.score)) {
            let closer = match t.bound {
                Bound::Exact => true,
                Bound::Lower => t.score > e,
                Bound::Upper => t.score < e,
            };
            if closer {
                e = t.score;
            }
        }
        let p = &self.params;
        if depth <= p.rfp_depth && !is_decisive(beta) {
            let margin = (p.rfp_margin * depth - p.rfp_base).max(0);
            if e - margin >= beta {
                return Some(e);
            }
        }
        if depth <= p.razor_depth && e + p.razor_margin * depth < alpha {
            if let Some(v) = board.horizon(self, ply) {
                return Some(v);
            }
        }
        None
    }

    /// The node's moves: at the root from the generator; below it a forced
    /// node's list is kept for the rest of the search (its defences are each
    /// checked by playing them, and the same position comes again in the
    /// next iteration and in re-searches).
    #[inline]
    fn moves_of<N: SearchNode>(
        &mut self,
        board: &mut N,
        key: u64,
        ply: usize,
        moves: &mut Vec<ScoredMove>,
    ) -> NodeKind {
        let (params, eval) = (&self.params, &self.eval);
        let width = params.width;
        if ply == 0 {
            let kind = board.generate(params, eval, params.root_width, &self.root_excluded, moves);
            self.root_moves = moves.len();
            kind
        } else if self.gen_cache.get(key, moves) {
            NodeKind::Forced
        } else {
            let kind = board.generate(params, eval, width, &[], moves);
            if kind == NodeKind::Forced {
                self.gen_cache.put(key, moves);
            }
            kind
        }
    }

    /// Move-count pruning: the index from which quiet moves are skipped
    /// (never at the root, at PV nodes or forced nodes: `exempt`); with
    /// `mcp_improving`, later at an improving node and sooner at one that
    /// is not.
    #[inline]
    pub(super) fn prune_from(&self, exempt: bool, depth: i32, ply: usize) -> usize {
        let p = &self.params;
        if exempt || p.mcp_scale <= 0 {
            return usize::MAX;
        }
        let shift = match (p.mcp_improving > 0, self.trend(ply)) {
            (true, Some(true)) => p.mcp_improving,
            (true, Some(false)) => -p.mcp_improving,
            _ => 0,
        };
        move_count_limit(depth, (p.mcp_scale + shift).max(1))
    }

    /// Likely fail-high (see [`super::params::Params::lfh_margin`]): is
    /// this quiet, expected cut node's static value above beta by the
    /// margin for its depth?
    #[inline]
    pub(super) fn likely_fail_high(
        &self,
        cut_node: bool,
        forced: bool,
        depth: i32,
        beta: i32,
        ply: usize,
    ) -> bool {
        let m = self.params.lfh_margin;
        m > 0
            && cut_node
            && !forced
            && !is_decisive(beta)
            && self.evals[ply].is_some_and(|e| e >= beta + m * depth)
    }

    /// The late-move reduction of the move at index `i` of a quiet node:
    /// one ply from `lmr_depth` and `lmr_index`, two from twice the index.
    #[inline]
    pub(super) fn reduction(&self, depth: i32, i: usize) -> i32 {
        let p = &self.params;
        if depth >= p.lmr_depth && i >= p.lmr_index {
            1 + (i >= 2 * p.lmr_index) as i32
        } else {
            0
        }
    }
}

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
