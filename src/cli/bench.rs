//! `bench` (the search's speed and node signature) and `perft` (the board's
//! move counts and speed).

use super::{fail, position, PositionArgs, Setup};
use clap::Args;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tengen::bench::{self, BenchLimit};
use tengen::perft::perft;
use tengen::search::Searcher;
use tengen::Rule;

#[derive(Args)]
pub struct BenchArgs {
    /// Depth of every search.
    #[arg(long)]
    depth: Option<i32>,
    /// Search each position this many milliseconds instead, and report
    /// the depth reached.
    #[arg(long, conflicts_with = "depth")]
    movetime: Option<u64>,
    /// Also search each position with this many threads and print the
    /// time to depth against one thread (the last line stays the
    /// one-thread signature).
    #[arg(long, default_value_t = 1, conflicts_with = "movetime")]
    threads: i64,
    /// Time to depth on the held-out books' positions (openings of every
    /// rule, not the bench's): one thread against 2, 4, 8 ... up to
    /// `--threads` (default: the machine's cores), depth 13 unless
    /// `--depth`.
    #[arg(long, conflicts_with = "movetime")]
    ttd: bool,
}

#[derive(Args)]
pub struct PerftArgs {
    /// Number of moves to look ahead.
    #[arg(long, short)]
    depth: u32,
    /// The position counted from (moves played before counting).
    #[command(flatten)]
    at: PositionArgs,
}

pub fn run_bench(a: BenchArgs, setup: Setup) -> ExitCode {
    let (depth, movetime) = (a.depth, a.movetime);
    if a.ttd {
        return run_ttd(a, setup);
    }
    let limit = match (depth, movetime) {
        (_, Some(ms)) if ms > 0 => BenchLimit::MoveTime(Duration::from_millis(ms)),
        (Some(d), _) if (1..=60).contains(&d) => BenchLimit::Depth(d),
        (None, None) => BenchLimit::Depth(bench::DEFAULT_DEPTH),
        _ => return fail("--depth must be 1 to 60 and --movetime above 0"),
    };
    let stdout = std::io::stdout();
    // The signature is that of the defaults; TENGEN_PARAMS or
    // TENGEN_WEIGHTS, when set, are benched instead.
    let threads = match tengen::engine::thread_count(Some(a.threads)) {
        Ok(n) => n,
        Err(e) => return fail(format!("--threads {e}")),
    };
    let searcher = Searcher::with_eval(
        setup.params.for_game(Rule::Freestyle, 15),
        setup.eval,
        bench::HASH_BYTES,
    );
    let sets = &setup.params;
    let r = match limit {
        BenchLimit::Depth(d) if a.threads > 1 => bench::run_threads(
            bench::POSITIONS,
            d,
            &[threads],
            sets,
            searcher,
            &mut stdout.lock(),
        ),
        _ => bench::run_with(bench::POSITIONS, limit, sets, searcher, &mut stdout.lock()),
    };
    exit_of(r)
}

/// The status of a bench run that printed to stdout.
fn exit_of(r: std::io::Result<bench::BenchTotals>) -> ExitCode {
    match r {
        Ok(_) => ExitCode::SUCCESS,
        // A reader that went away (`| head`): quietly, as `outln!` does.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `bench --ttd`.
fn run_ttd(a: BenchArgs, setup: Setup) -> ExitCode {
    let depth = a.depth.unwrap_or(13);
    if !(1..=60).contains(&depth) {
        return fail("--depth must be 1 to 60");
    }
    let most = if a.threads > 1 {
        a.threads
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get()) as i64
    };
    let most = match tengen::engine::thread_count(Some(most)) {
        Ok(n) => n,
        Err(e) => return fail(format!("--threads {e}")),
    };
    let counts = bench::thread_counts(most);
    if counts.is_empty() {
        return fail("--ttd needs 2 threads or more (one core here: --threads 2)");
    }
    let searcher = Searcher::with_eval(
        setup.params.for_game(Rule::Freestyle, 15),
        setup.eval,
        bench::TTD_HASH_BYTES,
    );
    let positions = bench::ttd_positions();
    let r = bench::run_threads(
        &positions,
        depth,
        &counts,
        &setup.params,
        searcher,
        &mut std::io::stdout().lock(),
    );
    exit_of(r)
}

pub fn run_perft(a: PerftArgs) -> ExitCode {
    let mut board = match position(a.at.size, &a.at.rule, &a.at.moves) {
        Ok(b) => b,
        Err(code) => return code,
    };
    for d in 1..=a.depth {
        let start = Instant::now();
        let count = perft(&mut board, d);
        let secs = start.elapsed().as_secs_f64();
        let rate = if secs > 0.0 {
            (count.moves as f64 / secs) as u64
        } else {
            0
        };
        outln!(
            "perft {d}: {} leaves, {} moves, {rate} moves/s",
            count.leaves,
            count.moves
        );
    }
    ExitCode::SUCCESS
}
