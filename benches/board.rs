//! Board micro-benchmarks: make+unmake with the full pattern update on a
//! 15x15 middle-game position, and perft.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use tengen::perft::{perft, position_from_moves};
use tengen::{Pos, Rule};

/// A 15x15 freestyle middle game (24 stones).
const MIDDLE_GAME: &str = "h8i9h9i8g7j10h10h7g9j9g8g10f9e10i10j11k10j8f7e6j7f8e8d7";

fn make_unmake(c: &mut Criterion) {
    let mut group = c.benchmark_group("board");
    for rule in [Rule::Freestyle, Rule::Renju] {
        let mut board = position_from_moves(15, rule, MIDDLE_GAME).expect("bench position");
        let moves: Vec<Pos> = board.candidates().iter().collect();
        let hash = board.hash();
        group.throughput(Throughput::Elements(moves.len() as u64));
        group.bench_function(format!("make_unmake_15x15_{rule}"), |b| {
            b.iter(|| {
                for &p in &moves {
                    board.make(black_box(p));
                    board.unmake();
                }
            })
        });
        assert_eq!(board.hash(), hash, "make+unmake must restore the position");
        board
            .check_consistency()
            .expect("consistent after the bench");
    }
    let mut board = position_from_moves(15, Rule::Freestyle, "h8i9h9i8g7j10").expect("position");
    let expected = perft(&mut board, 3);
    group.throughput(Throughput::Elements(expected.moves));
    group.bench_function("perft3_15x15_freestyle", |b| {
        b.iter(|| {
            let n = perft(&mut board, black_box(3));
            assert_eq!(n, expected);
        })
    });
    group.finish();
}

criterion_group!(benches, make_unmake);
criterion_main!(benches);
