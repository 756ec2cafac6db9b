//! `pbrain-tengen bench`: a fixed set of positions searched to a fixed
//! depth with a fixed hash size, a cleared table for each. The node total
//! is the fingerprint of search behaviour: a refactor or a speed-up leaves
//! it unchanged.

use crate::perft::{perft, position_from_moves};
use crate::search::params::Params;
use crate::search::tuned::ParamSets;
use crate::search::{Limits, Searcher};
use crate::types::Rule;
use std::io::{self, Write};
use std::time::{Duration, Instant};

/// One bench position.
#[derive(Clone, Copy, Debug)]
pub struct BenchPosition {
    pub rule: Rule,
    pub size: usize,
    /// Moves in pos notation, black first.
    pub moves: &'static str,
    /// What it exercises.
    pub note: &'static str,
}

/// The bench positions: openings, middle games and tactics under every
/// rule, on 15x15 and 20x20.
pub const POSITIONS: &[BenchPosition] = &[
    BenchPosition {
        rule: Rule::Freestyle,
        size: 15,
        moves: "h8",
        note: "opening",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        size: 15,
        moves: "h8i9h9i8g7j10",
        note: "opening",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        size: 15,
        moves: "f4b7f6d4f7f8c7e6e1d6",
        note: "middle game",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        size: 15,
        moves: "m1k6l6k5i4i2",
        note: "edge opening",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        size: 20,
        moves: "j10k11",
        note: "opening",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        size: 20,
        moves: "m7p4q6l4l1q3m4n3m3n6",
        note: "middle game",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        size: 20,
        moves: "d18g20c19e20c16g16e13",
        note: "edge fight",
    },
    BenchPosition {
        rule: Rule::Standard,
        size: 15,
        moves: "o9o6o3m9",
        note: "opening",
    },
    BenchPosition {
        rule: Rule::Standard,
        size: 15,
        moves: "l9l6j7k5h7i9h9k9i3n8",
        note: "middle game",
    },
    BenchPosition {
        rule: Rule::Renju,
        size: 15,
        moves: "h8i9j8",
        note: "opening",
    },
    BenchPosition {
        rule: Rule::Renju,
        size: 15,
        moves: "h8i9h9i8g7j10",
        note: "middle game",
    },
    BenchPosition {
        rule: Rule::Renju,
        size: 15,
        moves: "f8i7g8j6h6k5h7a1m3a15g9",
        note: "forbidden-cell win",
    },
    BenchPosition {
        rule: Rule::Caro,
        size: 15,
        moves: "h8i9h9i8",
        note: "opening",
    },
    BenchPosition {
        rule: Rule::Caro,
        size: 15,
        moves: "h8i9h9i8g7j10h7h6",
        note: "middle game",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        size: 15,
        moves: "e5d5f5a1g5a15h7o15h8o1",
        note: "four-three",
    },
];

/// Depth searched by default.
pub const DEFAULT_DEPTH: i32 = 12;
/// Hash size of every bench search.
pub const HASH_BYTES: usize = 16 << 20;
/// Hash size of the time-to-depth run (`bench --ttd`): `analyze`'s, so
/// that the two agree.
pub const TTD_HASH_BYTES: usize = 64 << 20;
/// Position and depth of the make+unmake measurement (perft).
const PERFT_MOVES: &str = "h8i9h9i8g7j10";
const PERFT_DEPTH: u32 = 3;

/// How the bench searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchLimit {
    Depth(i32),
    MoveTime(Duration),
}

/// The totals of a bench run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchTotals {
    pub nodes: u64,
    pub nps: u64,
    /// Per position: the deepest completed iteration.
    pub depths: Vec<i32>,
}

/// Runs the bench over `positions`, writing one line per position, the
/// make+unmake line and the final `N nodes M nps` line to `out`.
pub fn run(
    positions: &[BenchPosition],
    limit: BenchLimit,
    out: &mut impl Write,
) -> io::Result<BenchTotals> {
    run_with(
        positions,
        limit,
        &ParamSets::default(),
        Searcher::new(Params::default(), HASH_BYTES),
        out,
    )
}

