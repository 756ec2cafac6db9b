//! The subcommands: their arguments, checked through the library's own
//! constructors, and what runs them. One file per family: `play`
//! (analyze, solve), `matches` (match, merge), `bench` (bench, perft) and
//! `learn` (selfplay, label, tune, opengen, spsa).

/// `println!` for the subcommands' results: a reader that went away
/// (`| head -1`) ends the program quietly, as it would a C tool, where
/// `println!` would panic with a broken pipe.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::out_text(format_args!($($arg)*), "\n")
    };
}

/// `print!` the same way.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::out_text(format_args!($($arg)*), "")
    };
}

mod bench;
mod learn;
mod matches;
mod play;
mod progress;
#[cfg(feature = "serve")]
mod serve;
mod spsa;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use tengen::engine::Engine;
use tengen::eval::net::Net;
use tengen::eval::Evaluator;
use tengen::search::tuned::{ParamSets, PARAMS_ENV};
use tengen::Rule;

/// Environment variable naming a weights file that replaces the shipped
/// tables of its rule (for tuning experiments).
pub const WEIGHTS_ENV: &str = "TENGEN_WEIGHTS";

/// Environment variable naming a network file whose output is added to the
/// tables of its rule (see `tengen::eval::net`).
pub const NET_ENV: &str = "TENGEN_NET";

#[derive(Parser)]
#[command(
    name = "pbrain-tengen",
    version,
    about = "tengen: a Gomoku and Renju engine"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Count the positions reachable in D moves (a correctness and speed
    /// check of make/unmake with the pattern update).
    Perft(bench::PerftArgs),
    /// Play a match (or a tournament) between Gomocup engines.
    Match(Box<matches::MatchArgs>),
    /// One summary from the JSON results of a match's shards (`match
    /// --shard K/N --json F`), as one run of all their games would print.
    Merge(matches::MergeArgs),
    /// Search the fixed bench positions; the last line is `N nodes M nps`
    /// (N is the signature of search behaviour).
    Bench(bench::BenchArgs),
    /// Play fast games of tengen against itself from random balanced
    /// openings and write them (positions, results, search scores) for
    /// `tune`.
    Selfplay(learn::SelfplayArgs),
    /// Make balanced openings for any rule and board (a book for matches
    /// and testing): random stones near the centre, kept when tengen's
    /// search finds them balanced at two depths and the solver finds no
    /// win by threats.
    Opengen(learn::OpengenArgs),
    /// Tune search parameters by simultaneous perturbation (SPSA) over
    /// self-play games from a book; resumable; prints the tuned values as
    /// TENGEN_PARAMS takes them.
    Spsa(spsa::SpsaArgs),
    /// Label self-play positions with the move a wider search chooses (the
    /// data `tune --policy` fits the move ordering to).
    Label(learn::LabelArgs),
    /// Fit the evaluation tables to self-play games (logistic regression),
    /// or with --policy the move-ordering tables to labelled positions, and
    /// write a weights file.
    Tune(learn::TuneArgs),
    /// Search a position and print each iteration and the best move.
    Analyze(play::AnalyzeArgs),
    /// Prove a win by threats (VCF or VCT) with the proof-number solver.
    /// Exit status: 0 win, 1 no win (proved within the limits), 3 unknown
    /// (a limit ran out), 2 bad arguments.
    Solve(play::SolveArgs),
    /// The analysis board in the browser: an HTTP server on 127.0.0.1
    /// with the page built in (docs/serve.md).
    #[cfg(feature = "serve")]
    Serve(serve::ServeArgs),
}

/// What the environment sets, read once at start-up: the search parameters
/// (`TENGEN_PARAMS=name=value,...`) and the evaluation (`TENGEN_WEIGHTS=FILE`
/// replaces the shipped tables of the file's rule; `TENGEN_NET=FILE` adds a
/// network to them, in place of a shipped one; `TENGEN_NET=none` leaves
/// out the shipped networks).
pub struct Setup {
    /// Each game's search constants, overrides included.
    pub params: ParamSets,
    pub eval: Evaluator,
}

