//! `pbrain-tengen`: the command-line front end.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Instant;
use tengen::perft::{perft, position_from_moves};
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
        None => {
            eprintln!("pbrain-tengen: the Gomocup protocol is not built yet; see --help");
            ExitCode::FAILURE
        }
    }
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
