use super::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A board with the stones of a picture: rows of `x` (black), `o` (white)
/// and `.`, placed at (left, top) + offsets, each stone with its colour.
fn board_with(rule: Rule, stones: &[(usize, usize, Color)]) -> Board {
    let mut b = Board::new(15, rule).unwrap();
    for &(x, y, c) in stones {
        b.try_play_color(Pos::new(x, y), c).unwrap();
    }
    b
}

fn blacks(cells: &[(usize, usize)]) -> Vec<(usize, usize, Color)> {
    cells.iter().map(|&(x, y)| (x, y, Color::Black)).collect()
}

fn with_whites(
    mut v: Vec<(usize, usize, Color)>,
    cells: &[(usize, usize)],
) -> Vec<(usize, usize, Color)> {
    v.extend(cells.iter().map(|&(x, y)| (x, y, Color::White)));
    v
}

fn random_games(rule: Rule, size: usize, games: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut b = Board::new(size, rule).unwrap();
    for g in 0..games {
        let len = rng.gen_range(1..=size * size / 2);
        while b.ply() < len && !b.is_won() && !b.is_full() {
            // Mostly near the stones, sometimes anywhere.
            let cands: Vec<Pos> = if rng.gen_ratio(1, 8) {
                (*b.cells() & !(*b.stones(Color::Black) | *b.stones(Color::White)))
                    .iter()
                    .collect()
            } else {
                b.candidates().iter().collect()
            };
            let p = cands[rng.gen_range(0..cands.len())];
            b.make(p);
            if let Err(e) = b.check_consistency() {
                panic!("{rule} {size} game {g} after make {p}: {e}\n{b:?}");
            }
        }
        while b.ply() > 0 {
            b.unmake();
            if let Err(e) = b.check_consistency() {
                panic!("{rule} {size} game {g} after unmake: {e}\n{b:?}");
            }
        }
        assert_eq!(b.hash(), 0);
    }
}

#[test]
fn incremental_equals_scratch_15() {
    for (i, rule) in Rule::ALL.iter().enumerate() {
        random_games(*rule, 15, 1000, 15 + i as u64);
    }
}

#[test]
fn incremental_equals_scratch_20() {
    for (i, rule) in Rule::ALL.iter().enumerate() {
        random_games(*rule, 20, 1000, 20 + i as u64);
    }
}

#[test]
fn incremental_equals_scratch_other_sizes() {
    for (i, size) in [5usize, 6, 9, 22].iter().enumerate() {
        for rule in Rule::ALL {
            random_games(rule, *size, 100, 100 + i as u64);
        }
    }
    let mut b = Board::new_rect(7, 19, Rule::Renju).unwrap();
    for (x, y) in [(0, 0), (6, 18), (3, 9), (6, 0), (0, 18)] {
        b.try_play_xy(x, y).unwrap();
        b.check_consistency().unwrap();
    }
}

#[test]
fn transposed_move_orders_have_equal_keys() {
    let mut a = Board::new(15, Rule::Freestyle).unwrap();
    let mut b = Board::new(15, Rule::Freestyle).unwrap();
    for p in [(7, 7), (8, 8), (6, 7), (9, 9)] {
        a.try_play_xy(p.0, p.1).unwrap();
    }
    for p in [(6, 7), (9, 9), (7, 7), (8, 8)] {
        b.try_play_xy(p.0, p.1).unwrap();
    }
    assert_eq!(a.hash(), b.hash());
    // Same stones, other side to move: a different key.
    let mut c = Board::new(15, Rule::Freestyle).unwrap();
    for (x, y, col) in [
        (7, 7, Color::Black),
        (6, 7, Color::Black),
        (8, 8, Color::White),
    ] {
        c.try_play_color(Pos::new(x, y), col).unwrap();
    }
    let mut d = Board::new(15, Rule::Freestyle).unwrap();
    for (x, y, col) in [
        (7, 7, Color::Black),
        (8, 8, Color::White),
        (6, 7, Color::Black),
    ] {
        d.try_play_color(Pos::new(x, y), col).unwrap();
    }
    assert_ne!(c.side_to_move(), d.side_to_move());
    assert_ne!(c.hash(), d.hash());
}