/// [`run`] with these parameters (each position's rule and board picks
/// its set) and this searcher's evaluation (the signature is that of the
/// defaults: [`run`]).
pub fn run_with(
    positions: &[BenchPosition],
    limit: BenchLimit,
    sets: &ParamSets,
    mut searcher: Searcher,
    out: &mut impl Write,
) -> io::Result<BenchTotals> {
    let mut total_nodes = 0u64;
    let mut total_time = Duration::ZERO;
    let mut depths = Vec::new();
    for (i, pos) in positions.iter().enumerate() {
        let mut board = position_from_moves(pos.size, pos.rule, pos.moves)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
        searcher.params = sets.for_game(pos.rule, pos.size);
        searcher.clear();
        let limits = match limit {
            BenchLimit::Depth(d) => Limits::depth(d),
            BenchLimit::MoveTime(t) => Limits {
                hard_time: Some(t),
                ..Limits::default()
            },
        };
        let start = Instant::now();
        let r = searcher.search(&mut board, &limits, |_| {});
        let t = start.elapsed();
        total_nodes += r.nodes;
        total_time += t;
        depths.push(r.depth);
        let best = r
            .best
            .map(|p| p.to_pos_string())
            .unwrap_or_else(|| "none".into());
        writeln!(
            out,
            "position {:2} {:<10} {}x{} depth {:2} nodes {:9} time {:6} ms nps {:8} best {:<4} score {:6}  ({})",
            i + 1,
            pos.rule.name(),
            pos.size,
            pos.size,
            r.depth,
            r.nodes,
            t.as_millis(),
            rate(r.nodes, t),
            best,
            r.score,
            pos.note
        )?;
    }
    let mut board = position_from_moves(15, Rule::Freestyle, PERFT_MOVES)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
    let start = Instant::now();
    let count = perft(&mut board, PERFT_DEPTH);
    let t = start.elapsed();
    writeln!(
        out,
        "make+unmake: {} pairs in {} ms, {} per second (perft {PERFT_DEPTH} from {PERFT_MOVES}, 15x15 freestyle)",
        count.moves,
        t.as_millis(),
        rate(count.moves, t)
    )?;
    if let BenchLimit::MoveTime(mt) = limit {
        let avg = depths.iter().map(|&d| d as u64).sum::<u64>() * 100 / depths.len().max(1) as u64;
        writeln!(
            out,
            "average depth {}.{:02} in {} ms a position",
            avg / 100,
            avg % 100,
            mt.as_millis()
        )?;
    }
    let nps = rate(total_nodes, total_time);
    writeln!(out, "{total_nodes} nodes {nps} nps")?;
    Ok(BenchTotals {
        nodes: total_nodes,
        nps,
        depths,
    })
}

/// The time-to-depth positions (`bench --ttd`, `scripts/ttd.py`): openings
/// from the held-out books of every rule, `rule size moves` a line.
pub const TTD_FILE: &str = include_str!("../openings/ttd_positions.txt");

/// [`TTD_FILE`]'s positions.
pub fn ttd_positions() -> Vec<BenchPosition> {
    TTD_FILE
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (rule, size, moves) = (f.next()?, f.next()?, f.next()?);
            Some(BenchPosition {
                rule: rule.parse().ok()?,
                size: size.parse().ok()?,
                moves,
                note: "held-out book",
            })
        })
        .collect()
}

/// The thread counts a time-to-depth run compares with one thread: 2, 4,
/// 8 ... up to `most`, and `most` itself.
pub fn thread_counts(most: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = (1..).map(|k| 1 << k).take_while(|&n| n <= most).collect();
    if most > 1 && counts.last() != Some(&most) {
        counts.push(most);
    }
    counts
}

/// Time to depth on several threads: each position searched to `depth`
/// with one thread, then with each of `counts`, from an empty table each
/// time. One line per position, one line per thread count (the median
/// speed-up, the total-time ratio, the nodes of all threads and their
/// rate), then the one-thread totals as [`run_with`] prints them (on the
/// bench positions, the last line is the signature).
pub fn run_threads(
    positions: &[BenchPosition],
    depth: i32,
    counts: &[usize],
    sets: &ParamSets,
    mut searcher: Searcher,
    out: &mut impl Write,
) -> io::Result<BenchTotals> {
    let mut runs = vec![(0u64, Duration::ZERO, Vec::new()); counts.len() + 1];
    let mut depths = Vec::new();
    for (i, pos) in positions.iter().enumerate() {
        let mut timed = |n: usize| -> io::Result<((i32, u64), Duration)> {
            let mut board = position_from_moves(pos.size, pos.rule, pos.moves)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
            searcher.params = sets.for_game(pos.rule, pos.size);
            searcher.clear();
            searcher.threads = n;
            let start = Instant::now();
            let r = searcher.search(&mut board, &Limits::depth(depth), |_| {});
            Ok(((r.depth, r.nodes), start.elapsed()))
        };
        let ((d1, n1), t1) = timed(1)?;
        depths.push(d1);
        let mut line = format!(
            "position {:2} {:<10} {}x{} depth {d1:2}  1 thread {:6} ms {:9} nodes",
            i + 1,
            pos.rule.name(),
            pos.size,
            pos.size,
            t1.as_millis(),
            n1
        );
        runs[0].0 += n1;
        runs[0].1 += t1;
        for (k, &n) in counts.iter().enumerate() {
            let ((_, nn), tn) = timed(n)?;
            // Speed-up in hundredths; the median is over the positions
            // searched to the full depth (not those a proof ends at once).
            let ratio = (t1.as_micros() as u64 * 100) / (tn.as_micros() as u64).max(1);
            let run = &mut runs[k + 1];
            run.0 += nn;
            run.1 += tn;
            if d1 == depth {
                run.2.push(ratio);
            }
            line += &format!(
                "  {n} threads {:6} ms {:9} nodes speed-up {}.{:02}",
                tn.as_millis(),
                nn,
                ratio / 100,
                ratio % 100
            );
        }
        writeln!(out, "{line}")?;
    }
    searcher.threads = 1;
    let (nodes1, time1) = (runs[0].0, runs[0].1);
    for (k, &n) in counts.iter().enumerate() {
        let (nodes_n, time_n, ratios) = &mut runs[k + 1];
        ratios.sort_unstable();
        let median = ratios.get(ratios.len() / 2).copied().unwrap_or(0);
        // The whole run's time, one thread over N, in hundredths.
        let total = (time1.as_micros() as u64 * 100) / (time_n.as_micros() as u64).max(1);
        writeln!(
            out,
            "time to depth {depth}, {n} threads against 1: median speed-up {}.{:02} over {} positions, {}.{:02} in total time; {n} threads {} nodes {} nps",
            median / 100,
            median % 100,
            ratios.len(),
            total / 100,
            total % 100,
            nodes_n,
            rate(*nodes_n, *time_n)
        )?;
    }
    let nps = rate(nodes1, time1);
    writeln!(out, "{nodes1} nodes {nps} nps")?;
    Ok(BenchTotals {
        nodes: nodes1,
        nps,
        depths,
    })
}

