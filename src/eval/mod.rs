//! Static evaluation from the incremental pattern state.
//!
//! Every empty cell holds, for each side, a pattern code: the combination
//! of its four line patterns ([`crate::pattern::pcode`]). The value of a
//! position for the side to move is the sum over empty cells of a table's
//! value of the cell's code for the side to move, less the sum of the
//! opponent's codes in a second table, plus a correction for which threat
//! classes each side holds ([`weights::threat_mask`]). The board keeps the
//! sums as moves are made ([`crate::board::CodeValues`]), so evaluation is
//! O(1) and never scans the board.
//!
//! A rule may also have a network ([`net`]), whose output is added to the
//! tables' value; the board then keeps its accumulators too.
//!
//! An [`Evaluator`] holds the tables (and networks) of every rule; the
//! search reaches the evaluation only through it.

pub mod net;
pub mod policy;
pub mod weights;

use crate::board::Board;
use crate::types::{Color, Rule};
use net::Net;
use policy::POLICY_LEN;
use std::sync::{Arc, OnceLock};
use weights::{threat_mask, Weights, WeightsError};

/// Largest magnitude of a static evaluation: far below win scores.
pub const EVAL_LIMIT: i32 = 20_000;

/// The evaluation tables of every rule.
#[derive(Clone, Debug)]
pub struct Evaluator {
    by_rule: [Arc<Weights>; Rule::ALL.len()],
    /// Per rule and colour to move: its learned ordering reads line
    /// shapes (see [`policy::has_shapes`]).
    shapes: [[bool; 2]; Rule::ALL.len()],
    nets: [Option<Arc<Net>>; Rule::ALL.len()],
    /// Per rule, the network of the boards its first one does not fit
    /// (the rule's second shipped network), if any.
    others: [Option<Arc<Net>>; Rule::ALL.len()],
}

/// Per rule, its `n`-th shipped network (see `SHIPPED` in [`net`]).
fn nth_nets(n: usize) -> [Option<Arc<Net>>; Rule::ALL.len()] {
    Rule::ALL.map(|rule| match Net::shipped_nth(rule, n) {
        Some(Ok(net)) => Some(Arc::new(net)),
        Some(Err(e)) => panic!("{e}"),
        None => None,
    })
}

impl Evaluator {
    /// The tables (and networks) compiled into the engine.
    pub fn shipped() -> Evaluator {
        static SHIPPED: OnceLock<Evaluator> = OnceLock::new();
        SHIPPED
            .get_or_init(|| {
                // The shipped files are checked by the tests.
                let by_rule = Rule::ALL.map(|rule| match Weights::shipped(rule) {
                    Ok(w) => Arc::new(w),
                    Err(e) => panic!("{e}"),
                });
                Evaluator {
                    shapes: by_rule.each_ref().map(|w| shape_flags(w)),
                    by_rule,
                    nets: nth_nets(0),
                    others: nth_nets(1),
                }
            })
            .clone()
    }

    /// These tables without any network: the linear evaluation a network
    /// is trained on top of.
    pub fn without_nets(mut self) -> Evaluator {
        self.nets = Default::default();
        self.others = Default::default();
        self
    }

    /// The shipped tables with `w` in place of those of its rule.
    pub fn with(mut self, w: Weights) -> Evaluator {
        let i = w.rule.index();
        self.shapes[i] = shape_flags(&w);
        self.by_rule[i] = Arc::new(w);
        self
    }

    /// These tables with network `net` added for its rule (in place of
    /// its shipped ones, on every board: where `net` does not fit, the
    /// tables play alone).
    pub fn with_net(mut self, net: Arc<Net>) -> Evaluator {
        let i = net.rule.index();
        self.nets[i] = Some(net);
        self.others[i] = None;
        self
    }

    /// The shipped tables, with those of a weights file when one is given.
    pub fn from_file(path: Option<&std::path::Path>) -> Result<Evaluator, WeightsError> {
        let e = Evaluator::shipped();
        Ok(match path {
            Some(p) => e.with(Weights::from_file(p)?),
            None => e,
        })
    }

    /// The network of `rule`, if it has one.
    #[inline]
    pub fn net(&self, rule: Rule) -> Option<&Arc<Net>> {
        self.nets[rule.index()].as_ref()
    }

    /// The network that evaluates `board`: its rule's, if it has one for
    /// boards of this size.
    #[inline]
    pub fn net_for(&self, board: &Board) -> Option<&Arc<Net>> {
        let i = board.rule().index();
        self.nets[i]
            .as_ref()
            .filter(|n| n.fits(board))
            .or_else(|| self.others[i].as_ref().filter(|n| n.fits(board)))
    }

