use super::*;
use crate::board::rules::is_banned;
use crate::pattern::Class;
use crate::perft::position_from_moves;
use crate::types::parse_pos_list;
use crate::types::Rule;
use moves::expand_defence_with;

fn limits(mode: Mode, threats: u32) -> SolveLimits {
    SolveLimits {
        mode,
        max_threats: threats,
        nodes: 2_000_000,
        ..SolveLimits::default()
    }
}

/// Can the side to move make five at once (by playing each empty cell:
/// the board's own five detection, not the solver's threat classes)?
fn wins_at_once(board: &mut Board) -> bool {
    let empty: Vec<Pos> = (*board.cells()
        & !(*board.stones(Color::Black) | *board.stones(Color::White)))
    .iter()
    .collect();
    empty.into_iter().any(|q| {
        board.make(q);
        let won = board.is_won();
        board.unmake();
        won
    })
}

/// An independent check of a win by threats: at each attacker turn the
/// solver names a move, which must be legal; at each defender turn every
/// legal cell of the board is tried (not only the solver's defences), and
/// the attacker must still win after each. A defender move that leaves
/// the attacker a five or an open four (with no five of the defender's
/// own to come first) is won at once.
fn check_win(
    board: &mut Board,
    solver: &mut Solver,
    limits: &SolveLimits,
    depth: u32,
    budget: &mut u64,
) -> Result<(), String> {
    let att = board.side_to_move();
    if wins_at_once(board) {
        return Ok(());
    }
    if depth == 0 || *budget == 0 {
        return Err(format!("check too deep at {}", board.to_text()));
    }
    *budget -= 1;
    let Some(m) = solver.winning_move(board, limits) else {
        return Err(format!("no winning move in\n{}", board.to_text()));
    };
    if !board.is_empty(m) || is_banned(board, att, m) {
        return Err(format!("illegal attacker move {m}"));
    }
    board.make(m);
    let result = (|| {
        if wins_at_once(board) {
            return Err(format!("the defender makes five after {m}"));
        }
        let def = board.side_to_move();
        let empty: Vec<Pos> = (*board.cells()
            & !(*board.stones(Color::Black) | *board.stones(Color::White)))
        .iter()
        .collect();
        for d in empty {
            if is_banned(board, def, d) {
                continue;
            }
            board.make(d);
            let quick = board.count(att, Class::Five) > 0
                || (board.count(att, Class::Flex4) > 0 && board.count(def, Class::Five) == 0);
            let r = if quick {
                Ok(())
            } else {
                check_win(board, solver, limits, depth - 1, budget)
            };
            board.unmake();
            r.map_err(|e| format!("{} {}: {e}", m.to_pos_string(), d.to_pos_string()))?;
        }
        Ok(())
    })();
    board.unmake();
    result
}

/// Replays a main line: alternating moves, all legal, ending in a five or
/// at a four whose block is forbidden for black.
fn check_line(board: &mut Board, line: &[Pos]) -> Result<(), String> {
    let start = board.ply();
    let att = board.side_to_move();
    let mut r = Err("the line does not end in a five".to_string());
    for &p in line {
        let me = board.side_to_move();
        if !board.is_empty(p) || is_banned(board, me, p) {
            r = Err(format!("illegal move {p} in the line"));
            break;
        }
        board.make(p);
        if board.is_won() {
            r = if me == att {
                Ok(())
            } else {
                Err("the defender won".into())
            };
            break;
        }
    }
    if r.is_err() && board.ply() == start + line.len() && board.side_to_move() != att {
        // Ends at a threat the defender cannot answer: a four whose only
        // block is forbidden for black, or a threat with no defence (the
        // full check, `check_win`, tries every reply).
        r = Ok(());
    }
    while board.ply() > start {
        board.unmake();
    }
    r
}

struct Case {
    rule: Rule,
    moves: String,
    size: usize,
    kind: String,
}

fn suite() -> Vec<Case> {
    include_str!("../../tests/tactics/suite.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('#').next().unwrap().split_whitespace().collect();
            Case {
                rule: f[0].parse().unwrap(),
                size: f[1].parse().unwrap(),
                moves: f[2].to_string(),
                kind: f[3].to_string(),
            }
        })
        .collect()
}

