//! The learned move ordering's features: what a candidate cell is, read
//! from the board, as entries of a per-colour table of integers (the
//! tables ship in the weights files; `tune --policy` fits them). The search
//! sums a cell's entries to order its moves.

use crate::board::{Board, NLINES};
use crate::pattern::pcode::NCODES;
use crate::types::{Color, Pos};
use std::sync::Arc;

/// Entries of one colour's learned move-ordering table: own and opponent
/// pattern codes (interleaved), the pair of classes (ours, theirs), the
/// distance to the last stone and to the one before it (Chebyshev, 1 to 8
/// or more), then the line shapes of the cell's four lines, ours and the
/// opponent's (each [`NLINES`] shapes and one for a line without a stone of
/// that colour within four).
pub const POLICY_LEN: usize = SHAPES + 2 * (NLINES + 1);

/// The table's length before the line shapes (files of that length are
/// still read, their shape entries 0).
pub const POLICY_LEN_CODES: usize = 2 * NCODES + 256 + 16;

/// Where the line-shape entries start.
const SHAPES: usize = POLICY_LEN_CODES;

/// Entries that score one cell ([`policy_features`]).
pub const POLICY_FEATURES: usize = 13;

/// The last move (the opponent's) and the one before it (ours).
#[inline]
pub fn recent_moves(board: &Board) -> [Option<Pos>; 2] {
    let mut m = board.moves().rev().map(|(p, _)| p);
    [m.next(), m.next()]
}

/// The table entries that score `p` for `me` (see [`POLICY_LEN`]).
#[inline]
pub fn policy_features(
    board: &Board,
    me: Color,
    p: Pos,
    recent: [Option<Pos>; 2],
) -> [usize; POLICY_FEATURES] {
    let mut f = [0; POLICY_FEATURES];
    f[..CODE_FEATURES].copy_from_slice(&code_features(board, me, p, recent));
    for d in 0..4 {
        let s = board.line_shapes(p, d);
        let shape = |c: Color| s[c.index()].unwrap_or(NLINES);
        [f[5 + d], f[9 + d]] = shape_features(shape(me), shape(me.opposite()));
    }
    f
}

/// The first [`CODE_FEATURES`] entries of [`policy_features`].
#[inline]
fn code_features(
    board: &Board,
    me: Color,
    p: Pos,
    recent: [Option<Pos>; 2],
) -> [usize; CODE_FEATURES] {
    let opp = me.opposite();
    let dist = |q: Option<Pos>| q.map_or(7, |q| p.distance(q).clamp(1, 8) - 1);
    [
        2 * board.code(me, p),
        2 * board.code(opp, p) + 1,
        2 * NCODES + 16 * board.class(me, p) as usize + board.class(opp, p) as usize,
        2 * NCODES + 256 + dist(recent[0]),
        2 * NCODES + 264 + dist(recent[1]),
    ]
}

/// The entries of one line's shapes, ours and the opponent's ([`NLINES`]
/// for none).
#[inline]
fn shape_features(own: usize, theirs: usize) -> [usize; 2] {
    [SHAPES + own, SHAPES + NLINES + 1 + theirs]
}

/// The entries of [`policy_features`] before the line shapes: they read
/// the cell's codes, classes and distances, and no line.
pub const CODE_FEATURES: usize = 5;

/// The part of `p`'s score for `me` that does not read its line shapes
/// (the first [`CODE_FEATURES`] entries of [`policy_features`]).
#[inline]
pub fn code_score(
    board: &Board,
    table: &[i32; POLICY_LEN],
    me: Color,
    p: Pos,
    recent: [Option<Pos>; 2],
) -> i32 {
    code_features(board, me, p, recent)
        .iter()
        .map(|&i| table[i])
        .sum()
}

/// The score of one line of a cell by its line shapes there, ours and the
/// opponent's ([`NLINES`] for none): the rest of [`policy_score`], one
/// line at a time, for [`Board::refresh_line_scores`].
#[inline]
pub fn shape_score(table: &[i32; POLICY_LEN], own: usize, theirs: usize) -> i32 {
    let [a, b] = shape_features(own, theirs);
    table[a] + table[b]
}