    /// The tables of `rule`.
    #[inline]
    pub fn weights(&self, rule: Rule) -> &Arc<Weights> {
        &self.by_rule[rule.index()]
    }

    /// The position's value for the side to move.
    #[inline]
    pub fn evaluate(&self, board: &Board) -> i32 {
        let rule = board.rule();
        match self.net_for(board) {
            None => evaluate(board, self.weights(rule)),
            Some(net) => (table_value(board, self.weights(rule)) + net.output(board))
                .clamp(-EVAL_LIMIT, EVAL_LIMIT),
        }
    }

    /// Makes `board` keep the sums of this evaluator's tables (and the
    /// accumulators of its network), so that [`Evaluator::evaluate`] reads
    /// them at little cost.
    pub fn attach(&self, board: &mut Board) {
        board.set_code_values(&self.weights(board.rule()).cells);
        board.set_code_vectors(self.net_for(board).map(|n| &n.vectors));
    }

    /// The learned move-ordering table of `rule` for `me` to move, if the
    /// weights have one.
    #[inline]
    pub fn policy(&self, rule: Rule, me: Color) -> Option<&[i32; POLICY_LEN]> {
        self.policy_shared(rule, me).map(|t| &**t)
    }

    /// Does the learned ordering of `rule` for `me` read line shapes?
    #[inline]
    pub fn policy_has_shapes(&self, rule: Rule, me: Color) -> bool {
        self.shapes[rule.index()][me.index()]
    }

    /// [`Evaluator::policy`], shared (as a board's line-score cache keeps
    /// it: see [`policy::refresh_shape_scores`]).
    #[inline]
    pub fn policy_shared(&self, rule: Rule, me: Color) -> Option<&Arc<[i32; POLICY_LEN]>> {
        self.weights(rule).policy.as_ref().map(|t| &t[me.index()])
    }
}

/// Per colour to move: do `w`'s learned ordering tables read line shapes?
fn shape_flags(w: &Weights) -> [bool; 2] {
    match &w.policy {
        Some(t) => t.each_ref().map(|t| policy::has_shapes(t)),
        None => [false; 2],
    }
}

impl Default for Evaluator {
    fn default() -> Evaluator {
        Evaluator::shipped()
    }
}

