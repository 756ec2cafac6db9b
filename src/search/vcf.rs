//! Threat search: victory by continuous fours (VCF).
//!
//! The attacker plays only moves that make a four; the defender's reply is
//! forced (the one cell that stops the five), so the tree is narrow. A
//! defender whose block makes a four of their own forces the attacker to
//! block in turn, which continues the VCF only if that block is a four too.
//! Under renju a black defender cannot block on a forbidden cell: the
//! attacker wins there.
//!
//! The horizon's quick search (`vcf_local`) reads fewer lines than the
//! full one: each four after the first near the previous one, and from the
//! third four on only fours with more to them unless the last two were
//! such ([`Combo`], Rapfi's quiescence rule). The full search
//! ([`Searcher::find_vcf`]) plays every four.

use super::Searcher;
use crate::board::rules::{find_class, is_banned, stop_fives};
use crate::board::{Board, DIRS};
use crate::pattern::Class;
use crate::types::{Color, Pos, Rule};
use arrayvec::ArrayVec;

/// The cells along the four lines through `p` (within 4) where `c` has a
/// five: at most a handful.
fn fives_near(board: &Board, c: Color, p: Pos) -> ArrayVec<Pos, 8> {
    let mut out = ArrayVec::new();
    // Stop once every five cell of the board is found.
    let total = board.count(c, Class::Five) as usize;
    if total == 0 {
        return out;
    }
    for d in 0..DIRS {
        if out.len() == total {
            return out;
        }
        for q in board.line_cells(p, d, 4).into_iter().filter(|&q| q != p) {
            if board.class(c, q) == Class::Five && !out.contains(&q) && out.try_push(q).is_err() {
                return out;
            }
        }
    }
    out
}

/// Positions proven to have no VCF of up to some number of fours: the
/// same fours in another order reach the same positions, and a failed
/// search would otherwise explore every order again. Only proofs are kept
/// (a search cut short by its budget stores nothing), so the cache changes
/// no answer, only how fast it comes. Direct-mapped, replaced always.
pub(super) struct VcfCache {
    entries: Box<[(u64, u32)]>,
}

const VCF_CACHE_BITS: u32 = 16;

impl VcfCache {
    pub(super) fn new() -> VcfCache {
        VcfCache {
            entries: vec![(0, 0); 1 << VCF_CACHE_BITS].into_boxed_slice(),
        }
    }

    /// A cache that keeps nothing (to check that the cache changes no
    /// answer).
    #[cfg(test)]
    pub(super) fn off() -> VcfCache {
        VcfCache {
            entries: Box::new([]),
        }
    }

    pub(super) fn clear(&mut self) {
        self.entries.fill((0, 0));
    }

    #[inline]
    fn slot(key: u64) -> usize {
        (key >> (64 - VCF_CACHE_BITS)) as usize
    }

    /// Is there proof that the position has no VCF of `depth` fours?
    #[inline]
    fn refuted(&self, key: u64, depth: u32) -> bool {
        self.entries
            .get(Self::slot(key))
            .is_some_and(|&(k, d)| k == key && d >= depth)
    }

    #[inline]
    fn store(&mut self, key: u64, depth: u32) {
        if let Some(e) = self.entries.get_mut(Self::slot(key)) {
            *e = (key, depth);
        }
    }
}

/// What the attacker's fours so far allow next in the horizon's VCF
/// (Rapfi's quiescence rule): its first two fours may be plain ones; after
/// that only a four with more to it (a closed three or open two beside
/// it, or an open three: [`Class::Block4Plus`] and up), unless the last
/// two were such fours. A line of plain fours is rarely a VCF and costs the
/// most to read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Combo {
    /// Fours the attacker has played in this line (counted to 2).
    fours: u8,
    /// How many of the latest fours in a row were `Block4Plus` or better
    /// (counted to 2).
    run: u8,
}

impl Combo {
    pub(super) const START: Combo = Combo { fours: 0, run: 0 };

    /// May a plain four be played next?
    #[inline]
    fn plain_ok(self) -> bool {
        self.fours < 2 || self.run >= 2
    }

