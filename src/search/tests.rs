use super::*;
use crate::board::rules::is_banned;
use crate::movegen::NodeKind;
use crate::pattern::Class;
use crate::perft::position_from_moves;
use crate::types::{Color, Rule};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

/// A uniform game tree with fixed leaf values (from the root player's view),
/// searched by the same negamax as the board.
struct Tree {
    leaves: Vec<i32>,
    branching: usize,
    depth: usize,
    path: Vec<usize>,
    evaluated: Vec<usize>,
}

impl Tree {
    fn new(leaves: &[i32], branching: usize, depth: usize) -> Tree {
        assert_eq!(leaves.len(), branching.pow(depth as u32));
        Tree {
            leaves: leaves.to_vec(),
            branching,
            depth,
            path: Vec::new(),
            evaluated: Vec::new(),
        }
    }

    fn index(&self) -> usize {
        self.path.iter().fold(0, |acc, &i| acc * self.branching + i)
    }
}

impl SearchNode for Tree {
    fn key(&self) -> u64 {
        // Unique per node: the path with its length.
        (self.index() as u64) << 8 | self.path.len() as u64
    }

    fn side(&self) -> usize {
        self.path.len() % 2
    }

    fn decided(
        &mut self,
        _params: &Params,
        _ply: usize,
        _excluded: &[Pos],
    ) -> Option<(i32, Option<Pos>)> {
        None
    }

    fn horizon(&mut self, s: &mut Searcher, _ply: usize) -> Option<i32> {
        Some(self.evaluate(&s.eval))
    }

    fn evaluate(&mut self, _eval: &Evaluator) -> i32 {
        assert_eq!(self.path.len(), self.depth);
        let i = self.index();
        self.evaluated.push(i);
        let v = self.leaves[i];
        if self.depth.is_multiple_of(2) {
            v
        } else {
            -v
        }
    }

    fn quiet_eval(&mut self, _eval: &Evaluator) -> Option<i32> {
        None
    }

    fn is_tactical(&self, _m: Pos) -> bool {
        false
    }

    fn generate(
        &mut self,
        _params: &Params,
        _eval: &Evaluator,
        _width: usize,
        _excluded: &[Pos],
        out: &mut Vec<ScoredMove>,
    ) -> NodeKind {
        out.clear();
        out.extend((0..self.branching).map(|i| ScoredMove {
            pos: Pos::from_index(i),
            score: 0,
        }));
        NodeKind::Quiet
    }

    fn make(&mut self, m: Pos) {
        self.path.push(m.index());
    }

    fn unmake(&mut self) {
        self.path.pop();
    }
}

fn tree_search(leaves: &[i32]) -> (i32, Vec<usize>) {
    let mut tree = Tree::new(leaves, 2, 3);
    let mut s = Searcher::new(Params::default(), 1 << 16);
    let mut pv = Pv::new();
    let v = s.negamax(&mut tree, 3, -WIN, WIN, 0, &mut pv);
    (v, tree.evaluated)
}

#[test]
fn textbook_tree_one() {
    let (v, evaluated) = tree_search(&[3, 5, 6, 9, 1, 2, 0, -1]);
    assert_eq!(v, 5);
    assert!(!evaluated.contains(&3), "leaf 9 must be cut: {evaluated:?}");
    assert!(
        !evaluated.contains(&6) && !evaluated.contains(&7),
        "{evaluated:?}"
    );
}

#[test]
fn textbook_tree_two() {
    let (v, _) = tree_search(&[13, 8, 24, -5, 23, 15, -14, -20]);
    assert_eq!(v, 13);
}

/// Plain minimax with the same move lists, horizon and extensions.
fn minimax<N: SearchNode>(
    s: &mut Searcher,
    n: &mut N,
    depth: i32,
    ply: usize,
    count: &mut u64,
) -> i32 {
    *count += 1;
    let params = s.params.clone();
    if let Some((v, _)) = n.decided(&params, ply, &[]) {
        return v;
    }
    if depth <= 0 {
        if let Some(v) = n.horizon(s, ply) {
            return v;
        }
    }
    let width = if ply == 0 {
        s.params.root_width
    } else {
        s.params.width
    };
    let mut moves = Vec::new();
    let eval = s.eval.clone();
    let kind = n.generate(&params, &eval, width, &[], &mut moves);
    if moves.is_empty() {
        return -(WIN - (ply as i32 + 2));
    }
    if let NodeKind::Win(_) = kind {
        return WIN - (ply as i32 + 1);
    }
    let mut best = -WIN;
    for m in &moves {
        n.make(m.pos);
        let v = -minimax(
            s,
            n,
            child_depth(kind, moves.len(), depth, params.forced_free),
            ply + 1,
            count,
        );
        n.unmake();
        best = best.max(v);
    }
    best
}

