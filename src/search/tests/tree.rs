//! The negamax on small trees and random positions: the textbook
//! trees, plain minimax, determinism, aspiration windows.

use super::*;

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
        distract_depth: 0,
        distract_prune: 0,
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
