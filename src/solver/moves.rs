//! The solver's node moves: the attacker's threats and the defender's
//! answers at each node, the nodes decided at once, and the ends of a
//! proof's main line.

use super::{Child, Expansion, Moves};
use crate::board::rules::{cells_of, find_class, four_three_counts, is_banned, stop_fives};
use crate::board::{Board, DIRS};
use crate::pattern::{Class, Pattern};
use crate::types::{Color, Pos, Rule};
use smallvec::SmallVec;

/// Does `c`, to move or not, hold a four-three point that wins by force:
/// the opponent has no four to answer with, so its block of the four
/// cannot touch the three (the lines meet only at the new stone)? Renju
/// black's three may be a false one, and under caro the four can also be
/// stopped past its five cell, which may touch the three: never counted.
pub fn four_three_wins(board: &Board, c: Color) -> bool {
    wins_unanswered(board, c, Class::Block4Flex3)
}

/// Does `c`, to move, hold a double open three that wins by force: the
/// opponent has no four to answer with, and one stone cannot block two
/// lines that meet only at the new one, so the other three becomes an open
/// four (the opponent's fours made by its block are not looked at: a
/// static judgement, as Rapfi's). Same rules as [`four_three_wins`].
pub fn three_three_wins(board: &Board, c: Color) -> bool {
    wins_unanswered(board, c, Class::Flex3x2)
}

/// `c` (to move) has a cell of class `k`, the opponent no cell that makes
/// a four, and the rule is neither caro nor renju with black to move.
fn wins_unanswered(board: &Board, c: Color, k: Class) -> bool {
    board.count(c, k) > 0
        && four_three_counts(board, c)
        && [
            Class::Block4,
            Class::Block4Plus,
            Class::Block4Flex3,
            Class::Flex4,
            Class::Five,
        ]
        .iter()
        .all(|&k| board.count(c.opposite(), k) == 0)
}

/// Plies to the five from a node decided at once.
pub(super) fn terminal_len(board: &Board, or: bool) -> u32 {
    let me = board.side_to_move();
    if or {
        if board.count(me, Class::Five) > 0 {
            1
        } else if board.count(me, Class::Flex4) > 0 {
            3
        } else {
            5
        }
    } else {
        // The defender cannot block: any move, then the five.
        2
    }
}

/// Ends a line at an attacker node decided at once: the five, or the open
/// four, a block and the five.
pub(super) fn finish_line(board: &mut Board, line: &mut Vec<Pos>) {
    let me = board.side_to_move();
    if let Some(p) = find_class(board, me, Class::Five) {
        line.push(p);
        return;
    }
    if let Some(p) = find_class(board, me, Class::Flex4) {
        line.push(p);
        board.make(p);
        finish_defence(board, line);
        board.unmake();
        return;
    }
    // A four-three: the four, its block, then the open four.
    if let Some(p) = find_class(board, me, Class::Block4Flex3) {
        line.push(p);
        board.make(p);
        if let Some(&b) = cells_of(board, me, Class::Five).first() {
            line.push(b);
            board.make(b);
            finish_line(board, line);
            board.unmake();
        }
        board.unmake();
    }
}

/// Ends a line at a defender node decided at once: the defender blocks one
/// five and the attacker makes the other; under renju a forbidden block
/// ends the line at the four.
pub(super) fn finish_defence(board: &mut Board, line: &mut Vec<Pos>) {
    let defender = board.side_to_move();
    let attacker = defender.opposite();
    let fives = cells_of(board, attacker, Class::Five);
    if fives.len() >= 2 {
        line.push(fives[0]);
        line.push(fives[1]);
    }
}

/// Does renju black, playing the legal but possibly-forbidden cell `p`,
/// make a four (`Five` afterwards) or an open three (`Flex4` afterwards)?
fn renju_maybe(board: &mut Board, p: Pos) -> (bool, bool) {
    let me = board.side_to_move();
    board.make(p);
    let r = (
        board.count(me, Class::Five) > 0,
        board.count(me, Class::Flex4) > 0,
    );
    board.unmake();
    r
}

