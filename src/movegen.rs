//! Candidate generation and ordering, with the forced-move filters.
//!
//! Every empty cell near the stones is scored by what it makes for the side
//! to move (attack) and what it takes from the opponent (defence). In a
//! quiet position the best `width` are kept. Forced positions are never cut
//! by width: a five is played at once; against a five only the blocks
//! remain; against an open-four threat (an open three, or a double-four
//! point) only our fours and the cells that take the threat away.

use crate::bitboard::Bitboard;
use crate::board::{Board, DIRS};
use crate::eval::pcode::NCODES;
use crate::pattern::{Class, Pattern};
use crate::search::params::Params;
use crate::types::{Color, Pos, Rule};
use arrayvec::ArrayVec;

/// A candidate and its ordering score.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ScoredMove {
    pub pos: Pos,
    pub score: i32,
}

/// What kind of node the generator found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// The side to move makes five at this cell.
    Win(Pos),
    /// The moves are the only ones that do not lose at once (may be none).
    Forced,
    /// An ordinary position: the best moves by score.
    Quiet,
}

/// The ordering score of `p` for the side to move `me`: the learned
/// tables of the rule when it has them, else the hand-set weights.
#[inline]
pub fn cell_score(board: &Board, params: &Params, me: Color, p: Pos) -> i32 {
    Scorer::new(board, params, me).score(board, p)
}

/// Scores cells of one position for the side to move `me` (see
/// [`cell_score`]), with the table and the last moves looked up once.
pub struct Scorer<'a> {
    policy: Option<&'static [i32; POLICY_LEN]>,
    recent: [Option<Pos>; 2],
    params: &'a Params,
    me: Color,
}