#[test]
fn try_play_refuses_and_leaves_the_board() {
    let mut b = Board::new(15, Rule::Freestyle).unwrap();
    b.try_play_xy(7, 7).unwrap();
    let before = (b.hash(), b.ply(), b.side_to_move(), b.to_text());
    assert_eq!(
        b.try_play_xy(7, 7),
        Err(MoveError::Occupied(Pos::new(7, 7)))
    );
    assert_eq!(
        b.try_play_xy(15, 3),
        Err(MoveError::OffBoard { x: 15, y: 3 })
    );
    assert!(matches!(
        b.try_play(Pos::new(21, 21)),
        Err(MoveError::OffBoard { .. })
    ));
    assert_eq!(before, (b.hash(), b.ply(), b.side_to_move(), b.to_text()));
    b.check_consistency().unwrap();
    assert!(Board::new(4, Rule::Freestyle).is_err());
    assert!(Board::new(23, Rule::Freestyle).is_err());
    assert!(Board::new_rect(22, 5, Rule::Freestyle).is_ok());
}

#[test]
fn five_wins_by_rule() {
    let row = blacks(&[(2, 7), (3, 7), (4, 7), (6, 7), (7, 7)]);
    for (rule, wins) in [
        (Rule::Freestyle, true),
        (Rule::Caro, true),
        (Rule::Standard, false),
        (Rule::CaroExact, false),
    ] {
        let mut b = board_with(rule, &row);
        assert_eq!(
            b.makes_five(Color::Black, Pos::new(5, 7)),
            wins,
            "{rule} overline"
        );
        b.play_color(Pos::new(5, 7), Color::Black);
        assert_eq!(b.is_won(), wins, "{rule}");
        b.check_consistency().unwrap();
    }
    // Renju: the overline is no five for black, but it is for white.
    let mut b = board_with(Rule::Renju, &row);
    assert!(!b.makes_five(Color::Black, Pos::new(5, 7)));
    let whites: Vec<_> = row
        .iter()
        .map(|&(x, y, _)| (x, y + 2, Color::White))
        .collect();
    let b2 = board_with(Rule::Renju, &whites);
    assert!(b2.makes_five(Color::White, Pos::new(5, 9)));
    assert!(b.is_forbidden(Pos::new(5, 7)));
}

#[test]
fn caro_blocked_five() {
    let stones = with_whites(blacks(&[(3, 7), (4, 7), (5, 7), (6, 7)]), &[(2, 7), (8, 7)]);
    for rule in [Rule::Caro, Rule::CaroExact] {
        let b = board_with(rule, &stones);
        assert!(
            !b.makes_five(Color::Black, Pos::new(7, 7)),
            "{rule}: blocked five"
        );
        let f = board_with(Rule::Freestyle, &stones);
        assert!(f.makes_five(Color::Black, Pos::new(7, 7)));
        // At the edge: the edge is no block.
        let edge = with_whites(blacks(&[(0, 3), (1, 3), (2, 3), (3, 3)]), &[(5, 3)]);
        let mut e = board_with(rule, &edge);
        assert!(
            e.makes_five(Color::Black, Pos::new(4, 3)),
            "{rule}: five at the edge"
        );
        e.play_color(Pos::new(4, 3), Color::Black);
        assert!(e.is_won());
        // Blocked at one end only: a win.
        let one = with_whites(blacks(&[(3, 9), (4, 9), (5, 9), (6, 9)]), &[(2, 9)]);
        assert!(board_with(rule, &one).makes_five(Color::Black, Pos::new(7, 9)));
    }
}

#[test]
fn renju_double_three_is_forbidden() {
    let p = Pos::new(7, 7);
    let mut b = board_with(Rule::Renju, &blacks(&[(5, 7), (6, 7), (7, 5), (7, 6)]));
    assert_eq!(b.class(Color::Black, p), Class::MaybeForbid);
    assert!(b.is_forbidden(p));
    // White may play the same shape.
    let whites: Vec<_> = [(5, 7), (6, 7), (7, 5), (7, 6)]
        .iter()
        .map(|&(x, y)| (x, y, Color::White))
        .collect();
    let mut w = board_with(Rule::Renju, &whites);
    assert_eq!(w.class(Color::White, p), Class::Flex3x2);
    assert!(!w.is_forbidden(p));
    // Under freestyle the double three is just strong.
    let mut f = board_with(Rule::Freestyle, &blacks(&[(5, 7), (6, 7), (7, 5), (7, 6)]));
    assert_eq!(f.class(Color::Black, p), Class::Flex3x2);
    assert!(!f.is_forbidden(p));
}

