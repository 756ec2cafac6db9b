//! Move ordering: how a candidate cell is scored for the generator (the
//! learned tables of the rule when the weights have them, else the
//! hand-set weights of [`Params`]), how a node's list is ordered (table
//! move, killers, history), and the cache of forced nodes' lists.

use super::params::Params;
use super::Searcher;
use crate::board::{Board, DIRS};
use crate::eval::policy::{fast_policy_score, recent_moves, ShapeSource, POLICY_LEN};
use crate::movegen::{sort_moves, CellScorer, ScoredMove};
use crate::pattern::pcode::{class_of, patterns_of, NCODES};
use crate::types::{Color, Pos, Rule};
use arrayvec::ArrayVec;

/// Scores the cells of one position for the side to move `me`, with the
/// table and the last moves looked up once.
pub struct Scorer<'a> {
    policy: Option<&'a [i32; POLICY_LEN]>,
    recent: [Option<Pos>; 2],
    params: &'a Params,
    me: Color,
    /// Where the table's line-shape entries are read.
    shapes: ShapeSource,
}

impl<'a> Scorer<'a> {
    /// `policy`: the learned table of `me` (see [`crate::eval::Evaluator::policy`]).
    #[inline]
    pub fn new(
        board: &Board,
        params: &'a Params,
        policy: Option<&'a [i32; POLICY_LEN]>,
        me: Color,
    ) -> Scorer<'a> {
        Scorer {
            policy,
            recent: recent_moves(board),
            params,
            me,
            shapes: match policy {
                Some(t) if board.line_scores_ready(me, &t[..]) => ShapeSource::Cached,
                _ => ShapeSource::Direct,
            },
        }
    }

    /// This scorer for a table whose line-shape entries are all 0 (see
    /// [`crate::eval::policy::has_shapes`]): the same scores, without
    /// reading the shapes.
    #[inline]
    pub fn without_shapes(mut self) -> Scorer<'a> {
        self.shapes = ShapeSource::Zero;
        self
    }
}

impl CellScorer for Scorer<'_> {
    #[inline]
    fn score(&self, board: &Board, p: Pos) -> i32 {
        match self.policy {
            Some(t) => fast_policy_score(board, t, self.me, p, self.recent, self.shapes),
            None => handset_score(board, self.params, self.me, p),
        }
    }
}

/// The hand-set ordering: weights of our class and line patterns at `p`
/// (attack) and the opponent's (defence).
#[inline]
pub fn handset_score(board: &Board, params: &Params, me: Color, p: Pos) -> i32 {
    let opp = me.opposite();
    let mut s =
        params.attack[board.class(me, p) as usize] + params.defence[board.class(opp, p) as usize];
    let pm = board.pattern_code(me, p);
    let po = board.pattern_code(opp, p);
    for d in 0..DIRS {
        s += params.pat_attack[((pm >> (4 * d)) & 15) as usize];
        s += params.pat_defence[((po >> (4 * d)) & 15) as usize];
    }
    s
}

/// The hand-set ordering in table form, per colour to move (see
/// [`POLICY_LEN`]): entry `2 * code` scores what a cell of that pattern
/// code makes for the side to move, `2 * code + 1` what a cell of that code
/// for the opponent takes from it; the other entries are 0. The starting
/// point of `tune --policy`.
pub fn handset_tables(params: &Params, rule: Rule) -> [Box<[i32; POLICY_LEN]>; 2] {
    let mut out = [Box::new([0; POLICY_LEN]), Box::new([0; POLICY_LEN])];
    for (me, t) in out.iter_mut().enumerate() {
        // Renju black's classes (forbidden cells) differ.
        let renju_black = |c: usize| rule == Rule::Renju && c == 0;
        for code in 0..NCODES {
            let pats = patterns_of(code);
            let own = params.attack[class_of(code, renju_black(me)) as usize]
                + pats
                    .iter()
                    .map(|&p| params.pat_attack[p as usize])
                    .sum::<i32>();
            let opp = params.defence[class_of(code, renju_black(1 - me)) as usize]
                + pats
                    .iter()
                    .map(|&p| params.pat_defence[p as usize])
                    .sum::<i32>();
            t[2 * code] = own;
            t[2 * code + 1] = opp;
        }
    }
    out
}

impl Searcher {
    /// Puts the table move first, then killers, then the rest by static
    /// score plus history.
    pub(super) fn order(
        &mut self,
        moves: &mut [ScoredMove],
        tt_move: Option<Pos>,
        ply: usize,
        side: usize,
    ) {
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
        sort_moves(moves);
    }

