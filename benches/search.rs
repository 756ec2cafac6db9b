//! Search micro-benchmarks: candidate generation and ordering, evaluation,
//! a long VCF, and a fixed-depth search. Each also checks its result, so a
//! bench that runs is a check too.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use tengen::eval::Evaluator;
use tengen::movegen::{generate, NodeKind};
use tengen::perft::position_from_moves;
use tengen::search::ordering::Scorer;
use tengen::search::params::Params;
use tengen::search::{Limits, Searcher};
use tengen::{Pos, Rule};

/// A quiet 15x15 middle game (no threat to answer): the full candidate
/// scoring and sort runs.
const MIDDLE_GAME: &str = "h8i9h9i8g7j10h10h7g9j9g8g10f9";
/// Black to move wins by a VCF of 14 fours (found by examples/vcf_hunt).
const LONG_VCF: &str =
    "h8f6i7f10i9i10h6h9g10j6j11j8j7j10k7g7h11h7m7k10i8l7m10k8g11i11i12f9g9g12e10";

fn benches(c: &mut Criterion) {
    let params = Params::default();
    let eval = Evaluator::shipped();
    let mut board = position_from_moves(15, Rule::Freestyle, MIDDLE_GAME).expect("position");
    eval.attach(&mut board);
    let me = board.side_to_move();
    let mut out = Vec::new();
    let kind = {
        let scorer = Scorer::new(&board, &params, eval.policy(board.rule(), me), me);
        generate(&mut board, &scorer, 8, &[], &mut out)
    };
    let first = out.first().map(|m| m.pos);
    c.bench_function("movegen_15x15_middle_game", |b| {
        b.iter(|| {
            // The scorer is made at every node, so it is timed too.
            let scorer = Scorer::new(&board, &params, eval.policy(board.rule(), me), me);
            let k = generate(&mut board, &scorer, black_box(8), &[], &mut out);
            assert_eq!(k, kind);
            assert_eq!(out.first().map(|m| m.pos), first);
        })
    });
    assert_eq!(kind, NodeKind::Quiet);
    assert_eq!(out.len(), 8);

    let value = eval.evaluate(&board);
    c.bench_function("evaluate_15x15_middle_game", |b| {
        b.iter(|| assert_eq!(eval.evaluate(black_box(&board)), value))
    });

    let mut vcf_board = position_from_moves(15, Rule::Freestyle, LONG_VCF).expect("vcf position");
    let mut searcher = Searcher::new(Params::default(), 1 << 20);
    let line = searcher
        .find_vcf(&mut vcf_board, 40, 10_000_000)
        .expect("the VCF");
    c.bench_function("vcf_14_fours", |b| {
        b.iter(|| {
            let l = searcher.find_vcf(&mut vcf_board, black_box(40), 10_000_000);
            assert_eq!(l.as_ref(), Some(&line));
        })
    });

    let mut search_board =
        position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7j10").expect("position");
    let mut s = Searcher::new(Params::default(), 16 << 20);
    let reference = s.search(&mut search_board, &Limits::depth(8), |_| {});
    assert_eq!(reference.best, Some(Pos::new(7, 6)), "h7 at depth 8");
    c.bench_function("search_depth8_15x15_opening", |b| {
        b.iter(|| {
            s.clear();
            let r = s.search(&mut search_board, &Limits::depth(black_box(8)), |_| {});
            assert_eq!((r.nodes, r.best), (reference.nodes, reference.best));
        })
    });
}

criterion_group!(search, benches);
criterion_main!(search);
