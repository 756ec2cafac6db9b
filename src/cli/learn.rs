//! The learning tools: `selfplay` (games for fitting), `label` (the move a
//! wider search picks, for the move ordering) and `tune` (fits the
//! evaluation or, with --policy, the move-ordering tables).

use super::progress::{MinMax, Progress};
use super::{fail, read_game_files, Setup};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use tengen::eval::weights::Weights;
use tengen::learn::opengen::{generate, CentreView, OpengenConfig, Playout};
use tengen::learn::policy::{
    fit, flatten, label_games, unflatten, Label, LabelConfig, PolicyConfig, PolicySet,
};
use tengen::learn::selfplay::{run, SelfplayConfig};
use tengen::learn::tune::{build_datasets, tune, TuneConfig};
use tengen::search::ordering::handset_tables;
use tengen::search::params::Params;
use tengen::tournament::setup::{load_books, parse_playable_opening, parse_shard};
use tengen::Rule;

#[derive(Args)]
pub struct SelfplayArgs {
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
    /// Stones in a random opening, MIN-MAX (default 2-7, or 0-2 added to a
    /// book opening).
    #[arg(long)]
    opening_stones: Option<MinMax<usize>>,
    /// Keep an opening when a short search scores it within this.
    #[arg(long, default_value_t = 150)]
    balance: i32,
    /// Start each game from an opening of this book (a random draw, one a
    /// game) plus --opening-stones random stones (then 0-2 by default).
    /// Given more than once, the books are mixed: one opening from each in
    /// turn.
    #[arg(long)]
    openings: Vec<PathBuf>,
    /// Play only part K of N of the run (games K, K+N, K+2N, ... counting
    /// from 1): the shards of a run together hold each of its games once.
    #[arg(long)]
    shard: Option<String>,
    /// Continue the file --out names if it exists (a stopped run, same
    /// command): its complete games are kept, a game cut short is dropped
    /// and the run goes on from there, so the file ends as one
    /// uninterrupted run would have written it.
    #[arg(long)]
    resume: bool,
}

#[derive(Args)]
pub struct OpengenArgs {
    /// Write the openings to this file (one a line, with the command that
    /// made them as a comment first).
    #[arg(long)]
    out: PathBuf,
    /// Number of openings.
    #[arg(long, default_value_t = 100)]
    count: usize,
    /// freestyle, standard, renju, caro or caro-exact.
    #[arg(long, default_value = "freestyle")]
    rule: String,
    /// Board size (5 to 22).
    #[arg(long, default_value_t = 15)]
    size: usize,
    /// pos (h8i9h9) or offset (0,0, 1,1, 0,1 from the centre).
    #[arg(long, default_value = "pos")]
    format: String,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Searches run at once.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Stones in an opening, MIN-MAX.
    #[arg(long, default_value = "3-8")]
    stones: MinMax<usize>,
    /// Half-width of the square around the centre the stones fall in,
    /// MIN-MAX.
    #[arg(long, default_value = "2-4")]
    area: MinMax<usize>,
    /// Kept when both searches score it within this of the centre.
    #[arg(long, default_value_t = 80)]
    balance: i32,
    /// The score the window is centred on, from the view --centre-view
    /// names (below 0 from black's for renju, where tengen's scores
    /// underrate black; from the mover's for a book whose lean is the move
    /// in hand).
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    centre: i32,
    /// Whose view --centre is from: black or mover (the side to move after
    /// the opening).
    #[arg(long, default_value = "black")]
    centre_view: String,
    /// Depths of the quick and the deep check, QUICK-DEEP.
    #[arg(long, default_value = "4-8")]
    depths: MinMax<i32>,
    /// Nodes of the solver's check for a win by threats, for each side.
    #[arg(long, default_value_t = 20_000)]
    solver_nodes: u64,
    /// Self-play check, GAMES:NODES: play that many games from each
    /// opening (NODES a move, the budgets varied from game to game) and
    /// drop it when one colour wins them all.
    #[arg(long)]
    playout: Option<String>,
}

#[derive(Args)]
pub struct LabelArgs {
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
    /// Go on with the file `--out`, written by a stopped run of the same
    /// command: its positions are kept and the rest labelled after them.
    #[arg(long)]
    resume: bool,
}