impl Setup {
    pub fn from_env() -> Result<Setup, String> {
        let params = match std::env::var(PARAMS_ENV) {
            Ok(spec) => {
                ParamSets::with_overrides(&spec).map_err(|e| format!("{PARAMS_ENV}: {e}"))?
            }
            Err(_) => ParamSets::default(),
        };
        let weights = std::env::var_os(WEIGHTS_ENV).map(PathBuf::from);
        let eval =
            Evaluator::from_file(weights.as_deref()).map_err(|e| format!("{WEIGHTS_ENV}: {e}"))?;
        let eval = match std::env::var_os(NET_ENV) {
            Some(p) if p == "none" => eval.without_nets(),
            Some(p) => {
                let net =
                    Net::from_file(&PathBuf::from(p)).map_err(|e| format!("{NET_ENV}: {e}"))?;
                eval.with_net(std::sync::Arc::new(net))
            }
            None => eval,
        };
        Ok(Setup { params, eval })
    }
}

/// Runs a subcommand, or with none the Gomocup protocol on stdin/stdout.
pub fn run(command: Option<Command>, setup: Setup) -> ExitCode {
    match command {
        Some(Command::Perft(a)) => bench::run_perft(a),
        Some(Command::Bench(a)) => bench::run_bench(a, setup),
        Some(Command::Match(a)) => matches::run_match(*a),
        Some(Command::Merge(a)) => matches::run_merge(a),
        Some(Command::Selfplay(a)) => learn::run_selfplay(a, setup),
        Some(Command::Tune(a)) => learn::run_tune(a, setup),
        Some(Command::Label(a)) => learn::run_label(a, setup),
        Some(Command::Opengen(a)) => learn::run_opengen(a, setup),
        Some(Command::Spsa(a)) => spsa::run_spsa(a, setup),
        Some(Command::Analyze(a)) => play::run_analyze(a, setup),
        Some(Command::Solve(a)) => play::run_solve(a),
        #[cfg(feature = "serve")]
        Some(Command::Serve(a)) => serve::run_serve(a, setup),
        None => {
            let stdin = std::io::BufReader::new(std::io::stdin());
            let engine = Engine::with_sets(setup.params, setup.eval);
            tengen::protocol::run(engine, stdin, std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}

/// A position: size, rule and the moves played.
#[derive(clap::Args)]
pub struct PositionArgs {
    /// Moves played, in pos notation (h8i9h9, black first).
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Board size (5 to 22).
    #[arg(long, default_value_t = 15)]
    pub size: usize,
    /// freestyle, standard, renju, caro or caro-exact.
    #[arg(long, default_value = "freestyle")]
    pub rule: String,
}

/// A rule by name, or the parse error.
pub fn rule(name: &str) -> Result<Rule, String> {
    name.parse()
        .map_err(|e: tengen::types::ParseError| e.to_string())
}

/// The position of a move list, or a clear error and exit status 2.
pub fn position(size: usize, rule: &str, moves: &str) -> Result<tengen::Board, ExitCode> {
    let rule = self::rule(rule).map_err(fail)?;
    tengen::perft::position_from_moves(size, rule, moves).map_err(|e| fail(e.to_string()))
}

/// Every game of the self-play files, or the first file's error.
pub fn read_game_files(paths: &[PathBuf]) -> Result<Vec<tengen::learn::data::GameRecord>, String> {
    let mut games = Vec::new();
    for path in paths {
        let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let g = tengen::learn::data::read_games(&mut std::io::BufReader::new(f))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        games.extend(g);
    }
    Ok(games)
}

/// A bad argument or an unusable file: `error: ...` on stderr, exit 2.
pub fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// Writes text and `end` on stdout (see `outln!`). A closed pipe exits
/// with status 0, as ripgrep does; any other write error is an error
/// message and status 1.
pub fn out_text(args: std::fmt::Arguments, end: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = out
        .write_fmt(args)
        .and_then(|_| out.write_all(end.as_bytes()))
        .and_then(|_| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("error: writing to stdout: {e}");
            std::process::exit(1);
        }
    }
}