/// Does `table` score line shapes (a table of the older length has its
/// shape entries 0)?
pub fn has_shapes(table: &[i32; POLICY_LEN]) -> bool {
    table[SHAPES..].iter().any(|&v| v != 0)
}

/// Where [`fast_policy_score`] finds a cell's line-shape entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeSource {
    /// Looked up cell by cell.
    Direct,
    /// The board's cached line scores, up to date for the table (see
    /// [`refresh_shape_scores`]).
    Cached,
    /// Nowhere: the table's shape entries are all 0 (see [`has_shapes`]).
    Zero,
}

/// Brings the board's cached line-shape scores of `me` to move up to date
/// for `table`, so that [`fast_policy_score`] reads them.
pub fn refresh_shape_scores(board: &mut Board, table: &Arc<[i32; POLICY_LEN]>, me: Color) {
    board.refresh_line_scores(me, table, |own, theirs| shape_score(table, own, theirs));
}

/// [`policy_score`], its line-shape entries read from `shapes`: the same
/// number whichever is given, when it holds (see [`ShapeSource`]).
#[inline]
pub fn fast_policy_score(
    board: &Board,
    table: &[i32; POLICY_LEN],
    me: Color,
    p: Pos,
    recent: [Option<Pos>; 2],
    shapes: ShapeSource,
) -> i32 {
    match shapes {
        ShapeSource::Direct => policy_score(board, table, me, p, recent),
        ShapeSource::Cached => code_score(board, table, me, p, recent) + board.line_score(me, p),
        ShapeSource::Zero => code_score(board, table, me, p, recent),
    }
}