#[test]
fn every_suite_win_is_proved_and_checked() {
    for case in suite() {
        let mut b = position_from_moves(case.size, case.rule, &case.moves).unwrap();
        let mode = if case.kind == "vcf" {
            Mode::Vcf
        } else {
            Mode::Vct
        };
        // The suite's longest VCT needs five threes.
        let lim = limits(mode, 5);
        let mut solver = Solver::new();
        let s = solver.solve(&mut b, &lim);
        let Outcome::Win(line) = &s.outcome else {
            panic!("{} {}: {:?}", case.rule, case.moves, s.outcome);
        };
        check_line(&mut b, line).unwrap_or_else(|e| panic!("{} {}: {e}", case.rule, case.moves));
        assert!(s.plies as usize >= 1 && s.plies < INF, "{}", s.plies);
        let mut budget = 20_000;
        check_win(&mut b, &mut solver, &lim, 200, &mut budget)
            .unwrap_or_else(|e| panic!("{} {}: {e}", case.rule, case.moves));
        // A VCF is also a VCT.
        if mode == Mode::Vcf {
            let s = Solver::new().solve(&mut b, &limits(Mode::Vct, 4));
            assert!(matches!(s.outcome, Outcome::Win(_)), "{}", case.moves);
        }
    }
}

#[test]
fn a_three_is_no_vcf_and_threes_need_a_budget() {
    // Black to move with an open three g8 h8 i8: the open four is a four,
    // so a VCF, won in three plies.
    let mut b = position_from_moves(15, Rule::Freestyle, "g8a1h8a15i8o1").unwrap();
    let s = Solver::new().solve(&mut b, &limits(Mode::Vcf, 4));
    assert!(matches!(s.outcome, Outcome::Win(_)), "{:?}", s.outcome);
    assert_eq!(s.plies, 3);
    // Black to move with an open two: no four, so no VCF; one three is not
    // enough (the defender blocks it).
    let mut b = position_from_moves(15, Rule::Freestyle, "h8a1i8a15").unwrap();
    let s = Solver::new().solve(&mut b, &limits(Mode::Vcf, 4));
    assert_eq!(s.outcome, Outcome::NoWin);
    let s = Solver::new().solve(&mut b, &limits(Mode::Vct, 1));
    assert_eq!(s.outcome, Outcome::NoWin);
    // Nothing at all: no win, whatever the budget.
    let mut b = position_from_moves(15, Rule::Freestyle, "h8i9").unwrap();
    let s = Solver::new().solve(&mut b, &limits(Mode::Vct, 6));
    assert_eq!(s.outcome, Outcome::NoWin);
}

#[test]
fn a_vct_of_several_threats_from_a_real_game() {
    // Played by tengen (black) against Rapfi: after black's i8 white wins
    // by threats (Rapfi's line opens with a four-three threat).
    let before = "f13d9e7g9f10e8f9f7g6f11g12d8c8g8i10h11g11e12h12i13";
    let mut b = position_from_moves(15, Rule::Freestyle, &format!("{before}i8")).unwrap();
    let lim = limits(Mode::Vct, 4);
    let mut solver = Solver::new();
    let s = solver.solve(&mut b, &lim);
    let Outcome::Win(line) = &s.outcome else {
        panic!("{:?}", s.outcome)
    };
    check_line(&mut b, line).unwrap();
    let mut budget = 200_000;
    check_win(&mut b, &mut solver, &lim, 60, &mut budget).unwrap();
    // Fewer threats are not enough.
    let s = Solver::new().solve(&mut b, &limits(Mode::Vct, 1));
    assert_eq!(s.outcome, Outcome::NoWin);
}

#[test]
fn renju_forbidden_cells() {
    // Black to move: h8 would make a double three, forbidden in renju, so
    // black has no win by it; in freestyle the same cell wins.
    let moves = "f8a1g8a15h6o1h7o15";
    let mut b = position_from_moves(15, Rule::Renju, moves).unwrap();
    let s = Solver::new().solve(&mut b, &limits(Mode::Vct, 2));
    if let Outcome::Win(line) = &s.outcome {
        assert_ne!(line[0], Pos::new(7, 7), "{line:?}");
        check_line(&mut b, line).unwrap();
    }
    let mut f = position_from_moves(15, Rule::Freestyle, moves).unwrap();
    let s = Solver::new().solve(&mut f, &limits(Mode::Vct, 2));
    assert!(matches!(s.outcome, Outcome::Win(_)), "{:?}", s.outcome);
    // White to move wins by a four whose only block is forbidden for black.
    let mut w = position_from_moves(15, Rule::Renju, "f8i7g8j6h6k5h7a1m3a15g9").unwrap();
    let s = Solver::new().solve(&mut w, &limits(Mode::Vcf, 0));
    let Outcome::Win(line) = &s.outcome else {
        panic!("{:?}", s.outcome)
    };
    check_line(&mut w, line).unwrap();
}