/// The side to move faces a five point: its moves are the cells that stop
/// it, or the node is `none` when nothing does.
fn stops_or(board: &mut Board, none: Expansion) -> Expansion {
    let stops = stop_fives(board);
    if stops.is_empty() {
        return none;
    }
    Expansion::Moves(stops.iter().map(|&pos| Child { pos, cost: 0 }).collect())
}

/// The attacker (side to move) at an OR node.
pub(super) fn expand_attack(board: &mut Board, threats: u32) -> Expansion {
    let me = board.side_to_move();
    let opp = me.opposite();
    if board.count(me, Class::Five) > 0 {
        return Expansion::Proven;
    }
    if board.count(opp, Class::Five) > 0 {
        return stops_or(board, Expansion::Disproven);
    }
    let mut moves = Moves::new();
    if board.count(me, Class::Flex4) > 0 || four_three_wins(board, me) {
        return Expansion::Proven;
    }
    let renju_black = me == Color::Black && board.rule() == Rule::Renju;
    let four_threes = board.count(me, Class::Block4Flex3);
    let mut threes = Moves::new();
    for p in board.candidates().iter() {
        let k = board.class(me, p);
        if k.is_four() {
            if !(renju_black && is_banned(board, me, p)) {
                moves.push(Child { pos: p, cost: 0 });
            }
        } else if renju_black && k == Class::MaybeForbid {
            if !board.is_forbidden(p) {
                let (four, three) = renju_maybe(board, p);
                if four {
                    moves.push(Child { pos: p, cost: 0 });
                } else if three && threats > 0 {
                    threes.push(Child { pos: p, cost: 1 });
                }
            }
        } else if threats > 0 && matches!(k, Class::Flex3 | Class::Flex3Plus | Class::Flex3x2) {
            if renju_black && (is_banned(board, me, p) || !renju_maybe(board, p).1) {
                continue;
            }
            threes.push(Child { pos: p, cost: 1 });
        } else if threats > 0 && k >= Class::Block3 && !(renju_black && is_banned(board, me, p)) {
            // A closed three or two that makes a new four-three point: a
            // threat to win by four-three next move.
            board.make(p);
            let threat = board.count(me, Class::Block4Flex3) > four_threes
                || board.count(me, Class::Flex4) > 0;
            board.unmake();
            if threat {
                threes.push(Child { pos: p, cost: 1 });
            }
        }
    }
    // Fours first (they cost nothing and keep the initiative), then
    // threes, each group by class strength.
    sort_by_class(board, me, &mut moves);
    sort_by_class(board, me, &mut threes);
    moves.extend(threes);
    if moves.is_empty() {
        Expansion::Disproven
    } else {
        Expansion::Moves(moves)
    }
}

/// Strongest class for `me` first, then by cell.
fn sort_by_class(board: &Board, me: Color, moves: &mut Moves) {
    sort_by_rank(moves, |p| board.class(me, p) as u32);
}

/// Sorts `moves` by `rank` of their cells, highest first, ties by cell.
/// Each rank is read once and the sort runs on plain integers (a sort
/// that reads the board in its comparisons cost a quarter of a solve).
fn sort_by_rank(moves: &mut Moves, rank: impl Fn(Pos) -> u32) {
    let mut keyed: SmallVec<[(u64, Child); 32]> = moves
        .iter()
        .map(|&c| {
            (
                (u64::from(u32::MAX - rank(c.pos)) << 32) | c.pos.index() as u64,
                c,
            )
        })
        .collect();
    keyed.sort_unstable_by_key(|&(k, _)| k);
    moves.clear();
    moves.extend(keyed.into_iter().map(|(_, c)| c));
}

/// The defender (side to move) at an AND node.
pub(super) fn expand_defence(board: &mut Board) -> Expansion {
    expand_defence_with(board, true)
}