    /// Remembers that `p` cut off at `ply`: a killer (outside forced
    /// nodes) and history for `side` (`depth` squared, up to a cap).
    pub(super) fn reward(&mut self, p: Pos, ply: usize, side: usize, depth: i32, forced: bool) {
        if !forced {
            let k = &mut self.killers[ply];
            if k[0] != Some(p) {
                k[1] = k[0];
                k[0] = Some(p);
            }
        }
        let h = &mut self.history[side & 1][p.index()];
        *h = (*h + depth * depth).min(1 << 20);
    }
}

/// The move lists of forced nodes (only those, so a hit is a forced node),
/// by position key, valid for one search (the parameters that shape a list
/// may change between searches). Direct-mapped, replaced always; a list
/// too long to keep is not kept.
pub(super) struct GenCache {
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
    pub(super) fn new() -> GenCache {
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
    pub(super) fn new_search(&mut self) {
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
    pub(super) fn get(&self, key: u64, out: &mut Vec<ScoredMove>) -> bool {
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
    pub(super) fn put(&mut self, key: u64, moves: &[ScoredMove]) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::policy::policy_score;
    use crate::movegen::{generate, NodeKind};
    use crate::perft::position_from_moves;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn handset_ordering_in_table_form_scores_the_same() {
        // The hand-set tables (the starting point of `tune --policy`)
        // give every candidate of random positions its hand-set score,
        // under every rule, for both colours.
        let params = Params::default();
        for (i, &rule) in Rule::ALL.iter().enumerate() {
            let tables = handset_tables(&params, rule);
            let mut rng = StdRng::seed_from_u64(40 + i as u64);
            let mut checked = 0;
            for _ in 0..30 {
                let mut b = Board::new(15, rule).unwrap();
                let len = rng.gen_range(3..60);
                while b.ply() < len && !b.is_won() {
                    let cands: Vec<Pos> = b.candidates().iter().collect();
                    b.make(cands[rng.gen_range(0..cands.len())]);
                }
                let recent = recent_moves(&b);
                for p in b.candidates().iter() {
                    for me in [Color::Black, Color::White] {
                        assert_eq!(
                            policy_score(&b, &tables[me.index()], me, p, recent),
                            handset_score(&b, &params, me, p),
                            "{rule}: {p} for {me:?}\n{b:?}"
                        );
                        checked += 1;
                    }
                }
            }
            assert!(checked > 1000, "{rule}: {checked}");
        }
    }

    #[test]
    fn a_cut_teaches_a_killer_and_history_and_ordering_reads_them() {
        let mut s = Searcher::new(Params::default(), 1 << 16);
        let [a, b, c] = ["h8", "i9", "j10"].map(|t| Pos::parse_pos(t).unwrap());
        s.reward(a, 3, 0, 4, false);
        assert_eq!(s.killers[3][0], Some(a));
        assert_eq!(s.history[0][a.index()], 16);
        assert_eq!(s.history[1][a.index()], 0, "the other side's is apart");
        // A forced node keeps no killer; history still learns.
        s.reward(c, 5, 0, 16, true);
        assert_eq!(s.killers[5], [None, None]);
        assert_eq!(s.history[0][c.index()], 256);
        // At ply 3 the killer comes first; elsewhere history (c: 256 / 64)
        // lifts c above b.
        let moves = |s: &mut Searcher, ply| {
            let mut m: Vec<ScoredMove> = [a, b, c]
                .iter()
                .map(|&pos| ScoredMove { pos, score: 100 })
                .collect();
            s.order(&mut m, None, ply, 0);
            m.iter().map(|m| m.pos).collect::<Vec<_>>()
        };
        assert_eq!(moves(&mut s, 3), [a, c, b]);
        assert_eq!(moves(&mut s, 9), [c, a, b]);
    }

    #[test]
    fn the_move_list_cache_keeps_a_list_for_one_search() {
        // White's open three g8 h8 i8: black's list is forced.
        let mut b = position_from_moves(15, Rule::Freestyle, "a1h8a15g8o1i8").unwrap();
        let params = Params::default();
        let scorer = Scorer::new(&b, &params, None, b.side_to_move());
        let mut moves = Vec::new();
        let kind = generate(&mut b, &scorer, 8, &[], &mut moves);
        assert_eq!(kind, NodeKind::Forced);
        let mut cache = GenCache::new();
        cache.new_search();
        let mut out = Vec::new();
        assert!(!cache.get(b.hash(), &mut out));
        cache.put(b.hash(), &moves);
        assert!(cache.get(b.hash(), &mut out));
        assert_eq!(out, moves);
        assert!(!cache.get(b.hash() ^ 1, &mut out));
        // A new search forgets it; a list too long is not kept.
        cache.new_search();
        assert!(!cache.get(b.hash(), &mut out));
        let long = vec![moves[0]; 40];
        cache.put(b.hash(), &long);
        assert!(!cache.get(b.hash(), &mut out));
    }
}