fn random_position(rng: &mut StdRng, rule: Rule, size: usize, plies: usize) -> Board {
    loop {
        let mut b = Board::new(size, rule).unwrap();
        let mut ok = true;
        while b.ply() < plies {
            let me = b.side_to_move();
            let cands: Vec<Pos> = b.candidates().iter().collect();
            let legal: Vec<Pos> = cands
                .into_iter()
                .filter(|&p| !is_banned(&mut b, me, p))
                .collect();
            if legal.is_empty() {
                ok = false;
                break;
            }
            let p = legal[rng.gen_range(0..legal.len())];
            b.make(p);
            if b.is_won() {
                ok = false;
                break;
            }
        }
        if ok {
            return b;
        }
    }
}

#[test]
fn move_count_limit_follows_depth_to_the_1_32() {
    // (3 + d^1.32) / 2: 2 at depths 1-2, 4 at 4, 6 at 6, 11 at 10.
    let at = |d| move_count_limit(d, 100);
    assert_eq!([at(1), at(2), at(4), at(6), at(10)], [2, 2, 4, 6, 11]);
    assert_eq!(move_count_limit(10, 200), 23);
    assert_eq!(move_count_limit(0, 1), 1);
    for d in 0..40 {
        assert!(at(d + 1) >= at(d));
        // Past the table the limit holds at depth 32's.
        assert!(at(d) <= at(32));
    }
}

#[test]
fn the_aspiration_window_grows_by_asp_grow_and_always_grows() {
    use super::root::widen;
    // The default quadruples it; 200 doubles it.
    assert_eq!(widen(68, 400), 272);
    assert_eq!(widen(68, 200), 136);
    // Slow growth still grows: by one at least.
    assert_eq!(widen(5, 110), 6);
    assert_eq!(widen(1, 150), 2);
    // No overflow however often it fails.
    let mut d = 68;
    for _ in 0..40 {
        let next = widen(d, 1000);
        assert!(next > d || d == i32::MAX);
        d = next;
    }
    assert!(d >= WIN);
    // Through the parameter string, in its range only.
    assert_eq!(Params::default().get("asp_grow"), Some(400));
    assert_eq!(
        Params::with_overrides("asp_grow=200").unwrap().asp_grow,
        200
    );
    assert!(Params::with_overrides("asp_grow=100").is_err());
}

#[test]
fn alpha_beta_equals_minimax_on_random_positions() {
    let mut rng = StdRng::seed_from_u64(99);
    // Exact search: no reduction or forward pruning.
    let params = Params {
        tt: false,
        lmr_depth: i32::MAX,
        razor_depth: 0,
        rfp_depth: 0,
        mcp_scale: 0,
        lfh_margin: 0,
        widen_pv: false,
        width: 5,
        root_width: 6,
        ..Params::default()
    };
    let (mut ab_total, mut mm_total) = (0u64, 0u64);
    for i in 0..200 {
        let rule = Rule::ALL[i % Rule::ALL.len()];
        let plies = rng.gen_range(4..20);
        let mut b = random_position(&mut rng, rule, 15, plies);
        let depth = 3;
        let mut s = Searcher::new(params.clone(), 1 << 16);
        let mut pv = Pv::new();
        let ab = s.negamax(&mut b, depth, -WIN, WIN, 0, &mut pv);
        let ab_nodes = s.nodes();
        let mut s2 = Searcher::new(params.clone(), 1 << 16);
        let mut count = 0;
        let mm = minimax(&mut s2, &mut b, depth, 0, &mut count);
        assert_eq!(ab, mm, "{rule} position {i}\n{}", b.to_text());
        ab_total += ab_nodes;
        mm_total += count + s2.nodes();
    }
    assert!(
        ab_total < mm_total,
        "alpha-beta {ab_total} nodes, minimax {mm_total}"
    );
}