#[test]
fn renju_false_double_three_is_allowed() {
    let p = Pos::new(7, 7);
    let threes = [(5, 7), (6, 7), (7, 5), (7, 6)];
    // White at (3,7) leaves the horizontal three one way to a straight
    // four, through (8,7). Both threes are real: forbidden.
    let mut control = board_with(Rule::Renju, &with_whites(blacks(&threes), &[(3, 7)]));
    assert_eq!(control.class(Color::Black, p), Class::MaybeForbid);
    assert!(control.is_forbidden(p));
    // Column 8 holds (8,5),(8,6) and (8,8),(8,9),(8,10): once p is played,
    // (8,7) is an overline point, so the horizontal three is false.
    let mut stones = blacks(&threes);
    stones.extend(blacks(&[(8, 5), (8, 6), (8, 8), (8, 9), (8, 10)]));
    let mut b = board_with(Rule::Renju, &with_whites(stones, &[(3, 7)]));
    assert_eq!(b.pattern(Color::Black, p, 0), Pattern::F3);
    assert_eq!(b.pattern(Color::Black, p, 1), Pattern::F3);
    assert_eq!(b.class(Color::Black, p), Class::MaybeForbid);
    b.play_color(p, Color::Black);
    assert!(b.is_forbidden(Pos::new(8, 7)), "overline point");
    b.unmake();
    assert!(
        !b.is_forbidden(p),
        "a three only through a forbidden cell is no three"
    );
    b.check_consistency().unwrap();
    // A three closed at both ends cannot become a straight four at all.
    let mut c = board_with(
        Rule::Renju,
        &with_whites(blacks(&threes), &[(4, 7), (9, 7)]),
    );
    assert_eq!(c.class(Color::Black, p), Class::Flex3);
    assert!(!c.is_forbidden(p));
}

#[test]
fn renju_double_four_and_overline() {
    let p = Pos::new(7, 7);
    let mut b = board_with(
        Rule::Renju,
        &blacks(&[(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)]),
    );
    assert_eq!(b.class(Color::Black, p), Class::Forbid);
    assert!(b.is_forbidden(p));
    // Two fours in one line: x.xx*.x
    let mut l = board_with(Rule::Renju, &blacks(&[(3, 7), (5, 7), (6, 7), (9, 7)]));
    assert_eq!(l.pattern(Color::Black, p, 0), Pattern::D4);
    assert!(l.is_forbidden(p));
    // The same for white is an open-four-like double four, allowed.
    let mut w = board_with(
        Rule::Renju,
        &[(3, 7), (5, 7), (6, 7), (9, 7)]
            .iter()
            .map(|&(x, y)| (x, y, Color::White))
            .collect::<Vec<_>>(),
    );
    assert_eq!(w.class(Color::White, p), Class::Flex4);
    assert!(!w.is_forbidden(p));
    // A four and an open three (four-three) is allowed.
    let mut ft = board_with(
        Rule::Renju,
        &blacks(&[(4, 7), (5, 7), (6, 7), (7, 5), (7, 6)]),
    );
    assert!(!ft.is_forbidden(p));
    assert!(ft.class(Color::Black, p).is_four());
}

#[test]
fn renju_five_beats_forbidden() {
    let p = Pos::new(7, 7);
    // Horizontal five through p plus a vertical overline through p.
    let mut b = board_with(
        Rule::Renju,
        &blacks(&[
            (3, 7),
            (4, 7),
            (5, 7),
            (6, 7),
            (7, 4),
            (7, 5),
            (7, 6),
            (7, 8),
            (7, 9),
        ]),
    );
    assert_eq!(b.class(Color::Black, p), Class::Five);
    assert!(!b.is_forbidden(p));
    b.play_color(p, Color::Black);
    assert!(b.is_won());
}

