//! `analyze` and `solve`: one position searched, or solved by threats.

use super::{fail, position, PositionArgs, Setup};
use clap::Args;
use std::process::ExitCode;
use std::time::Duration;
use tengen::search::{Limits, Searcher};
use tengen::solver::{Mode, Outcome, SolveLimits, Solver};

#[derive(Args)]
pub struct AnalyzeArgs {
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
    /// Search threads (Lazy SMP; at most the machine's cores).
    #[arg(long, default_value_t = 1)]
    threads: i64,
}

#[derive(Args)]
pub struct SolveArgs {
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

pub fn run_analyze(a: AnalyzeArgs, setup: Setup) -> ExitCode {
    let AnalyzeArgs {
        at,
        depth,
        nodes,
        movetime,
        hash: hash_mib,
        threads,
    } = a;
    let threads = match tengen::engine::thread_count(Some(threads)) {
        Ok(n) => n,
        Err(e) => return fail(format!("--threads {e}")),
    };
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
    let params = setup.params.for_game(board.rule(), board.width());
    // The table is had or refused here, never an abort in the search.
    let bytes = hash_mib.max(1).checked_mul(1 << 20);
    if bytes.is_none_or(|b| tengen::search::tt::TranspositionTable::try_new(b).is_none()) {
        return fail(format!(
            "--hash {hash_mib}: cannot allocate {hash_mib} MiB for the table"
        ));
    }
    let mut searcher = Searcher::with_eval(params, setup.eval, bytes.unwrap_or(1 << 20));
    searcher.threads = threads;
    // The table's pages are had before the clock starts, as the protocol
    // has them before a move (see `TranspositionTable::warm`).
    searcher.tt.warm();
    let result = searcher.search(&mut board, &limits, |info| outln!("{info}"));
    match result.best {
        Some(p) => outln!(
            "bestmove {} ({}) score {} nodes {}",
            p.to_pos_string(),
            p,
            result.score,
            result.nodes
        ),
        None => outln!("bestmove none"),
    }
    ExitCode::SUCCESS
}

pub fn run_solve(args: SolveArgs) -> ExitCode {
    let mut board = match position(args.at.size, &args.at.rule, &args.at.moves) {
        Ok(b) => b,
        Err(code) => return code,
    };
    if board.is_won() {
        return fail("the game is already won");
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
            outln!("win in {} plies: {}", s.plies, moves.join(" "));
            outln!("{cost}");
            ExitCode::SUCCESS
        }
        Outcome::NoWin => {
            outln!("no win");
            outln!("{cost}");
            ExitCode::from(1)
        }
        Outcome::Unknown => {
            outln!("unknown");
            outln!("{cost}");
            ExitCode::from(3)
        }
    }
}
