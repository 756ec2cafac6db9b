//! What the tree needs of a position ([`SearchNode`]), and the Gomoku
//! board's answers: decided positions, the horizon's threat search and
//! static value, and the generator's moves in the search's order.

use super::ordering::Scorer;
use super::params::Params;
use super::{Searcher, WIN};
use crate::board::rules::find_class;
use crate::board::Board;
use crate::eval::policy::refresh_shape_scores;
use crate::eval::Evaluator;
use crate::movegen::{add_rest, generate, NodeKind, ScoredMove};
use crate::pattern::Class;
use crate::solver::{four_three_wins, three_three_wins};
use crate::types::{Pos, Rule};

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
    /// The value at the horizon, or `None` if the node must still be
    /// searched (a threat to answer).
    fn horizon(&mut self, searcher: &mut Searcher, ply: usize) -> Option<i32>;
    /// The static evaluation, for the side to move.
    fn evaluate(&mut self, eval: &Evaluator) -> i32;
    /// The static evaluation of an inner node, when nothing is threatened
    /// that a static value would miss (for pruning); `None` otherwise.
    fn quiet_eval(&mut self, eval: &Evaluator) -> Option<i32>;
    /// Does move `m` make a three or a four for the side to move (never
    /// pruned by move count)?
    fn is_tactical(&self, m: Pos) -> bool;
    /// Plies more to reduce move `m` by at a node forced by the
    /// opponent's open-four threat, where `m` does not block it (our own
    /// four elsewhere, which only delays): two when it is far from the
    /// opponent's last stone, one more when far from our own (Rapfi's
    /// reduction of distracting defences).
    fn distraction(&self, _m: Pos) -> i32 {
        0
    }
    /// The moves to search, scored for ordering; a quiet node keeps its
    /// best `width`.
    fn generate(
        &mut self,
        params: &Params,
        eval: &Evaluator,
        width: usize,
        excluded: &[Pos],
        out: &mut Vec<ScoredMove>,
    ) -> NodeKind;
    /// Appends the rest of a quiet node's candidates to `out`, after the
    /// moves already there (see [`super::params::Params::widen_pv`]).
    fn widen(
        &mut self,
        _params: &Params,
        _eval: &Evaluator,
        _excluded: &[Pos],
        _out: &mut Vec<ScoredMove>,
    ) {
    }
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
        // A four-three or a double open three against an opponent without
        // fours wins (see `four_three_wins` for the rules where it may not).
        if params.static_four_three
            && ply > 0
            && (four_three_wins(self, me) || three_three_wins(self, me))
        {
            return Some((WIN - (ply as i32 + 5), None));
        }
        None
    }

    fn horizon(&mut self, searcher: &mut Searcher, ply: usize) -> Option<i32> {
        let opp = self.side_to_move().opposite();
        if self.count(opp, Class::Five) > 0 {
            return None;
        }
        if let Some(n) = searcher.vcf_at_horizon(self) {
            return Some(WIN - (ply as i32 + n as i32));
        }
        self.sync_acc();
        Some(searcher.eval.evaluate(self))
    }

    fn evaluate(&mut self, eval: &Evaluator) -> i32 {
        self.sync_acc();
        eval.evaluate(self)
    }

    fn quiet_eval(&mut self, eval: &Evaluator) -> Option<i32> {
        let opp = self.side_to_move().opposite();
        let threatened = [Class::Five, Class::Flex4, Class::Block4Flex3]
            .iter()
            .any(|&k| self.count(opp, k) > 0);
        (!threatened).then(|| {
            self.sync_acc();
            eval.evaluate(self)
        })
    }

    fn is_tactical(&self, m: Pos) -> bool {
        self.class(self.side_to_move(), m) >= Class::Flex3
    }

    fn distraction(&self, m: Pos) -> i32 {
        let opp = self.side_to_move().opposite();
        if self.count(opp, Class::Flex4) == 0 || self.class(opp, m) >= Class::Block4 {
            return 0;
        }
        let mut last = self.moves().rev().map(|(p, _)| p);
        let far = |q: Option<Pos>, reach: usize| q.is_some_and(|q| m.distance(q) > reach);
        let own_reach = if self.rule() == Rule::Renju { 5 } else { 4 };
        2 * far(last.next(), 4) as i32 + far(last.next(), own_reach) as i32
    }

    fn generate(
        &mut self,
        params: &Params,
        eval: &Evaluator,
        width: usize,
        excluded: &[Pos],
        out: &mut Vec<ScoredMove>,
    ) -> NodeKind {
        let scorer = scorer(self, params, eval);
        generate(self, &scorer, width, excluded, out)
    }

    fn widen(
        &mut self,
        params: &Params,
        eval: &Evaluator,
        excluded: &[Pos],
        out: &mut Vec<ScoredMove>,
    ) {
        let scorer = scorer(self, params, eval);
        add_rest(self, &scorer, excluded, out);
    }

    fn make(&mut self, m: Pos) {
        Board::make(self, m)
    }

    fn unmake(&mut self) {
        Board::unmake(self)
    }
}

/// The ordering of the side to move's cells (its learned table where the
/// rule has one).
/// The board's cached line-shape scores are brought up to date first,
/// unless the opponent has a five or an open four to stop: such a node
/// (most of the tree's) scores its one or two cells directly.
fn scorer<'a>(board: &mut Board, params: &'a Params, eval: &'a Evaluator) -> Scorer<'a> {
    let me = board.side_to_move();
    let opp = me.opposite();
    let policy = eval.policy_shared(board.rule(), me);
    let shapes = eval.policy_has_shapes(board.rule(), me);
    if let Some(t) = policy.filter(|_| shapes) {
        if board.count(opp, Class::Five) == 0 && board.count(opp, Class::Flex4) == 0 {
            refresh_shape_scores(board, t, me);
        }
    }
    let scorer = Scorer::new(board, params, policy.map(|t| &**t), me);
    if shapes {
        scorer
    } else {
        scorer.without_shapes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft::position_from_moves;

    #[test]
    fn distracting_fours_against_an_open_three() {
        // Black's open three g8 h8 i8 (i8 last); white a1 a2 a3 and m3
        // (last), white to move.
        let b = position_from_moves(15, Rule::Freestyle, "g8a1o15a2h8a3n15m3i8").unwrap();
        // White's fours a4 and a5 block nothing, far from both last stones.
        assert_eq!(b.distraction(Pos::new(0, 3)), 3);
        assert_eq!(b.distraction(Pos::new(0, 4)), 3);
        // The cells that stop the three are never reduced.
        for x in [4, 5, 9, 10] {
            assert_eq!(b.distraction(Pos::new(x, 7)), 0, "x {x}");
        }
        // With white's last stone at a3, a4 is near it: only the two plies.
        let b = position_from_moves(15, Rule::Freestyle, "g8a1o15a2h8m3n15a3i8").unwrap();
        assert_eq!(b.distraction(Pos::new(0, 3)), 2);
        // No open three to answer: nothing is reduced.
        let b = position_from_moves(15, Rule::Freestyle, "g8a1o15a2h8a3n15m3").unwrap();
        assert_eq!(b.distraction(Pos::new(0, 3)), 0);
    }
}
