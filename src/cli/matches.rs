//! `match` (engines against each other, with openings, concurrency, SPRT
//! and records) and `merge` (one summary from a match's shards).

use super::fail;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tengen::board::check_size;
use tengen::tournament::records::RecordLock;
use tengen::tournament::referee::GameConfig;
use tengen::tournament::results;
use tengen::tournament::runner::{self, MatchConfig};
use tengen::tournament::setup::{load_books, parse_shard, EngineSpec, TimeControl};
use tengen::tournament::stats::Sprt;

#[derive(Args)]
pub struct MatchArgs {
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
    /// Opening book: one opening a line, offset (0,0, 1,0) or pos (h8i8)
    /// notation. Given more than once, the books are mixed: one opening
    /// from each in turn.
    #[arg(long)]
    openings: Vec<PathBuf>,
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

#[derive(Args)]
pub struct MergeArgs {
    /// Results files written by `match --json`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the merged summary as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write all games to this SGF file.
    #[arg(long)]
    sgf: Option<PathBuf>,
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
    let rule = super::rule(&a.rule)?;
    check_size(a.size).map_err(|e| format!("--size: {e}"))?;
    if a.games == 0 {
        return Err("--games must be at least 1".into());
    }
    let tc = TimeControl::parse(&a.tc)?;
    let openings = if a.openings.is_empty() {
        Vec::new()
    } else {
        let book = load_books(&a.openings, a.size, rule)?;
        if let Some((n, why)) = &book.skipped {
            let names: Vec<String> = a.openings.iter().map(|p| p.display().to_string()).collect();
            eprintln!(
                "warning: {n} of the openings in {} skipped (first: {why})",
                names.join(", ")
            );
        }
        book.openings
    };
    let random_order = match a.order.as_str() {
        "sequential" => false,
        "random" => true,
        o => return Err(format!("--order {o}: expected sequential or random")),
    };
    let sprt = a.sprt.as_deref().map(Sprt::parse).transpose()?;
    let shard = a.shard.as_deref().map(parse_shard).transpose()?;
    let resume = a.resume.clone();
    runner::scheduled_games(engines.len(), a.gauntlet, a.games)?;
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
        done_decision: None,
    };
    for path in cfg.json_file.iter().chain(&cfg.sgf_file) {
        tengen::tournament::records::check_record_path(path)?;
    }
    if let Some(path) = resume {
        let saved = results::load(&path)?;
        if !cfg.continues(&saved.config) || saved.shard != cfg.shard {
            return Err(format!(
                "{} holds another match (its settings differ):\n  {}\n  {}",
                path.display(),
                saved.config,
                cfg.fingerprint()
            ));
        }
        cfg.done = saved.games;
        cfg.done_decision = saved.decided;
    }
    Ok(cfg)
}

pub fn run_match(args: MatchArgs) -> ExitCode {
    // Ctrl-C (SIGINT), SIGTERM and SIGHUP (ctrlc's "termination"
    // feature): during the set-up (reading books, checking engines) they
    // end the process at once, as without a handler; once games are
    // under way they stop the match and keep its finished games.
    let interrupt = Arc::new(AtomicBool::new(false));
    let playing = Arc::new(AtomicBool::new(false));
    {
        let (flag, playing) = (interrupt.clone(), playing.clone());
        let _ = ctrlc::set_handler(move || {
            if !playing.load(Ordering::SeqCst) {
                eprintln!("interrupted during the set-up: no game was played");
                std::process::exit(130);
            }
            flag.store(true, Ordering::SeqCst);
        });
    }
    let cfg = match match_config(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // One match at a time writes a --json file.
    let lock = match cfg.json_file.as_deref().map(RecordLock::take).transpose() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    playing.store(true, Ordering::SeqCst);
    match runner::run(&cfg, interrupt) {
        Ok(summary) => {
            out!("{}", runner::report(&summary));
            if summary.interrupted {
                drop(lock);
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

pub fn run_merge(a: MergeArgs) -> ExitCode {
    let MergeArgs { files, json, sgf } = a;
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
    out!("{}", runner::report(&summary));
    ExitCode::SUCCESS
}
