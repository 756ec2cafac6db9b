//! `pbrain-tengen`: the command-line front end.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tengen::bench::{self, BenchLimit};
use tengen::perft::{perft, position_from_moves};
use tengen::search::params::Params;
use tengen::search::{Limits, Searcher};
use tengen::tournament::referee::GameConfig;
use tengen::tournament::runner::{self, MatchConfig};
use tengen::tournament::setup::{book_lines, parse_opening, EngineSpec, TimeControl};
use tengen::tournament::stats::Sprt;
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
    /// Play a match (or a tournament) between Gomocup engines.
    Match(Box<MatchArgs>),
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
        Some(Command::Match(args)) => run_match(*args),
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

#[derive(clap::Args)]
struct MatchArgs {
    /// An engine command line (give two or more), or name=NAME,cmd=CMD.
    #[arg(long = "engine", required = true)]
    engines: Vec<String>,
    /// Games per pair of engines, in colour-swapped pairs.
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// freestyle, standard, renju, caro or caro-exact.
    #[arg(long, default_value = "freestyle")]
    rule: String,
    /// Board size (5 to 22).
    #[arg(long, default_value_t = 15)]
    size: usize,
    /// Time control TURN[/GAME][+INC] with units ms, s or m: 100ms, 5s/120s, 10s/180s+1s.
    #[arg(long, default_value = "1s")]
    tc: String,
    /// Depth limit sent as INFO max_depth.
    #[arg(long)]
    depth: Option<u32>,
    /// Node limit sent as INFO max_node.
    #[arg(long)]
    nodes: Option<u64>,
    /// Memory limit sent as INFO max_memory.
    #[arg(long, default_value_t = 350 << 20)]
    max_memory: u64,
    /// Opening book: one opening a line, offset (0,0, 1,0) or pos (h8i8) notation.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// sequential or random.
    #[arg(long, default_value = "sequential")]
    order: String,
    /// Seed for --order random.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cycle the 8 board symmetries over repeated openings.
    #[arg(long)]
    transform: bool,
    /// A draw after this many plies.
    #[arg(long)]
    draw_after: Option<usize>,
    /// The first engine plays every other; default: round-robin.
    #[arg(long)]
    gauntlet: bool,
    /// elo0=E0,elo1=E1[,alpha=A,beta=B][,model=normalized|logistic|bayesian]
    #[arg(long)]
    sprt: Option<String>,
    /// Milliseconds allowed past a time limit.
    #[arg(long, default_value_t = 1000)]
    tolerance: u64,
    /// Write every game as a Piskvork .psq file here.
    #[arg(long)]
    psq: Option<PathBuf>,
    /// Write all games to this SGF file.
    #[arg(long)]
    sgf: Option<PathBuf>,
    /// Write the summary as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Log every engine's input and output in this folder.
    #[arg(long)]
    log: Option<PathBuf>,
}

fn match_config(a: MatchArgs) -> Result<MatchConfig, String> {
    let engines = a
        .engines
        .iter()
        .map(|e| EngineSpec::parse(e))
        .collect::<Result<Vec<_>, _>>()?;
    if engines.len() < 2 {
        return Err("give at least two --engine".into());
    }
    let rule: Rule = a
        .rule
        .parse()
        .map_err(|e: tengen::types::ParseError| e.to_string())?;
    if !(5..=22).contains(&a.size) {
        return Err(format!("--size {} is not 5 to 22", a.size));
    }
    if a.games == 0 {
        return Err("--games must be at least 1".into());
    }
    let tc = TimeControl::parse(&a.tc)?;
    let openings = match &a.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let all = book_lines(&text);
            let (fit, skipped): (Vec<String>, Vec<String>) = all
                .into_iter()
                .partition(|l| parse_opening(l, a.size).is_ok());
            if let Some(first) = skipped.first() {
                let why = parse_opening(first, a.size).err().unwrap_or_default();
                eprintln!(
                    "warning: {} of the openings in {} skipped (first: {why})",
                    skipped.len(),
                    path.display()
                );
            }
            if fit.is_empty() {
                return Err(format!(
                    "{} holds no opening for a {}x{} board",
                    path.display(),
                    a.size,
                    a.size
                ));
            }
            fit
        }
        None => Vec::new(),
    };
    let random_order = match a.order.as_str() {
        "sequential" => false,
        "random" => true,
        o => return Err(format!("--order {o}: expected sequential or random")),
    };
    let sprt = a.sprt.as_deref().map(Sprt::parse).transpose()?;
    Ok(MatchConfig {
        engines,
        games: a.games,
        concurrency: a.concurrency.max(1),
        game: GameConfig {
            size: a.size,
            rule,
            tc,
            depth: a.depth,
            nodes: a.nodes,
            max_memory: a.max_memory,
            draw_after: a.draw_after,
            tolerance: Duration::from_millis(a.tolerance),
        },
        openings,
        random_order,
        seed: a.seed,
        transform: a.transform,
        gauntlet: a.gauntlet,
        sprt,
        psq_dir: a.psq,
        sgf_file: a.sgf,
        json_file: a.json,
        log_dir: a.log,
    })
}

fn run_match(args: MatchArgs) -> ExitCode {
    let cfg = match match_config(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        // Without a handler Ctrl-C still stops the process, only without
        // the summary.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    match runner::run(&cfg, interrupt) {
        Ok(summary) => {
            print!("{}", runner::report(&summary));
            if summary.interrupted {
                // Engines of unfinished games may still be running.
                std::process::exit(130);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
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
    let mut board = match position(size, rule, moves) {
        Ok(b) => b,
        Err(code) => return code,
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
    let result = searcher.search(&mut board, &limits, |info| println!("{info}"));
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

/// The position of a move list, or a clear error and exit status 2.
fn position(size: usize, rule: &str, moves: &str) -> Result<tengen::Board, ExitCode> {
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    };
    let rule: Rule = rule
        .parse()
        .map_err(|e: tengen::types::ParseError| fail(e.to_string()))?;
    position_from_moves(size, rule, moves).map_err(|e| fail(e.to_string()))
}

fn run_perft(depth: u32, size: usize, rule: &str, moves: &str) -> ExitCode {
    let mut board = match position(size, rule, moves) {
        Ok(b) => b,
        Err(code) => return code,
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