#[derive(Args)]
pub struct TuneArgs {
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

pub fn run_selfplay(a: SelfplayArgs, setup: Setup) -> ExitCode {
    let rule = match super::rule(&a.rule) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let opening_stones = a
        .opening_stones
        .unwrap_or(if !a.openings.is_empty() {
            MinMax(0, 2)
        } else {
            MinMax(2, 7)
        })
        .pair();
    let shard = match a.shard.as_deref().map(parse_shard).transpose() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut book = Vec::new();
    if !a.openings.is_empty() {
        let b = match load_books(&a.openings, a.size, rule) {
            Ok(b) => b,
            Err(e) => return fail(e),
        };
        if let Some((n, why)) = &b.skipped {
            log::warn!("{n} openings of the books skipped ({why})");
        }
        for line in &b.openings {
            match parse_playable_opening(line, a.size, rule) {
                Ok(moves) => book.push(moves),
                Err(e) => return fail(e),
            }
        }
    }
    let mut cfg = SelfplayConfig {
        rule,
        size: a.size,
        games: a.games,
        nodes: a.nodes,
        threads: a.threads,
        seed: a.seed,
        opening_stones,
        balance: a.balance,
        params: setup.params.for_game(rule, a.size),
        eval: setup.eval,
        book,
        shard,
        ..SelfplayConfig::default()
    };
    let file = if a.resume && std::fs::metadata(&a.out).is_ok_and(|m| m.len() > 0) {
        match resume_file(&a.out, &cfg) {
            Ok((f, done)) => {
                cfg.done = done;
                f
            }
            Err(e) => return fail(e),
        }
    } else {
        match std::fs::File::create(&a.out) {
            Ok(f) => f,
            Err(e) => return fail(format!("cannot write {}: {e}", a.out.display())),
        }
    };
    if let Err(e) = cfg.check() {
        return fail(e);
    }
    let total = cfg.games_here() - cfg.done;
    let mut out = std::io::BufWriter::new(file);
    let start = Instant::now();
    let mut bar = Progress::new("selfplay", total as u64, "games");
    let r = run(&cfg, &mut out, |done, positions| {
        let secs = start.elapsed().as_secs_f64().max(1e-3);
        bar.set(
            done as u64,
            format!("{positions} positions, {:.1} games/s", done as f64 / secs),
        );
    });
    bar.finish();
    match r {
        Ok(s) => {
            let kept = if cfg.done > 0 {
                format!(" (after {} kept)", cfg.done)
            } else {
                String::new()
            };
            outln!(
                "{} games{kept}, {} positions: black won {}, white won {}, {} draws, in {:.1} s -> {}",
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

/// Opens a stopped run's file to go on with it: checks that its games
/// are of the run's rule and board, cuts a game that was cut short, and
/// returns the file (positioned at its end) and its number of games.
fn resume_file(path: &Path, cfg: &SelfplayConfig) -> Result<(std::fs::File, usize), String> {
    use std::io::{Seek, SeekFrom};
    let what = |e: std::io::Error| format!("--resume {}: {e}", path.display());
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(what)?;
    let (games, cut) = tengen::learn::data::read_complete_games(&mut f).map_err(what)?;
    if let Some(g) = games
        .iter()
        .find(|g| g.rule != cfg.rule || g.width != cfg.size || g.height != cfg.size)
    {
        return Err(format!(
            "--resume {}: it holds {} games on {}x{}, not {} on {}x{}",
            path.display(),
            g.rule.name(),
            g.width,
            g.height,
            cfg.rule.name(),
            cfg.size,
            cfg.size
        ));
    }
    if let Some(at) = cut {
        log::warn!(
            "{}: game {} was cut short at byte {at}; it is played again",
            path.display(),
            games.len() + 1
        );
        f.set_len(at as u64).map_err(what)?;
    }
    f.seek(SeekFrom::End(0)).map_err(what)?;
    log::info!("{}: {} games kept, resuming", path.display(), games.len());
    Ok((f, games.len()))
}

pub fn run_opengen(a: OpengenArgs, setup: Setup) -> ExitCode {
    let rule = match super::rule(&a.rule) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let offsets = match a.format.as_str() {
        "pos" => false,
        "offset" => true,
        f => return fail(format!("--format {f}: expected pos or offset")),
    };
    let Some(centre_view) = CentreView::parse(&a.centre_view) else {
        return fail(format!(
            "--centre-view {}: expected black or mover",
            a.centre_view
        ));
    };
    let (stones, area, depths) = (a.stones.pair(), a.area.pair(), a.depths.pair());
    let playout = match a.playout.as_deref().map(|s| {
        s.split_once(':')
            .and_then(|(g, n)| Some((g.trim().parse().ok()?, n.trim().parse().ok()?)))
    }) {
        None => None,
        Some(Some((games, nodes))) => Some(Playout { games, nodes }),
        Some(None) => return fail("--playout is GAMES:NODES"),
    };
    let cfg = OpengenConfig {
        rule,
        size: a.size,
        count: a.count,
        seed: a.seed,
        threads: a.threads,
        stones,
        area,
        balance: a.balance,
        centre: a.centre,
        centre_view,
        depths,
        solver_nodes: a.solver_nodes,
        playout,
        params: setup.params.for_game(rule, a.size),
        eval: setup.eval,
    };
    if let Err(e) = cfg.check() {
        return fail(e);
    }
    let start = Instant::now();
    let mut bar = Progress::new("opengen", cfg.count as u64, "openings");
    let openings = generate(&cfg, |done, _| {
        bar.set(
            done as u64,
            format!("{:.0} s", start.elapsed().as_secs_f64()),
        );
    });
    bar.finish();
    let args: Vec<String> = std::env::args().collect();
    let mut text = format!(
        "# made by: {}\n# {} {rule} openings, {}x{}, balanced within {} of {} ({} view) at depths {} and {}, no win by threats in {} solver nodes{}\n",
        args.join(" "),
        openings.len(),
        a.size,
        a.size,
        a.balance,
        a.centre,
        centre_view.name(),
        depths.0,
        depths.1,
        a.solver_nodes,
        playout.map_or(String::new(), |p| format!(
            ", not won by one colour in every one of {} self-play games at about {} nodes a move",
            p.games, p.nodes
        ))
    );
    for o in &openings {
        text.push_str(&if offsets {
            o.to_offsets(a.size)
        } else {
            o.to_pos()
        });
        text.push('\n');
    }
    if let Err(e) = std::fs::write(&a.out, text) {
        return fail(format!("cannot write {}: {e}", a.out.display()));
    }
    outln!(
        "{} openings in {:.1} s -> {}",
        openings.len(),
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    if openings.len() < a.count {
        return fail(format!(
            "only {} of {} openings: the settings rarely give a balanced one",
            openings.len(),
            a.count
        ));
    }
    ExitCode::SUCCESS
}

/// The first line of a labels file: what made it (a resumed run must be
/// the same command).
fn label_header(a: &LabelArgs) -> String {
    let data: Vec<String> = a.data.iter().map(|p| p.display().to_string()).collect();
    format!(
        "# tengen labels: --every {} --offset {} --nodes {} --data {}",
        a.every,
        a.offset,
        a.nodes,
        data.join(" ")
    )
}

/// A line for a position that got no label (a threat to answer): every
/// position has one line, so a resumed run knows where to go on.
const NO_LABEL: &str = "# no label";

/// How many positions a labels file already holds, checking that it was
/// written by this command; a last line cut off by a stop is dropped.
fn labels_done(path: &Path, header: &str) -> Result<(usize, u64), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let whole = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    let mut lines = whole.lines();
    if lines.next() != Some(header) {
        return Err(format!(
            "{}: not written by this command (its first line should be '{header}')",
            path.display()
        ));
    }
    Ok((lines.count(), whole.len() as u64))
}

pub fn run_label(a: LabelArgs, setup: Setup) -> ExitCode {
    if a.every == 0 || a.offset >= a.every || a.nodes == 0 || a.threads == 0 {
        return fail("--every, --nodes and --threads must be positive, --offset below --every");
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
        params: setup.params,
        eval: setup.eval,
    };
    let header = label_header(&a);
    let (skip, keep) = if a.resume && a.out.exists() {
        match labels_done(&a.out, &header) {
            Ok(d) => d,
            Err(e) => return fail(e),
        }
    } else {
        (0, 0)
    };
    let total = tengen::learn::policy::label_jobs(&games, &cfg).len();
    if skip > total {
        return fail(format!(
            "{}: {skip} positions, more than the {total} of this command",
            a.out.display()
        ));
    }
    // A resumed file loses only a last line cut off by the stop.
    let opened = if keep > 0 {
        std::fs::OpenOptions::new()
            .append(true)
            .open(&a.out)
            .and_then(|f| f.set_len(keep).map(|_| f))
    } else {
        std::fs::File::create(&a.out).and_then(|mut f| writeln!(f, "{header}").map(|_| f))
    };
    let mut file = match opened {
        Ok(f) => std::io::BufWriter::new(f),
        Err(e) => return fail(format!("cannot write {}: {e}", a.out.display())),
    };
    if skip > 0 {
        eprintln!(
            "label: {skip} of {total} positions already in {}",
            a.out.display()
        );
    }
    let start = Instant::now();
    let mut failed: Option<std::io::Error> = None;
    let labels = label_games(&games, &cfg, skip, |k, total, label| {
        // Each position's line is on disk once it is handed on: a stop
        // loses only the positions under search.
        let line = label
            .map(|l| l.to_line())
            .unwrap_or_else(|| NO_LABEL.into());
        if failed.is_none() {
            failed = writeln!(file, "{line}").and_then(|_| file.flush()).err();
        }
        let done = k + 1;
        if done % 1000 == 0 || done == total {
            eprintln!(
                "label: {done}/{total} positions, {:.0} s",
                start.elapsed().as_secs_f64()
            );
        }
    });
    if let Some(e) = failed {
        return fail(format!("cannot write {}: {e}", a.out.display()));
    }
    outln!(
        "{} games, {} positions labelled in {:.1} s -> {}",
        games.len(),
        labels.len(),
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    ExitCode::SUCCESS
}

/// `tune --policy`: fits the move-ordering tables of `start` to labels.
fn run_tune_policy(a: &TuneArgs, rule: Rule, start: Weights, params: &Params) -> ExitCode {
    let (mut train, mut validation) = (PolicySet::default(), PolicySet::default());
    let mut n = 0usize;
    for path in &a.policy {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return fail(format!("{}: {e}", path.display())),
        };
        for (i, line) in text.lines().enumerate() {
            // The header and the positions that got no label.
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
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
        .unwrap_or_else(|| handset_tables(params, rule).map(Arc::from));
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
        outln!(
            "epoch {:3}  train loss {:.4} top1 {:.3} top8 {:.3}  validation loss {:.4} top1 {:.3} top8 {:.3}",
            t.epoch, t.loss, t.top1, t.top8, v.loss, v.top1, v.top8
        );
        first.get_or_insert((*t, *v));
        last = Some((*t, *v));
    });
    let (first, last) = (first.unwrap(), last.unwrap());
    let mut out = start;
    out.policy = Some(unflatten(&w, rule).map(Arc::from));
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
    outln!("wrote {}", a.out.display());
    ExitCode::SUCCESS
}

pub fn run_tune(a: TuneArgs, setup: Setup) -> ExitCode {
    let rule = match super::rule(&a.rule) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    if !(0.0..=1.0).contains(&a.lambda) || !(0.0..1.0).contains(&a.validation) {
        return fail("--lambda must be 0 to 1 and --validation 0 to below 1");
    }
    if a.k.is_some_and(|k| k <= 0.0)
        || a.lr.is_some_and(|x| x <= 0.0)
        || a.batch == Some(0)
        || a.reg.is_some_and(|x| x < 0.0)
    {
        return fail("--k, --lr and --batch must be positive");
    }
    let start = match &a.init {
        None => Weights::clone(setup.eval.weights(rule)),
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| Weights::parse(&t, Some(rule)).map_err(|e| e.to_string()))
        {
            Ok(w) => w,
            Err(e) => return fail(format!("{}: {e}", path.display())),
        },
    };
    if !a.policy.is_empty() {
        return run_tune_policy(&a, rule, start, &setup.params.for_game(rule, 15));
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
        outln!(
            "epoch {:3}  train loss {:.6}  validation loss {:.6}",
            e.epoch,
            e.train,
            e.validation
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
    outln!("K {:.1}; wrote {}", r.k, a.out.display());
    ExitCode::SUCCESS
}