    /// After a four, `more` when it was `Block4Plus` or better.
    #[inline]
    fn after(self, more: bool) -> Combo {
        Combo {
            fours: (self.fours + 1).min(2),
            run: if more { (self.run + 1).min(2) } else { 0 },
        }
    }
}

/// Is `q` near `p`: in the 5x5 square around it, or on one of its four
/// lines within four cells?
#[inline]
fn near(p: Pos, q: Pos) -> bool {
    let dx = p.x().abs_diff(q.x());
    let dy = p.y().abs_diff(q.y());
    let far = dx.max(dy);
    far <= 2 || (far <= 4 && (dx == 0 || dy == 0 || dx == dy))
}

impl Searcher {
    /// Does the side to move win by continuous fours? Returns the plies to
    /// the five. Bounded by `params.vcf_depth` and `params.vcf_nodes`.
    pub(super) fn vcf_at_horizon(&mut self, board: &mut Board) -> Option<u32> {
        let me = board.side_to_move();
        // Cheap exit: no four to play.
        if board.fours(me) + board.count(me, Class::Five) == 0 {
            return None;
        }
        let mut budget = self.params.vcf_nodes;
        let depth = self.params.vcf_depth;
        let mut line = std::mem::take(&mut self.vcf_line);
        line.clear();
        let local = self.params.vcf_local;
        // Nothing here evaluates: the network's sums wait.
        board.pause_acc();
        let r = self.vcf(
            board,
            depth,
            &mut budget,
            None,
            local,
            None,
            Combo::START,
            &mut line,
        );
        board.resume_acc();
        self.vcf_line = line;
        r
    }

    /// Searches for a VCF of at most `max_fours` fours within `max_nodes`
    /// threat-search nodes. Returns the line: attacker four, defender
    /// block, ..., ending with the move that makes five (or an open four,
    /// or a four whose block is forbidden).
    pub fn find_vcf(
        &mut self,
        board: &mut Board,
        max_fours: u32,
        max_nodes: u64,
    ) -> Option<Vec<Pos>> {
        let mut budget = max_nodes;
        let mut line = Vec::new();
        board.pause_acc();
        let r = self.vcf(
            board,
            max_fours,
            &mut budget,
            None,
            false,
            None,
            Combo::START,
            &mut line,
        );
        board.resume_acc();
        r.map(|_| line)
    }

