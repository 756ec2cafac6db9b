//! What the search plays: wins, blocks, the threats it must answer,
//! renju's forbidden cells, the horizon, the solver's checks, threads
//! and the network.

use super::*;

#[test]
fn wins_in_one_under_each_rule() {
    for rule in Rule::ALL {
        // Black h8..k8 with both ends free; white scattered.
        let (r, _) = best_move(rule, "h8a1i8a3j8a5k8a7", 4);
        let best = r.best.unwrap();
        assert!(
            best == Pos::new(6, 7) || best == Pos::new(11, 7),
            "{rule}: {best}"
        );
        assert_eq!(r.score, WIN - 1, "{rule}");
    }
}

#[test]
fn blocks_a_four() {
    for rule in Rule::ALL {
        // White a1..a4, a5 free: black must block at a5.
        let (r, _) = best_move(rule, "h8a1i9a2k12a3m14a4", 4);
        assert_eq!(r.best, Some(Pos::new(0, 4)), "{rule}");
    }
}

/// On the clock, a lone legal reply is played after a short look; without
/// a clock (depth or node limits) the search goes on as asked.
#[test]
fn a_lone_reply_on_the_clock_is_played_at_once() {
    let mut b = position_from_moves(15, Rule::Freestyle, "h8a1i9a2k12a3m14a4").unwrap();
    let mut s = Searcher::new(Params::default(), 1 << 22);
    let clock = Limits {
        depth: Some(30),
        hard_time: Some(Duration::from_secs(600)),
        soft_time: Some(Duration::from_secs(300)),
        adaptive: true,
        ..Limits::default()
    };
    let r = s.search(&mut b, &clock, |_| {});
    assert_eq!(r.best, Some(Pos::new(0, 4)));
    assert_eq!(r.depth, 2);
    let r = s.search(&mut b, &Limits::depth(6), |_| {});
    assert_eq!((r.best, r.depth), (Some(Pos::new(0, 4)), 6));
}

#[test]
fn makes_an_open_four_from_an_open_three() {
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro] {
        // Black g8 h8 i8 open three, white scattered far away, black to move.
        let (r, mut b) = best_move(rule, "g8a1h8a15i8o1", 4);
        let best = r.best.unwrap();
        assert!(r.score >= WIN_MIN, "{rule}: score {}", r.score);
        assert!(
            b.class(Color::Black, best) >= Class::Flex4 || is_decisive(r.score),
            "{rule}"
        );
        b.make(best);
        assert!(
            b.count(Color::Black, Class::Five) >= 1,
            "{rule}: {best} makes a four"
        );
    }
}

#[test]
fn plays_a_four_three() {
    // Black e5 f5 g5 (closed on the left by white d5) and h7 h8: h5 makes a
    // four on row 5 and the broken three h5 . h7 h8 on column h.
    let (r, mut b) = best_move(Rule::Freestyle, "e5d5f5a1g5a15h7o15h8o1", 3);
    assert_eq!(r.best, Some(Pos::new(7, 4)), "pv {:?}", r.pv);
    assert_eq!(b.class(Color::Black, Pos::new(7, 4)), Class::Block4Flex3);
    assert_eq!(r.score, WIN - 5);
    b.make(Pos::new(7, 4));
    assert_eq!(b.count(Color::Black, Class::Five), 1);
}

#[test]
fn blocks_an_open_three_without_a_four() {
    // White f8 g8 h8 open three; black has no four.
    let (r, _) = best_move(Rule::Freestyle, "a1f8a15g8o1h8", 4);
    let best = r.best.unwrap();
    assert_eq!(best.y(), 7, "{best}");
    assert!([4, 8].contains(&best.x()), "{best}");
}

#[test]
fn renju_black_never_plays_forbidden() {
    // h8 is a double three for black: strong-looking, forbidden.
    let (r, mut b) = best_move(Rule::Renju, "f8a1g8a3h6a5h7a7", 4);
    let best = r.best.unwrap();
    assert_ne!(best, Pos::new(7, 7));
    assert!(!b.is_forbidden(best));
    let mut rng = StdRng::seed_from_u64(5);
    for _ in 0..20 {
        let plies = 2 * rng.gen_range(3..15);
        let mut b = random_position(&mut rng, Rule::Renju, 15, plies);
        assert_eq!(b.side_to_move(), Color::Black);
        let mut s = Searcher::new(Params::default(), 1 << 20);
        let r = s.search(&mut b, &Limits::depth(3), |_| {});
        let best = r.best.unwrap();
        assert!(!b.is_forbidden(best), "{best}\n{}", b.to_text());
    }
}