/// [`expand_defence`]; `shortcuts` false tries and checks every cell
/// against a four-three point (the tests compare the two).
pub(super) fn expand_defence_with(board: &mut Board, shortcuts: bool) -> Expansion {
    let me = board.side_to_move();
    let att = me.opposite();
    if board.count(me, Class::Five) > 0 {
        return Expansion::Disproven;
    }
    if board.count(att, Class::Five) > 0 {
        return stops_or(board, Expansion::Proven);
    }
    let mut moves = Moves::new();
    let open_three = board.count(att, Class::Flex4) > 0;
    if !open_three && board.count(att, Class::Block4Flex3) == 0 {
        // The attacker threatens nothing: the defender is free.
        return Expansion::Disproven;
    }
    let renju_black = me == Color::Black && board.rule() == Rule::Renju;
    let mut seen = crate::bitboard::Bitboard::EMPTY;
    // Counter-fours.
    for p in board.candidates().iter() {
        let k = board.class(me, p);
        let four = if k.is_four() {
            !(renju_black && is_banned(board, me, p))
        } else {
            renju_black
                && k == Class::MaybeForbid
                && !board.is_forbidden(p)
                && renju_maybe(board, p).0
        };
        if four {
            seen.set(p);
            moves.push(Child { pos: p, cost: 0 });
        }
    }
    // Against an open three: the cells that take every open-four point
    // away (only cells on the lines through those points can). Against a
    // four-three point: every cell near the stones or on those lines that
    // does not lose at once (the search proves the rest).
    let threat = if open_three {
        Class::Flex4
    } else {
        Class::Block4Flex3
    };
    // Against a four-three point that wins as it stands (we have no four
    // to answer with), a cell can only help if it is on a line through
    // such a point (it may spoil the four or the three) or if it makes a
    // three of ours (then we have fours to answer with): the other cells
    // leave the point winning, so they are not tried.
    let narrow = shortcuts && !open_three && four_three_wins(board, att);
    let mut lines = if open_three || narrow {
        crate::bitboard::Bitboard::EMPTY
    } else {
        board.candidates()
    };
    let mut near = crate::bitboard::Bitboard::EMPTY;
    for p in board.candidates().iter() {
        if board.class(att, p) != threat {
            continue;
        }
        lines.set(p);
        for d in 0..DIRS {
            let four_line = board.pattern(att, p, d) >= Pattern::B4;
            if !four_line && !narrow {
                continue;
            }
            for q in board.line_cells(p, d, 5) {
                if board.is_empty(q) {
                    if four_line {
                        lines.set(q);
                    }
                    near.set(q);
                }
            }
        }
    }
    if narrow {
        for q in board.candidates().iter() {
            if near.contains(q) || (0..DIRS).any(|d| board.pattern(me, q, d) >= Pattern::B3) {
                lines.set(q);
            }
        }
    }
    // Against an open three, the open-four points are read again with each
    // defence in place (see `Board::blocks_only_take`; where that does not
    // hold, each defence is played).
    let points = if open_three && board.blocks_only_take(att) {
        cells_of(board, att, Class::Flex4)
    } else {
        SmallVec::new()
    };
    // Against a four-three point that does not win as it stands (we have
    // fours to answer with, or the rule does not let it win unanswered),
    // no stone of ours makes it win: every cell holds, unchecked. (Under
    // standard and renju our stone could spoil our own four by an
    // overline, or change what is forbidden to black, so there each is
    // checked.)
    let all_hold = shortcuts
        && !open_three
        && !narrow
        && matches!(board.rule(), Rule::Freestyle | Rule::Caro | Rule::CaroExact);
    let mut defences = Moves::new();
    for q in lines.iter() {
        if seen.contains(q) || is_banned(board, me, q) {
            continue;
        }
        let ok = if all_hold {
            true
        } else if !points.is_empty() {
            points
                .iter()
                .all(|&t| t == q || board.class_with(att, t, q, me) != Class::Flex4)
        } else {
            board.make(q);
            let ok = if open_three {
                board.count(att, Class::Flex4) == 0 && board.count(att, Class::Five) == 0
            } else {
                board.count(att, Class::Flex4) == 0 && !four_three_wins(board, att)
            };
            board.unmake();
            ok
        };
        if ok {
            defences.push(Child { pos: q, cost: 0 });
        }
    }
    // Direct defences first, the strongest cells for the defender (by its
    // class and the attacker's there) first, then the counter-fours.
    sort_by_rank(&mut defences, |p| {
        board.class(me, p) as u32 * 16 + board.class(att, p) as u32
    });
    let mut all = defences;
    all.extend(moves);
    if all.is_empty() {
        Expansion::Proven
    } else {
        Expansion::Moves(all)
    }
}