    /// VCF for the side to move. `must` is the cell the attacker has to
    /// play (the block of the defender's five), if any. With `local`, every
    /// four after the first lies near the attacker's previous four, `last`
    /// (a fast, incomplete search: a VCF whose fours jump about the board
    /// is missed). On success `line` holds the winning moves; on failure it
    /// is as it was.
    #[allow(clippy::too_many_arguments)]
    fn vcf(
        &mut self,
        board: &mut Board,
        depth: u32,
        budget: &mut u64,
        must: Option<Pos>,
        local: bool,
        last: Option<Pos>,
        combo: Combo,
        line: &mut Vec<Pos>,
    ) -> Option<u32> {
        let me = board.side_to_move();
        let opp = me.opposite();
        if board.count(me, Class::Five) > 0 {
            if let Some(p) = find_class(board, me, Class::Five) {
                line.push(p);
            }
            return Some(1);
        }
        if must.is_none() && board.count(opp, Class::Five) > 0 {
            return None;
        }
        if must.is_none() && board.count(me, Class::Flex4) > 0 {
            if let Some(p) = find_class(board, me, Class::Flex4) {
                line.push(p);
            }
            return Some(3);
        }
        if depth == 0 || *budget == 0 {
            return None;
        }
        // A local search's answer depends on the previous four too, and
        // on whether a plain four may come next.
        let plain = !local || combo.plain_ok();
        let key = match last.filter(|_| local) {
            Some(l) => {
                board.hash()
                    ^ (l.index() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    ^ (!plain as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93)
            }
            None => board.hash(),
        };
        if self.vcf_cache.refuted(key, depth) {
            return None;
        }
        // Only fours with more to them may come: none, no VCF here.
        if !plain
            && must.is_none()
            && board.count(me, Class::Block4Plus) + board.count(me, Class::Block4Flex3) == 0
        {
            return None;
        }
        let mut moves: ArrayVec<(u8, Pos), 64> = ArrayVec::new();
        match must {
            Some(p) => {
                if board.class(me, p).is_four() {
                    moves.push((board.class(me, p) as u8, p));
                }
            }
            None => {
                // Every four cell is a candidate (it lies within two cells
                // of a stone): stop once all of them are found.
                let mut left = board.fours(me);
                for p in board.candidates().iter() {
                    if left == 0 {
                        break;
                    }
                    let k = board.class(me, p);
                    if k.is_four() {
                        left -= 1;
                        if local && last.is_some_and(|l| !near(l, p)) {
                            continue;
                        }
                        if !plain && k < Class::Block4Plus {
                            continue;
                        }
                        if moves.try_push((k as u8, p)).is_err() {
                            break;
                        }
                    }
                }
            }
        }
        // Strongest fours first, ties by cell.
        moves.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(k, p) in &moves {
            if *budget == 0 {
                break;
            }
            *budget -= 1;
            self.nodes += 1;
            let len = line.len();
            line.push(p);
            board.make(p);
            let next = combo.after(k >= Class::Block4Plus as u8);
            let result = self.after_four(board, depth, budget, p, local, next, line);
            board.unmake();
            if result.is_some() {
                return result;
            }
            line.truncate(len);
        }
        // Searched in full: no VCF of `depth` fours here.
        if *budget > 0 {
            self.vcf_cache.store(key, depth);
        }
        None
    }

    /// The attacker has just played the four `p`: the defender blocks.
    #[allow(clippy::too_many_arguments)]
    fn after_four(
        &mut self,
        board: &mut Board,
        depth: u32,
        budget: &mut u64,
        p: Pos,
        local: bool,
        combo: Combo,
        line: &mut Vec<Pos>,
    ) -> Option<u32> {
        let attacker = board.side_to_move().opposite();
        let defender = attacker.opposite();
        let fives = fives_near(board, attacker, p);
        match fives.len() {
            0 => None,
            // Under caro a stone past the five cell also stops the four:
            // a four with more than one answer does not force.
            1 if matches!(board.rule(), Rule::Caro | Rule::CaroExact)
                && stop_fives(board).len() > 1 =>
            {
                None
            }
            1 => {
                let block = fives[0];
                if is_banned(board, defender, block) {
                    line.push(block);
                    return Some(3);
                }
                self.nodes += 1;
                line.push(block);
                board.make(block);
                let threat = fives_near(board, defender, block);
                let r = match threat.len() {
                    0 => self.vcf(board, depth - 1, budget, None, local, Some(p), combo, line),
                    1 => self.vcf(
                        board,
                        depth - 1,
                        budget,
                        Some(threat[0]),
                        local,
                        Some(p),
                        combo,
                        line,
                    ),
                    _ => None,
                };
                board.unmake();
                r.map(|n| n + 2)
            }
            // Two fives at once: the defender cannot stop both.
            _ => {
                line.push(fives[0]);
                Some(3)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Combo;

    #[test]
    fn plain_fours_only_first_or_after_two_fours_with_more() {
        let c = Combo::START;
        assert!(c.plain_ok());
        let c = c.after(false);
        assert!(c.plain_ok(), "the second four may be plain");
        let c = c.after(false);
        assert!(!c.plain_ok(), "two plain fours: no third");
        let c = c.after(true);
        assert!(!c.plain_ok(), "one four with more is not enough");
        let c = c.after(true);
        assert!(c.plain_ok(), "two fours with more in a row");
        let c = c.after(false);
        assert!(!c.plain_ok(), "the run starts again after a plain four");
        // A line that opens with fours with more keeps its freedom.
        let c = Combo::START.after(true).after(true);
        assert!(c.plain_ok());
    }
}