#[test]
fn a_forbidden_answer_is_replaced_by_a_playable_cell() {
    // The last guard: whatever the search hands back, renju black never
    // answers with a forbidden cell while another is playable.
    let mut b = position_from_moves(15, Rule::Renju, "f8a1g8a3h6a5h7a7").unwrap();
    let h8 = Pos::new(7, 7);
    assert!(b.is_forbidden(h8));
    let s = Searcher::new(Params::default(), 1 << 16);
    let chosen = |best| SearchResult {
        best: Some(best),
        score: 40,
        depth: 3,
        nodes: 9,
        pv: vec![best, Pos::new(0, 14)],
        solved: false,
    };
    let r = s.allowed_answer(&mut b, chosen(h8));
    let p = r.best.unwrap();
    assert!(b.is_empty(p) && !b.is_forbidden(p), "{p}");
    assert!(b.candidates().contains(p), "{p} is near the stones");
    assert_eq!(r.pv, vec![p]);
    // An allowed answer, and any answer for white, pass unchanged.
    let g9 = Pos::new(6, 8);
    assert_eq!(s.allowed_answer(&mut b, chosen(g9)).best, Some(g9));
    let mut w = position_from_moves(15, Rule::Renju, "f8a1g8a3h6a5h7a7o15").unwrap();
    assert_eq!(s.allowed_answer(&mut w, chosen(h8)).pv, chosen(h8).pv);
}

#[test]
fn renju_white_wins_through_a_forbidden_cell() {
    // Black f8 g8 h6 h7 make h8 a double-three point. White i7 j6 k5 lie
    // on the anti-diagonal through h8, closed by black g9 on one side and
    // m3 on the other: white l4 makes a four whose only completion is h8,
    // where black may not play.
    let moves = "f8i7g8j6h6k5h7a1m3a15g9";
    let (r, b) = best_move(Rule::Renju, moves, 4);
    assert_eq!(b.side_to_move(), Color::White);
    assert_eq!(r.score, WIN - 3, "pv {:?}", r.pv);
    assert_eq!(r.best, Some(Pos::new(11, 3)));
    // Under freestyle black blocks there: no such win.
    let (f, _) = best_move(Rule::Freestyle, moves, 4);
    assert!(f.score < WIN_MIN, "freestyle score {}", f.score);
}

#[test]
fn horizon_gives_the_static_value_or_our_vcf() {
    // Black has the four-three h5; with white to move the horizon gives
    // white's static value (black's threat is the search's to see).
    let mut b = position_from_moves(15, Rule::Freestyle, "e5d5f5a1g5a15h7o15h8o1").unwrap();
    let mut s = Searcher::new(Params::default(), 1 << 16);
    b.toggle_side();
    let base = s.eval.evaluate(&b);
    assert_eq!(SearchNode::horizon(&mut b, &mut s, 0), Some(base));
    // Black to move wins by the VCF: five plies from here.
    b.toggle_side();
    assert_eq!(SearchNode::horizon(&mut b, &mut s, 2), Some(WIN - 7));
    b.check_consistency().unwrap();
}

#[test]
fn four_three_against_no_four_is_a_static_win() {
    let mut b = position_from_moves(15, Rule::Freestyle, "e5d5f5a1g5a15h7o15h8o1").unwrap();
    let params = Params::default();
    assert_eq!(b.decided(&params, 1, &[]), Some((WIN - 6, None)));
    let off = Params {
        static_four_three: false,
        ..Params::default()
    };
    assert_eq!(b.decided(&off, 1, &[]), None);
    // Renju black: left to the search.
    let mut r = position_from_moves(15, Rule::Renju, "e5d5f5a1g5a15h7o15h8o1").unwrap();
    assert_eq!(r.decided(&params, 1, &[]), None);
}

#[test]
fn double_three_against_no_four_is_a_static_win() {
    // Black to move: h8 makes the open threes f8-g8-h8 and h6-h7-h8.
    let mut b = position_from_moves(15, Rule::Freestyle, "f8a1g8a15h6o15h7o1").unwrap();
    let params = Params::default();
    assert_eq!(b.class(Color::Black, Pos::new(7, 7)), Class::Flex3x2);
    assert_eq!(b.decided(&params, 1, &[]), Some((WIN - 6, None)));
    // Not against a four of the opponent's (a4 here).
    let mut four = position_from_moves(15, Rule::Freestyle, "f8a1g8a2h6a3h7o15").unwrap();
    assert_eq!(four.decided(&params, 1, &[]), None);
    // Nor at the root, which wants the move itself.
    assert_eq!(b.decided(&params, 0, &[]), None);
    // Renju black: a forbidden cell, not a win.
    let mut r = position_from_moves(15, Rule::Renju, "f8a1g8a15h6o15h7o1").unwrap();
    assert_eq!(r.decided(&params, 1, &[]), None);
}