#[test]
fn solves_are_deterministic_and_limits_give_unknown() {
    let before = "f13d9e7g9f10e8f9f7g6f11g12d8c8g8i10h11g11e12h12i13i8";
    let mut b = position_from_moves(15, Rule::Freestyle, before).unwrap();
    let lim = limits(Mode::Vct, 4);
    let a = Solver::new().solve(&mut b, &lim);
    let c = Solver::new().solve(&mut b, &lim);
    assert_eq!((a.nodes, &a.outcome), (c.nodes, &c.outcome));
    let tiny = SolveLimits {
        nodes: 10,
        ..lim.clone()
    };
    assert_eq!(Solver::new().solve(&mut b, &tiny).outcome, Outcome::Unknown);
    // The board is left as it was.
    assert_eq!(
        b.moves().map(|(p, _)| p).collect::<Vec<_>>(),
        parse_pos_list(before).unwrap()
    );
}

#[test]
fn a_hunted_vct_of_five_threats() {
    // Found by `examples/vct_hunt freestyle 5 1 3`: white to move wins with
    // five threes (27 plies) and not with four. The main line makes 12
    // threats: open threes f7 f6 i6 g5, fours f4 d7 g6 g3 e3 d8, the
    // four-three d9 and the open four e8 (d11 answers black's four).
    let mut b = position_from_moves(15, Rule::Freestyle, "h8h6g8f8e9g7i5e7i7").unwrap();
    assert_eq!(
        Solver::new().solve(&mut b, &limits(Mode::Vct, 4)).outcome,
        Outcome::NoWin
    );
    let lim = limits(Mode::Vct, 5);
    let mut solver = Solver::new();
    let s = solver.solve(&mut b, &lim);
    let Outcome::Win(line) = &s.outcome else {
        panic!("{:?}", s.outcome)
    };
    check_line(&mut b, line).unwrap();
    let mut budget = 100_000;
    check_win(&mut b, &mut solver, &lim, 80, &mut budget).unwrap();
}

/// Against a four-three point, the shortcuts (only the cells on its lines
/// and those that make a three of ours when it wins as it stands; no
/// check of each cell when it cannot win unanswered) give the same
/// defences, in the same order, as trying and checking every cell: on
/// random positions under every rule, the attacker's stones packed in the
/// centre, the defender's spread wider (so it often has no four to answer
/// with).
#[test]
fn four_three_defence_shortcuts_change_nothing() {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    let positions = |e: &Expansion| match e {
        Expansion::Proven => vec![Pos::new(0, 0); 1],
        Expansion::Disproven => Vec::new(),
        Expansion::Moves(m) => m.iter().map(|c| c.pos).collect(),
    };
    let mut rng = StdRng::seed_from_u64(7);
    let (mut narrowed, mut compared) = (0, 0);
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro] {
        for attacker in [Color::Black, Color::White] {
            for _ in 0..1500 {
                let mut b = Board::new(15, rule).unwrap();
                let n = rng.gen_range(6..14);
                let mut placed = [0, 0];
                let mut tries = 0;
                while placed[0] + placed[1] < 2 * n && tries < 500 {
                    tries += 1;
                    let c = if b.side_to_move() == attacker { 0 } else { 1 };
                    if placed[c] == n {
                        b.toggle_side();
                        continue;
                    }
                    let (lo, hi) = if c == 0 { (4, 11) } else { (2, 13) };
                    let p = Pos::new(rng.gen_range(lo..hi), rng.gen_range(lo..hi));
                    if !b.is_empty(p) {
                        continue;
                    }
                    b.make(p);
                    placed[c] += 1;
                    if b.is_won() {
                        break;
                    }
                }
                if b.is_won() {
                    continue;
                }
                if b.side_to_move() == attacker {
                    b.toggle_side();
                }
                let me = attacker.opposite();
                if b.count(attacker, Class::Block4Flex3) > 0
                    && b.count(attacker, Class::Flex4) == 0
                    && b.count(attacker, Class::Five) == 0
                    && b.count(me, Class::Five) == 0
                {
                    compared += 1;
                    narrowed += four_three_wins(&b, attacker) as usize;
                    let fast = positions(&expand_defence_with(&mut b, true));
                    let full = positions(&expand_defence_with(&mut b, false));
                    let line: String = b.moves().map(|(p, _)| p.to_pos_string()).collect();
                    assert_eq!(fast, full, "{rule:?} {attacker:?} {line}");
                }
            }
        }
    }
    eprintln!("{narrowed} narrowed of {compared}");
    assert!(
        narrowed > 50 && compared > 400,
        "{narrowed} narrowed of {compared}"
    );
}
