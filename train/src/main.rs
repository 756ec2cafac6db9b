//! `tengen-train`: fits tengen's network evaluator to self-play games and
//! writes the network file the engine loads (`TENGEN_NET=FILE`).

use clap::Parser;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use tengen::learn::data::read_complete_games;
use tengen_train::{build_datasets, fit, fit_k, quantise, FitConfig, Model, Progress};

/// Fit the network evaluator to self-play games (from `pbrain-tengen
/// selfplay`) and write its quantised weights file.
#[derive(Parser)]
#[command(name = "tengen-train", version)]
struct Args {
    /// Self-play files (a file still being written is read up to its last
    /// complete game).
    #[arg(long, required = true, num_args = 1..)]
    data: Vec<PathBuf>,
    /// Write the network here (after the first epoch, then after every
    /// epoch that lowers the validation loss: the file is always the best
    /// fit so far).
    #[arg(long)]
    out: PathBuf,
    /// freestyle, standard, renju, caro or caro-exact.
    #[arg(long, default_value = "freestyle")]
    rule: String,
    #[arg(long, default_value_t = 10)]
    epochs: usize,
    #[arg(long, default_value_t = 4096)]
    batch: usize,
    /// AdamW step size at the start.
    #[arg(long, default_value_t = 1e-3)]
    lr: f64,
    /// Step size at the end (it falls along a half cosine).
    #[arg(long, default_value_t = 1e-4)]
    lr_end: f64,
    /// Weight of the game result in the target (the rest: search score).
    #[arg(long, default_value_t = 0.5)]
    lambda: f64,
    /// Share of the games held out for validation.
    #[arg(long, default_value_t = 0.1)]
    validation: f64,
    /// Scale K of sigmoid(value / K); found from the data when not given.
    #[arg(long)]
    k: Option<f64>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Add each empty cell's line shapes (its four lines within four
    /// cells, per colour) to the features: a `pcode1365+pair256+line496`
    /// network.
    #[arg(long)]
    lines: bool,
    /// Fit on the games of these rules too, replayed under `--rule` (the
    /// same moves read with its patterns: freestyle's games for a
    /// standard network, say); their results stay as they were played.
    #[arg(long, num_args = 1..)]
    replay: Vec<String>,
}

/// Keeps freed memory in the process. Each batch is two dense count
/// matrices of tens of MiB; glibc maps blocks that large anew each time
/// and hands them back on free, so without this the fit spends more time
/// in page faults than in arithmetic (a 1-epoch fit on two shards: 19.4 s
/// wall, 10.8 s of it in the kernel, against 6.6 s). The weights are the
/// same bit for bit.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters; it is called
    // before this process allocates from another thread.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, i32::MAX);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

fn main() -> ExitCode {
    keep_freed_memory();
    let a = Args::parse();
    match run(&a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(a: &Args) -> Result<(), String> {
    let rule: tengen::Rule = a.rule.parse().map_err(|e| format!("--rule: {e}"))?;
    if a.epochs == 0
        || a.batch == 0
        || a.lr.is_nan()
        || a.lr <= 0.0
        || a.lr_end.is_nan()
        || a.lr_end <= 0.0
        || !(0.0..=1.0).contains(&a.lambda)
    {
        return Err(
            "--epochs and --batch at least 1, --lr and --lr-end above 0, --lambda 0 to 1".into(),
        );
    }
    let replay = a
        .replay
        .iter()
        .map(|r| {
            r.parse::<tengen::Rule>()
                .map_err(|e| format!("--replay: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let start = Instant::now();
    let mut games = Vec::new();
    for path in &a.data {
        let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let (g, cut) = read_complete_games(&mut std::io::BufReader::new(f))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(at) = cut {
            eprintln!("{}: a cut game at byte {at} left out", path.display());
        }
        games.extend(g);
    }
    for g in games.iter_mut().filter(|g| replay.contains(&g.rule)) {
        g.rule = rule;
    }
    let (train, validation) = build_datasets(&games, rule, a.validation, a.lines);
    if train.is_empty() {
        return Err(format!("no {rule} positions in the data"));
    }
    let k = a.k.unwrap_or_else(|| fit_k(&train));
    eprintln!(
        "{} games: {} training and {} validation positions ({rule}), K {k:.1}, read in {:.1} s",
        games.len(),
        train.len(),
        validation.len(),
        start.elapsed().as_secs_f64()
    );
    let cfg = FitConfig {
        rule,
        epochs: a.epochs,
        batch: a.batch,
        lr: a.lr,
        lr_end: a.lr_end,
        lambda: a.lambda,
        k: Some(k),
        seed: a.seed,
    };
    let model = Model::new(rule, a.seed, train.features).map_err(|e| e.to_string())?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let data = a
        .data
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let tty = std::io::stderr().is_terminal();
    let mut first = None;
    let mut last = (0.0, 0.0);
    let t0 = Instant::now();
    let mut last_print = Instant::now();
    let report = |p: &Progress| {
        if let Some(v) = p.validation {
            if p.epoch == 0 {
                first = Some((p.train, v));
            }
            last = (p.train, v);
            eprintln!(
                "{}epoch {}: train {:.5}, validation {v:.5} ({:.0} s)",
                if tty { "\r" } else { "" },
                p.epoch,
                p.train,
                t0.elapsed().as_secs_f64()
            );
        } else if tty && last_print.elapsed().as_millis() >= 200 {
            last_print = Instant::now();
            eprint!(
                "\repoch {}: batch {}/{}, train {:.5}",
                p.epoch, p.batch, p.batches, p.train
            );
        }
    };
    let out = &a.out;
    let notes = |epoch: usize| -> Vec<String> {
        vec![
            format!(
                "data: {data} ({} games; {} training, {} validation positions)",
                games.len(),
                train.len(),
                validation.len()
            ),
            format!("command: {command}"),
            format!(
                "fit: epoch {epoch} of {} (the best), K {k:.1}, lambda {}, lr {} to {}, batch {}, seed {}",
                a.epochs, a.lambda, a.lr, a.lr_end, a.batch, a.seed
            ),
            format!("date: {}", tengen::learn::today()),
        ]
    };
    // The board sizes of its games: the engine uses it on those alone.
    let sides = games
        .iter()
        .filter(|g| g.rule == rule)
        .flat_map(|g| [g.width, g.height]);
    let boards = (sides.clone().min().unwrap_or(15), sides.max().unwrap_or(15));
    // Games of one square board: the file names it (`trained`), so that
    // a network widened to other boards by hand (its `boards` line) is
    // shifted to see their centres as it saw this board's.
    let square = games
        .iter()
        .filter(|g| g.rule == rule)
        .all(|g| g.width == g.height);
    let trained = (square && boards.0 == boards.1).then_some(boards.0);
    let checkpoint = |m: &Model, epoch: usize| -> tengen_train::Result<()> {
        let mut net = quantise(m, notes(epoch))?;
        net.boards = boards;
        net.set_trained(trained);
        let tmp = out.with_extension("tmp");
        std::fs::File::create(&tmp)
            .and_then(|mut f| f.write_all(net.to_text().as_bytes()))
            .and_then(|_| std::fs::rename(&tmp, out))
            .map_err(|e| candle_core::Error::Msg(format!("{}: {e}", out.display())))
    };
    fit(&model, &train, &validation, &cfg, k, report, checkpoint).map_err(|e| e.to_string())?;
    let (t0l, v0) = first.unwrap_or_default();
    println!(
        "train {t0l:.5} -> {:.5}, validation {v0:.5} -> {:.5}; wrote {}",
        last.0,
        last.1,
        a.out.display()
    );
    Ok(())
}
