//! `pbrain-tengen`: the command-line front end.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tengen::bench::{self, BenchLimit};
use tengen::perft::{perft, position_from_moves};
use tengen::search::params::Params;
use tengen::search::{Limits, Searcher};
use tengen::Rule;

#[derive(Parser)]
#[command(
    name = "pbrain-tengen",
    version,
    about = "tengen: a Gomoku and Renju engine"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the positions reachable in D moves (a correctness and speed
    /// check of make/unmake with the pattern update).
    Perft {
        /// Number of moves to look ahead.
        #[arg(long, short)]
        depth: u32,
        /// Board size (5 to 22).
        #[arg(long, default_value_t = 15)]
        size: usize,
        /// freestyle, standard, renju, caro or caro-exact.
        #[arg(long, default_value = "freestyle")]
        rule: String,
        /// Moves played before counting, in pos notation (h8i9h9, black first).
        #[arg(long, default_value = "")]
        moves: String,
    },
    /// Search the fixed bench positions; the last line is `N nodes M nps`
    /// (N is the signature of search behaviour).
    Bench {
        /// Depth of every search.
        #[arg(long)]
        depth: Option<i32>,
        /// Search each position this many milliseconds instead, and report
        /// the depth reached.
        #[arg(long, conflicts_with = "depth")]
        movetime: Option<u64>,
    },
    /// Search a position and print each iteration and the best move.
    Analyze {
        /// Moves played, in pos notation (h8i9h9, black first).
        #[arg(long, default_value = "")]
        moves: String,
        /// Board size (5 to 22).
        #[arg(long, default_value_t = 15)]
        size: usize,
        /// freestyle, standard, renju, caro or caro-exact.
        #[arg(long, default_value = "freestyle")]
        rule: String,
        /// Deepest iteration.
        #[arg(long)]
        depth: Option<i32>,
        /// Node limit.
        #[arg(long)]
        nodes: Option<u64>,
        /// Time limit in milliseconds (default 1000 when no other limit).
        #[arg(long)]
        movetime: Option<u64>,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 64)]
        hash: usize,
    },
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Perft {
            depth,
            size,
            rule,
            moves,
        }) => run_perft(depth, size, &rule, &moves),
        Some(Command::Bench { depth, movetime }) => run_bench(depth, movetime),
        Some(Command::Analyze {
            moves,
            size,
            rule,
            depth,
            nodes,
            movetime,
            hash,
        }) => run_analyze(&moves, size, &rule, depth, nodes, movetime, hash),
        None => {
            let stdin = std::io::BufReader::new(std::io::stdin());
            tengen::protocol::run(stdin, std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}

fn run_bench(depth: Option<i32>, movetime: Option<u64>) -> ExitCode {
    let limit = match (depth, movetime) {
        (_, Some(ms)) if ms > 0 => BenchLimit::MoveTime(Duration::from_millis(ms)),
        (Some(d), _) if (1..=60).contains(&d) => BenchLimit::Depth(d),
        (None, None) => BenchLimit::Depth(bench::DEFAULT_DEPTH),
        _ => {
            eprintln!("error: --depth must be 1 to 60 and --movetime above 0");
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    match bench::run(bench::POSITIONS, limit, &mut stdout.lock()) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_analyze(
    moves: &str,
    size: usize,
    rule: &str,
    depth: Option<i32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    hash_mib: usize,
) -> ExitCode {
    let rule: Rule = match rule.parse() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut board = match position_from_moves(size, rule, moves) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut limits = Limits {
        depth,
        nodes,
        ..Limits::default()
    };
    if let Some(ms) = movetime.or((depth.is_none() && nodes.is_none()).then_some(1000)) {
        limits.hard_time = Some(Duration::from_millis(ms));
        limits.soft_time = Some(Duration::from_millis(ms / 2));
    }
    let mut searcher = Searcher::new(Params::default(), hash_mib.max(1) << 20);
    let result = searcher.search(&mut board, &limits, |info| {
        let pv: Vec<String> = info.pv.iter().map(|p| p.to_pos_string()).collect();
        println!(
            "depth {} seldepth {} score {} nodes {} nps {} time {} pv {}",
            info.depth,
            info.seldepth,
            info.score,
            info.nodes,
            info.nps,
            info.time.as_millis(),
            pv.join(" ")
        );
    });
    match result.best {
        Some(p) => println!(
            "bestmove {} ({}) score {} nodes {}",
            p.to_pos_string(),
            p,
            result.score,
            result.nodes
        ),
        None => println!("bestmove none"),
    }
    ExitCode::SUCCESS
}

fn run_perft(depth: u32, size: usize, rule: &str, moves: &str) -> ExitCode {
    let rule: Rule = match rule.parse() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut board = match position_from_moves(size, rule, moves) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    for d in 1..=depth {
        let start = Instant::now();
        let count = perft(&mut board, d);
        let secs = start.elapsed().as_secs_f64();
        let rate = if secs > 0.0 {
            (count.moves as f64 / secs) as u64
        } else {
            0
        };
        println!(
            "perft {d}: {} leaves, {} moves, {rate} moves/s",
            count.leaves, count.moves
        );
    }
    ExitCode::SUCCESS
}