impl<'a> Scorer<'a> {
    #[inline]
    pub fn new(board: &Board, params: &'a Params, me: Color) -> Scorer<'a> {
        Scorer {
            policy: board.weights().policy.as_ref().map(|t| &*t[me.index()]),
            recent: recent_moves(board),
            params,
            me,
        }
    }

    #[inline]
    pub fn score(&self, board: &Board, p: Pos) -> i32 {
        match self.policy {
            Some(t) => policy_score(board, t, self.me, p, self.recent),
            None => handset_score(board, self.params, self.me, p),
        }
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

/// Entries of one colour's learned move-ordering table: own and opponent
/// pattern codes (interleaved), the pair of classes (ours, theirs), and the
/// distance to the last stone and to the one before it (Chebyshev, 1 to 8
/// or more).
pub const POLICY_LEN: usize = 2 * NCODES + 256 + 16;

/// The last move (the opponent's) and the one before it (ours).
#[inline]
pub fn recent_moves(board: &Board) -> [Option<Pos>; 2] {
    let mut m = board.moves().rev().map(|(p, _)| p);
    [m.next(), m.next()]
}

/// The table entries that score `p` for `me` (see [`POLICY_LEN`]).
#[inline]
pub fn policy_features(board: &Board, me: Color, p: Pos, recent: [Option<Pos>; 2]) -> [usize; 5] {
    let opp = me.opposite();
    let dist = |q: Option<Pos>| {
        q.map_or(7, |q| {
            p.x().abs_diff(q.x()).max(p.y().abs_diff(q.y())).clamp(1, 8) - 1
        })
    };
    [
        2 * board.code(me, p),
        2 * board.code(opp, p) + 1,
        2 * NCODES + 16 * board.class(me, p) as usize + board.class(opp, p) as usize,
        2 * NCODES + 256 + dist(recent[0]),
        2 * NCODES + 264 + dist(recent[1]),
    ]
}

/// Is `p` a cell the side to move may not play (renju black's forbidden
/// cells)? Cheap for every cell whose class cannot be forbidden.
#[inline]
pub fn is_banned(board: &mut Board, me: Color, p: Pos) -> bool {
    me == Color::Black
        && board.rule() == Rule::Renju
        && matches!(
            board.class(Color::Black, p),
            Class::Forbid | Class::MaybeForbid
        )
        && board.is_forbidden(p)
}

/// The first empty candidate cell where `c` has class `k`.
pub fn find_class(board: &Board, c: Color, k: Class) -> Option<Pos> {
    board.candidates().iter().find(|&p| board.class(c, p) == k)
}

/// Best first: by score, ties by cell index.
fn order(a: &ScoredMove, b: &ScoredMove) -> std::cmp::Ordering {
    b.score.cmp(&a.score).then(a.pos.cmp(&b.pos))
}

/// Sorts by score, best first, ties by cell index.
pub fn sort_moves(moves: &mut [ScoredMove]) {
    moves.sort_unstable_by(order);
}

/// Fills `out` with the moves to search, ordered, and says what kind of
/// node this is. `width` bounds a quiet node's list; `excluded` cells are
/// never generated.
pub fn generate(
    board: &mut Board,
    params: &Params,
    width: usize,
    excluded: &[Pos],
    out: &mut Vec<ScoredMove>,
) -> NodeKind {
    out.clear();
    let me = board.side_to_move();
    let opp = me.opposite();
    let mut banned = Bitboard::EMPTY;
    for &p in excluded {
        banned.set(p);
    }
    let cands = board.candidates() & !banned;
    if board.count(me, Class::Five) > 0 {
        if let Some(p) = cands.iter().find(|&p| board.class(me, p) == Class::Five) {
            out.push(ScoredMove {
                pos: p,
                score: i32::MAX,
            });
            return NodeKind::Win(p);
        }
    }
    if board.count(opp, Class::Five) > 0 {
        if matches!(board.rule(), Rule::Caro | Rule::CaroExact) {
            // A stone past the five cell also stops a caro five.
            for p in crate::solver::stop_fives(board) {
                if !banned.contains(p) {
                    out.push(ScoredMove {
                        pos: p,
                        score: cell_score(board, params, me, p),
                    });
                }
            }
            sort_moves(out);
            return NodeKind::Forced;
        }
        for p in cands.iter() {
            if board.class(opp, p) == Class::Five && !is_banned(board, me, p) {
                out.push(ScoredMove {
                    pos: p,
                    score: cell_score(board, params, me, p),
                });
            }
        }
        sort_moves(out);
        return NodeKind::Forced;
    }
    if board.count(opp, Class::Flex4) > 0 {
        defend(board, params, me, cands, banned, &[Class::Flex4], out);
        sort_moves(out);
        return NodeKind::Forced;
    }
    if params.defend_four_three && board.count(opp, Class::Block4Flex3) > 0 {
        defend(
            board,
            params,
            me,
            cands,
            banned,
            &[Class::Flex4, Class::Block4Flex3],
            out,
        );
        sort_moves(out);
        return NodeKind::Forced;
    }
    let scorer = Scorer::new(board, params, me);
    for p in cands.iter() {
        if is_banned(board, me, p) {
            continue;
        }
        let score = scorer.score(board, p);
        out.push(ScoredMove { pos: p, score });
    }
    // Only the best `width` are kept: pick them, then sort only them.
    if out.len() > width {
        if width > 0 {
            out.select_nth_unstable_by(width - 1, order);
        }
        out.truncate(width);
        if params.quiet_fours && board.fours(me) > 0 {
            // Our fours beyond the best `width`: each may start a VCF.
            let mut kept = Bitboard::EMPTY;
            for m in out.iter() {
                kept.set(m.pos);
            }
            for p in cands.iter() {
                if !kept.contains(p) && board.class(me, p).is_four() && !is_banned(board, me, p) {
                    out.push(ScoredMove {
                        pos: p,
                        score: scorer.score(board, p),
                    });
                }
            }
        }
    }
    sort_moves(out);
    NodeKind::Quiet
}

/// The opponent can make a winning shape next move: an open four (or a
/// double four), or a four-three. The moves: our own fours, and the cells
/// after which the opponent has no cell of the `threats` classes left
/// (each checked by reading the threat cells again with it in place, or in
/// renju against black by playing it). Only cells on the threatening lines
/// can do that, so only those are tried.
fn defend(
    board: &mut Board,
    params: &Params,
    me: Color,
    cands: Bitboard,
    banned: Bitboard,
    threats: &[Class],
    out: &mut Vec<ScoredMove>,
) {
    let count = |b: &Board| {
        threats
            .iter()
            .map(|&k| b.count(me.opposite(), k))
            .sum::<u32>()
    };
    // The lines that make the threat: fours, and the three of a four-three.
    let min_line = if threats.contains(&Class::Block4Flex3) {
        Pattern::F3
    } else {
        Pattern::B4
    };
    let opp = me.opposite();
    let mut seen = Bitboard::EMPTY;
    // Scans stop once the board's count of such cells is found.
    let mut fours = board.fours(me);
    for p in cands.iter() {
        if fours == 0 {
            break;
        }
        if board.class(me, p).is_four() && board.class(me, p) != Class::Five {
            fours -= 1;
            seen.set(p);
            out.push(ScoredMove {
                pos: p,
                score: cell_score(board, params, me, p),
            });
        }
    }
    // Cells on the threatening lines: `lines` of any threat cell, `all`
    // of every one. A stone off a threat cell's lines (and off the cell)
    // leaves its patterns there as they are, so only `all` can defend.
    let mut lines = Bitboard::EMPTY;
    let mut all = !Bitboard::EMPTY;
    let before = count(board);
    let mut points = before;
    // The threat cells, to read again with each defence in place (see
    // `Board::blocks_only_take`; where that does not hold, or there are too
    // many, each defence is played).
    let mut targets: ArrayVec<Pos, 32> = ArrayVec::new();
    let replay = !board.blocks_only_take(opp) || before > 32;
    for p in cands.iter() {
        if points == 0 {
            break;
        }
        if !threats.contains(&board.class(opp, p)) {
            continue;
        }
        points -= 1;
        if !replay {
            targets.push(p);
        }
        let mut own = Bitboard::EMPTY;
        own.set(p);
        for d in 0..DIRS {
            if board.pattern(opp, p, d) < min_line {
                continue;
            }
            for q in board.line_cells(p, d, 5) {
                if board.is_empty(q) && !banned.contains(q) {
                    own.set(q);
                }
            }
        }
        lines |= own;
        all &= own;
    }
    let mut fallback: Option<(u32, Pos)> = None;
    let mut defended = false;
    // Pass 0: the cells on every threat's lines; pass 1, only when none of
    // them defends: the rest, for the move that stops the most.
    for cells in [all & lines, lines & !all] {
        if defended {
            break;
        }
        for q in cells.iter() {
            if seen.contains(q) || is_banned(board, me, q) {
                continue;
            }
            let left = if replay {
                board.make(q);
                let left = count(board);
                board.unmake();
                left
            } else {
                targets
                    .iter()
                    .filter(|&&t| t != q && threats.contains(&board.class_with(opp, t, q, me)))
                    .count() as u32
            };
            if left == 0 {
                defended = true;
                out.push(ScoredMove {
                    pos: q,
                    score: cell_score(board, params, me, q),
                });
            } else if left < before && fallback.is_none_or(|(n, l)| (left, q) < (n, l)) {
                fallback = Some((left, q));
            }
        }
    }
    // No single move stops every threat: the position is lost unless our
    // fours save it; still offer the move that stops the most.
    if !defended {
        if let Some((_, q)) = fallback {
            out.push(ScoredMove {
                pos: q,
                score: cell_score(board, params, me, q),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
            let tables = params.policy_tables(rule);
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
    }

    fn gen(rule: Rule, moves: &str) -> (NodeKind, Vec<Pos>) {
        let mut b = position_from_moves(15, rule, moves).unwrap();
        let mut out = Vec::new();
        let kind = generate(&mut b, &Params::default(), 8, &[], &mut out);
        (kind, out.iter().map(|m| m.pos).collect())
    }

    #[test]
    fn five_is_played_at_once() {
        // Black: h8 i8 j8 k8; black to move.
        let (kind, moves) = gen(Rule::Freestyle, "h8a1i8a2j8a3k8a5");
        assert!(matches!(kind, NodeKind::Win(p) if p == Pos::new(6, 7) || p == Pos::new(11, 7)));
        assert_eq!(moves.len(), 1);
    }

    #[test]
    fn a_four_must_be_blocked() {
        // White a1..a4 is a four (a5 is free); black to move must block at a5.
        let (kind, moves) = gen(Rule::Freestyle, "h8a1i9a2k12a3m14a4");
        assert_eq!(kind, NodeKind::Forced);
        assert_eq!(moves, vec![Pos::new(0, 4)]);
    }

    #[test]
    fn an_open_three_must_be_answered() {
        // White g8 h8 i8 open three; black has scattered stones.
        let (kind, moves) = gen(Rule::Freestyle, "a1h8a15g8o1i8");
        assert_eq!(kind, NodeKind::Forced);
        assert!(!moves.is_empty());
        for p in &moves {
            // Every answer is on row 8 (y = 7), within reach of the three.
            assert_eq!(p.y(), 7, "{moves:?}");
        }
        assert!(moves.contains(&Pos::new(5, 7)) && moves.contains(&Pos::new(9, 7)));
    }

    #[test]
    fn a_four_three_point_must_be_taken_away() {
        // White f6 g6 h6 (blocked by black e6) and i7 i8: i6 makes a four
        // and an open three. Black to move, with no four of its own.
        let moves = "e6f6a1g6a15h6o1i7o15i8";
        let mut b = position_from_moves(15, Rule::Freestyle, moves).unwrap();
        assert_eq!(b.class(Color::White, Pos::new(8, 5)), Class::Block4Flex3);
        let mut params = Params::default();
        let mut out = Vec::new();
        assert_eq!(generate(&mut b, &params, 8, &[], &mut out), NodeKind::Quiet);
        params.defend_four_three = true;
        let kind = generate(&mut b, &params, 8, &[], &mut out);
        assert_eq!(kind, NodeKind::Forced);
        let list: Vec<Pos> = out.iter().map(|m| m.pos).collect();
        assert!(list.contains(&Pos::new(8, 5)), "{list:?}");
        for &p in &list {
            b.make(p);
            let left =
                b.count(Color::White, Class::Block4Flex3) + b.count(Color::White, Class::Flex4);
            b.unmake();
            assert_eq!(left, 0, "{p} leaves the threat: {list:?}");
        }
    }

    #[test]
    fn quiet_width_and_renju_bans() {
        let (kind, moves) = gen(Rule::Freestyle, "h8i9");
        assert_eq!(kind, NodeKind::Quiet);
        assert_eq!(moves.len(), 8);
        // Black to move, h8 is a double-three point: never generated.
        let (kind, moves) = gen(Rule::Renju, "f8a1g8a15h6o1h7o15");
        assert_eq!(kind, NodeKind::Quiet);
        assert!(!moves.contains(&Pos::new(7, 7)));
        let (_, moves) = gen(Rule::Freestyle, "f8a1g8a15h6o1h7o15");
        assert_eq!(moves[0], Pos::new(7, 7));
    }
}