#[test]
fn the_vcf_cache_changes_no_answer() {
    // Positions from random games near the centre where the side to move
    // has a four to play: the VCF found (or not) is the same line with the
    // cache of refuted positions as without it, and the cache saves nodes.
    let mut rng = StdRng::seed_from_u64(5);
    let (mut wins, mut tried, mut local_wins) = (0, 0, 0);
    let (mut with_nodes, mut without_nodes) = (0, 0);
    for rule in [Rule::Freestyle, Rule::Renju] {
        for _ in 0..60 {
            let mut b = Board::new(15, rule).unwrap();
            for _ in 0..rng.gen_range(20..50) {
                let me = b.side_to_move();
                let cands: Vec<Pos> = b
                    .candidates()
                    .iter()
                    .filter(|&p| p.x().abs_diff(7) <= 4 && p.y().abs_diff(7) <= 4)
                    .filter(|&p| !is_banned(&mut b, me, p))
                    .collect();
                if cands.is_empty() || b.is_won() {
                    break;
                }
                b.make(cands[rng.gen_range(0..cands.len())]);
            }
            let me = b.side_to_move();
            if b.is_won() || b.count(me.opposite(), Class::Five) > 0 || b.fours(me) == 0 {
                continue;
            }
            tried += 1;
            let mut cached = Searcher::new(Params::default(), 1 << 16);
            let mut plain = Searcher::new(Params::default(), 1 << 16);
            plain.vcf_cache = vcf::VcfCache::off();
            let a = cached.find_vcf(&mut b, 30, 10_000_000);
            let c = plain.find_vcf(&mut b, 30, 10_000_000);
            assert_eq!(a, c, "{rule} {b:?}");
            wins += a.is_some() as u32;
            // The local search (fours near the previous one) finds only
            // real VCFs, and finds some.
            let mut local = Searcher::new(
                Params {
                    vcf_local: true,
                    ..Params::default()
                },
                1 << 16,
            );
            if local.vcf_at_horizon(&mut b).is_some() {
                assert!(a.is_some(), "{rule} {b:?}");
                local_wins += 1;
            }
            with_nodes += cached.nodes;
            without_nodes += plain.nodes;
            b.check_consistency().unwrap();
        }
    }
    assert!(tried >= 20 && wins >= 3, "{tried} positions, {wins} wins");
    assert!(
        local_wins >= 1 && local_wins <= wins,
        "{local_wins} of {wins}"
    );
    assert!(
        with_nodes < without_nodes,
        "{with_nodes} >= {without_nodes}"
    );
}

/// From a lost game: at depth 11 the tree scores e14 as a win because a
/// quiet node's width cut drops the opponent's four f13, which starts
/// their VCF. The refute check must catch the claimed win, and with every
/// other move lost faster, keep e14 scored as the loss it is.
#[test]
fn a_claimed_win_is_checked_against_the_opponents_threats() {
    let moves = "b10b12c12b11b13c13d14e12f11e11d11e10e9d12f10f12d8h12g12c7f8g13h14f9c9e7d7d10g8e8e6i11j10i10d9e13";
    let e14 = Pos::new(4, 13);
    let search = |params: Params| {
        let mut b = position_from_moves(15, Rule::Freestyle, moves).unwrap();
        let mut s = round3_searcher(params, 1 << 22);
        s.search(&mut b, &Limits::depth(11), |_| {})
    };
    // Without `widen_pv`, which finds the four at the PV node itself.
    let unchecked = search(Params {
        refute_wins: false,
        widen_pv: false,
        ..Params::default()
    });
    assert_eq!(unchecked.best, Some(e14));
    assert!(unchecked.score > 0, "the cut makes e14 look won");
    let widened = search(Params {
        refute_wins: false,
        ..Params::default()
    });
    assert!(
        is_decisive(widened.score) && widened.score < 0,
        "widen_pv: the tree itself finds e14 lost, score {}",
        widened.score
    );
    let checked = search(Params {
        widen_pv: false,
        ..Params::default()
    });
    assert_eq!(checked.best, Some(e14));
    assert!(
        is_decisive(checked.score) && checked.score < 0,
        "score {}",
        checked.score
    );
}