#[test]
fn candidates_and_area() {
    let mut b = Board::new(15, Rule::Freestyle).unwrap();
    assert_eq!(
        b.candidates().iter().collect::<Vec<_>>(),
        vec![Pos::new(7, 7)]
    );
    b.make(Pos::new(0, 0));
    assert_eq!(b.candidates().count(), 8);
    b.make(Pos::new(7, 7));
    assert_eq!(b.candidates().count(), 8 + 24);
    b.unmake();
    assert_eq!(b.candidates().count(), 8);
}

#[test]
fn class_with_reads_the_class_a_move_would_leave() {
    // On random positions of every rule and two sizes: the class of a cell
    // with a stone put on another cell, read without the move, is the class
    // the move leaves there.
    for (i, &rule) in Rule::ALL.iter().enumerate() {
        for size in [15, 20] {
            let mut rng = StdRng::seed_from_u64(300 + i as u64 * 7 + size as u64);
            let mut checked = 0;
            for _ in 0..40 {
                let mut b = Board::new(size, rule).unwrap();
                let len = rng.gen_range(4..=size * size / 4);
                while b.ply() < len && !b.is_won() {
                    let cands: Vec<Pos> = b.candidates().iter().collect();
                    b.make(cands[rng.gen_range(0..cands.len())]);
                }
                if b.is_won() {
                    continue;
                }
                let near: Vec<Pos> = b.candidates().iter().collect();
                for _ in 0..20 {
                    let t = near[rng.gen_range(0..near.len())];
                    let q = near[rng.gen_range(0..near.len())];
                    if t == q {
                        continue;
                    }
                    for s in [Color::Black, Color::White] {
                        let read = [Color::Black, Color::White].map(|c| b.class_with(c, t, q, s));
                        b.play_color(q, s);
                        let played = [Color::Black, Color::White].map(|c| b.class(c, t));
                        b.unmake();
                        assert_eq!(read, played, "{rule} {size}: {t} with {s:?} on {q}\n{b:?}");
                        checked += 1;
                    }
                }
            }
            assert!(checked > 500, "{rule} {size}: only {checked} cases");
        }
    }
}

#[test]
fn the_accumulator_update_gives_the_same_sums_in_every_build() {
    // The network's sums are updated through `avx2_method!` (the AVX2
    // build where the processor has it), when they are read or the next
    // move is made; the plain body run by hand after a paused move must
    // give the same sums after every move of random games, and taking
    // the moves back must restore them alike.
    let mut rng = StdRng::seed_from_u64(4242);
    let mut vectors = CodeVectors::new();
    for code in 0..NFEATURES {
        for c in [Color::Black, Color::White] {
            let v: [i16; CHANNELS] = std::array::from_fn(|_| rng.gen_range(-3000..3000));
            vectors.set(c, code, v);
        }
    }
    let vectors = Arc::new(vectors);
    let mut moves = 0;
    for rule in [Rule::Freestyle, Rule::Renju] {
        for _ in 0..10 {
            let mut a = Board::new(15, rule).unwrap();
            let mut b = Board::new(15, rule).unwrap();
            a.set_code_vectors(Some(&vectors));
            b.set_code_vectors(Some(&vectors));
            while !a.is_won() && !a.is_full() && a.ply() < 80 {
                let cands: Vec<Pos> = a.candidates().iter().collect();
                let p = cands[rng.gen_range(0..cands.len())];
                a.make(p);
                // The sums are read both before and after the last move
                // has gone into them.
                if a.ply().is_multiple_of(3) {
                    a.sync_acc();
                }
                b.pause_acc();
                b.make(p);
                b.resume_acc();
                let plain = b.acc_after_last_body();
                b.acc_history.push(b.acc);
                b.acc = plain;
                for c in [Color::Black, Color::White] {
                    assert_eq!(a.acc(c), b.acc(c), "{rule}: {c:?} after {p}");
                }
                moves += 1;
            }
            while a.ply() > 0 {
                a.unmake();
                b.unmake();
                for c in [Color::Black, Color::White] {
                    assert_eq!(a.acc(c), b.acc(c));
                }
            }
        }
    }
    assert!(moves > 300, "{moves}");
    eprintln!("AVX2 here: {}", crate::simd::has_avx2());
}