/// The position's value for the side to move by the tables `w`: read from
/// the board's sums when it keeps those of `w` (see [`Evaluator::attach`]),
/// else cell by cell.
#[inline]
pub fn evaluate(board: &Board, w: &Weights) -> i32 {
    table_value(board, w).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// [`evaluate`] before the clamp.
#[inline]
fn table_value(board: &Board, w: &Weights) -> i32 {
    if !Arc::ptr_eq(board.code_values(), &w.cells) {
        return table_value_from_scratch(board, w);
    }
    let me = board.side_to_move();
    let opp = me.opposite();
    let mask = threat_mask(|c, k| board.count(c, k) > 0, me);
    let threat = w.threat[me.index()][mask];
    board.value_sum(me, true) - board.value_sum(opp, false) + threat
}

/// The evaluation recomputed cell by cell from the tables (a check of the
/// incremental sums and of the tuner's features).
pub fn evaluate_from_scratch(board: &Board, w: &Weights) -> i32 {
    table_value_from_scratch(board, w).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

fn table_value_from_scratch(board: &Board, w: &Weights) -> i32 {
    let me = board.side_to_move();
    let opp = me.opposite();
    let mut v = 0;
    for p in board.cells().iter() {
        if board.stone(p).is_some() {
            continue;
        }
        v += w.cells.own(me, board.code(me, p));
        v -= w.cells.opp(opp, board.code(opp, p));
    }
    let mask = threat_mask(|c, k| board.count(c, k) > 0, me);
    v + w.threat[me.index()][mask]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft::position_from_moves;

    #[test]
    fn symmetric_positions_are_even_and_threats_count() {
        // The tables (a network adds its own, learned, asymmetries).
        let e = Evaluator::shipped().without_nets();
        let mut empty = Board::new(15, Rule::Freestyle).unwrap();
        e.attach(&mut empty);
        assert_eq!(e.evaluate(&empty), 0);
        // Black has an open three, white scattered stones: black to move is ahead.
        let b = position_from_moves(15, Rule::Freestyle, "h8a1i8a15j8").unwrap();
        let white_to_move = e.evaluate(&b);
        assert!(white_to_move < -100, "{white_to_move}");
        // White has the three and black is to move: black is behind.
        let m = position_from_moves(15, Rule::Freestyle, "a1h8a15i8o1j8").unwrap();
        assert!(e.evaluate(&m) < -100);
        // Black has the three and is to move: black is ahead, by more than
        // the side not to move would be.
        let own = position_from_moves(15, Rule::Freestyle, "h8a1i8a15j8o1").unwrap();
        assert!(e.evaluate(&own) > -white_to_move);
    }

    #[test]
    fn incremental_equals_from_scratch_along_random_games() {
        use rand::{Rng, SeedableRng};
        // The tables (net.rs checks the networks' sums).
        let e = Evaluator::shipped().without_nets();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for rule in Rule::ALL {
            let w = e.weights(rule);
            for size in [15, 20] {
                let mut b = Board::new(size, rule).unwrap();
                e.attach(&mut b);
                for _ in 0..60 {
                    let cands: Vec<_> = b.candidates().iter().collect();
                    if cands.is_empty() || b.is_won() {
                        break;
                    }
                    b.make(cands[rng.gen_range(0..cands.len())]);
                    assert!(Arc::ptr_eq(b.code_values(), &w.cells));
                    assert_eq!(e.evaluate(&b), evaluate_from_scratch(&b, w), "{rule} {b:?}");
                    if rng.gen_range(0..4) == 0 {
                        b.unmake();
                        assert_eq!(e.evaluate(&b), evaluate_from_scratch(&b, w));
                    }
                }
                b.check_consistency().unwrap();
            }
        }
    }

    #[test]
    fn a_rule_with_two_networks_plays_each_on_its_boards() {
        // Each rule's newest network plays 15x15 and the one before it the
        // other boards (standard its own two, renju and caro freestyle's).
        // A network given in their place plays alone.
        let e = Evaluator::shipped();
        let b15 = Board::new(15, Rule::Standard).unwrap();
        let b20 = Board::new(20, Rule::Standard).unwrap();
        let (n15, n20) = (e.net_for(&b15).unwrap(), e.net_for(&b20).unwrap());
        assert!(!Arc::ptr_eq(n15, n20));
        assert_eq!(n15.boards, (15, 15));
        assert_eq!(n20.boards, (15, 20));
        let given = Evaluator::shipped().with_net(n15.clone());
        assert!(given.net_for(&b20).is_none());
        assert!(Arc::ptr_eq(given.net_for(&b15).unwrap(), n15));
        for rule in [Rule::Freestyle, Rule::Renju, Rule::Standard] {
            assert!(
                e.net_for(&Board::new(12, rule).unwrap()).is_none(),
                "{rule}"
            );
        }
        let free = |size| e.net_for(&Board::new(size, Rule::Freestyle).unwrap());
        for rule in [Rule::Freestyle, Rule::Renju, Rule::Caro] {
            for size in [15, 17, 20] {
                let n = e.net_for(&Board::new(size, rule).unwrap()).unwrap();
                assert!(
                    Arc::ptr_eq(&n.vectors, &free(size).unwrap().vectors),
                    "{rule}"
                );
                let boards = if size == 15 { (15, 15) } else { (15, 20) };
                assert_eq!(n.boards, boards, "{rule} {size}");
            }
        }
        assert!(!Arc::ptr_eq(
            &free(15).unwrap().vectors,
            &free(20).unwrap().vectors
        ));
        let renju = Board::new(15, Rule::Renju).unwrap();
        assert!(Arc::ptr_eq(
            &e.net_for(&renju).unwrap().vectors,
            &e.net_for(&Board::new(15, Rule::Freestyle).unwrap())
                .unwrap()
                .vectors
        ));
        // Attached, a 20x20 board keeps the sums of the network it plays.
        let mut b = crate::perft::position_from_moves(20, Rule::Standard, "h8i9h9").unwrap();
        e.attach(&mut b);
        assert!(Arc::ptr_eq(b.code_vectors().unwrap(), &n20.vectors));
    }

    #[test]
    fn attaching_tables_mid_game_keeps_the_position_and_its_undo() {
        // The tables alone, then with renju's (lent) network: its
        // accumulators too are filled in mid-game and follow the undo.
        for e in [Evaluator::shipped().without_nets(), Evaluator::shipped()] {
            let mut b = position_from_moves(15, Rule::Renju, "h8i9h9i8g7j10").unwrap();
            let before = format!("{b:?}");
            e.attach(&mut b);
            assert_eq!(format!("{b:?}"), before);
            b.check_consistency().unwrap();
            let w = e.weights(Rule::Renju);
            let scratch = |b: &Board| {
                let net = e.net_for(b).map_or(0, |n| n.output_from_scratch(b));
                (table_value_from_scratch(b, w) + net).clamp(-EVAL_LIMIT, EVAL_LIMIT)
            };
            assert_eq!(e.evaluate(&b), scratch(&b));
            b.unmake();
            b.unmake();
            assert_eq!(e.evaluate(&b), scratch(&b));
            b.check_consistency().unwrap();
        }
        assert!(Evaluator::shipped().net(Rule::Renju).is_some());
    }
}
