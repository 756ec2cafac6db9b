//! One node: the trend, reverse futility, razoring's table read, the
//! likely fail-high, internal iterative reduction, move-count pruning,
//! widening a lost PV node, the table's cut.

use super::*;

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
