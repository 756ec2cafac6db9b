//! The root: the threat solver before the search, iterative deepening with
//! aspiration windows, and the check of the chosen move against the
//! opponent's threats after it.

use super::limits::{nps, Info, SearchResult};
use super::position::SearchNode;
use super::time::adapt_time;
use super::{is_decisive, Pv, Searcher, MAX_PLY, WIN};
use crate::board::rules::is_banned;
use crate::board::Board;
use crate::solver::{Mode, Outcome, SolveLimits};
use crate::types::Pos;

impl Searcher {
    /// The solver's budget for a share (percent) of this search's limits:
    /// nodes and time.
    fn solver_limits(&self, share: u32) -> SolveLimits {
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
        SolveLimits {
            mode: Mode::Vct,
            max_threats: self.params.solve_threats,
            nodes: nodes.max(1),
            time,
            max_entries: 1 << 20,
        }
    }

    /// A win by threats for the side to move, as a search result.
    pub(super) fn solve_root(&mut self, board: &mut Board) -> Option<SearchResult> {
        if self.params.solve_share == 0 {
            return None;
        }
        let limits = self.solver_limits(self.params.solve_share);
        let s = self.solver.solve(board, &limits);
        self.nodes += s.nodes;
        let Outcome::Win(line) = s.outcome else {
            return None;
        };
        let first = *line.first()?;
        // Every move of ours in the line (not the first alone) must be
        // one we may play: a win through a blocked cell is no win here.
        if line
            .iter()
            .step_by(2)
            .any(|p| self.root_excluded.contains(p))
        {
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

    /// Does the opponent win by threats after our move `m`, the solver
    /// having `refute_share` of the limits? The length of their win in
    /// plies if so.
    fn refuted(&mut self, board: &mut Board, m: Pos) -> Option<u32> {
        let share = self.params.refute_share;
        if share == 0 {
            return None;
        }
        let limits = self.solver_limits(share);
        self.opponent_wins_after(board, m, &limits)
    }

    /// The length in plies of the opponent's win by threats after our move
    /// `m` that the solver finds within `limits`, if it finds one.
    fn opponent_wins_after(
        &mut self,
        board: &mut Board,
        m: Pos,
        limits: &SolveLimits,
    ) -> Option<u32> {
        board.make(m);
        let s = (!board.is_won()).then(|| self.solver.solve(board, limits));
        board.unmake();
        let s = s?;
        self.nodes += s.nodes;
        matches!(s.outcome, Outcome::Win(_)).then_some(s.plies)
    }

    /// Checks the search's move against the opponent's threats after it: a
    /// move that loses to them is set aside and the search runs again
    /// without it, `params.refute_tries` times at most.
    pub(super) fn refute_loop(
        &mut self,
        board: &mut Board,
        mut result: SearchResult,
        report: &mut impl FnMut(&Info),
    ) -> SearchResult {
        let own_excluded = self.root_excluded.len();
        for _ in 0..self.params.refute_tries {
            // A proven loss needs no check; a win the tree claims does:
            // a width cut can hide the opponent's threats.
            let claimed_win = result.score > 0 && self.params.refute_wins;
            if is_decisive(result.score) && !claimed_win {
                break;
            }
            if self.stopped {
                break;
            }
            let Some(m) = result.best else { break };
            let Some(plies) = self.refuted(board, m) else {
                break;
            };
            log::info!("{m} loses to the opponent's threats: searching again without it");
            self.root_excluded.push(m);
            self.new_generation();
            let again = self.iterate(board, &mut *report);
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
        result
    }

    /// Iterative deepening from depth 1 within the limits set by
    /// [`Searcher::search`] (the clock keeps running from its start).
    pub(super) fn iterate(
        &mut self,
        board: &mut Board,
        mut report: impl FnMut(&Info),
    ) -> SearchResult {
        let limits = self.limits.clone();
        self.stopped = false;
        if self.helper.is_none() {
            self.tt.new_search();
        }
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
        let mut depth = 0;
        loop {
            depth = self.next_depth(depth, max_depth);
            if depth > max_depth {
                break;
            }
            self.root_best = None;
            self.seldepth = 0;
            self.iter_depth = depth;
            self.iteration_overtaken = false;
            let mut line = Pv::new();
            let score = self.aspiration(board, depth, prev, &mut line);
            let (score, pv, seldepth, own) = if !self.stopped {
                (score, line.to_vec(), self.seldepth, true)
            } else if self.iteration_overtaken {
                // Another thread completed this iteration (or a deeper
                // one) first: its result is this one's.
                self.stopped = false;
                let Some(r) = self.deeper_done(result.depth) else {
                    continue;
                };
                depth = r.depth;
                let len = r.pv.len();
                (r.score, r.pv, len, false)
            } else {
                // A root move searched in full that beat the window's
                // alpha is better than the moves before it, the last
                // iteration's best among them: take it.
                if let Some((m, s, line)) = self.root_best.take() {
                    if result.best != Some(m) {
                        result.best = Some(m);
                        result.score = s;
                        result.pv = line.to_vec();
                    }
                } else if result.best.is_none() && !line.is_empty() {
                    result.best = line.first().copied();
                    result.pv = line.to_vec();
                }
                break;
            };
            if depth > 1 && result.best != pv.first().copied() {
                changes += 4;
            }
            changes /= 2;
            prev = score;
            result = SearchResult {
                best: pv.first().copied(),
                score,
                depth,
                nodes: self.nodes(),
                pv,
                solved: false,
            };
            if let (true, Some(smp)) = (own, &self.smp) {
                smp.publish(self.generation, &result);
            }
            let elapsed = self.start.elapsed();
            report(&Info {
                depth,
                seldepth: seldepth as i32,
                score,
                nodes: self.nodes(),
                nps: nps(self.nodes(), elapsed),
                time: elapsed,
                pv: result.pv.clone(),
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
                let ample = self.params.ample_pct > 0 && limits.ample;
                let t = match (limits.hard_time, ample) {
                    // Nothing to save time for: deepen until this share
                    // of the hard limit.
                    (Some(h), true) => h * self.params.ample_pct as u32 / 100,
                    _ if limits.adaptive => {
                        adapt_time(t, limits.hard_time, changes, self.last_score, score)
                    }
                    _ => t,
                };
                if elapsed >= t {
                    break;
                }
            }
        }
        // Stopped: a deeper iteration another thread completed is better
        // than this thread's last.
        if self.helper.is_none() {
            if let Some(r) = self.deeper_done(result.depth) {
                report(&self.info_of(&r));
                result = r;
            }
        }
        result.nodes = self.nodes();
        self.last_score = (result.depth > 0).then_some(result.score);
        if result.best.is_none() {
            result.best = self.fallback_move(board);
        }
        result
    }

    /// One iteration: a window around the last score (from depth 3),
    /// widened on a fail until the score falls inside it.
    fn aspiration(&mut self, board: &mut Board, depth: i32, prev: i32, pv: &mut Pv) -> i32 {
        let (mut alpha, mut beta) = (-WIN, WIN);
        let mut delta = self.params.aspiration;
        if depth >= 3 && !is_decisive(prev) {
            alpha = prev - delta;
            beta = prev + delta;
        }
        loop {
            let s = self.negamax(board, depth, alpha, beta, 0, pv);
            if self.stopped {
                return s;
            }
            if s <= alpha && alpha > -WIN {
                alpha = (s - delta).max(-WIN);
            } else if s >= beta && beta < WIN {
                beta = (s + delta).min(WIN);
            } else {
                return s;
            }
            delta = widen(delta, self.params.asp_grow);
        }
    }

    /// The move for a position the search found no move in (stopped, or
    /// out of nodes, before its first root move was searched): the
    /// generator's first, so that a five of our own is played and the
    /// opponent's five or open four is blocked whatever the limits; else
    /// any playable cell, a candidate if one is not excluded, else any
    /// empty cell (an empty board whose centre is blocked has no
    /// candidate).
    fn fallback_move(&self, board: &mut Board) -> Option<Pos> {
        let mut moves = Vec::new();
        let (params, eval) = (&self.params, &self.eval);
        board.generate(
            params,
            eval,
            params.root_width,
            &self.root_excluded,
            &mut moves,
        );
        if let Some(m) = moves.first() {
            return Some(m.pos);
        }
        let me = board.side_to_move();
        let empty = *board.cells() & !(*board.stones(me) | *board.stones(me.opposite()));
        let allowed = |cells: crate::bitboard::Bitboard| -> Vec<Pos> {
            cells
                .iter()
                .filter(|p| !self.root_excluded.contains(p))
                .collect()
        };
        let near = allowed(board.candidates());
        let everywhere = allowed(empty);
        // A cell the rule allows, near the stones if one is; a forbidden
        // one only when no other is left (renju black then loses anyway).
        near.iter()
            .chain(everywhere.iter())
            .copied()
            .find(|&p| !is_banned(board, me, p))
            .or_else(|| near.first().or(everywhere.first()).copied())
    }

    /// The last guard before a move leaves the search: a move the rule
    /// forbids the side to move (renju black) is never the answer while
    /// another cell is playable.
    pub(super) fn allowed_answer(&self, board: &mut Board, mut r: SearchResult) -> SearchResult {
        let me = board.side_to_move();
        if let Some(p) = r.best.filter(|&p| is_banned(board, me, p)) {
            let moves: String = board.moves().map(|(m, _)| m.to_pos_string()).collect();
            log::error!(
                "the search chose {p}, forbidden to {me:?}: playing another cell \
                 (moves {moves}, depth {}, score {}, solved {}, pv {:?})",
                r.depth,
                r.score,
                r.solved,
                r.pv
            );
            r.best = self.fallback_move(board);
            r.pv = r.best.into_iter().collect();
        }
        r
    }
}

/// The aspiration half-width after a fail: `pct` percent of `delta`, and
/// at least one more (the window always grows, whatever the setting).
pub(super) fn widen(delta: i32, pct: i32) -> i32 {
    (delta.saturating_mul(pct) / 100).max(delta.saturating_add(1))
}
