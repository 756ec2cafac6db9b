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
    /// One summary from the JSON results of a match's shards (`match
    /// --shard K/N --json F`), as one run of all their games would print.
    Merge {
        /// Results files written by `match --json`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the merged summary as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write all games to this SGF file.
        #[arg(long)]
        sgf: Option<PathBuf>,
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
    /// Play fast games of tengen against itself from random balanced
    /// openings and write them (positions, results, search scores) for
    /// `tune`.
    Selfplay(SelfplayArgs),
    /// Label self-play positions with the move a wider search chooses (the
    /// data `tune --policy` fits the move ordering to).
    Label(LabelArgs),
    /// Fit the evaluation tables to self-play games (logistic regression),
    /// or with --policy the move-ordering tables to labelled positions, and
    /// write a weights file.
    Tune(TuneArgs),
    /// Search a position and print each iteration and the best move.
    Analyze {
        #[command(flatten)]
        at: PositionArgs,
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
    /// Prove a win by threats (VCF or VCT) with the proof-number solver.
    /// Exit status: 0 win, 1 no win (proved within the limits), 3 unknown
    /// (a limit ran out), 2 bad arguments.
    Solve(SolveArgs),
}

/// A position: size, rule and the moves played.
#[derive(clap::Args)]
struct PositionArgs {
    /// Moves played, in pos notation (h8i9h9, black first).
    #[arg(long, default_value = "")]
    moves: String,
    /// Board size (5 to 22).
    #[arg(long, default_value_t = 15)]
    size: usize,
    /// freestyle, standard, renju, caro or caro-exact.
    #[arg(long, default_value = "freestyle")]
    rule: String,
}

#[derive(clap::Args)]
struct SolveArgs {
    #[command(flatten)]
    at: PositionArgs,
    /// The attacker, black or white (default: the side to move; the other
    /// side attacks as if the side to move passed).
    #[arg(long)]
    side: Option<String>,
    /// Fours only.
    #[arg(long, conflicts_with = "vct")]
    vcf: bool,
    /// Fours and open threes (the default).
    #[arg(long)]
    vct: bool,
    /// Most open threes in one line (VCT).
    #[arg(long, default_value_t = 10)]
    max_threats: u32,
    /// Node limit.
    #[arg(long, default_value_t = 20_000_000)]
    nodes: u64,
    /// Time limit in milliseconds.
    #[arg(long)]
    movetime: Option<u64>,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    // A broken weights file (a shipped one, or TENGEN_WEIGHTS) is a clear
    // start-up error, never a silent fall-back.
    if let Err(e) = tengen::eval::weights::Weights::check_all() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    if let Err(e) = Params::from_env() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    match cli.command {
        Some(Command::Perft {
            depth,
            size,
            rule,
            moves,
        }) => run_perft(depth, size, &rule, &moves),
        Some(Command::Bench { depth, movetime }) => run_bench(depth, movetime),
        Some(Command::Match(args)) => run_match(*args),
        Some(Command::Merge { files, json, sgf }) => run_merge(&files, json, sgf),
        Some(Command::Selfplay(args)) => run_selfplay(args),
        Some(Command::Tune(args)) => run_tune(args),
        Some(Command::Label(args)) => run_label(args),
        Some(Command::Analyze {
            at,
            depth,
            nodes,
            movetime,
            hash,
        }) => run_analyze(&at, depth, nodes, movetime, hash),
        Some(Command::Solve(args)) => run_solve(args),
        None => {
            let stdin = std::io::BufReader::new(std::io::stdin());
            tengen::protocol::run(stdin, std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}

#[derive(clap::Args)]
struct SelfplayArgs {
    /// Write the games to this file.
    #[arg(long)]
    out: PathBuf,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Nodes searched for each move.
    #[arg(long, default_value_t = 20_000)]
    nodes: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// freestyle, standard, renju, caro or caro-exact.
    #[arg(long, default_value = "freestyle")]
    rule: String,
    /// Board size (5 to 22).
    #[arg(long, default_value_t = 15)]
    size: usize,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stones in a random opening, MIN-MAX.
    #[arg(long, default_value = "2-7")]
    opening_stones: String,
    /// Keep an opening when a short search scores it within this.
    #[arg(long, default_value_t = 150)]
    balance: i32,
}

#[derive(clap::Args)]
struct LabelArgs {
    /// Self-play files (from `selfplay`).
    #[arg(long, required = true, num_args = 1..)]
    data: Vec<PathBuf>,
    /// Write the labels to this file (one position a line).
    #[arg(long)]
    out: PathBuf,
    /// Label every K-th position after the openings.
    #[arg(long, default_value_t = 5)]
    every: usize,
    /// Start from the J-th (J < K), to label other positions of the same
    /// games.
    #[arg(long, default_value_t = 0)]
    offset: usize,
    /// Nodes of each labelling search.
    #[arg(long, default_value_t = 30_000)]
    nodes: u64,
    /// Searches run at once.
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

#[derive(clap::Args)]
struct TuneArgs {
    /// Self-play files (from `selfplay`).
    #[arg(long, num_args = 1.., required_unless_present = "policy")]
    data: Vec<PathBuf>,
    /// Fit the move-ordering tables instead, to these label files (from
    /// `label`); the evaluation tables are kept as they are.
    #[arg(long, num_args = 1.., conflicts_with = "data")]
    policy: Vec<PathBuf>,
    /// Write the fitted tables to this file.
    #[arg(long)]
    out: PathBuf,
    /// The rule whose games and tables to fit.
    #[arg(long, default_value = "freestyle")]
    rule: String,
    /// Start from this weights file (default: the tables built in).
    #[arg(long)]
    init: Option<PathBuf>,
    #[arg(long, default_value_t = 20)]
    epochs: usize,
    /// Adam step size, in evaluation units (default 1; with --policy, in
    /// ordering-score units, default 5).
    #[arg(long)]
    lr: Option<f64>,
    /// Positions a step (default 4096; with --policy 256).
    #[arg(long)]
    batch: Option<usize>,
    /// Weight of the game result in the target; the rest is the search
    /// score.
    #[arg(long, default_value_t = 0.5)]
    lambda: f64,
    /// Share of the games held out for validation.
    #[arg(long, default_value_t = 0.1)]
    validation: f64,
    /// L2 pull of each entry towards its starting value (default 1e-7;
    /// with --policy 0).
    #[arg(long)]
    reg: Option<f64>,
    /// Scale K of sigmoid(eval / K); fitted to the results when absent.
    #[arg(long)]
    k: Option<f64>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
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
    /// Play only part K of N (e.g. 2/8) of the game list: whole
    /// colour-swapped pairs, so N processes anywhere play the match
    /// together (join their --json files with `merge`).
    #[arg(long)]
    shard: Option<String>,
    /// Continue the match whose results (--json) are in this file: its
    /// games are kept, the rest played.
    #[arg(long)]
    resume: Option<PathBuf>,
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
    let shard = match a.shard.as_deref() {
        None => None,
        Some(s) => {
            let bad = || format!("--shard {s}: expected K/N with 1 <= K <= N");
            let (k, n) = s.split_once('/').ok_or_else(bad)?;
            let k: usize = k.trim().parse().map_err(|_| bad())?;
            let n: usize = n.trim().parse().map_err(|_| bad())?;
            if k == 0 || k > n {
                return Err(bad());
            }
            Some((k, n))
        }
    };
    let resume = a.resume.clone();
    let mut cfg = MatchConfig {
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
        shard,
        done: Vec::new(),
    };
    if let Some(path) = resume {
        let saved = tengen::tournament::results::load(&path)?;
        if saved.config != cfg.fingerprint() || saved.shard != cfg.shard {
            return Err(format!(
                "{} holds another match (its settings differ):\n  {}\n  {}",
                path.display(),
                saved.config,
                cfg.fingerprint()
            ));
        }
        cfg.done = saved.games;
    }
    Ok(cfg)
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

fn run_merge(files: &[PathBuf], json: Option<PathBuf>, sgf: Option<PathBuf>) -> ExitCode {
    use tengen::tournament::results;
    let parts = match files
        .iter()
        .map(|f| results::load(f))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let (summary, scheduled) = match results::merge(&parts) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if summary.games.len() < scheduled {
        eprintln!(
            "note: {} of the {scheduled} games of these parts were played",
            summary.games.len()
        );
    }
    if let Some(f) = &json {
        if let Err(e) = std::fs::write(f, runner::json(&summary)) {
            return fail(format!("cannot write {}: {e}", f.display()));
        }
    }
    if let Some(f) = &sgf {
        let text: String = summary
            .games
            .iter()
            .map(|g| {
                tengen::tournament::records::sgf(
                    &g.record,
                    summary.size,
                    summary.rule.name(),
                    &summary.names[g.black],
                    &summary.names[g.white],
                )
            })
            .collect();
        if let Err(e) = std::fs::write(f, text) {
            return fail(format!("cannot write {}: {e}", f.display()));
        }
    }
    print!("{}", runner::report(&summary));
    ExitCode::SUCCESS
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
    at: &PositionArgs,
    depth: Option<i32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    hash_mib: usize,
) -> ExitCode {
    let mut board = match position(at.size, &at.rule, &at.moves) {
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
    let mut searcher = Searcher::new(
        Params::from_env().unwrap_or_default(),
        hash_mib.max(1) << 20,
    );
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

fn run_solve(args: SolveArgs) -> ExitCode {
    use tengen::solver::{Mode, Outcome, SolveLimits, Solver};
    let mut board = match position(args.at.size, &args.at.rule, &args.at.moves) {
        Ok(b) => b,
        Err(code) => return code,
    };
    if board.is_won() {
        return fail("the game is already won".into());
    }
    if let Some(side) = &args.side {
        let c = match side.to_ascii_lowercase().as_str() {
            "black" | "b" => tengen::Color::Black,
            "white" | "w" => tengen::Color::White,
            _ => return fail(format!("--side must be black or white, not '{side}'")),
        };
        if c != board.side_to_move() {
            board.toggle_side();
        }
    }
    let limits = SolveLimits {
        mode: if args.vcf { Mode::Vcf } else { Mode::Vct },
        max_threats: args.max_threats,
        nodes: args.nodes.max(1),
        time: args.movetime.map(Duration::from_millis),
        ..SolveLimits::default()
    };
    let mut solver = Solver::new();
    let s = solver.solve(&mut board, &limits);
    let cost = format!("nodes {} time {}", s.nodes, s.time.as_millis());
    match s.outcome {
        Outcome::Win(line) => {
            let moves: Vec<String> = line.iter().map(|p| p.to_pos_string()).collect();
            println!("win in {} plies: {}", s.plies, moves.join(" "));
            println!("{cost}");
            ExitCode::SUCCESS
        }
        Outcome::NoWin => {
            println!("no win");
            println!("{cost}");
            ExitCode::from(1)
        }
        Outcome::Unknown => {
            println!("unknown");
            println!("{cost}");
            ExitCode::from(3)
        }
    }
}

/// The position of a move list, or a clear error and exit status 2.
fn position(size: usize, rule: &str, moves: &str) -> Result<tengen::Board, ExitCode> {
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

fn run_selfplay(a: SelfplayArgs) -> ExitCode {
    use std::io::IsTerminal;
    use tengen::learn::selfplay::{run, SelfplayConfig};
    let rule: Rule = match a.rule.parse() {
        Ok(r) => r,
        Err(e) => return fail(format!("{e}")),
    };
    if !(5..=22).contains(&a.size) {
        return fail(format!("--size {} is not 5 to 22", a.size));
    }
    let stones = a
        .opening_stones
        .split_once('-')
        .and_then(|(lo, hi)| Some((lo.trim().parse().ok()?, hi.trim().parse().ok()?)))
        .filter(|&(lo, hi): &(usize, usize)| lo <= hi && hi < a.size * a.size / 2);
    let Some(opening_stones) = stones else {
        return fail(format!(
            "--opening-stones '{}' is not MIN-MAX",
            a.opening_stones
        ));
    };
    if a.games == 0 || a.nodes == 0 || a.threads == 0 {
        return fail("--games, --nodes and --threads must be at least 1".into());
    }
    let cfg = SelfplayConfig {
        rule,
        size: a.size,
        games: a.games,
        nodes: a.nodes,
        threads: a.threads,
        seed: a.seed,
        opening_stones,
        balance: a.balance,
        ..SelfplayConfig::default()
    };
    let file = match std::fs::File::create(&a.out) {
        Ok(f) => f,
        Err(e) => return fail(format!("cannot write {}: {e}", a.out.display())),
    };
    let mut out = std::io::BufWriter::new(file);
    let start = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let step = (a.games / 20).max(1);
    let r = run(&cfg, &mut out, |done, positions| {
        if tty || done % step == 0 || done == a.games {
            let secs = start.elapsed().as_secs_f64().max(1e-3);
            let width = 30;
            let filled = done * width / a.games;
            eprint!(
                "{}selfplay [{}{}] {done}/{} games, {positions} positions, {:.1} games/s{}",
                if tty { "\r" } else { "" },
                "#".repeat(filled),
                ".".repeat(width - filled),
                a.games,
                done as f64 / secs,
                if tty { "" } else { "\n" }
            );
        }
    });
    if tty {
        eprintln!();
    }
    match r {
        Ok(s) => {
            println!(
                "{} games, {} positions: black won {}, white won {}, {} draws, in {:.1} s -> {}",
                s.games,
                s.positions,
                s.black_wins,
                s.white_wins,
                s.draws,
                start.elapsed().as_secs_f64(),
                a.out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(format!("selfplay: {e}")),
    }
}

fn run_label(a: LabelArgs) -> ExitCode {
    use std::io::Write;
    use tengen::learn::policy::{label_games, LabelConfig};
    if a.every == 0 || a.offset >= a.every || a.nodes == 0 || a.threads == 0 {
        return fail(
            "--every, --nodes and --threads must be positive, --offset below --every".into(),
        );
    }
    let games = match read_game_files(&a.data) {
        Ok(g) => g,
        Err(e) => return fail(e),
    };
    let cfg = LabelConfig {
        every: a.every,
        offset: a.offset,
        nodes: a.nodes,
        threads: a.threads,
        ..LabelConfig::default()
    };
    let start = Instant::now();
    let labels = label_games(&games, &cfg, |done, total| {
        if done % 1000 == 0 || done == total {
            eprintln!(
                "label: {done}/{total} positions, {:.0} s",
                start.elapsed().as_secs_f64()
            );
        }
    });
    let text: String = labels.iter().map(|l| l.to_line() + "\n").collect();
    if let Err(e) = std::fs::File::create(&a.out).and_then(|mut f| f.write_all(text.as_bytes())) {
        return fail(format!("cannot write {}: {e}", a.out.display()));
    }
    println!(
        "{} games, {} positions labelled in {:.1} s -> {}",
        games.len(),
        labels.len(),
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    ExitCode::SUCCESS
}

/// `tune --policy`: fits the move-ordering tables of `start` to labels.
fn run_tune_policy(a: &TuneArgs, rule: Rule, start: tengen::eval::weights::Weights) -> ExitCode {
    use tengen::learn::policy::{fit, flatten, unflatten, Label, PolicyConfig, PolicySet};
    let (mut train, mut validation) = (PolicySet::default(), PolicySet::default());
    let mut n = 0usize;
    for path in &a.policy {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return fail(format!("{}: {e}", path.display())),
        };
        for (i, line) in text.lines().enumerate() {
            let label = match Label::parse(line) {
                Ok(l) => l,
                Err(e) => return fail(format!("{} line {}: {e}", path.display(), i + 1)),
            };
            if label.rule != rule {
                continue;
            }
            let Ok(mut board) = label.board() else {
                continue;
            };
            // One position in round(1 / validation) is held out.
            let k = (1.0 / a.validation).round() as usize;
            let held = a.validation > 0.0 && n % k == k - 1;
            let set = if held { &mut validation } else { &mut train };
            set.push(&mut board, label.best);
            n += 1;
        }
    }
    if train.is_empty() {
        return fail(format!("no {rule} positions in the labels"));
    }
    eprintln!(
        "{n} {rule} positions: {} training, {} validation",
        train.len(),
        validation.len()
    );
    let tables = start
        .policy
        .clone()
        .unwrap_or_else(|| tengen::search::params::Params::default().policy_tables(rule));
    let w0 = flatten(&tables, rule);
    let cfg = PolicyConfig {
        epochs: a.epochs,
        lr: a.lr.unwrap_or(5.0),
        batch: a.batch.unwrap_or(256),
        reg: a.reg.unwrap_or(0.0),
        seed: a.seed,
    };
    let mut first = None;
    let mut last = None;
    let (w, temp) = fit(&w0, &train, &validation, &cfg, |t, v| {
        println!(
            "epoch {:3}  train loss {:.4} top1 {:.3} top8 {:.3}  validation loss {:.4} top1 {:.3} top8 {:.3}",
            t.epoch, t.loss, t.top1, t.top8, v.loss, v.top1, v.top8
        );
        first.get_or_insert((*t, *v));
        last = Some((*t, *v));
    });
    let (first, last) = (first.unwrap(), last.unwrap());
    let mut out = start;
    out.policy = Some(unflatten(&w, rule));
    let args: Vec<String> = std::env::args().collect();
    out.notes
        .push(format!("policy made by: {}", args.join(" ")));
    out.notes.push(format!(
        "policy fit: {} training and {} validation positions, temperature {temp:.1}, validation loss {:.4} -> {:.4}, top8 {:.3} -> {:.3}",
        train.len(),
        validation.len(),
        first.1.loss,
        last.1.loss,
        first.1.top8,
        last.1.top8
    ));
    out.notes
        .push(format!("policy date: {}", tengen::learn::today()));
    if let Err(e) = std::fs::write(&a.out, out.to_text()) {
        return fail(format!("cannot write {}: {e}", a.out.display()));
    }
    println!("wrote {}", a.out.display());
    ExitCode::SUCCESS
}

fn run_tune(a: TuneArgs) -> ExitCode {
    use tengen::eval::weights::Weights;
    use tengen::learn::tune::{build_datasets, tune, TuneConfig};
    let rule: Rule = match a.rule.parse() {
        Ok(r) => r,
        Err(e) => return fail(format!("{e}")),
    };
    if !(0.0..=1.0).contains(&a.lambda) || !(0.0..1.0).contains(&a.validation) {
        return fail("--lambda must be 0 to 1 and --validation 0 to below 1".into());
    }
    if a.k.is_some_and(|k| k <= 0.0)
        || a.lr.is_some_and(|x| x <= 0.0)
        || a.batch == Some(0)
        || a.reg.is_some_and(|x| x < 0.0)
    {
        return fail("--k, --lr and --batch must be positive".into());
    }
    let start = match &a.init {
        None => Weights::get(rule).clone(),
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| Weights::parse(&t, Some(rule)).map_err(|e| e.to_string()))
        {
            Ok(w) => w,
            Err(e) => return fail(format!("{}: {e}", path.display())),
        },
    };
    if !a.policy.is_empty() {
        return run_tune_policy(&a, rule, start);
    }
    let games = match read_game_files(&a.data) {
        Ok(g) => g,
        Err(e) => return fail(e),
    };
    let cfg = TuneConfig {
        rule,
        epochs: a.epochs,
        lr: a.lr.unwrap_or(1.0),
        batch: a.batch.unwrap_or(4096),
        lambda: a.lambda,
        validation: a.validation,
        reg: a.reg.unwrap_or(1e-7),
        k: a.k,
        seed: a.seed,
    };
    let n_games = games.iter().filter(|g| g.rule == rule).count();
    let (train, validation) = build_datasets(&games, &cfg);
    if train.is_empty() {
        return fail(format!("no {rule} positions in the data"));
    }
    eprintln!(
        "{n_games} {rule} games: {} training positions, {} validation positions",
        train.len(),
        validation.len()
    );
    let r = tune(&start, &train, &validation, &cfg, |e| {
        println!(
            "epoch {:3}  train loss {:.6}  validation loss {:.6}",
            e.epoch, e.train, e.validation
        );
    });
    let mut w = r.weights;
    let args: Vec<String> = std::env::args().collect();
    // The move-ordering tables come from the start: keep their notes.
    let policy_notes = start.notes.iter().filter(|n| n.starts_with("policy"));
    w.notes = vec![
        format!("made by: {}", args.join(" ")),
        format!(
            "data: {n_games} games, {} training and {} validation positions",
            r.train_positions, r.validation_positions
        ),
        format!(
            "fit: K {:.1}, loss train {:.6} -> {:.6}, validation {:.6} -> {:.6}",
            r.k, r.initial.train, r.last.train, r.initial.validation, r.last.validation
        ),
        format!("date: {}", tengen::learn::today()),
    ];
    w.notes.extend(policy_notes.cloned());
    if let Err(e) = std::fs::write(&a.out, w.to_text()) {
        return fail(format!("cannot write {}: {e}", a.out.display()));
    }
    println!("K {:.1}; wrote {}", r.k, a.out.display());
    ExitCode::SUCCESS
}

/// Every game of the self-play files, or the first file's error.
fn read_game_files(paths: &[PathBuf]) -> Result<Vec<tengen::learn::data::GameRecord>, String> {
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
fn fail(msg: String) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}