#[test]
fn a_parallel_search_plays_legal_moves_counts_every_thread_and_stops() {
    let mut s = Searcher::new(Params::default(), 4 << 20);
    s.threads = 3;
    let mut rng = StdRng::seed_from_u64(30);
    for round in 0..12 {
        let mut board = Board::new(15, Rule::Freestyle).unwrap();
        for _ in 0..rng.gen_range(2..12) {
            let p = Pos::new(rng.gen_range(4..11), rng.gen_range(4..11));
            if board.is_empty(p) && !board.makes_five(board.side_to_move(), p) {
                board.make(p);
            }
        }
        let before: Vec<Pos> = board.moves().map(|(p, _)| p).collect();
        let limits = if round % 2 == 0 {
            Limits::depth(6)
        } else {
            Limits::nodes(20_000)
        };
        // Every other search is stopped from outside at a random moment.
        let stop = s.stop_flag();
        stop.store(false, std::sync::atomic::Ordering::SeqCst);
        let delay = rng.gen_range(0..20);
        let r = std::thread::scope(|scope| {
            if round % 3 == 1 {
                scope.spawn(|| {
                    std::thread::sleep(Duration::from_millis(delay));
                    stop.store(true, std::sync::atomic::Ordering::SeqCst);
                });
            }
            s.search(&mut board, &limits, |_| {})
        });
        let after: Vec<Pos> = board.moves().map(|(p, _)| p).collect();
        assert_eq!(before, after, "the board is left as it was");
        let best = r.best.expect("a move");
        assert!(board.is_empty(best), "round {round}: {best} is taken");
        assert_eq!(r.nodes, s.nodes());
    }
}

#[test]
fn helper_threads_are_kept_between_searches_and_go_with_a_clear() {
    let helpers = |s: &Searcher| s.pool.as_ref().map(|p| p.helpers());
    let mut s = Searcher::new(Params::default(), 1 << 20);
    let mut board = position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7j10").unwrap();
    let before: Vec<Pos> = board.moves().map(|(p, _)| p).collect();
    assert_eq!(helpers(&s), None, "no helper before a parallel search");
    s.search(&mut board, &Limits::depth(4), |_| {});
    assert_eq!(helpers(&s), None, "one thread makes none");
    s.threads = 3;
    let first = s.search(&mut board, &Limits::depth(6), |_| {});
    assert_eq!(helpers(&s), Some(2));
    // The same helpers search again (a searcher keeps its history, so a
    // second search of the same depth finds a move too).
    let again = s.search(&mut board, &Limits::depth(6), |_| {});
    assert_eq!(helpers(&s), Some(2));
    assert!(first.best.is_some() && again.best.is_some());
    assert_eq!(again.nodes, s.nodes(), "every thread's nodes counted");
    s.threads = 2;
    s.search(&mut board, &Limits::nodes(5_000), |_| {});
    assert_eq!(helpers(&s), Some(1), "fewer threads, fewer helpers");
    s.clear();
    assert_eq!(helpers(&s), None, "a clear ends them");
    s.search(&mut board, &Limits::depth(4), |_| {});
    assert_eq!(helpers(&s), Some(1));
    let after: Vec<Pos> = board.moves().map(|(p, _)| p).collect();
    assert_eq!(before, after, "the board is left as it was");
    // Dropping the searcher joins its helpers (a hang here would fail the
    // test by its harness).
    drop(s);
}

#[test]
fn a_search_with_a_network_leaves_its_sums_right() {
    // The threat searches and the solver pause the network's sums; after
    // a search the board is as it was, its sums included.
    use crate::eval::net::Net;
    use std::sync::Arc;
    let net = Arc::new(Net::random(Rule::Freestyle, 2));
    let e = Evaluator::shipped().with_net(net.clone());
    let mut s = Searcher::with_eval(Params::default(), e, 1 << 20);
    for moves in ["h8i9h9i8g7j10", "h8h9i8i9j8j9g8", "h8i7i8j9g7k6"] {
        let mut b = position_from_moves(15, Rule::Freestyle, moves).unwrap();
        s.search(&mut b, &Limits::nodes(20_000), |_| {});
        b.check_consistency().unwrap();
        assert_eq!(net.output(&b), net.output_from_scratch(&b), "{moves}");
    }
}
