//! One node of the negamax, as a sequence of steps: decided positions, the
//! table probe, the horizon, pruning before the moves, the moves (from the
//! forced-list cache or the generator), the move loop with late-move
//! reductions and move-count pruning, and the table store.

use super::position::SearchNode;
use super::tt::{Bound, Probe as TtProbe};
use super::{is_decisive, Pv, Searcher, MAX_PLY, WIN, WIN_MIN};
use crate::movegen::{NodeKind, ScoredMove};
use crate::types::Pos;
use arrayvec::ArrayVec;
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
            || (self.threads > 1 && self.helper_finished.load(Ordering::Relaxed))
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

        // Table probe. A singular-extension search leaves the table move
        // out: another node, with its own key.
        let skip = self.singular[ply];
        let key = match skip {
            Some(m) => board.key() ^ (m.index() as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93),
            None => board.key(),
        };
        let entry = self.tt.probe(key).filter(|_| self.params.tt);
        let tt_move = match self.probe(entry, depth, alpha, beta, ply, pv) {
            Probe::Cut(s) => return s,
            Probe::Move(m) => m,
        };

        // Internal iterative reduction: no move to try first.
        let depth = self.iir(depth, ply, entry, skip);

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
        // Only the late-move reductions' switch reads it in the move loop.
        let improving = self.params.lmr_improving && self.improving(ply);

        // The moves.
        let pv_node = beta - alpha > 1;
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        let kind = self.moves_of(board, key, depth, ply, skip, pv_node, &mut moves);
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
        // On a principal variation now, or when the table's entry was made.
        let tt_pv = pv_node || entry.is_some_and(|e| e.pv);
        let cut_node = !pv_node && ply > 0 && self.cut[ply];
        let likely_high = self.likely_fail_high(cut_node, forced, depth, beta, ply);
        let singular =
            match self.singular_extension(board, &moves, entry, depth, beta, ply, skip, forced) {
                Ok(e) => e,
                Err(v) => {
                    self.buffers[ply] = moves;
                    return v;
                }
            };
        let alpha0 = alpha;
        let mut best = -WIN;
        let mut best_move = None;
        let mut child = Pv::new();
        let prune_from = self.prune_from(forced || pv_node || ply == 0, depth, ply);
        // The moves searched that did not cut (history's malus).
        let mut tried: ArrayVec<Pos, 64> = ArrayVec::new();
        // With `widen_lost` (or `widen_pv` at a PV node), a quiet node
        // whose kept moves all lost goes on with the rest of its
        // candidates (once).
        let mut widen = (self.params.widen_lost || (self.params.widen_pv && pv_node))
            && kind == NodeKind::Quiet;
        let mut next = 0;
        loop {
            if next == moves.len() {
                if !widen || best > -WIN_MIN {
                    break;
                }
                widen = false;
                let excluded: &[Pos] = if ply == 0 {
                    &self.root_excluded
                } else {
                    skip.as_slice()
                };
                board.widen(&self.params, &self.eval, excluded, &mut moves);
                if next == moves.len() {
                    break;
                }
            }
            let i = next;
            next += 1;
            let p = moves[i].pos;
            if i >= prune_from
                && best > -WIN_MIN
                && !board.is_tactical(p)
                && !(self.params.mcp_defence > 0 && board.blocks_class(p, self.params.mcp_defence))
            {
                continue;
            }
            // Before the move: does it go on with an attack, making an
            // open three or more after our last move made one
            // (`lmr_attack`)?
            let mut attack = false;
            if self.params.lmr_attack {
                let tactical = board.is_tactical(p);
                attack = tactical && i > 0 && !forced && ply >= 2 && self.attacks[ply - 2];
                self.attacks[ply] = tactical;
            }
            // Likely fail-high: a ply shallower, but for a four with
            // `lfh_fours` (read before the move, while the cell is empty).
            let shallower = likely_high && !(self.params.lfh_fours && board.makes_four(p));
            self.played[ply] = Some(p);
            board.make(p);
            let new_depth = child_depth(kind, moves.len(), depth, self.params.forced_free)
                + if i == 0 { singular } else { 0 }
                - shallower as i32;
            let mut score;
            if i == 0 {
                // The first move of a PV node leads to a PV node; that of
                // an expected cut node to an expected all node.
                self.cut[ply + 1] = !pv_node && !cut_node;
                score = -self.negamax(board, new_depth, -beta, -alpha, ply + 1, &mut child);
            } else {
                let r = if forced {
                    self.distract_reduction(board, p, ply)
                } else {
                    let mut r = self.reduction(depth, i, pv_node, improving, attack, cut_node);
                    let (lp, near) = (self.params.lmr_policy, self.params.lmr_policy_near);
                    if (lp > 0 || near > 0) && depth >= self.params.lmr_depth {
                        let gap = self.policy_gap[ply][p.index()];
                        if lp > 0 && gap > lp {
                            r += 1;
                        } else if near > 0 && gap < near && r > 0 {
                            r -= 1;
                        }
                    }
                    if depth >= self.params.lmr_depth {
                        r = self.history_reduction(r, me, p, new_depth);
                    }
                    if self.params.lmr_ttpv && tt_pv && !pv_node {
                        (r - 1).max(0)
                    } else {
                        r
                    }
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
                    let d = self.research_depth(new_depth, score, best);
                    if d > new_depth - r {
                        self.cut[ply + 1] = !cut_node;
                        score = -self.negamax(board, d, -alpha - 1, -alpha, ply + 1, &mut child);
                    }
                }
                if score > alpha && score < beta {
                    self.cut[ply + 1] = false;
                    score = -self.negamax(board, new_depth, -beta, -alpha, ply + 1, &mut child);
                }
            }
            board.unmake();
            if self.stopped {
                self.buffers[ply] = moves;
                return 0;
            }
            if (self.params.hist_gravity || self.params.lmr_hist > 0) && score < beta && !forced {
                // A quiet move that did not cut (the list is short: a
                // quiet node keeps `width` moves).
                let _ = tried.try_push(p);
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
                        self.reward(p, ply, me, depth, forced, &tried);
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
                .store(key, depth, score_to_tt(best, ply), bound, best_move, tt_pv);
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

    /// Is the node at `ply` improving: its static value above that of our
    /// last node two plies up (four where that one had none)? False where
    /// either is unknown.
    #[inline]
    pub(super) fn improving(&self, ply: usize) -> bool {
        self.trend(ply) == Some(true)
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
    /// below the root with no table move, or (`iir_stale`) one from a
    /// search that many plies shallower, at; not in a singular-extension
    /// search.
    #[inline]
    pub(super) fn iir(
        &self,
        depth: i32,
        ply: usize,
        entry: Option<TtProbe>,
        skip: Option<Pos>,
    ) -> i32 {
        let p = &self.params;
        if p.iir_depth == 0 || depth < p.iir_depth || ply == 0 || skip.is_some() {
            return depth;
        }
        let reduce = match entry.and_then(|e| e.mv.map(|_| e.depth)) {
            None => true,
            Some(d) => p.iir_stale > 0 && d + p.iir_stale <= depth,
        };
        depth - reduce as i32
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
        let trend = p.rfp_improving || p.lmr_improving || p.mcp_improving > 0;
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
            let improving = p.rfp_improving && self.improving(ply);
            let margin = (p.rfp_margin * (depth - improving as i32) - p.rfp_base).max(0);
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

    /// Singular extension (see [`super::params::Params::se_depth`]): the
    /// extension of the table move, first in `moves` (1, 0 or -1), or the
    /// node's value when the other moves alone beat beta (multi-cut).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn singular_extension<N: SearchNode>(
        &mut self,
        board: &mut N,
        moves: &[ScoredMove],
        entry: Option<TtProbe>,
        depth: i32,
        beta: i32,
        ply: usize,
        skip: Option<Pos>,
        forced: bool,
    ) -> Result<i32, i32> {
        let p = &self.params;
        if p.se_depth == 0
            || depth < p.se_depth
            || ply == 0
            || forced
            || skip.is_some()
            || moves.len() < 2
            || ply as i32 >= 2 * self.root_depth
        {
            return Ok(0);
        }
        let (Some(e), Some(first)) = (entry, moves.first()) else {
            return Ok(0);
        };
        let tt_score = score_from_tt(e.score, ply);
        if e.mv != Some(first.pos)
            || e.depth < depth - 3
            || e.bound == Bound::Upper
            || is_decisive(tt_score)
        {
            return Ok(0);
        }
        let sb = tt_score - p.se_margin * depth;
        self.singular[ply] = Some(first.pos);
        let mut scratch = Pv::new();
        let v = self.negamax(board, (depth - 1) / 2, sb - 1, sb, ply, &mut scratch);
        self.singular[ply] = None;
        if self.stopped {
            return Err(0);
        }
        if v < sb {
            Ok(1)
        } else if sb >= beta {
            Err(sb)
        } else if tt_score >= beta {
            Ok(-1)
        } else {
            Ok(0)
        }
    }

    /// The node's moves: at the root from the generator; below it a forced
    /// node's list is kept for the rest of the search (its defences are each
    /// checked by playing them, and the same position comes again in the
    /// next iteration and in re-searches). A PV node (`pv_node`) below
    /// the root keeps `pv_width` candidates where that is more.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn moves_of<N: SearchNode>(
        &mut self,
        board: &mut N,
        key: u64,
        depth: i32,
        ply: usize,
        skip: Option<Pos>,
        pv_node: bool,
        moves: &mut Vec<ScoredMove>,
    ) -> NodeKind {
        let (params, eval) = (&self.params, &self.eval);
        let mut width = width_at(params.width, params.width_ply, depth);
        if pv_node {
            width = width.max(params.pv_width);
        }
        if let Some(m) = skip {
            // A singular-extension search: the node's moves but one.
            board.generate(params, eval, width, &[m], moves)
        } else if ply == 0 {
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

    /// The depth of the full-depth re-search of a reduced move that beat
    /// alpha with `score` (see [`super::params::Params::lmr_deeper`]): a
    /// ply deeper when it beat the node's best so far by the margin, a ply
    /// shallower when it barely did.
    #[inline]
    pub(super) fn research_depth(&self, new_depth: i32, score: i32, best: i32) -> i32 {
        let m = self.params.lmr_deeper;
        if m <= 0 || is_decisive(score) || is_decisive(best) {
            new_depth
        } else if score > best + m {
            new_depth + 1
        } else if score < best + m / 8 {
            new_depth - 1
        } else {
            new_depth
        }
    }

    /// The reduction of a late move `p` at a forced node: with
    /// `lmr_distract`, a four that blocks nothing loses a ply for each of
    /// the last two moves it is far from (see
    /// [`super::params::Params::lmr_distract`]).
    #[inline]
    pub(super) fn distract_reduction<N: SearchNode>(&self, board: &N, p: Pos, ply: usize) -> i32 {
        if !self.params.lmr_distract || ply < 2 || !board.counter_four(p) {
            return 0;
        }
        let far = |q: Option<Pos>| q.is_some_and(|q| p.distance(q) > 4) as i32;
        far(self.played[ply - 1]) + far(self.played[ply - 2])
    }

    /// A reduction `r` of move `p` for `side` with `lmr_hist`: less by
    /// the move's reduction history (less `lmr_hist_offset`) over
    /// `lmr_hist`, never below 0, nor so deep that the child, at
    /// `new_depth - r`, falls below depth 1 (unless `r` already did).
    #[inline]
    pub(super) fn history_reduction(&self, r: i32, side: usize, p: Pos, new_depth: i32) -> i32 {
        let l = self.params.lmr_hist;
        if l <= 0 {
            return r;
        }
        let h = self.stat[side & 1][p.index()] - self.params.lmr_hist_offset;
        (r - h / l).clamp(0, r.max(new_depth - 1))
    }

    /// The late-move reduction of the move at index `i` of a quiet node;
    /// `attack`: the move goes on with an attack (see
    /// [`super::params::Params::lmr_attack`]); `cut_node`: the node is an
    /// expected cut node (see [`super::params::Params::lmr_cut`]).
    #[inline]
    pub(super) fn reduction(
        &self,
        depth: i32,
        i: usize,
        pv_node: bool,
        improving: bool,
        attack: bool,
        cut_node: bool,
    ) -> i32 {
        let p = &self.params;
        let mut r = 0;
        if depth >= p.lmr_depth && i >= p.lmr_index {
            let worse = p.lmr_improving && !pv_node && !improving;
            r = 1 + (i >= 2 * p.lmr_index) as i32 + worse as i32;
        }
        if p.lmr_log > 0 && depth >= 2 && i >= 1 {
            let ln = |x: usize| LN1024[x.min(LN1024.len() - 1)] as i64;
            let t = ln(depth as usize) * ln(i + 1) * p.lmr_log as i64 / (100 << 20);
            let t = (t as i32 - pv_node as i32).min(depth - 2);
            r = r.max(t);
        }
        if attack && p.lmr_attack {
            r = (r - 1).max(0);
        }
        if pv_node && p.lmr_pv {
            r = (r - 1).max(0);
        }
        if cut_node && p.lmr_cut > 0 && i >= 1 {
            // The child keeps at least depth 1.
            r = (r + p.lmr_cut).min((depth - 2).max(r));
        }
        r
    }
}

/// `1024 * ln(x)`, rounded, for x up to 64 (late-move reductions).
const LN1024: [i32; 65] = [
    0, 0, 710, 1125, 1420, 1648, 1835, 1993, 2129, 2250, 2358, 2455, 2545, 2627, 2702, 2773, 2839,
    2901, 2960, 3015, 3068, 3118, 3165, 3211, 3254, 3296, 3336, 3375, 3412, 3448, 3483, 3516, 3549,
    3580, 3611, 3641, 3670, 3698, 3725, 3751, 3777, 3803, 3827, 3851, 3875, 3898, 3921, 3943, 3964,
    3985, 4006, 4026, 4046, 4066, 4085, 4104, 4122, 4140, 4158, 4175, 4193, 4210, 4226, 4243, 4259,
];

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

/// The candidates a quiet node keeps at `depth`: `width`, and `per_ply`
/// more for each ply past 4.
pub fn width_at(width: usize, per_ply: usize, depth: i32) -> usize {
    width + (depth - 4).max(0) as usize * per_ply
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