/// The score of `p` for `me` by one colour's learned table.
#[inline]
pub fn policy_score(
    board: &Board,
    table: &[i32; POLICY_LEN],
    me: Color,
    p: Pos,
    recent: [Option<Pos>; 2],
) -> i32 {
    policy_features(board, me, p, recent)
        .iter()
        .map(|&i| table[i])
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft::position_from_moves;
    use crate::types::Rule;

    #[test]
    fn policy_features_index_inside_the_table() {
        let b = position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7").unwrap();
        let recent = recent_moves(&b);
        assert_eq!(
            recent,
            [Pos::parse_pos("g7").ok(), Pos::parse_pos("i8").ok()]
        );
        let f = policy_features(&b, Color::White, Pos::parse_pos("f6").unwrap(), recent);
        assert!(f.iter().all(|&i| i < POLICY_LEN));
        // f6 is next to g7 (distance 1) and 3 from i8.
        assert_eq!(f[3], 2 * NCODES + 256);
        assert_eq!(f[4], 2 * NCODES + 264 + 2);
        // No stone yet: the farthest bucket.
        let empty = Board::new(15, Rule::Freestyle).unwrap();
        let f = policy_features(&empty, Color::Black, empty.center(), recent_moves(&empty));
        assert_eq!((f[3], f[4]), (2 * NCODES + 263, 2 * NCODES + 271));
        // Line shapes: all four "no stone" entries on the empty board.
        assert_eq!(f[5..9], [SHAPES + NLINES; 4]);
        assert_eq!(f[9..13], [SHAPES + 2 * NLINES + 1; 4]);
    }

    #[test]
    fn line_shape_features_read_each_line_and_mirror() {
        let b = position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7").unwrap();
        let f6 = Pos::parse_pos("f6").unwrap();
        let f = policy_features(&b, Color::White, f6, recent_moves(&b));
        // White has no stone within four of f6 on its row; black's g7 and
        // h8 lie on its rising diagonal (direction 2).
        assert_eq!(f[5], SHAPES + NLINES);
        assert!((SHAPES + NLINES + 1..SHAPES + 2 * NLINES + 1).contains(&f[11]));
        // The mirror image (x -> 14 - x) has the same shapes, the two
        // diagonals swapped.
        let m = position_from_moves(15, Rule::Freestyle, "h8g9h9g8i7").unwrap();
        let g = policy_features(
            &m,
            Color::White,
            Pos::parse_pos("j6").unwrap(),
            recent_moves(&m),
        );
        assert_eq!(g[5..7], f[5..7]);
        assert_eq!((g[7], g[8]), (f[8], f[7]));
        assert_eq!(g[9..11], f[9..11]);
        assert_eq!((g[11], g[12]), (f[12], f[11]));
    }

    #[test]
    fn a_table_without_shapes_scores_the_same_without_reading_them() {
        let mut t = [0; POLICY_LEN];
        for (i, v) in t.iter_mut().enumerate().take(SHAPES) {
            *v = (i as i32 * 37) % 201 - 100;
        }
        assert!(!has_shapes(&t));
        let b = position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7j10k11").unwrap();
        let recent = recent_moves(&b);
        let me = b.side_to_move();
        for p in b.candidates().iter().filter(|&p| b.stone(p).is_none()) {
            let direct = policy_score(&b, &t, me, p, recent);
            assert_eq!(
                fast_policy_score(&b, &t, me, p, recent, ShapeSource::Zero),
                direct
            );
        }
        t[POLICY_LEN - 1] = 1;
        assert!(has_shapes(&t));
        // The evaluator's flags are its tables': freestyle's read shapes.
        let e = crate::eval::Evaluator::shipped();
        assert!(e.policy_has_shapes(Rule::Freestyle, Color::Black));
        for rule in crate::types::Rule::ALL {
            for c in [Color::Black, Color::White] {
                let want = e.policy(rule, c).is_some_and(has_shapes);
                assert_eq!(e.policy_has_shapes(rule, c), want, "{rule} {c:?}");
            }
        }
    }

    #[test]
    fn cached_shape_scores_equal_the_direct_score() {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(7);
        let tables = [(); 2].map(|_| {
            let mut t = [0; POLICY_LEN];
            for v in t.iter_mut() {
                *v = rng.gen_range(-1000..1000);
            }
            Arc::new(t)
        });
        for (size, rule) in [(15, Rule::Freestyle), (20, Rule::Renju), (22, Rule::Caro)] {
            let mut b = Board::new(size, rule).unwrap();
            let mut checked = 0;
            // One game, the cache refreshed at every position and taken
            // back now and then, as the search moves through a tree.
            for _ in 0..80 {
                if b.is_won() || b.is_full() {
                    break;
                }
                let me = b.side_to_move();
                let t = &tables[me.index()];
                refresh_shape_scores(&mut b, t, me);
                assert!(b.line_scores_ready(me, &t[..]));
                assert!(!b.line_scores_ready(me, &tables[1 - me.index()][..]));
                let recent = recent_moves(&b);
                for p in b.candidates().iter().filter(|&p| b.stone(p).is_none()) {
                    assert_eq!(
                        fast_policy_score(&b, t, me, p, recent, ShapeSource::Cached),
                        policy_score(&b, t, me, p, recent),
                        "{rule} {size}: {p} for {me:?}"
                    );
                    checked += 1;
                }
                let cands: Vec<Pos> = b
                    .candidates()
                    .iter()
                    .filter(|&p| b.stone(p).is_none())
                    .collect();
                b.make(cands[rng.gen_range(0..cands.len())]);
                if rng.gen_range(0..4) == 0 && b.ply() > 2 {
                    b.unmake();
                    b.unmake();
                }
            }
            assert!(checked > 500, "{checked}");
            // A copy of the table is another table: its scores are
            // computed afresh, and the first's are no longer ready.
            let me = b.side_to_move();
            let copy = Arc::new(*tables[me.index()]);
            refresh_shape_scores(&mut b, &copy, me);
            assert!(b.line_scores_ready(me, &copy[..]));
            assert!(!b.line_scores_ready(me, &tables[me.index()][..]));
            // A move makes them stale until the next refresh.
            let p = b
                .candidates()
                .iter()
                .find(|&p| b.stone(p).is_none())
                .unwrap();
            b.make(p);
            assert!(!b.line_scores_ready(me, &copy[..]));
        }
    }
}