fn best_move(rule: Rule, moves: &str, depth: i32) -> (SearchResult, Board) {
    let mut b = position_from_moves(15, rule, moves).unwrap();
    let mut s = Searcher::new(Params::default(), 1 << 22);
    let r = s.search(&mut b, &Limits::depth(depth), |_| {});
    (r, b)
}

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
fn node_limited_search_is_deterministic() {
    for rule in Rule::ALL {
        let run = || {
            let mut b = position_from_moves(15, rule, "h8i9h9i8g7j10").unwrap();
            let mut s = Searcher::new(Params::default(), 1 << 20);
            let r = s.search(&mut b, &Limits::nodes(20_000), |_| {});
            (r.best, r.nodes, r.score)
        };
        assert_eq!(run(), run(), "{rule}");
    }
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

/// A searcher that plays freestyle as tengen did when the positions of the
/// tests from lost games below were found: its move ordering before it
/// read line shapes (round 3's tables; the evaluation's tables are the
/// same). The ordering of today finds the better move in them, so it
/// would not exercise the checks they test.
fn round3_searcher(params: Params, tt_bytes: usize) -> Searcher {
    use crate::eval::weights::Weights;
    let text = include_str!("../../tests/data/weights/freestyle-round3.txt");
    let w = Weights::parse(text, Some(Rule::Freestyle)).unwrap();
    assert!(w.policy.is_some());
    Searcher::with_eval(params, Evaluator::shipped().with(w), tt_bytes)
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

#[test]
fn the_trend_compares_with_our_last_known_static_value() {
    let mut s = Searcher::new(Params::default(), 1 << 16);
    // Two plies up first; where that node had none, four plies up.
    s.evals[0] = Some(5);
    s.evals[2] = Some(10);
    assert_eq!(s.trend(2), Some(true));
    s.evals[2] = Some(5);
    assert_eq!(s.trend(2), Some(false), "equal is not improving");
    s.evals[2] = None;
    assert_eq!(s.trend(2), None, "no value of its own");
    s.evals[2] = Some(10);
    s.evals[0] = None;
    assert_eq!(s.trend(2), None, "nothing to compare with");
    s.evals[0] = Some(5);
    s.evals[2] = None;
    s.evals[4] = Some(6);
    assert_eq!(s.trend(4), Some(true), "falls back to four plies up");
    s.evals[4] = Some(4);
    assert_eq!(s.trend(4), Some(false));
    assert_eq!((s.trend(0), s.trend(1)), (None, None));
}

/// A quiet position for the early-pruning tests, a searcher with
/// `params` (razoring off) on it, the reverse-futility margin a ply and the
/// position's static value.
fn pruning_setup(params: Params) -> (Board, Searcher, i32, i32) {
    let mut b = position_from_moves(15, Rule::Freestyle, "h8i9h9i8").unwrap();
    let params = Params {
        razor_depth: 0,
        ..params
    };
    let margin = params.rfp_margin;
    let s = Searcher::new(params, 1 << 16);
    s.eval.attach(&mut b);
    let e = b.quiet_eval(&s.eval).expect("nothing is threatened");
    (b, s, margin, e)
}

#[test]
fn reverse_futility_base_lowers_the_margin_to_nothing_at_depth_one() {
    let (mut b, mut s, margin, e) = pruning_setup(Params {
        rfp_base: 93,
        rfp_margin: 93,
        ..Params::default()
    });
    assert_eq!(margin, 93);
    // Depth 1: the margin 93 - 93 = 0, so a beta at the static value
    // prunes; one above it does not.
    assert_eq!(s.prune_early(&mut b, 1, e - 1, e, 2, None), Some(e));
    assert_eq!(s.prune_early(&mut b, 1, e, e + 1, 2, None), None);
    // Depth 3: 2 plies' margin.
    let beta = e - 2 * margin;
    assert_eq!(s.prune_early(&mut b, 3, beta - 1, beta, 2, None), Some(e));
    assert_eq!(s.prune_early(&mut b, 3, beta, beta + 1, 2, None), None);
    // Never below 0: a base above the margin prunes no more than at 0.
    s.params.rfp_base = 500;
    assert_eq!(s.prune_early(&mut b, 1, e, e + 1, 2, None), None);
    // Without the base, depth 1 asks a full ply's margin.
    s.params.rfp_base = 0;
    assert_eq!(s.prune_early(&mut b, 1, e - 1, e, 2, None), None);
}

/// The nodes of a search to `depth` of a middle-game position with the
/// parameter overrides `overrides` (a switch test's measure: a switch
/// that reaches the tree changes it), which must still find a move.
fn switch_nodes(overrides: &str, depth: i32) -> u64 {
    let mut b = position_from_moves(15, Rule::Freestyle, "f4b7f6d4f7f8c7e6e1d6").unwrap();
    let params = Params::with_overrides(overrides).unwrap();
    let mut s = Searcher::new(params, 1 << 20);
    let r = s.search(&mut b, &Limits::depth(depth), |_| {});
    assert!(r.best.is_some(), "{overrides}");
    r.nodes
}

#[test]
fn the_likely_fail_high_reaches_the_cut_nodes_below_the_root() {
    // The parent marks its children: with the likely fail-high on, the
    // expected cut nodes below the root search another tree.
    let nodes = |overrides: &str| switch_nodes(overrides, 7);
    assert_ne!(
        nodes("lfh_margin=20"),
        nodes("lfh_margin=0"),
        "the parents' marks never reached a child"
    );
}

#[test]
fn a_likely_fail_high_needs_a_quiet_cut_node_above_beta_by_the_margin() {
    let params = Params {
        lfh_margin: 20,
        ..Params::default()
    };
    let mut s = Searcher::new(params, 1 << 16);
    s.evals[3] = Some(200);
    // Depth 5: beta 100 plus 5 x 20.
    assert!(s.likely_fail_high(true, false, 5, 100, 3));
    assert!(
        !s.likely_fail_high(true, false, 6, 100, 3),
        "the margin grows with depth"
    );
    assert!(
        !s.likely_fail_high(false, false, 5, 100, 3),
        "a cut node only"
    );
    assert!(
        !s.likely_fail_high(true, true, 5, 100, 3),
        "not a forced node"
    );
    assert!(
        !s.likely_fail_high(true, false, 5, WIN_MIN, 3),
        "not against a win"
    );
    s.evals[3] = None;
    assert!(
        !s.likely_fail_high(true, false, 5, 100, 3),
        "a quiet value only"
    );
    s.evals[3] = Some(200);
    s.params.lfh_margin = 0;
    assert!(!s.likely_fail_high(true, false, 5, 100, 3), "switched off");
}

#[test]
fn reverse_futility_reads_the_tables_bound_where_it_says_more() {
    let (mut b, mut s, margin, e) = pruning_setup(Params {
        tt_eval: true,
        ..Params::default()
    });
    let (depth, ply) = (2, 2);
    // At a null window on `beta`, with the table saying `t`.
    let mut prune = |s: &mut Searcher, beta: i32, t: Option<(i32, tt::Bound)>| {
        let entry = t.map(|(score, bound)| tt::Probe {
            score,
            depth: 1,
            bound,
            mv: None,
        });
        s.prune_early(&mut b, depth, beta - 1, beta, ply, entry)
    };
    use tt::Bound::{Exact, Lower, Upper};
    // Beta just out of the static value's reach.
    let beta = e - margin * depth + 1;
    let high = e + 50;
    assert_eq!(prune(&mut s, beta, None), None);
    let above = "a lower bound above the static value";
    assert_eq!(
        prune(&mut s, beta, Some((high, Lower))),
        Some(high),
        "{above}"
    );
    assert_eq!(prune(&mut s, beta, Some((high, Exact))), Some(high));
    let nothing = "an upper bound above it says nothing";
    assert_eq!(prune(&mut s, beta, Some((high, Upper))), None, "{nothing}");
    // An upper bound below the static value stops a prune it would make.
    let beta = e - margin * depth;
    assert_eq!(prune(&mut s, beta, None), Some(e));
    assert_eq!(prune(&mut s, beta, Some((e - 1, Upper))), None);
    // A win in the table is not a static value.
    assert_eq!(prune(&mut s, beta, Some((WIN - 9, Lower))), Some(e));
    s.params.tt_eval = false;
    let beta = e - margin * depth + 1;
    assert_eq!(prune(&mut s, beta, Some((high, Lower))), None, "off");
}

#[test]
fn a_node_without_a_table_move_is_searched_a_ply_shallower() {
    // With the table off no node has a table move: a node below the root
    // at depth d with `iir_depth` d searches exactly as one at d - 1 with
    // the switch off (its children are too shallow to be reduced again).
    let search = |iir_depth: i32, depth: i32, ply: usize| {
        let mut b = position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7").unwrap();
        let params = Params {
            tt: false,
            iir_depth,
            ..Params::default()
        };
        let mut s = Searcher::new(params, 1 << 16);
        s.eval.attach(&mut b);
        let mut pv = Pv::new();
        let v = s.negamax(&mut b, depth, -WIN, WIN, ply, &mut pv);
        (v, pv, s.nodes())
    };
    let reduced = search(4, 4, 1);
    assert_eq!(reduced, search(0, 3, 1));
    assert_ne!(reduced, search(0, 4, 1), "the reduction changes the search");
    assert_eq!(search(5, 4, 1), search(0, 4, 1), "too shallow to reduce");
    assert_eq!(search(4, 4, 0), search(0, 4, 0), "never at the root");
}

#[test]
fn move_count_pruning_follows_the_trend() {
    let params = Params {
        mcp_improving: 50,
        ..Params::default()
    };
    let mut s = Searcher::new(params, 1 << 16);
    let (depth, ply) = (6, 4);
    let plain = move_count_limit(depth, s.params.mcp_scale);
    // Unknown values: the plain limit.
    assert_eq!(s.prune_from(false, depth, ply), plain);
    s.evals[ply - 2] = Some(10);
    s.evals[ply] = Some(20);
    let up = s.prune_from(false, depth, ply);
    assert_eq!(up, move_count_limit(depth, s.params.mcp_scale + 50));
    s.evals[ply] = Some(10);
    let down = s.prune_from(false, depth, ply);
    assert_eq!(down, move_count_limit(depth, s.params.mcp_scale - 50));
    assert!(down < plain && plain < up, "{down} {plain} {up}");
    assert_eq!(s.prune_from(true, depth, ply), usize::MAX, "exempt");
    s.params.mcp_improving = 0;
    assert_eq!(s.prune_from(false, depth, ply), plain, "off");
}

/// From a game against Rapfi: after white e14, black's only defence e15
/// is ranked low; with a narrow cut every kept move loses and the node is
/// scored lost, which made the tree claim a win for white. The node's
/// value, searched at depth 4 with the window (`alpha`, `beta`), a cut of
/// 4 and `widen_pv` as given.
fn narrow_cut_node(widen_pv: bool, alpha: i32, beta: i32) -> (i32, Pv) {
    let moves = "k9g11f11i11h9g10g9i9i10j11j8h12i7h6f10h8k11g13j10k10m9l10g12h13i12f12f13e14";
    let mut b = position_from_moves(15, Rule::Freestyle, moves).unwrap();
    let params = Params {
        width: 4,
        solve_share: 0,
        refute_share: 0,
        widen_pv,
        ..Params::default()
    };
    let mut s = Searcher::new(params, 1 << 16);
    s.eval.attach(&mut b);
    let mut pv = Pv::new();
    let v = s.negamax(&mut b, 4, alpha, beta, 1, &mut pv);
    (v, pv)
}

#[test]
fn a_pv_node_whose_kept_moves_all_lose_searches_the_rest_with_widen_pv() {
    // With `widen_pv`, the node is widened when it is searched with an
    // open window (a PV node), not with a null window.
    let (narrow, _) = narrow_cut_node(false, -WIN, WIN);
    assert!(narrow <= -WIN_MIN, "the cut loses: {narrow}");
    let (null, _) = narrow_cut_node(true, -WIN_MIN - 1, -WIN_MIN);
    assert!(null <= -WIN_MIN, "a null window is not widened: {null}");
    let (open, pv) = narrow_cut_node(true, -WIN, WIN);
    assert!(
        open > -WIN_MIN,
        "a defence found at the PV node: {open} {pv:?}"
    );
}

#[test]
fn a_pv_node_is_searched_past_its_table_entry_without_pv_tt_cut() {
    // An exact entry, deep enough, with a score no search gives.
    let mut b = position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7").unwrap();
    let run = |b: &mut Board, pv_tt_cut: bool, alpha: i32, beta: i32| {
        let params = Params {
            pv_tt_cut,
            solve_share: 0,
            refute_share: 0,
            ..Params::default()
        };
        let mut s = Searcher::new(params, 1 << 16);
        s.eval.attach(b);
        s.tt.store(b.hash(), 10, 777, tt::Bound::Exact, None);
        let mut pv = Pv::new();
        s.negamax(b, 3, alpha, beta, 2, &mut pv)
    };
    assert_eq!(run(&mut b, true, -WIN, WIN), 777, "the entry cuts");
    let searched = run(&mut b, false, -WIN, WIN);
    assert_ne!(searched, 777, "a PV node is searched");
    assert!(searched.abs() < WIN_MIN, "{searched}");
    // A null-window node still takes the cut.
    assert_eq!(run(&mut b, false, 776, 777), 777);
    b.check_consistency().unwrap();
}
