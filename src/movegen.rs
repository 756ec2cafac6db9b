//! Candidate generation with the forced-move filters.
//!
//! Every empty cell near the stones is scored for the side to move (by a
//! [`CellScorer`]: the search's move ordering). In a quiet position the
//! best `width` are kept. Forced positions are never cut by width: a five
//! is played at once; against a five only the blocks remain; against an
//! open-four threat (an open three, or a double-four point) only our fours
//! and the cells that take the threat away.

use crate::bitboard::Bitboard;
use crate::board::rules::{is_banned, stop_fives};
use crate::board::{Board, DIRS};
use crate::pattern::{Class, Pattern};
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

/// Scores a cell for the side to move, higher first.
pub trait CellScorer {
    fn score(&self, board: &Board, p: Pos) -> i32;
}

impl<F: Fn(&Board, Pos) -> i32> CellScorer for F {
    #[inline]
    fn score(&self, board: &Board, p: Pos) -> i32 {
        self(board, p)
    }
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
pub fn generate<S: CellScorer>(
    board: &mut Board,
    scorer: &S,
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
            for p in stop_fives(board) {
                if !banned.contains(p) {
                    out.push(ScoredMove {
                        pos: p,
                        score: scorer.score(board, p),
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
                    score: scorer.score(board, p),
                });
            }
        }
        sort_moves(out);
        return NodeKind::Forced;
    }
    if board.count(opp, Class::Flex4) > 0 {
        defend(board, scorer, me, cands, banned, out);
        sort_moves(out);
        return NodeKind::Forced;
    }
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
    }
    sort_moves(out);
    NodeKind::Quiet
}

/// Appends every candidate not in `out` (nor excluded, nor forbidden),
/// sorted among themselves, after the moves already there: the rest of a
/// quiet node, for when every move its cut kept has lost. Returns how
/// many were added.
pub fn add_rest<S: CellScorer>(
    board: &mut Board,
    scorer: &S,
    excluded: &[Pos],
    out: &mut Vec<ScoredMove>,
) -> usize {
    let before = out.len();
    let added = add_unlisted(board, scorer, excluded, out, |_, _| true);
    sort_moves(&mut out[before..]);
    added
}

/// Appends, unsorted, the candidates not already in `out` nor excluded
/// that the side to move may play and `wanted` keeps; returns how many.
fn add_unlisted<S: CellScorer>(
    board: &mut Board,
    scorer: &S,
    excluded: &[Pos],
    out: &mut Vec<ScoredMove>,
    wanted: impl Fn(&Board, Pos) -> bool,
) -> usize {
    let me = board.side_to_move();
    let mut listed = Bitboard::EMPTY;
    for p in out.iter().map(|m| m.pos).chain(excluded.iter().copied()) {
        listed.set(p);
    }
    let before = out.len();
    for p in (board.candidates() & !listed).iter() {
        if wanted(board, p) && !is_banned(board, me, p) {
            out.push(ScoredMove {
                pos: p,
                score: scorer.score(board, p),
            });
        }
    }
    out.len() - before
}

/// The opponent can make an open four (or a double four) next move. The
/// moves: our own fours, and the cells after which the opponent has no
/// open-four cell left (each checked by reading the threat cells again
/// with it in place, or in renju against black by playing it). Only cells
/// on the threatening lines can do that, so only those are tried.
fn defend<S: CellScorer>(
    board: &mut Board,
    scorer: &S,
    me: Color,
    cands: Bitboard,
    banned: Bitboard,
    out: &mut Vec<ScoredMove>,
) {
    let threat = Class::Flex4;
    let count = |b: &Board| b.count(me.opposite(), threat);
    let min_line = Pattern::B4;
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
                score: scorer.score(board, p),
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
        if board.class(opp, p) != threat {
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
                    .filter(|&&t| t != q && board.class_with(opp, t, q, me) == threat)
                    .count() as u32
            };
            if left == 0 {
                defended = true;
                out.push(ScoredMove {
                    pos: q,
                    score: scorer.score(board, q),
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
                score: scorer.score(board, q),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft::position_from_moves;

    /// Orders by the side to move's class, then the opponent's.
    fn by_class(b: &Board, p: Pos) -> i32 {
        let me = b.side_to_move();
        16 * b.class(me, p) as i32 + b.class(me.opposite(), p) as i32
    }

    fn gen(rule: Rule, moves: &str) -> (NodeKind, Vec<Pos>) {
        let mut b = position_from_moves(15, rule, moves).unwrap();
        let mut out = Vec::new();
        let kind = generate(&mut b, &by_class, 8, &[], &mut out);
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
    fn a_four_three_point_is_left_to_the_search() {
        // White f6 g6 h6 (blocked by black e6) and i7 i8: i6 makes a four
        // and an open three. Black to move, with no four of its own: the
        // node stays quiet (the threat search and the tree answer it).
        let moves = "e6f6a1g6a15h6o1i7o15i8";
        let mut b = position_from_moves(15, Rule::Freestyle, moves).unwrap();
        assert_eq!(b.class(Color::White, Pos::new(8, 5)), Class::Block4Flex3);
        let mut out = Vec::new();
        assert_eq!(
            generate(&mut b, &by_class, 8, &[], &mut out),
            NodeKind::Quiet
        );
        assert_eq!(out.len(), 8);
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

    #[test]
    fn the_rest_of_a_quiet_node_comes_after_its_kept_moves() {
        let mut b = position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7").unwrap();
        let mut out = Vec::new();
        generate(&mut b, &by_class, 3, &[], &mut out);
        let kept = out.clone();
        let out_cell = b
            .candidates()
            .iter()
            .find(|p| kept.iter().all(|m| m.pos != *p))
            .unwrap();
        let added = add_rest(&mut b, &by_class, &[out_cell], &mut out);
        assert_eq!(&out[..3], &kept[..], "the kept moves stay first, in order");
        assert_eq!(added, b.candidates().count() as usize - 4);
        assert!(out[3..].windows(2).all(|w| w[0].score >= w[1].score));
        assert!(out.iter().all(|m| m.pos != out_cell), "excluded");
        let mut cells: Vec<Pos> = out.iter().map(|m| m.pos).collect();
        cells.sort_by_key(|p| p.index());
        cells.dedup();
        assert_eq!(cells.len(), out.len(), "each once");
    }
}