fn rate(n: u64, t: Duration) -> u64 {
    let us = t.as_micros().max(1) as u64;
    n.saturating_mul(1_000_000) / us
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_positions_are_legal_and_cover_every_rule() {
        for p in POSITIONS {
            let b = position_from_moves(p.size, p.rule, p.moves);
            assert!(b.is_ok(), "{p:?}: {:?}", b.err());
        }
        assert!(POSITIONS.len() >= 12);
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro] {
            assert!(POSITIONS.iter().any(|p| p.rule == rule), "{rule}");
        }
        assert!(POSITIONS.iter().any(|p| p.size == 20));
    }

    #[test]
    fn the_time_to_depth_positions_are_legal_and_come_from_every_rule() {
        let ttd = ttd_positions();
        let lines = TTD_FILE.lines().filter(|l| !l.starts_with('#')).count();
        assert_eq!(ttd.len(), lines, "every line is a position");
        assert!(ttd.len() >= 20);
        for p in &ttd {
            let b = position_from_moves(p.size, p.rule, p.moves);
            assert!(b.is_ok(), "{p:?}: {:?}", b.err());
        }
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro] {
            assert!(ttd.iter().filter(|p| p.rule == rule).count() >= 5, "{rule}");
        }
        assert!(ttd.iter().any(|p| p.size == 20));
        assert_eq!(thread_counts(1), Vec::<usize>::new());
        assert_eq!(thread_counts(2), vec![2]);
        assert_eq!(thread_counts(6), vec![2, 4, 6]);
        assert_eq!(thread_counts(16), vec![2, 4, 8, 16]);
    }

    #[test]
    fn reduced_bench_is_reproducible() {
        let mut a = Vec::new();
        let mut b = Vec::new();
        let ta = run(&POSITIONS[..6], BenchLimit::Depth(5), &mut a).unwrap();
        let tb = run(&POSITIONS[..6], BenchLimit::Depth(5), &mut b).unwrap();
        assert_eq!(ta.nodes, tb.nodes);
        assert!(ta.nodes > 0);
        let text = String::from_utf8(a).unwrap();
        let last = text.lines().last().unwrap();
        assert!(last.starts_with(&format!("{} nodes ", ta.nodes)), "{last}");
        assert!(last.ends_with(" nps"));
    }

    #[test]
    fn the_threads_bench_keeps_the_one_thread_signature_last() {
        let mut one = Vec::new();
        let t1 = run(&POSITIONS[..4], BenchLimit::Depth(5), &mut one).unwrap();
        let mut two = Vec::new();
        let s = Searcher::new(Params::default(), HASH_BYTES);
        let t2 = run_threads(&POSITIONS[..4], 5, &[2], &ParamSets::default(), s, &mut two).unwrap();
        assert_eq!(t1.nodes, t2.nodes);
        let text = String::from_utf8(two).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4 + 2, "{text}");
        assert!(lines[0].contains(" 1 thread ") && lines[0].contains(" 2 threads "));
        assert!(lines[4].starts_with("time to depth 5, 2 threads against 1: median speed-up "));
        assert!(
            lines[5].starts_with(&format!("{} nodes ", t1.nodes)),
            "{text}"
        );
    }
}
